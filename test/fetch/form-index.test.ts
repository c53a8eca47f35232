import { describe, expect, it } from 'vitest';
import { FORM_13F_TYPES } from '../../src/fetch/edgar-plan.js';
import { FormIndexError, parseFormIndex } from '../../src/fetch/form-index.js';

/** Lines as EDGAR writes them (header lines and column widths of the real files; the filings of two sample managers among real-looking others). */
const QUARTERLY = [
  'Description:           Master Index of EDGAR Dissemination Feed by Form Type',
  'Last Data Received:    November 21, 2026',
  'Comments:              webmaster@sec.gov',
  'Anonymous FTP:         ftp://ftp.sec.gov/edgar/',
  'Cloud HTTP:            https://www.sec.gov/Archives/',
  ' ',
  ' ',
  ' ',
  ' ',
  'Form Type   Company Name                                                  CIK         Date Filed  File Name',
  '-'.repeat(141),
  '10-K        SOME  ODDLY   SPACED, INC.                                    1000001     2026-10-02  edgar/data/1000001/0001000001-26-000001.txt         ',
  '13F-HR      HARBORVIEW CAPITAL MANAGEMENT LLC                             1523000     2026-11-09  edgar/data/1523000/0001523000-26-000137.txt         ',
  '13F-HR/A    GRANITE PEAK PARTNERS LP                                      1527848     2026-11-12  edgar/data/1527848/0001527848-26-000174.txt         ',
  '13F-NT      VANTAGE HOLLOW ADVISERS LLC                                   1653216     2026-11-13  edgar/data/1653216/0001653216-26-000137.txt         ',
  '13F-HR      A FILER WHOSE LINK IS A PAGE                                  1999999     2026-11-13  edgar/data/1999999/0001999999-26-900005-index.htm   ',
  'SC 13G/A    APPLE INC                                                     320193      2026-11-14  edgar/data/320193/0000950123-26-000001.txt          ',
].join('\r\n');

/** A daily index: its header wraps after CIK, and the form type takes 17 characters where the header still gives 12. */
const DAILY = [
  'Description:           Daily Index of EDGAR Dissemination Feed by Form Type',
  'Last Data Received:    Nov 20, 2026',
  'Comments:              webmaster@sec.gov',
  'Anonymous FTP:         ftp://ftp.sec.gov/edgar/',
  ' ',
  ' ',
  ' ',
  ' ',
  'Form Type   Company Name                                                  CIK',
  '      Date Filed  File Name',
  '-'.repeat(141),
  '13F-HR           Harborview Capital Management LLC                             1523000     20261120    edgar/data/1523000/0001523000-26-000137.txt',
  'SCHEDULE 13D/A   VisionWave Holdings, Inc.                                     2038439     20261120    edgar/data/2038439/0001731122-26-000581.txt',
  '13F-NT/A         Vantage Hollow Advisers LLC                                   0001653216  20261120    edgar/data/1653216/0001653216-26-000174.txt',
].join('\n');

const thirteenF = (form: string) => FORM_13F_TYPES.has(form);

