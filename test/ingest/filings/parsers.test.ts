import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCoverPage } from '../../../src/ingest/filings/cover-page.js';
import { SourceProblem } from '../../../src/ingest/source-problem.js';
import { parseFullSubmission } from '../../../src/ingest/filings/full-submission.js';
import { parseInformationTable } from '../../../src/ingest/filings/information-table.js';

const EDGAR = path.resolve('test/fixtures/filings/edgar-good/filings/edgar');
const BAD = path.resolve('test/fixtures/filings/edgar-bad/filings/edgar');
const read = (root: string, file: string) => readFileSync(path.join(root, file), 'utf8');

describe('information table XML', () => {
  it('reads an ns1:-prefixed table that starts with blank lines, keeping CUSIPs as text', () => {
    const xml = read(EDGAR, '1523000/0001523000-26-000412/form13fInfoTable.xml');
    expect(xml.startsWith('\n')).toBe(true);
    const rows = parseInformationTable(xml);
    expect(rows).toHaveLength(5);
    expect(rows[0]).toEqual({
      issuerName: 'APPLE INC',
      titleOfClass: 'COM',
      cusip: '512347105',
      putCall: null,
      amountType: 'SH',
      amount: 200000,
      reportedValue: 45600000,
    });
  });

  it('keeps Put and Call rows apart from the equity row of the same CUSIP, and reads PRN rows', () => {
    const rows = parseInformationTable(read(EDGAR, '1523000/0001523000-26-000412/form13fInfoTable.xml'));
    const apple = rows.filter((row) => row.cusip === '512347105');
    expect(apple.map((row) => row.putCall)).toEqual([null, 'call', 'put']);
    expect(rows.find((row) => row.amountType === 'PRN')).toMatchObject({ titleOfClass: 'NOTE 1.250% 3/1', amount: 5000000 });
  });

  it('reads the default namespace and the n1: prefix alike', () => {
    const plain = parseInformationTable(read(EDGAR, '1523000/0001523000-26-000433/infotable.xml'));
    expect(plain.map((row) => row.issuerName)).toEqual(['APPLE INC', 'MICROSOFT CORP']);
    const submission = parseFullSubmission(read(EDGAR, '1527817/0001527817-26-000058.txt'));
    const n1 = parseInformationTable(submission.documents[1]!.xml!);
    expect(n1.map((row) => row.issuerName)).toEqual(['NVIDIA CORPORATION', 'JPMORGAN CHASE & CO.', 'EXXON MOBIL CORP']);
  });

  it('reads a name wrapped over lines as one line, and keeps the spaces around a comment', () => {
    const row = (name: string, title: string) =>
      `<infoTable><nameOfIssuer>${name}</nameOfIssuer><titleOfClass>${title}</titleOfClass><cusip>478160104</cusip>` +
      '<value>100</value><shrsOrPrnAmt><sshPrnamt>1</sshPrnamt><sshPrnamtType>SH</sshPrnamtType></shrsOrPrnAmt></infoTable>';
    const xml =
      '<informationTable xmlns="http://www.sec.gov/edgar/document/thirteenf/informationtable">' +
      row('JOHNSON &amp;\r\n      JOHNSON', 'COM') +
      row('COCA COLA <!-- typo fixed -->CO', 'COM  CL\tA') +
      '</informationTable>';
    expect(parseInformationTable(xml).map((r) => [r.issuerName, r.titleOfClass])).toEqual([
      ['JOHNSON & JOHNSON', 'COM'],
      ['COCA COLA CO', 'COM  CL\tA'],
    ]);
  });

  it('rejects an entity XML does not define (&nbsp;), which EDGAR validation never lets through', () => {
    const problem = catchProblem(() =>
      parseInformationTable(
        '<informationTable>\n<infoTable><nameOfIssuer>S&amp;P&nbsp;GLOBAL</nameOfIssuer></infoTable></informationTable>',
      ),
    );
    expect(problem).toMatchObject({
      location: 'line 2, column 38',
      message: expect.stringMatching(/^XML does not parse: the entity &nbsp; is not defined/),
    });
  });

  it('rejects a value that is not a non-negative number, naming the row element', () => {
    const problem = catchProblem(() => parseInformationTable(read(BAD, '1546000/0001546000-26-000012/infotable.xml')));
    expect(problem.message).toBe('value "31,2OO,000" is not a non-negative number');
    expect(problem.location).toBe('informationTable/infoTable[2]');
  });

  it('rejects an sshPrnamtType other than SH or PRN', () => {
    expect(() => parseInformationTable(read(BAD, '1549000/0001549000-26-000030/infotable.xml'))).toThrow(
      /sshPrnamtType "SHS" is not SH or PRN/,
    );
  });

  it('rejects XML that does not parse, with its line', () => {
    const problem = catchProblem(() => parseInformationTable(read(BAD, '1548000/0001548000-26-000021/infotable.xml')));
    expect(problem.message).toMatch(/^XML does not parse/);
    expect(problem.location).toMatch(/^line \d+, column \d+$/);
  });

  it('rejects a putCall that is neither Put nor Call', () => {
    const xml = read(EDGAR, '1523000/0001523000-26-000433/infotable.xml').replace(
      '<investmentDiscretion>',
      '<putCall>Straddle</putCall><investmentDiscretion>',
    );
    expect(() => parseInformationTable(xml)).toThrow(/putCall "Straddle" is not Put, Call or empty/);
  });
});

