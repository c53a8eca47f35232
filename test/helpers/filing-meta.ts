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
