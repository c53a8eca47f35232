import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingestFilings } from '../../../src/ingest/filings/index.js';
import { SILENT_PROGRESS } from '../../../src/model/progress.js';

const GOOD = path.resolve('test/fixtures/filings/edgar-good');
const BAD = path.resolve('test/fixtures/filings/edgar-bad');

describe('ingestFilings on EDGAR folders and full submissions', async () => {
  const result = await ingestFilings(GOOD, SILENT_PROGRESS);
  const byAccession = new Map([...result.catalog.filings()].map((meta) => [meta.accessionNumber, meta]));

  it('accepts every well-formed filing: folders, full submissions, amendments and a notice', () => {
    expect(result.rejections.filter((r) => r.source.includes('/edgar/'))).toEqual([]);
    expect([...byAccession.keys()].sort()).toEqual([
      '0001523000-26-000412',
      '0001523000-26-000433',
      '0001527817-26-000058',
      '0001527817-26-000071',
      '0001534000-24-000019',
      '0001541000-22-000003',
      '0001541000-22-000007',
      '0001657123-26-000003',
    ]);
  });

  it('takes the accession from the folder name and the filing date from the signature date', () => {
    expect(byAccession.get('0001523000-26-000412')).toMatchObject({
      cik: '1523000',
      filerName: 'HARBORVIEW CAPITAL MANAGEMENT LLC',
      period: '2026-09-30',
      filedAt: '2026-11-12',
      submissionType: '13F-HR',
      source: 'filings/edgar/1523000/0001523000-26-000412',
      valueUnit: 'dollars',
    });
  });

  it('takes accession, dates and filer from the SGML header of a full submission', () => {
    expect(byAccession.get('0001527817-26-000058')).toMatchObject({
      cik: '1527817',
      filerName: 'GRANITE PEAK PARTNERS LP',
      period: '2026-09-30',
      filedAt: '2026-11-13',
      source: 'filings/edgar/1527817/0001527817-26-000058.txt',
    });
    expect(result.catalog.rows('0001527817-26-000058').map((row) => row.value)).toEqual([36300000, 10500000, 9360000]);
  });

  it('records RESTATEMENT and NEW HOLDINGS amendments with their type', () => {
    expect(byAccession.get('0001523000-26-000433')).toMatchObject({ submissionType: '13F-HR/A', amendmentType: 'RESTATEMENT' });
    expect(byAccession.get('0001527817-26-000071')).toMatchObject({ submissionType: '13F-HR/A', amendmentType: 'NEW HOLDINGS' });
    expect(result.catalog.rows('0001527817-26-000071')).toHaveLength(1);
  });

  it('accepts a 13F-NT as a notice with no rows', () => {
    expect(byAccession.get('0001657123-26-000003')).toMatchObject({ submissionType: '13F-NT', amendmentType: null });
    expect(result.catalog.rows('0001657123-26-000003')).toEqual([]);
  });

  it('keeps option rows and PRN rows of the same issuer as separate rows', () => {
    const rows = result.catalog.rows('0001523000-26-000412');
    expect(rows.map((row) => [row.cusip, row.putCall, row.amountType])).toEqual([
      ['512347105', null, 'SH'],
      ['512347105', 'call', 'SH'],
      ['512347105', 'put', 'SH'],
      ['512347AB1', null, 'PRN'],
      ['622988103', null, 'SH'],
    ]);
  });

  it('reads a 2024 filing reported in thousands as thousands, and notes the override', () => {
    const meta = byAccession.get('0001534000-24-000019')!;
    expect(meta.valueUnit).toBe('thousands');
    expect(result.catalog.rows('0001534000-24-000019')[0]!.value).toBe(19_259_000);
    expect(meta.valueUnitReason).toMatch(/date rule: dollars.*read as thousands$/);
    expect(result.notes).toContainEqual({
      source: 'filings/edgar/1534000/0001534000-24-000019',
      message: `value unit: thousands (filing 0001534000-24-000019: ${meta.valueUnitReason})`,
    });
  });

  it('reads a late filing of a 2021 period reported in dollars as dollars, and notes the override', () => {
    const meta = byAccession.get('0001541000-22-000007')!;
    expect(meta.valueUnit).toBe('dollars');
    expect(meta.valueUnitReason).toMatch(/date rule: thousands/);
    expect(result.catalog.rows('0001541000-22-000007')[0]!.value).toBe(7_101_600);
  });

  it('reads a 2022 filing in thousands, as the date rule says, and notes that decision too', () => {
    expect(byAccession.get('0001541000-22-000003')!.valueUnit).toBe('thousands');
    expect(result.catalog.rows('0001541000-22-000003')[0]!.value).toBe(5_527_000);
    expect(result.notes.filter((note) => note.message.includes('0001541000-22-000003'))).toEqual([
      {
        source: 'filings/edgar/1541000/0001541000-22-000003',
        message:
          'value unit: thousands (filing 0001541000-22-000003: filed 2022-11-14, before 2023-01-03: thousands (median implied price of 3 share rows $138 per share agrees))',
        routine: 'filing(s) with values read as thousands by their filing date',
      },
    ]);
  });

  it('notes the value unit of every accepted filing with rows, in read order, then the counts', () => {
    const withRows = [...result.catalog.filings()].filter((meta) => result.catalog.rows(meta.accessionNumber).length > 0);
    expect(withRows).toHaveLength(7); // all but the 13F-NT notice
    expect(result.notes).toEqual([
      ...withRows.map((meta) => ({
        source: meta.source,
        message: `value unit: ${meta.valueUnit} (filing ${meta.accessionNumber}: ${meta.valueUnitReason})`,
        // Routine unless the unit overrode the filing-date rule: then the note is an exception.
        ...(meta.valueUnitReason.includes('(date rule: ')
          ? {}
          : { routine: `filing(s) with values read as ${meta.valueUnit} by their filing date` }),
      })),
      {
        source: 'filings',
        message: 'value units: 5 filing(s) read as dollars, 2 as thousands of dollars; 2 overrode the filing-date rule (noted above)',
      },
    ]);
    expect(result.notes.map((note) => note.source).slice(0, -1)).toEqual(withRows.map((meta) => meta.source).sort());
  });

  it('returns the registry and lists every file read as a source', () => {
    expect(result.registry?.map((entry) => entry.slug)).toContain('harborview-capital');
    expect(result.sources.map((source) => source.path)).toContain('filings/edgar/1527817/0001527817-26-000058.txt');
    expect(result.sources.map((source) => source.path)).toContain('filings/investors.yaml');
    expect(result.sources.every((source) => /^[0-9a-f]{64}$/.test(source.sha256))).toBe(true);
  });

  it("leaves EDGAR's HTML renderings in a filing folder's xslForm13F_X02/ unread, as companions", () => {
    expect(result.sources.map((source) => source.path).filter((file) => file.includes('xslForm13F'))).toEqual([]);
    expect(result.rejections.filter((r) => r.source.includes('xslForm13F'))).toEqual([]);
    expect(result.catalog.rows('0001523000-26-000412').length).toBeGreaterThan(0);
  });
});

