import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import yazl from 'yazl';
import { formatForm13fDate } from '../ingest/filings/filing-dates.js';
import { addDays, cusipWithCheckDigit, hashText, seededRandom } from './filings.js';
import { DOLLARS_FROM } from '../ingest/filings/value-unit.js';
import { FILING_DEADLINE_DAYS } from '../lib/quarters.js';
import { DAY_MS } from '../lib/time.js';

/**
 * Writes a full-size SEC Form 13F data set ZIP (SUBMISSION, COVERPAGE, SUMMARYPAGE, INFOTABLE
 * .tsv, in the SEC's column layout) for benchmarks: N filers with about 390 rows each on average,
 * skewed like the real thing (many small filers, a few with thousands of rows).
 *
 * Constant memory: rows are generated filer by filer and streamed through deflate into the ZIP;
 * only two numbers per filer (row count, value total, for SUMMARYPAGE) are kept.
 *
 * Quarters relate without any state passed between runs: every position of filer i is a "slot"
 * whose presence and share count are functions of (seed, filer, slot, quarter). A slot's presence
 * holds for blocks of 3 to 6 quarters, so between adjacent quarters most positions stay (about 8%
 * exit and 8% enter), and a quarter's share count is either the previous quarter's (unchanged,
 * one in four) or a new multiple of the slot's base size. Two data sets written with the same seed
 * for adjacent periods therefore give realistic new / added / trimmed / sold / unchanged trades.
 */
export interface Form13fDatasetOptions {
  /** Quarter end, YYYY-MM-DD. */
  period: string;
  /** First filing date (default: the day after the period); filings spread up to the 45-day deadline. */
  filedFrom?: string;
  filers: number;
  seed: number;
}

const AVERAGE_ROWS = 390;
const PRESENCE = 0.75;
const ISSUER_COUNT = 6_000;
/** INFOTABLE.tsv's columns, in the SEC's order (the DuckDB benchmark reads the same file). */
export const INFOTABLE_COLUMNS = [
  'ACCESSION_NUMBER',
  'INFOTABLE_SK',
  'NAMEOFISSUER',
  'TITLEOFCLASS',
  'CUSIP',
  'FIGI',
  'VALUE',
  'SSHPRNAMT',
  'SSHPRNAMTTYPE',
  'PUTCALL',
  'INVESTMENTDISCRETION',
  'OTHERMANAGER',
  'VOTING_AUTH_SOLE',
  'VOTING_AUTH_SHARED',
  'VOTING_AUTH_NONE',
];
/** SUBMISSION.tsv's columns, in the SEC's order. */
export const SUBMISSION_COLUMNS = ['ACCESSION_NUMBER', 'FILING_DATE', 'SUBMISSIONTYPE', 'CIK', 'PERIODOFREPORT'];
/** COVERPAGE.tsv's columns, in the SEC's order (the DuckDB benchmark reads the same file). */
export const COVERPAGE_COLUMNS = [
  'ACCESSION_NUMBER',
  'REPORTCALENDARORQUARTER',
  'ISAMENDMENT',
  'AMENDMENTNO',
  'AMENDMENTTYPE',
  'CONFDENIEDEXPIRED',
  'DATEDENIEDEXPIRED',
  'DATEREPORTED',
  'REASONFORNONCONFIDENTIALITY',
  'FILINGMANAGER_NAME',
  'FILINGMANAGER_STREET1',
  'FILINGMANAGER_STREET2',
  'FILINGMANAGER_CITY',
  'FILINGMANAGER_STATEORCOUNTRY',
  'FILINGMANAGER_ZIPCODE',
  'REPORTTYPE',
  'FORM13FFILENUMBER',
  'CRDNUMBER',
  'SECFILENUMBER',
  'PROVIDEINFOFORINSTRUCTION5',
  'ADDITIONALINFORMATION',
];
const SUMMARYPAGE_COLUMNS = [
  'ACCESSION_NUMBER',
  'OTHERINCLUDEDMANAGERSCOUNT',
  'TABLEENTRYTOTAL',
  'TABLEVALUETOTAL',
  'ISCONFIDENTIALOMITTED',
];

