import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { reportQuarters } from '../lib/quarters.js';
import { cusipCheckDigit } from '../model/security-identifiers.js';
import { escapeXml } from '../lib/escape-xml.js';

/**
 * `pdsnap sample` filings: a realistic `filings/` source tree in the real EDGAR layouts, dated
 * relative to `now` and byte-identical for the same `now` (seeded PRNG, no Math.random, no clock).
 *
 * About thirty invented managers file for the two latest quarters whose 45-day filing deadline has
 * passed: folders `edgar/<cik>/<accession>/{primary_doc.xml, infotable.xml}` (some information
 * tables with an `ns1:` prefix and a leading blank line, as real ones have), two full submissions
 * `edgar/<cik>/<accession>.txt`, a RESTATEMENT and a NEW HOLDINGS amendment, a 13F-NT, option rows
 * next to the equity row of the same CUSIP, PRN (convertible note) rows, and positions that are
 * new, added, trimmed, sold or unchanged between the quarters. Issuer names are those of large US
 * issuers; their CUSIPs are made up (with a correct check digit) and never published.
 */

export async function writeSampleFilings(sourcesRoot: string, now: Date): Promise<void> {
  const filingsDir = path.join(sourcesRoot, 'filings');
  for (const filing of planSampleFilings(now, MANAGERS)) await writeFiling(filingsDir, filing);
  const registry: string[] = ['# Tracked investors: CIK, slug, display name and category.', 'investors:'];
  for (const [index, manager] of MANAGERS.entries()) {
    if (index % 11 === 10) continue;
    registry.push(
      `  - cik: "${manager.cik}"`,
      `    slug: ${manager.slug}`,
      `    name: ${manager.displayName}`,
      `    category: ${manager.category}`,
    );
  }
  await mkdir(filingsDir, { recursive: true });
  await writeFile(path.join(filingsDir, 'investors.yaml'), `${registry.join('\n')}\n`);
}

/** One filing as EDGAR disseminates it: what a local server standing in for EDGAR serves (tests, the fetch benchmark). */
export interface SampleSubmission {
  cik: string;
  accession: string;
  /** YYYY-MM-DD */
  filedAt: string;
  /** 13F-HR, 13F-HR/A, 13F-NT or 13F-NT/A */
  formType: string;
  companyName: string;
  /** The full submission (`<cik>/<accession>.txt`): SGML header and the cover page and information table documents. */
  text: string;
}

/**
 * Every filing of the sample at `now` as a full submission, whichever layout `pdsnap sample` writes
 * it in. `managers` (default 28, the sample's own) may take fewer, or add made-up managers (filing
 * for both quarters, none in investors.yaml) so that a server can list hundreds of filings; the
 * first 28 file exactly what the sample does.
 */
export function sampleFullSubmissions(now: Date, options: { managers?: number } = {}): SampleSubmission[] {
  const count = options.managers ?? MANAGERS.length;
  const managers = MANAGERS.slice(0, count);
  for (let index = managers.length; index < count; index++) managers.push(madeUpManager(index));
  return planSampleFilings(now, managers).map((filing) => {
    const cover = coverPageXml(filing);
    return {
      cik: filing.manager.cik,
      accession: filing.accession,
      filedAt: filing.filedAt,
      formType: submissionTypeOf(filing),
      companyName: filing.manager.filerName,
      text: fullSubmissionText(filing, cover, filing.kind === 'report' ? informationTableXml(filing.rows, null, false) : null),
    };
  });
}

