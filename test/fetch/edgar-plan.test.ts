import { describe, expect, it } from 'vitest';
import {
  filingsToFetch,
  form13fDatasetTarget,
  formIndexTarget,
  indexQuarters,
  quarterName,
  submissionTarget,
} from '../../src/fetch/edgar-plan.js';
import type { FormIndexRow } from '../../src/fetch/form-index.js';

describe('what pdsnap asks EDGAR for', () => {
  it('are read from the indexes of the quarter after the older one through the quarter of now', () => {
    const names = (now: string) => indexQuarters(new Date(now)).map(quarterName);
    expect(names('2026-11-22T12:00:00Z')).toEqual(['2026 QTR3', '2026 QTR4']);
    // Before Q3's deadline: Q2's filings (filed in QTR3) are the latest, Q1's (filed in QTR2) the baseline.
    expect(names('2026-11-10T00:00:00Z')).toEqual(['2026 QTR2', '2026 QTR3', '2026 QTR4']);
    expect(names('2027-01-10T00:00:00Z')).toEqual(['2026 QTR3', '2026 QTR4', '2027 QTR1']);
  });

  it('asks for the quarterly form index, kept where build does not read it', () => {
    const target = formIndexTarget('https://www.sec.gov', { year: 2026, quarter: 4 }, true);
    expect(target).toMatchObject({
      url: 'https://www.sec.gov/Archives/edgar/full-index/2026/QTR4/form.idx',
      path: 'filings/edgar-index/2026/QTR4/form.idx',
      conditional: true,
      missingReason: 'EDGAR has not published the index of 2026 QTR4 yet',
    });
    expect(formIndexTarget('https://www.sec.gov', { year: 2026, quarter: 3 }, false).missingReason).toBeUndefined();
  });

  const row = (cik: string, accession: string): FormIndexRow => ({
    formType: '13F-HR',
    companyName: 'X',
    cik,
    dateFiled: '2026-11-09',
    fileName: `edgar/data/${cik}/${accession}.txt`,
    line: 1,
  });

  it('fetches each accession once, of the tracked filers only unless every filer is asked for', () => {
    const rows = [row('1523000', '0001523000-26-000137'), row('1523000', '0001523000-26-000137'), row('1999999', '0001999999-26-000001')];
    expect(filingsToFetch(rows, new Set(['1523000'])).map((r) => r.fileName)).toEqual(['edgar/data/1523000/0001523000-26-000137.txt']);
    expect(filingsToFetch(rows, null)).toHaveLength(2);
  });

  it('puts a full submission where build reads it, and a data set in filings/datasets', () => {
    expect(submissionTarget('http://127.0.0.1:9', row('1523000', '0001523000-26-000137'))).toMatchObject({
      url: 'http://127.0.0.1:9/Archives/edgar/data/1523000/0001523000-26-000137.txt',
      path: 'filings/edgar/1523000/0001523000-26-000137.txt',
      conditional: false,
    });
    expect(form13fDatasetTarget('https://www.sec.gov', '2024q1_form13f.zip')).toMatchObject({
      url: 'https://www.sec.gov/files/structureddata/data/form-13f-data-sets/2024q1_form13f.zip',
      path: 'filings/datasets/2024q1_form13f.zip',
      conditional: true,
    });
  });
});