export async function writeForm13fDataset(outPath: string, options: Form13fDatasetOptions): Promise<{ rows: number }> {
  const { period, filers, seed } = options;
  const quarter = quarterIndex(period);
  const filedFrom = options.filedFrom ?? addDays(period, 1);
  const deadline = addDays(period, FILING_DEADLINE_DAYS);
  const issuers = new IssuerUniverse(seed);
  const rowCounts = new Int32Array(filers);
  const valueTotals = new Float64Array(filers);
  let totalRows = 0;

  const filing = (i: number) => {
    const random = seededRandom(mix(seed, i, quarter, 1));
    const window = Math.max(0, daysBetween(filedFrom, deadline));
    // Most filers file in the last two weeks before the deadline.
    const filedAt = addDays(filedFrom, window - Math.floor(random() ** 2 * window));
    const cik = String(1_000_000 + i * 97 + (mix(seed, i, 0, 2) % 90));
    const notice = mix(seed, i, 0, 3) % 100 < 3;
    return {
      accession: `${cik.padStart(10, '0')}-${filedAt.slice(2, 4)}-${String(100_000 + (mix(seed, i, quarter, 4) % 899_999)).padStart(6, '0')}`,
      cik,
      filedAt,
      notice,
      name: filerName(seed, i),
      thousands: filedAt < DOLLARS_FROM,
    };
  };

  async function* infotable(): AsyncGenerator<string> {
    yield `${INFOTABLE_COLUMNS.join('\t')}\n`;
    let sk = mix(seed, quarter, 0, 5) % 1_000_000;
    for (let i = 0; i < filers; i++) {
      const meta = filing(i);
      if (meta.notice) continue;
      const lines: string[] = [];
      let count = 0;
      let total = 0;
      for (const row of filerRows(seed, i, quarter, issuers)) {
        const value = meta.thousands ? Math.round(row.value / 1000) : row.value;
        count++;
        total += value;
        lines.push(
          [
            meta.accession,
            String(++sk),
            row.name,
            row.title,
            row.cusip,
            '',
            String(value),
            String(row.amount),
            row.prn ? 'PRN' : 'SH',
            row.putCall ?? '',
            'SOLE',
            '',
            String(row.putCall ? 0 : row.amount),
            '0',
            '0',
          ].join('\t'),
        );
      }
      rowCounts[i] = count;
      valueTotals[i] = total;
      totalRows += count;
      if (lines.length > 0) yield `${lines.join('\n')}\n`;
    }
  }

  async function* submission(): AsyncGenerator<string> {
    yield `${SUBMISSION_COLUMNS.join('\t')}\n`;
    for (let i = 0; i < filers; i++) {
      const meta = filing(i);
      yield `${[
        meta.accession,
        formatForm13fDate(meta.filedAt),
        meta.notice ? '13F-NT' : '13F-HR',
        meta.cik.padStart(10, '0'),
        formatForm13fDate(period),
      ].join('\t')}\n`;
    }
  }

  async function* coverpage(): AsyncGenerator<string> {
    yield `${COVERPAGE_COLUMNS.join('\t')}\n`;
    for (let i = 0; i < filers; i++) {
      const meta = filing(i);
      const fields = new Array<string>(COVERPAGE_COLUMNS.length).fill('');
      fields[0] = meta.accession;
      fields[1] = formatForm13fDate(period);
      fields[2] = 'N';
      fields[9] = meta.name;
      fields[10] = `${100 + (i % 900)} MAIN STREET`;
      fields[12] = 'NEW YORK';
      fields[13] = 'NY';
      fields[14] = '10001';
      fields[15] = meta.notice ? '13F NOTICE' : '13F HOLDINGS REPORT';
      fields[16] = `028-${String(10_000 + i).padStart(5, '0')}`;
      fields[19] = 'N';
      yield `${fields.join('\t')}\n`;
    }
  }

  async function* summarypage(): AsyncGenerator<string> {
    yield `${SUMMARYPAGE_COLUMNS.join('\t')}\n`;
    for (let i = 0; i < filers; i++) {
      const meta = filing(i);
      if (meta.notice) continue;
      yield `${[meta.accession, '0', String(rowCounts[i]), String(valueTotals[i]), 'N'].join('\t')}\n`;
    }
  }

  await mkdir(path.dirname(outPath), { recursive: true });
  const zip = new yazl.ZipFile();
  const folder = `${period.slice(0, 4)}q${Math.floor((Number(period.slice(5, 7)) - 1) / 3) + 1}_form13f`;
  // INFOTABLE first: SUMMARYPAGE's totals are counted while it streams (yazl reads members in order).
  zip.addReadStream(Readable.from(infotable()), `${folder}/INFOTABLE.tsv`, { mtime: new Date(`${deadline}T00:00:00Z`) });
  zip.addReadStream(Readable.from(submission()), `${folder}/SUBMISSION.tsv`, { mtime: new Date(`${deadline}T00:00:00Z`) });
  zip.addReadStream(Readable.from(coverpage()), `${folder}/COVERPAGE.tsv`, { mtime: new Date(`${deadline}T00:00:00Z`) });
  zip.addReadStream(Readable.from(summarypage()), `${folder}/SUMMARYPAGE.tsv`, { mtime: new Date(`${deadline}T00:00:00Z`) });
  zip.end();
  const output = createWriteStream(outPath);
  zip.outputStream.pipe(output);
  await finished(output);
  return { rows: totalRows };
}