/** What each manager files for the two report quarters at `now`, in the order the sample writes it. */
function planSampleFilings(now: Date, managers: readonly Manager[]): FilingToWrite[] {
  const [previousPeriod, latestPeriod] = reportQuarters(now);
  const random = seededRandom(hashText(`filings:${latestPeriod}`));
  const sequence = new Map<string, number>();
  const nextAccession = (cik: string, filedAt: string): string => {
    const count = (sequence.get(cik) ?? 0) + 1;
    sequence.set(cik, count);
    return `${cik.padStart(10, '0')}-${filedAt.slice(2, 4)}-${String(count * 37 + 100).padStart(6, '0')}`;
  };
  const lastAllowed = isoDay(now);
  const filings: FilingToWrite[] = [];

  for (const [index, manager] of managers.entries()) {
    const previous = startingPortfolio(random, manager);
    const latest = evolvePortfolio(random, previous, manager);
    for (const [period, positions] of [
      [previousPeriod, previous],
      [latestPeriod, latest],
    ] as const) {
      const filedAt = minDate(addDays(period, 20 + Math.floor(random() * 25)), lastAllowed);
      const rows = priceRows(positions, period);
      const kind: FilingKind = manager.notice ? 'notice' : 'report';
      const accession = nextAccession(manager.cik, filedAt);
      const format = index % 13 === 4 ? 'full-submission' : 'folder';
      filings.push({ manager, period, filedAt, accession, rows, kind, amendment: null, format, index });

      if (period === latestPeriod && index === 2) {
        // A RESTATEMENT: the whole table again, with two share counts corrected.
        const restated = rows.map((row, i) =>
          i < 2 ? { ...row, shares: row.shares + 1000, value: row.value + Math.round((1000 * row.value) / Math.max(row.shares, 1)) } : row,
        );
        const amendedAt = minDate(addDays(filedAt, 3), lastAllowed);
        filings.push({
          manager,
          period,
          filedAt: amendedAt,
          accession: nextAccession(manager.cik, amendedAt),
          rows: restated,
          kind,
          amendment: 'RESTATEMENT',
          format: 'folder',
          index,
        });
      }
      if (period === latestPeriod && index === 5) {
        // A NEW HOLDINGS amendment: positions that were left out of the original filing.
        const extra = priceRows(
          [
            { issuer: ISSUERS[ISSUERS.length - 1]!, shares: 125_000, putCall: null, prn: false },
            { issuer: ISSUERS[ISSUERS.length - 2]!, shares: 40_000, putCall: null, prn: false },
          ],
          period,
        );
        const amendedAt = minDate(addDays(filedAt, 5), lastAllowed);
        filings.push({
          manager,
          period,
          filedAt: amendedAt,
          accession: nextAccession(manager.cik, amendedAt),
          rows: extra,
          kind,
          amendment: 'NEW HOLDINGS',
          format: 'folder',
          index,
        });
      }
    }
  }
  return filings;
}

// ---------------------------------------------------------------------------------------------
// Issuers, managers and portfolios

interface Issuer {
  name: string;
  title: string;
  cusip: string;
  price: number;
  /** Principal instrument (convertible note) of the same issuer, for PRN rows. */
  note?: { title: string; cusip: string };
}

const ISSUER_NAMES: [string, number][] = [
  ['APPLE INC', 228],
  ['MICROSOFT CORP', 431],
  ['NVIDIA CORPORATION', 121],
  ['AMAZON COM INC', 187],
  ['ALPHABET INC', 165],
  ['META PLATFORMS INC', 571],
  ['BERKSHIRE HATHAWAY INC DEL', 460],
  ['ELI LILLY & CO', 885],
  ['BROADCOM INC', 172],
  ['JPMORGAN CHASE & CO.', 210],
  ['TESLA INC', 261],
  ['UNITEDHEALTH GROUP INC', 584],
  ['EXXON MOBIL CORP', 117],
  ['VISA INC', 275],
  ['MASTERCARD INCORPORATED', 493],
  ['PROCTER AND GAMBLE CO', 173],
  ['JOHNSON & JOHNSON', 162],
  ['HOME DEPOT INC', 405],
  ['COSTCO WHSL CORP NEW', 886],
  ['ABBVIE INC', 197],
  ['WALMART INC', 81],
  ['NETFLIX INC', 709],
  ['MERCK & CO INC', 99],
  ['BANK AMERICA CORP', 40],
  ['CHEVRON CORP NEW', 147],
  ['COCA COLA CO', 72],
  ['ORACLE CORP', 170],
  ['ADOBE INC', 517],
  ['PEPSICO INC', 170],
  ['SALESFORCE INC', 274],
  ['ADVANCED MICRO DEVICES INC', 164],
  ['THERMO FISHER SCIENTIFIC INC', 619],
  ['CISCO SYS INC', 53],
  ['ACCENTURE PLC IRELAND', 345],
  ['MCDONALDS CORP', 304],
  ['LINDE PLC', 477],
  ['ABBOTT LABS', 114],
  ['WELLS FARGO CO NEW', 56],
  ['DANAHER CORPORATION', 278],
  ['INTUIT', 657],
  ['QUALCOMM INC', 170],
  ['TEXAS INSTRS INC', 206],
  ['VERIZON COMMUNICATIONS INC', 45],
  ['GENERAL ELECTRIC CO', 189],
  ['CATERPILLAR INC', 391],
  ['INTERNATIONAL BUSINESS MACHS', 221],
  ['AMGEN INC', 322],
  ['PFIZER INC', 29],
  ['UNION PAC CORP', 246],
  ['NEXTERA ENERGY INC', 84],
  ['GOLDMAN SACHS GROUP INC', 495],
  ['HONEYWELL INTL INC', 206],
  ['SERVICENOW INC', 894],
  ['BOOKING HOLDINGS INC', 4212],
  ['LOWES COS INC', 270],
  ['UBER TECHNOLOGIES INC', 72],
  ['MORGAN STANLEY', 104],
  ['S&P GLOBAL INC', 516],
  ['BLACKROCK INC', 949],
  ['AUTOZONE INC', 3150],
];

