import type { Filing, FilingCatalog, FilingMeta, HoldingRow } from '../../../src/model/filing.js';
import type { AggregatedPosition } from '../../../src/derive/smart-money/positions.js';

/**
 * Test helpers: literal filings and a tiny in-memory FilingCatalog (the real one is compact
 * storage filled by src/ingest/filings). It records which accessions were materialized, so tests
 * can check that the derivation only reads the rows it needs.
 */
export class InMemoryFilingCatalog implements FilingCatalog {
  readonly rowsRequested: string[] = [];
  private readonly byAccession = new Map<string, Filing>();

  constructor(filings: Filing[]) {
    for (const filing of filings) this.byAccession.set(filing.meta.accessionNumber, filing);
  }

  filings(): Iterable<FilingMeta> {
    return [...this.byAccession.values()].map((filing) => filing.meta);
  }

  rows(accessionNumber: string): HoldingRow[] {
    this.rowsRequested.push(accessionNumber);
    const filing = this.byAccession.get(accessionNumber);
    if (filing === undefined) throw new Error(`no filing ${accessionNumber}`);
    return filing.rows.map((row) => ({ ...row }));
  }
}

let accessionSequence = 0;

/** A 13F-HR cover with sensible defaults; the accession number is unique per call unless given. */
export function meta(fields: Partial<FilingMeta> & Pick<FilingMeta, 'cik' | 'period'>): FilingMeta {
  accessionSequence += 1;
  return {
    accessionNumber: `0000950123-26-${String(accessionSequence).padStart(6, '0')}`,
    filerName: `Filer ${fields.cik}`,
    filedAt: addDays(fields.period, 44),
    submissionType: '13F-HR',
    amendmentType: null,
    source: `filings/edgar/${fields.cik}-${fields.period}.txt`,
    valueUnit: 'dollars',
    valueUnitReason: 'filed on or after 2023-01-03',
    ...fields,
  };
}

export function filing(fields: Partial<FilingMeta> & Pick<FilingMeta, 'cik' | 'period'>, rows: HoldingRow[] = []): Filing {
  return { meta: meta(fields), rows };
}

export function row(issuerName: string, cusip: string, amount: number, value: number, extra: Partial<HoldingRow> = {}): HoldingRow {
  return { issuerName, titleOfClass: 'COM', cusip, putCall: null, amountType: 'SH', amount, value, ...extra };
}

/** An aggregated equity position keyed like the real ones. */
export function equity(issuerName: string, cusip: string, shares: number, reportedValue: number): AggregatedPosition {
  return { key: `${cusip}|-|SH`, issuerName, titleOfClass: 'COM', kind: 'equity', shares, reportedValue };
}

/** `count` distinct synthetic 9-character CUSIP-shaped identifiers (prefix + digits). */
export function syntheticCusip(prefix: string, index: number): string {
  return `${prefix}${String(index).padStart(9 - prefix.length, '0')}`;
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Real CUSIPs of well-known issuers, used only as test inputs. */
export const CUSIP = {
  apple: '037833100',
  microsoft: '594918104',
  cocaCola: '191216100',
  bankOfAmerica: '060505104',
  chevron: '166764100',
  americanExpress: '025816109',
} as const;
