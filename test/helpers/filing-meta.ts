import type { RawHoldingRow } from '../../src/ingest/filings/raw-holding-row.js';
import type { FilingMeta } from '../../src/model/filing.js';

/** One filing's metadata for catalog tests: a real filer's shape, dollars unless a test says otherwise. */
export const filingMeta = (accessionNumber: string, valueUnit: FilingMeta['valueUnit'] = 'dollars'): FilingMeta => ({
  accessionNumber,
  cik: '1523000',
  filerName: 'HARBORVIEW CAPITAL MANAGEMENT LLC',
  period: '2026-09-30',
  filedAt: '2026-11-12',
  submissionType: '13F-HR',
  amendmentType: null,
  source: 'filings/edgar/1523000',
  valueUnit,
  valueUnitReason: 'test',
});

/** One information-table row as filed, for catalog tests: common shares unless a test says otherwise. */
export const holdingRow = (
  issuerName: string,
  cusip: string,
  amount: number,
  reportedValue: number,
  extra: Partial<RawHoldingRow> = {},
): RawHoldingRow => ({
  issuerName,
  titleOfClass: 'COM',
  cusip,
  putCall: null,
  amountType: 'SH',
  amount,
  reportedValue,
  ...extra,
});