const ISSUERS: Issuer[] = buildIssuers();

function buildIssuers(): Issuer[] {
  const random = seededRandom(20260930);
  return ISSUER_NAMES.map(([name, price], index) => {
    // A made-up 6-character issuer number, unique per issuer, then the issue number and check digit.
    const issuerNumber = String(100_000 + index * 13_577 + Math.floor(random() * 97))
      .slice(-6)
      .padStart(6, '0');
    const issuer: Issuer = { name, title: index === 4 ? 'CAP STK CL A' : 'COM', cusip: cusipWithCheckDigit(`${issuerNumber}10`), price };
    if (index % 9 === 3)
      issuer.note = { title: `NOTE ${(0.5 + (index % 4) * 0.625).toFixed(3)}% 3/1`, cusip: cusipWithCheckDigit(`${issuerNumber}AB`) };
    return issuer;
  });
}

type Category = 'hedge-fund' | 'pension' | 'asset-manager' | 'endowment' | 'family-office';

interface Manager {
  cik: string;
  filerName: string;
  displayName: string;
  slug: string;
  category: Category;
  size: number;
  street: string;
  city: string;
  state: string;
  zip: string;
  /** Files a 13F-NT: its holdings are reported by another manager. */
  notice?: boolean;
}

const MANAGER_SEEDS: [string, Category, number, string, string][] = [
  ['Harborview Capital Management LLC', 'hedge-fund', 38, 'Greenwich', 'CT'],
  ['Granite Peak Partners LP', 'hedge-fund', 24, 'New York', 'NY'],
  ['Lakeshore Teachers Retirement System', 'pension', 58, 'Chicago', 'IL'],
  ['Meridian Ridge Advisors LLC', 'asset-manager', 45, 'Boston', 'MA'],
  ['Tamarack Hill Endowment Fund', 'endowment', 22, 'New Haven', 'CT'],
  ['Copperline Investment Group LLC', 'asset-manager', 52, 'Denver', 'CO'],
  ['Whitcombe Family Office LLC', 'family-office', 14, 'Palm Beach', 'FL'],
  ['Bluewater Quantitative Strategies LP', 'hedge-fund', 60, 'Stamford', 'CT'],
  ['State Employees Pension Plan of Norland', 'pension', 55, 'Sacramento', 'CA'],
  ['Silver Fern Asset Management Inc', 'asset-manager', 40, 'San Francisco', 'CA'],
  ['Oakmont University Investment Office', 'endowment', 30, 'Princeton', 'NJ'],
  ['Redcliff Opportunity Fund LP', 'hedge-fund', 18, 'Miami', 'FL'],
  ['Pinecrest Wealth Partners LLC', 'family-office', 26, 'Dallas', 'TX'],
  ['Northgate Municipal Employees Retirement Fund', 'pension', 50, 'Columbus', 'OH'],
  ['Atlas Crossing Capital LP', 'hedge-fund', 33, 'New York', 'NY'],
  ['Evergreen Shore Advisors LLC', 'asset-manager', 36, 'Seattle', 'WA'],
  ['Kestrel Point Management LP', 'hedge-fund', 20, 'Austin', 'TX'],
  ['Brightwater Foundation', 'endowment', 16, 'Minneapolis', 'MN'],
  ['Calloway & Finch Investment Counsel Inc', 'asset-manager', 48, 'Philadelphia', 'PA'],
  ['Sundial Family Holdings LLC', 'family-office', 12, 'Scottsdale', 'AZ'],
  ['Ironbridge Global Investors LP', 'hedge-fund', 42, 'Chicago', 'IL'],
  ['Firefighters Annuity and Benefit Fund of Eastport', 'pension', 35, 'Baltimore', 'MD'],
  ['Westmarch Capital Advisors LLC', 'asset-manager', 29, 'Charlotte', 'NC'],
  ['Solstice Bay Partners LP', 'hedge-fund', 27, 'Menlo Park', 'CA'],
  ['Rowan College Endowment Trust', 'endowment', 19, 'Ithaca', 'NY'],
  ['Hollis Street Wealth Management LLC', 'family-office', 15, 'Nashville', 'TN'],
  ['Cedar Knoll Asset Management LLC', 'asset-manager', 31, 'Atlanta', 'GA'],
  ['Vantage Hollow Advisers LLC', 'asset-manager', 0, 'Omaha', 'NE'],
];