describe('ingestFilings rejections', async () => {
  const result = await ingestFilings(BAD, SILENT_PROGRESS);
  const reasonFor = (needle: string) => result.rejections.find((r) => r.source.includes(needle) || r.reason.includes(needle));

  it('adds nothing from a bad filing and builds on', () => {
    // 0001545000-26-000011 only disagrees with its own cover page: it is published from its table.
    expect([...result.catalog.filings()].map((meta) => meta.accessionNumber)).toEqual(['0001545000-26-000011']);
    expect(result.registry).toBeNull();
    expect(result.rejections).toHaveLength(6);
  });

  it('rejects a 13F-NT that lists information-table rows, as a folder and as a full submission', () => {
    expect(reasonFor('1550000')).toEqual({
      source: 'filings/edgar/1550000/0001550000-26-000040',
      location: 'primary_doc.xml formData/summaryPage',
      reason: 'filing 0001550000-26-000040 rejected: 13F-NT is a notice without holdings but lists 5 information-table rows',
    });
    expect(reasonFor('1551000')).toEqual({
      source: 'filings/edgar/1551000/0001551000-26-000041.txt',
      location: 'summaryPage',
      reason: 'filing 0001551000-26-000041 rejected: 13F-NT is a notice without holdings but lists 3 information-table rows',
    });
  });

  it('publishes a folder filing whose cover page tableEntryTotal disagrees with its table, from the table, and notes it', () => {
    expect(reasonFor('1545000')).toBeUndefined();
    expect(result.catalog.rows('0001545000-26-000011')).toHaveLength(2);
    expect(result.totalsDisagreements).toBe(1);
    expect(result.notes).toContainEqual({
      source: 'filings/edgar/1545000/0001545000-26-000011',
      message:
        'filing 0001545000-26-000011 (primary_doc.xml formData/summaryPage): cover page tableEntryTotal is 3 but the information table has 2 rows; published from the information table (--strict rejects it)',
    });
  });

  it('under --strict, rejects that filing whole, as before', async () => {
    const strict = await ingestFilings(BAD, SILENT_PROGRESS, { strictTotals: true });
    expect([...strict.catalog.filings()]).toEqual([]);
    expect(strict.totalsDisagreements).toBe(0);
    expect(strict.rejections.find((r) => r.source.includes('1545000'))).toEqual({
      source: 'filings/edgar/1545000/0001545000-26-000011',
      location: 'primary_doc.xml formData/summaryPage',
      reason: 'filing 0001545000-26-000011 rejected: cover page tableEntryTotal is 3 but the information table has 2 rows (--strict)',
    });
  });

  it('rejects a non-numeric value, naming the information table file and row', () => {
    expect(reasonFor('1546000')).toEqual({
      source: 'filings/edgar/1546000/0001546000-26-000012/infotable.xml',
      location: 'informationTable/infoTable[2]',
      reason: 'value "31,2OO,000" is not a non-negative number',
    });
  });

  it('rejects a submission that is not a 13F with a clear reason', () => {
    expect(reasonFor('1547000')).toMatchObject({
      source: 'filings/edgar/1547000/0001547000-26-000020.txt',
      reason: expect.stringMatching(/^not a Form 13F holdings report or notice: CONFORMED SUBMISSION TYPE is "10-K"/),
    });
  });

  it('rejects an information table that does not parse', () => {
    expect(reasonFor('1548000')).toMatchObject({
      source: 'filings/edgar/1548000/0001548000-26-000021/infotable.xml',
      reason: expect.stringMatching(/^XML does not parse/),
    });
  });

  it('rejects an sshPrnamtType that is not SH or PRN', () => {
    expect(reasonFor('1549000')!.reason).toBe('sshPrnamtType "SHS" is not SH or PRN');
  });
});