describe('EDGAR form indexes', () => {
  it('reads the quarterly layout by its header, keeping the 13F forms only', () => {
    const index = parseFormIndex(QUARTERLY, thirteenF);
    expect(index.rows.map(({ line, ...row }) => row)).toEqual([
      {
        formType: '13F-HR',
        companyName: 'HARBORVIEW CAPITAL MANAGEMENT LLC',
        cik: '1523000',
        dateFiled: '2026-11-09',
        fileName: 'edgar/data/1523000/0001523000-26-000137.txt',
      },
      {
        formType: '13F-HR/A',
        companyName: 'GRANITE PEAK PARTNERS LP',
        cik: '1527848',
        dateFiled: '2026-11-12',
        fileName: 'edgar/data/1527848/0001527848-26-000174.txt',
      },
      {
        formType: '13F-NT',
        companyName: 'VANTAGE HOLLOW ADVISERS LLC',
        cik: '1653216',
        dateFiled: '2026-11-13',
        fileName: 'edgar/data/1653216/0001653216-26-000137.txt',
      },
    ]);
    expect(index.rows[0]!.line).toBe(13);
    // A 13F row that names no full submission is named, never fetched.
    expect(index.problems).toEqual([{ line: 16, reason: expect.stringMatching(/is not a full submission/) }]);
  });

  it('reads the daily layout: a wrapped header, a wider form type column and YYYYMMDD dates', () => {
    const index = parseFormIndex(DAILY, thirteenF);
    expect(index.rows.map((row) => [row.formType, row.companyName, row.cik, row.dateFiled])).toEqual([
      ['13F-HR', 'Harborview Capital Management LLC', '1523000', '2026-11-20'],
      ['13F-NT/A', 'Vantage Hollow Advisers LLC', '1653216', '2026-11-20'],
    ]);
    expect(index.problems).toEqual([]);
  });

  it('reads every form the same way, a company name with runs of spaces and a form type with one included', () => {
    const all = parseFormIndex(QUARTERLY, () => true).rows;
    expect(all.map((row) => [row.formType, row.companyName])).toContainEqual(['10-K', 'SOME  ODDLY   SPACED, INC.']);
    expect(all.map((row) => [row.formType, row.companyName])).toContainEqual(['SC 13G/A', 'APPLE INC']);
    expect(parseFormIndex(DAILY, () => true).rows.map((row) => row.formType)).toContain('SCHEDULE 13D/A');
  });

  it('does not trust the header for where values sit: an old index puts them left of its labels', () => {
    const old = [
      'Description:           Quarterly Index of EDGAR Dissemination Feed by Form Type',
      'Last Data Received:    September 30, 1994',
      '',
      'Form Type   Company Name                                      CIK       Date Filed   File Name',
      '-'.repeat(100),
      '13F-HR      ARDEN GROUP INC                               225051    1994-09-28  edgar/data/225051/0000912057-94-003253.txt',
    ].join('\n');
    expect(parseFormIndex(old, thirteenF).rows.map((row) => [row.companyName, row.cik, row.dateFiled])).toEqual([
      ['ARDEN GROUP INC', '225051', '1994-09-28'],
    ]);
  });

  it('reads the pipe-separated layout by its header as well', () => {
    const master = [
      'Description:           Master Index of EDGAR Dissemination Feed',
      'Last Data Received:    November 21, 2026',
      '',
      'CIK|Company Name|Form Type|Date Filed|Filename',
      '-'.repeat(80),
      '1523000|HARBORVIEW CAPITAL MANAGEMENT LLC|13F-HR|2026-11-09|edgar/data/1523000/0001523000-26-000137.txt',
      '320193|APPLE INC|10-Q|2026-11-01|edgar/data/320193/0000320193-26-000010.txt',
    ].join('\n');
    expect(parseFormIndex(master, thirteenF).rows.map((row) => [row.formType, row.cik])).toEqual([['13F-HR', '1523000']]);
  });

  it('refuses a file without a header, or a header missing a column, naming it', () => {
    expect(() => parseFormIndex('<html><body>Not Found</body></html>\n', thirteenF)).toThrow(FormIndexError);
    expect(() => parseFormIndex(`Form Type   Company Name   Date Filed  File Name\n${'-'.repeat(40)}\n`, thirteenF)).toThrow(
      /names no cik column/,
    );
  });

  it('names a 13F row with a bad CIK or date, and fetches nothing of it', () => {
    const bad = [
      'Form Type   Company Name                                                  CIK         Date Filed  File Name',
      '-'.repeat(141),
      '13F-HR      BAD DATE LLC                                                  1523000     2026-02-30  edgar/data/1523000/0001523000-26-000137.txt',
      '13F-HR      BAD CIK LLC                                                   15230X0     2026-02-03  edgar/data/1523000/0001523000-26-000138.txt',
    ].join('\n');
    const index = parseFormIndex(bad, thirteenF);
    expect(index.rows).toEqual([]);
    expect(index.problems.map((p) => p.reason)).toEqual([
      expect.stringMatching(/is not a date/),
      expect.stringMatching(/is not 1 to 10 digits/),
    ]);
  });
});