interface GeneratedRow {
  name: string;
  title: string;
  cusip: string;
  amount: number;
  value: number;
  prn: boolean;
  putCall: 'Put' | 'Call' | null;
}

/** The rows filer i reports for a quarter; see the module comment for how quarters relate. */
function* filerRows(seed: number, filer: number, quarter: number, issuers: IssuerUniverse): Generator<GeneratedRow> {
  const random = seededRandom(mix(seed, filer, 0, 6));
  // Log-normal filer size with mean AVERAGE_ROWS: sigma 1.2 gives a long tail of large filers.
  const sigma = 1.2;
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const size = Math.min(20_000, Math.max(1, Math.round(Math.exp(Math.log(AVERAGE_ROWS) - (sigma * sigma) / 2 + sigma * normal))));
  const slots = Math.max(1, Math.round(size / PRESENCE));
  let previousIssuer = 0;
  for (let slot = 0; slot < slots; slot++) {
    const slotRandom = seededRandom(mix(seed, filer, slot, 7));
    const issuerIndex = Math.floor(ISSUER_COUNT * slotRandom() ** 3);
    const kindRoll = slotRandom();
    const blockLength = 3 + Math.floor(slotRandom() * 4);
    const phase = Math.floor(slotRandom() * blockLength);
    const baseAmount = 100 * Math.round(1 + slotRandom() * slotRandom() * 2_000);
    const isOption = kindRoll < 0.03 && slot > 0;
    const isPrn = !isOption && kindRoll > 0.985;
    const resolvedIndex = isOption ? previousIssuer : issuerIndex;
    const issuer = issuers.get(resolvedIndex);
    if (!isOption) previousIssuer = issuerIndex;
    const block = Math.floor((quarter + phase) / blockLength);
    if (unit(mix(seed, filer, slot, 8 + block * 16)) >= PRESENCE) continue;
    const amount = isPrn ? baseAmount * 1_000 : baseAmount * sharesMultiple(seed, filer, slot, quarter);
    const price = isPrn ? 1.01 : issuer.price * (0.8 + 0.4 * unit(mix(seed, resolvedIndex, quarter, 9)));
    yield {
      name: issuer.name,
      title: isPrn ? 'NOTE 2.500% 6/1' : 'COM',
      cusip: isPrn ? issuer.noteCusip : issuer.cusip,
      amount,
      value: Math.round(amount * price),
      prn: isPrn,
      putCall: isOption ? (kindRoll < 0.015 ? 'Put' : 'Call') : null,
    };
  }
}