const MANAGERS: Manager[] = MANAGER_SEEDS.map(([name, category, size, city, state], index) => {
  const upper = name.toUpperCase().replace(/&/g, '&');
  return {
    cik: String(1_523_000 + index * 4_817 + (index % 7) * 31),
    filerName: upper,
    displayName: name,
    slug: name
      .toLowerCase()
      .replace(/&/g, 'and')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, ''),
    category,
    size,
    street: `${100 + index * 17} ${['Main Street', 'Park Avenue', 'Market Street', 'Elm Street', 'Harbor Drive'][index % 5]}`,
    city,
    state,
    zip: String(10_001 + index * 2_311).padStart(5, '0'),
    notice: size === 0,
  };
});

/** A manager beyond the sample's own, for servers that list hundreds of filers: same shape, made-up name. */
function madeUpManager(index: number): Manager {
  const categories: Category[] = ['hedge-fund', 'pension', 'asset-manager', 'endowment', 'family-office'];
  const name = `Sample Manager ${String(index + 1).padStart(4, '0')} LLC`;
  return {
    cik: String(1_523_000 + index * 4_817 + (index % 7) * 31),
    filerName: name.toUpperCase(),
    displayName: name,
    slug: `sample-manager-${String(index + 1).padStart(4, '0')}-llc`,
    category: categories[index % categories.length]!,
    size: 10 + ((index * 7) % 40),
    street: `${100 + index * 17} Main Street`,
    city: 'New York',
    state: 'NY',
    zip: String(10_001 + (index % 900)).padStart(5, '0'),
  };
}

interface Holding {
  issuer: Issuer;
  shares: number;
  putCall: 'Put' | 'Call' | null;
  prn: boolean;
}

interface PricedRow {
  issuer: Issuer;
  shares: number;
  putCall: 'Put' | 'Call' | null;
  prn: boolean;
  value: number;
}

function startingPortfolio(random: () => number, manager: Manager): Holding[] {
  if (manager.notice) return [];
  const picks = shuffled(random, ISSUERS.length).slice(0, Math.min(manager.size, ISSUERS.length));
  const holdings: Holding[] = [];
  for (const pick of picks) {
    const issuer = ISSUERS[pick]!;
    const shares = roundShares(((5e5 + random() * 4e7) / issuer.price) * (manager.category === 'family-office' ? 0.05 : 1));
    holdings.push({ issuer, shares, putCall: null, prn: false });
    // Hedge funds hedge or lever a few names with listed options on the same CUSIP.
    if (manager.category === 'hedge-fund' && random() < 0.18) {
      holdings.push({ issuer, shares: roundShares(shares * (0.1 + random() * 0.4)), putCall: random() < 0.5 ? 'Put' : 'Call', prn: false });
    }
    if (issuer.note && (manager.category === 'asset-manager' || manager.category === 'pension') && random() < 0.5) {
      holdings.push({ issuer, shares: Math.round(1 + random() * 40) * 250_000, putCall: null, prn: true });
    }
  }
  return holdings;
}