describe('cover page primary_doc.xml', () => {
  it('reads the filer, period, signature date and summary totals of a 13F-HR', () => {
    expect(parseCoverPage(read(EDGAR, '1523000/0001523000-26-000412/primary_doc.xml'))).toEqual({
      submissionType: '13F-HR',
      cik: '1523000',
      period: '2026-09-30',
      amendmentType: null,
      filingManagerName: 'HARBORVIEW CAPITAL MANAGEMENT LLC',
      reportType: '13F HOLDINGS REPORT',
      tableEntryTotal: 5,
      tableValueTotal: 109760000,
      signatureDate: '2026-11-12',
    });
  });

  it('reads RESTATEMENT and NEW HOLDINGS amendments', () => {
    expect(parseCoverPage(read(EDGAR, '1523000/0001523000-26-000433/primary_doc.xml'))).toMatchObject({
      submissionType: '13F-HR/A',
      amendmentType: 'RESTATEMENT',
    });
    expect(parseCoverPage(read(EDGAR, '1527817/0001527817-26-000071/primary_doc.xml'))).toMatchObject({
      submissionType: '13F-HR/A',
      amendmentType: 'NEW HOLDINGS',
    });
  });

  it('reads a 13F-NT notice, which has no summary page', () => {
    expect(parseCoverPage(read(EDGAR, '1657123/0001657123-26-000003/primary_doc.xml'))).toMatchObject({
      submissionType: '13F-NT',
      reportType: '13F NOTICE',
      tableEntryTotal: null,
      tableValueTotal: null,
    });
  });

  it('rejects a submission type that is not a 13F, saying what it was', () => {
    const xml = read(EDGAR, '1523000/0001523000-26-000412/primary_doc.xml').replace('<submissionType>13F-HR<', '<submissionType>13F-CTR<');
    expect(() => parseCoverPage(xml)).toThrow(/not a Form 13F holdings report or notice: submissionType is "13F-CTR"/);
  });
});

describe('EDGAR full submission .txt', () => {
  it('reads the SGML header and the XML of each DOCUMENT block', () => {
    const submission = parseFullSubmission(read(EDGAR, '1527817/0001527817-26-000058.txt'));
    expect(submission.header).toMatchObject({ layout: 'key-value', element: 'SEC-HEADER' });
    expect(submission.header.values).toEqual({
      accession: '0001527817-26-000058',
      submissionType: '13F-HR',
      period: '20260930',
      filedAt: '20261113',
      cik: '0001527817',
      filerName: 'GRANITE PEAK PARTNERS LP',
    });
    expect(submission.documents.map((document) => [document.type, document.fileName])).toEqual([
      ['13F-HR', 'primary_doc.xml'],
      ['INFORMATION TABLE', 'granite_13f_q3.xml'],
    ]);
    expect(parseCoverPage(submission.documents[0]!.xml!).tableEntryTotal).toBe(3);
  });
});

function catchProblem(run: () => unknown): SourceProblem {
  try {
    run();
  } catch (error) {
    if (error instanceof SourceProblem) return error;
    throw error;
  }
  throw new Error('expected a SourceProblem');
}