/** One quarter in four keeps the previous quarter's count (an unchanged position). */
function sharesMultiple(seed: number, filer: number, slot: number, quarter: number): number {
  let q = quarter;
  for (let back = 0; back < 24 && unit(mix(seed, filer, slot, 10 + q * 16)) < 0.25; back++) q--;
  return 1 + Math.floor(unit(mix(seed, filer, slot, 11 + q * 16)) * 20);
}

class IssuerUniverse {
  private readonly issuers: { name: string; cusip: string; noteCusip: string; price: number }[] = [];
  constructor(private readonly seed: number) {}

  get(index: number) {
    let issuer = this.issuers[index];
    if (!issuer) {
      const random = seededRandom(mix(this.seed, index, 0, 12));
      const syllables = [
        'AR',
        'BEL',
        'COR',
        'DEN',
        'EL',
        'FIN',
        'GAR',
        'HEL',
        'IN',
        'JOR',
        'KAL',
        'LUM',
        'MER',
        'NOR',
        'OR',
        'PAX',
        'QUA',
        'RO',
        'SOL',
        'TER',
        'UL',
        'VEN',
        'WEST',
        'XEN',
        'YOR',
        'ZEN',
      ];
      const word = () =>
        syllables[Math.floor(random() * syllables.length)]! + syllables[Math.floor(random() * syllables.length)]!.toLowerCase();
      const suffix = ['INC', 'CORP', 'HLDGS INC', 'CO', 'GROUP INC', 'TECHNOLOGIES INC', 'PLC'][Math.floor(random() * 7)]!;
      // Real issuer names carry the odd stray quote, which is why the TSVs are read with quote: false.
      const name = `${word().toUpperCase()}${index % 97 === 5 ? ' "NEW"' : ''} ${word().toUpperCase()} ${suffix}`;
      const base = String(index)
        .padStart(6, '0')
        .replace(/^0/, String.fromCharCode(65 + (index % 26)));
      issuer = {
        name,
        cusip: cusipWithCheckDigit(`${base}10`),
        noteCusip: cusipWithCheckDigit(`${base}AB`),
        price: Math.round(Math.exp(Math.log(60) + 0.9 * (random() + random() + random() - 1.5) * 2) * 100) / 100,
      };
      this.issuers[index] = issuer;
    }
    return issuer;
  }
}

function filerName(seed: number, i: number): string {
  const random = seededRandom(mix(seed, i, 0, 13));
  const first = [
    'ALDER',
    'BIRCH',
    'CEDAR',
    'DOGWOOD',
    'ELM',
    'FIR',
    'HAZEL',
    'JUNIPER',
    'LARCH',
    'MAPLE',
    'OAK',
    'PINE',
    'ROWAN',
    'SPRUCE',
    'WILLOW',
    'YEW',
  ];
  const second = ['RIDGE', 'HARBOR', 'CREEK', 'SUMMIT', 'VALLEY', 'POINT', 'BRIDGE', 'FIELD', 'STONE', 'HILL'];
  const kind = [
    'CAPITAL MANAGEMENT LLC',
    'ADVISORS LLC',
    'PARTNERS LP',
    'ASSET MANAGEMENT INC',
    'WEALTH MANAGEMENT LLC',
    'INVESTMENT COUNSEL INC',
  ];
  return `${first[Math.floor(random() * first.length)]} ${second[Math.floor(random() * second.length)]} ${kind[Math.floor(random() * kind.length)]} ${i + 1}`;
}

function quarterIndex(period: string): number {
  return Number(period.slice(0, 4)) * 4 + Math.floor((Number(period.slice(5, 7)) - 1) / 3);
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

function mix(seed: number, a: number, b: number, c: number): number {
  return hashText(`${seed}:${a}:${b}:${c}`);
}

function unit(hash: number): number {
  return hash / 4294967296;
}
