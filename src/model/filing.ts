/**
 * Internal model of parsed Form 13F filings: what `src/ingest/filings` produces and
 * `src/derive/smart-money` consumes. It carries CUSIPs because positions are keyed on them;
 * nothing here is published as is (see src/model/smart-money.ts for what is).
 */

export type SubmissionType = '13F-HR' | '13F-HR/A' | '13F-NT' | '13F-NT/A';
export type AmendmentType = 'RESTATEMENT' | 'NEW HOLDINGS';
export type ValueUnit = 'dollars' | 'thousands';

export interface FilingMeta {
  accessionNumber: string;
  /** Central Index Key without leading zeros, e.g. "1067983". */
  cik: string;
  filerName: string;
  /** Quarter end, YYYY-MM-DD. */
  period: string;
  /** Filing date, YYYY-MM-DD. */
  filedAt: string;
  submissionType: SubmissionType;
  /** Only for 13F-HR/A (and 13F-NT/A where given). */
  amendmentType: AmendmentType | null;
  /** Where it came from, relative to the sources root, for reports. */
  source: string;
  /** How the filing's `value` column was read; every HoldingRow value is already whole dollars. */
  valueUnit: ValueUnit;
  valueUnitReason: string;
}

/** One information-table row, values converted to whole dollars. */
export interface HoldingRow {
  issuerName: string;
  titleOfClass: string;
  cusip: string;
  putCall: 'put' | 'call' | null;
  amountType: 'SH' | 'PRN';
  /** sshPrnamt: shares or principal amount. */
  amount: number;
  /** Whole US dollars. */
  value: number;
}

export interface Filing {
  meta: FilingMeta;
  rows: HoldingRow[];
}

/**
 * Every accepted filing of a build. Backed by compact storage at full scale (millions of rows),
 * so rows are materialized per filing on demand.
 */
export interface FilingCatalog {
  filings(): Iterable<FilingMeta>;
  rows(accessionNumber: string): HoldingRow[];
  /**
   * Optional: visits a filing's rows without making an object per row. The row passed is reused
   * for the next one (copy what you keep); `positionId` is equal for two rows exactly when their
   * CUSIP, put/call and SH/PRN are equal.
   */
  eachRow?(accessionNumber: string, visit: (row: Readonly<HoldingRow> & { positionId: number }) => void): void;
}

/** An entry of filings/investors.yaml. */
export interface InvestorRegistryEntry {
  cik: string;
  slug: string;
  name: string;
  category: string;
}