/** Next quarter: most positions kept (some unchanged, some added to, some trimmed), some sold, some new. */
function evolvePortfolio(random: () => number, previous: Holding[], manager: Manager): Holding[] {
  if (manager.notice) return [];
  const next: Holding[] = [];
  for (const holding of previous) {
    const roll = random();
    if (roll < 0.1) continue; // sold
    if (roll < 0.35)
      next.push(holding); // unchanged
    else
      next.push({
        ...holding,
        shares: Math.max(1, roundShares(holding.shares * (roll < 0.7 ? 1.05 + random() * 0.6 : 0.4 + random() * 0.55))),
      });
  }
  const held = new Set(previous.map((holding) => holding.issuer.cusip));
  for (const pick of shuffled(random, ISSUERS.length)) {
    if (next.length >= previous.length + 3) break;
    const issuer = ISSUERS[pick]!;
    if (!held.has(issuer.cusip))
      next.push({ issuer, shares: roundShares((2e5 + random() * 1e7) / issuer.price), putCall: null, prn: false });
  }
  return next;
}

function priceRows(holdings: Holding[], period: string): PricedRow[] {
  const drift = 1 + ((hashText(period) % 200) - 100) / 1000;
  return holdings.map((holding) => {
    // Options are reported at the underlying's value; notes near par (principal amount * 1.02).
    const value = holding.prn ? Math.round(holding.shares * 1.02) : Math.round(holding.shares * holding.issuer.price * drift);
    return { ...holding, value };
  });
}

// ---------------------------------------------------------------------------------------------
// Writing the EDGAR layouts

type FilingKind = 'report' | 'notice';

interface FilingToWrite {
  manager: Manager;
  period: string;
  filedAt: string;
  accession: string;
  rows: PricedRow[];
  kind: FilingKind;
  amendment: 'RESTATEMENT' | 'NEW HOLDINGS' | null;
  format: 'folder' | 'full-submission';
  index: number;
}

async function writeFiling(filingsDir: string, filing: FilingToWrite): Promise<void> {
  const cover = coverPageXml(filing);
  const table =
    filing.kind === 'report' ? informationTableXml(filing.rows, filing.index % 3 === 1 ? 'ns1' : null, filing.index % 4 === 0) : null;
  const cikDir = path.join(filingsDir, 'edgar', filing.manager.cik);
  await mkdir(cikDir, { recursive: true });
  if (filing.format === 'full-submission') {
    await writeFile(path.join(cikDir, `${filing.accession}.txt`), fullSubmissionText(filing, cover, table));
    return;
  }
  const folder = path.join(cikDir, filing.accession);
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, 'primary_doc.xml'), cover);
  if (table !== null) await writeFile(path.join(folder, 'infotable.xml'), table);
}

function submissionTypeOf(filing: FilingToWrite): string {
  return `13F-${filing.kind === 'notice' ? 'NT' : 'HR'}${filing.amendment ? '/A' : ''}`;
}