describe('ingestFilings on a full submission whose lines end in a bare CR (old Mac style, as some .nc files)', async () => {
  const result = await ingestFilings(path.resolve('test/fixtures/filings/bare-cr'), SILENT_PROGRESS);

  it('reads it like its LF copy: header, cover page and every information-table row', () => {
    expect(result.rejections).toEqual([]);
    const meta = result.catalog.meta('0001542392-26-000174');
    expect(meta).toMatchObject({ cik: '1542392', period: '2026-09-30', filedAt: '2026-10-24', submissionType: '13F-HR' });
    expect(result.catalog.rows('0001542392-26-000174').length).toBeGreaterThan(10);
  });
});

describe('a 13F-HR whose cover page marks it an amendment', () => {
  it('keeps its amendment type, from a filing folder and from a full submission alike', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-marked-amendment-'));
    await cp(GOOD, root, { recursive: true });
    const marked = '<isAmendment>true</isAmendment>\n      <amendmentInfo><amendmentType>NEW HOLDINGS</amendmentType></amendmentInfo>';
    for (const file of ['1523000/0001523000-26-000412/primary_doc.xml', '1527817/0001527817-26-000058.txt']) {
      const full = path.join(root, 'filings/edgar', file);
      const text = await readFile(full, 'utf8');
      expect(text).toContain('<isAmendment>false</isAmendment>');
      await writeFile(full, text.replace('<isAmendment>false</isAmendment>', marked));
    }
    const filings = new Map([...(await ingestFilings(root, SILENT_PROGRESS)).catalog.filings()].map((f) => [f.accessionNumber, f]));
    for (const accession of ['0001523000-26-000412', '0001527817-26-000058']) {
      expect(filings.get(accession)).toMatchObject({ submissionType: '13F-HR', amendmentType: 'NEW HOLDINGS' });
    }
  });
});