function coverPageXml(filing: FilingToWrite): string {
  const { manager } = filing;
  const submissionType = submissionTypeOf(filing);
  const period = mmddyyyy(filing.period);
  const total = filing.rows.reduce((sum, row) => sum + row.value, 0);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<edgarSubmission xmlns="http://www.sec.gov/edgar/thirteenffiler" xmlns:com="http://www.sec.gov/edgar/common">',
    '  <headerData>',
    `    <submissionType>${submissionType}</submissionType>`,
    '    <filerInfo>',
    '      <liveTestFlag>LIVE</liveTestFlag>',
    '      <flags>',
    '        <confirmingCopyFlag>false</confirmingCopyFlag>',
    '        <returnCopyFlag>false</returnCopyFlag>',
    '        <overrideInternetFlag>false</overrideInternetFlag>',
    '      </flags>',
    '      <filer>',
    '        <credentials>',
    `          <cik>${manager.cik.padStart(10, '0')}</cik>`,
    '          <ccc>XXXXXXXX</ccc>',
    '        </credentials>',
    '      </filer>',
    `      <periodOfReport>${period}</periodOfReport>`,
    '    </filerInfo>',
    '  </headerData>',
    '  <formData>',
    '    <coverPage>',
    `      <reportCalendarOrQuarter>${period}</reportCalendarOrQuarter>`,
    `      <isAmendment>${filing.amendment ? 'true' : 'false'}</isAmendment>`,
    ...(filing.amendment
      ? [
          '      <amendmentNo>1</amendmentNo>',
          '      <amendmentInfo>',
          `        <amendmentType>${filing.amendment}</amendmentType>`,
          '      </amendmentInfo>',
        ]
      : []),
    '      <filingManager>',
    `        <name>${escapeXml(manager.filerName)}</name>`,
    '        <address>',
    `          <com:street1>${escapeXml(manager.street.toUpperCase())}</com:street1>`,
    `          <com:city>${escapeXml(manager.city.toUpperCase())}</com:city>`,
    `          <com:stateOrCountry>${manager.state}</com:stateOrCountry>`,
    `          <com:zipCode>${manager.zip}</com:zipCode>`,
    '        </address>',
    '      </filingManager>',
    `      <reportType>${filing.kind === 'notice' ? '13F NOTICE' : '13F HOLDINGS REPORT'}</reportType>`,
    `      <form13FFileNumber>028-${String(10_000 + filing.index * 379).padStart(5, '0')}</form13FFileNumber>`,
    '      <provideInfoForInstruction5>N</provideInfoForInstruction5>',
    '    </coverPage>',
    '    <signatureBlock>',
    '      <name>Jordan A. Whitfield</name>',
    '      <title>Chief Compliance Officer</title>',
    '      <phone>212-555-0147</phone>',
    '      <signature>/s/ Jordan A. Whitfield</signature>',
    `      <city>${escapeXml(manager.city)}</city>`,
    `      <stateOrCountry>${manager.state}</stateOrCountry>`,
    `      <signatureDate>${mmddyyyy(filing.filedAt)}</signatureDate>`,
    '    </signatureBlock>',
    ...(filing.kind === 'notice'
      ? []
      : [
          '    <summaryPage>',
          '      <otherIncludedManagersCount>0</otherIncludedManagersCount>',
          `      <tableEntryTotal>${filing.rows.length}</tableEntryTotal>`,
          `      <tableValueTotal>${total}</tableValueTotal>`,
          '      <isConfidentialOmitted>false</isConfidentialOmitted>',
          '    </summaryPage>',
        ]),
    '  </formData>',
    '</edgarSubmission>',
  ];
  return `${lines.join('\n')}\n`;
}

function informationTableXml(rows: PricedRow[], prefix: string | null, leadingBlankLine: boolean): string {
  const p = prefix ? `${prefix}:` : '';
  const ns = prefix ? `xmlns:${prefix}` : 'xmlns';
  const out = [
    ...(leadingBlankLine ? [''] : []),
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<${p}informationTable ${ns}="http://www.sec.gov/edgar/document/thirteenf/informationtable" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`,
  ];
  for (const row of rows) {
    const cusip = row.prn ? row.issuer.note!.cusip : row.issuer.cusip;
    const title = row.prn ? row.issuer.note!.title : row.issuer.title;
    out.push(
      `  <${p}infoTable>`,
      `    <${p}nameOfIssuer>${escapeXml(row.issuer.name)}</${p}nameOfIssuer>`,
      `    <${p}titleOfClass>${escapeXml(title)}</${p}titleOfClass>`,
      `    <${p}cusip>${cusip}</${p}cusip>`,
      `    <${p}value>${row.value}</${p}value>`,
      `    <${p}shrsOrPrnAmt>`,
      `      <${p}sshPrnamt>${row.shares}</${p}sshPrnamt>`,
      `      <${p}sshPrnamtType>${row.prn ? 'PRN' : 'SH'}</${p}sshPrnamtType>`,
      `    </${p}shrsOrPrnAmt>`,
      ...(row.putCall ? [`    <${p}putCall>${row.putCall}</${p}putCall>`] : []),
      `    <${p}investmentDiscretion>SOLE</${p}investmentDiscretion>`,
      `    <${p}votingAuthority>`,
      `      <${p}Sole>${row.putCall ? 0 : row.shares}</${p}Sole>`,
      `      <${p}Shared>0</${p}Shared>`,
      `      <${p}None>0</${p}None>`,
      `    </${p}votingAuthority>`,
      `  </${p}infoTable>`,
    );
  }
  out.push(`</${p}informationTable>`);
  return `${out.join('\n')}\n`;
}

function fullSubmissionText(filing: FilingToWrite, cover: string, table: string | null): string {
  const { manager } = filing;
  const filed = filing.filedAt.replace(/-/g, '');
  const submissionType = submissionTypeOf(filing);
  const documents = [
    ['1', submissionType, 'primary_doc.xml', cover],
    ...(table === null ? [] : [['2', 'INFORMATION TABLE', 'infotable.xml', table.trimStart()]]),
  ];
  return [
    `<SEC-DOCUMENT>${filing.accession}.txt : ${filed}`,
    `<SEC-HEADER>${filing.accession}.hdr.sgml : ${filed}`,
    `<ACCEPTANCE-DATETIME>${filed}161259`,
    `ACCESSION NUMBER:\t\t${filing.accession}`,
    `CONFORMED SUBMISSION TYPE:\t${submissionType}`,
    `PUBLIC DOCUMENT COUNT:\t\t${documents.length}`,
    `CONFORMED PERIOD OF REPORT:\t${filing.period.replace(/-/g, '')}`,
    `FILED AS OF DATE:\t\t${filed}`,
    `DATE AS OF CHANGE:\t\t${filed}`,
    `EFFECTIVENESS DATE:\t\t${filed}`,
    '',
    'FILER:',
    '',
    '\tCOMPANY DATA:\t',
    `\t\tCOMPANY CONFORMED NAME:\t\t\t${manager.filerName}`,
    `\t\tCENTRAL INDEX KEY:\t\t\t${manager.cik.padStart(10, '0')}`,
    '\t\tSTANDARD INDUSTRIAL CLASSIFICATION:\t\t\t[]',
    `\t\tSTATE OF INCORPORATION:\t\t\t${manager.state}`,
    '',
    '\tFILING VALUES:',
    `\t\tFORM TYPE:\t\t${submissionType}`,
    '\t\tSEC ACT:\t\t1934 Act',
    `\t\tSEC FILE NUMBER:\t028-${String(10_000 + filing.index * 379).padStart(5, '0')}`,
    '',
    '\tBUSINESS ADDRESS:\t',
    `\t\tSTREET 1:\t\t${manager.street.toUpperCase()}`,
    `\t\tCITY:\t\t\t${manager.city.toUpperCase()}`,
    `\t\tSTATE:\t\t\t${manager.state}`,
    `\t\tZIP:\t\t\t${manager.zip}`,
    '</SEC-HEADER>',
    ...documents.flatMap(([sequence, type, fileName, body]) => [
      '<DOCUMENT>',
      `<TYPE>${type}`,
      `<SEQUENCE>${sequence}`,
      `<FILENAME>${fileName}`,
      '<TEXT>',
      '<XML>',
      body!.trimEnd(),
      '</XML>',
      '</TEXT>',
      '</DOCUMENT>',
    ]),
    '</SEC-DOCUMENT>',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Small deterministic helpers (shared with form13f-dataset.ts)

/** mulberry32: a small, fast, seedable PRNG; the same seed gives the same sequence everywhere. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a, for deriving seeds from text. */
export function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** Appends the CUSIP check digit to an 8-character base. */
export function cusipWithCheckDigit(base: string): string {
  const check = cusipCheckDigit(base);
  if (check === null) throw new Error(`bad CUSIP base ${base}`);
  return base + String(check);
}

export function addDays(isoDate: string, days: number): string {
  const date = new Date(`${isoDate}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function minDate(a: string, b: string): string {
  return a < b ? a : b;
}

function mmddyyyy(isoDate: string): string {
  const [year, month, day] = isoDate.split('-');
  return `${month}-${day}-${year}`;
}

function roundShares(shares: number): number {
  return Math.max(100, Math.round(shares / 100) * 100);
}

function shuffled(random: () => number, count: number): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}
