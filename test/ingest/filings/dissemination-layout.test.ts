import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { aggregateCatalogPositions } from '../../../src/derive/smart-money/positions.js';
import { parseFullSubmission } from '../../../src/ingest/filings/full-submission.js';
import { ingestFilings } from '../../../src/ingest/filings/index.js';
import { readSubmissionHeader } from '../../../src/ingest/filings/submission-header.js';
import { SILENT_PROGRESS } from '../../../src/model/progress.js';

/**
 * EDGAR's Public Dissemination Service layout (`.nc`): a tagged header (`<SUBMISSION>`,
 * `<ACCESSION-NUMBER>`, `<FILER>`/`<COMPANY-DATA>` blocks) before the same `<DOCUMENT>` blocks as
 * the Archives' `.txt`. The fixture is one 13F-HR in both layouts: `nc/` with CRLF line ends,
 * `txt/` the KEY: value twin with LF.
 */
const FIXTURE = path.resolve('test/fixtures/filings/dissemination');
const ACCESSION = '0001563000-26-000031';
const NC_FILE = `filings/edgar/1563000/${ACCESSION}.nc`;
const roots: string[] = [];

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

/** A copy of the `.nc` fixture in a fresh sources root, its text changed by `edit`. */
async function ncWith(edit: (text: string) => string): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-dissemination-'));
  roots.push(root);
  await cp(path.join(FIXTURE, 'nc'), root, { recursive: true });
  const file = path.join(root, NC_FILE);
  await writeFile(file, edit(await readFile(file, 'latin1')), 'latin1');
  return root;
}

async function ingestOne(root: string) {
  const result = await ingestFilings(root, SILENT_PROGRESS);
  const meta = result.catalog.meta(ACCESSION);
  if (meta === undefined) return { result, meta, rows: [], positions: [] };
  return {
    result,
    meta: { ...meta, source: undefined },
    rows: result.catalog.rows(ACCESSION),
    positions: aggregateCatalogPositions(result.catalog, [ACCESSION]),
  };
}

describe('a dissemination (.nc) submission with a tagged header', async () => {
  const nc = await ingestOne(path.join(FIXTURE, 'nc'));
  const txt = await ingestOne(path.join(FIXTURE, 'txt'));

  it('is committed with CRLF line ends, as the feed delivers it', async () => {
    const text = await readFile(path.join(FIXTURE, 'nc', NC_FILE), 'latin1');
    expect(text.startsWith('<SUBMISSION>\r\n<ACCESSION-NUMBER>')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });

  it('is accepted with the header facts of its .txt twin', () => {
    expect(nc.result.rejections).toEqual([]);
    expect(nc.result.catalog.meta(ACCESSION)).toMatchObject({
      cik: '1563000',
      filerName: 'CEDAR HOLLOW CAPITAL LLC',
      period: '2026-09-30',
      filedAt: '2026-11-12',
      submissionType: '13F-HR',
      amendmentType: null,
      valueUnit: 'dollars',
      source: NC_FILE,
    });
    expect(txt.result.rejections).toEqual([]);
    expect(nc.meta).toEqual(txt.meta);
  });

  it('ingests to the same rows and the same positions as the .txt', () => {
    expect(nc.rows).toHaveLength(5);
    expect(nc.rows).toEqual(txt.rows);
    expect(nc.positions.map((position) => [position.issuerName, position.kind, position.shares, position.reportedValue])).toEqual([
      ['APPLE INC', 'equity', 200000, 45600000],
      ['MICROSOFT CORP', 'equity', 100000, 41500000],
      ['JPMORGAN CHASE & CO.', 'equity', 100000, 21000000],
      ['APPLE INC', 'put', 20000, 4560000],
      ['APPLE INC', 'principal', 5000000, 4900000],
    ]);
    expect(nc.positions).toEqual(txt.positions);
  });

  it('reads the same with LF and bare CR line ends', async () => {
    for (const lineEnd of ['\n', '\r']) {
      const other = await ingestOne(await ncWith((text) => text.replace(/\r\n/g, lineEnd)));
      expect(other.result.rejections).toEqual([]);
      expect(other.meta).toEqual(nc.meta);
      expect(other.positions).toEqual(nc.positions);
    }
  });

  it('rejects a tagged header without its accession number, naming the file, the header and the tag', async () => {
    const { result } = await ingestOne(await ncWith((text) => text.replace(`<ACCESSION-NUMBER>${ACCESSION}\r\n`, '')));
    expect([...result.catalog.filings()]).toEqual([]);
    expect(result.rejections).toEqual([{ source: NC_FILE, location: 'SUBMISSION', reason: 'SGML header has no <ACCESSION-NUMBER>' }]);
  });

  it('names the tag of a bad value and of a missing filer CIK', async () => {
    const badPeriod = await ingestOne(await ncWith((text) => text.replace('<PERIOD>20260930', '<PERIOD>2026-09-30')));
    expect(badPeriod.result.rejections).toEqual([
      { source: NC_FILE, location: 'SUBMISSION', reason: '<PERIOD> "2026-09-30" is not a YYYYMMDD date' },
    ]);
    // The former name's block and the address blocks hold no CIK: without the filer's, none is taken from elsewhere.
    const noCik = await ingestOne(await ncWith((text) => text.replace('<CIK>0001563000\r\n', '<OWNER-CIK>0009999999\r\n')));
    expect(noCik.result.rejections).toEqual([
      { source: NC_FILE, location: 'SUBMISSION', reason: 'SGML header has no <FILER><COMPANY-DATA><CIK>' },
    ]);
  });

  it('names the tagged header as the place of an accession read twice', async () => {
    const root = await ncWith((text) => text);
    await cp(path.join(FIXTURE, 'txt/filings'), path.join(root, 'filings'), { recursive: true });
    const { result } = await ingestOne(root);
    expect(result.catalog.meta(ACCESSION)?.source).toBe(NC_FILE);
    expect(result.rejections).toEqual([
      {
        source: `filings/edgar/1563000/${ACCESSION}.txt`,
        location: 'SEC-HEADER/ACCESSION NUMBER',
        reason: `duplicate accession ${ACCESSION}: already listed in ${NC_FILE} (SUBMISSION/<ACCESSION-NUMBER>)`,
      },
    ]);
  });
});

describe('readSubmissionHeader on the tagged layout', () => {
  it('splits the .nc fixture into its tagged header fields', async () => {
    const submission = parseFullSubmission(await readFile(path.join(FIXTURE, 'nc', NC_FILE), 'latin1'));
    expect(submission.header).toMatchObject({ layout: 'tagged', element: 'SUBMISSION' });
    expect(submission.header.values).toEqual({
      accession: ACCESSION,
      submissionType: '13F-HR',
      period: '20260930',
      filedAt: '20261112',
      cik: '0001563000',
      filerName: 'CEDAR HOLLOW CAPITAL LLC',
    });
    expect(submission.documents.map((document) => [document.type, document.fileName])).toEqual([
      ['13F-HR', 'primary_doc.xml'],
      ['INFORMATION TABLE', 'cedar_hollow_13f_q3.xml'],
    ]);
  });

  it('passes over tags and blocks it does not need: flags, other roles, series, stray close tags', () => {
    const header = readSubmissionHeader(
      [
        '<SUBMISSION>',
        '<PAPER>',
        '<ACCESSION-NUMBER>0001563000-26-000031',
        '<TYPE>13F-HR',
        '<CONFIRMING-COPY>',
        '<PERIOD>20260930',
        '<ITEMS>',
        '</BUSINESS-ADDRESS>',
        '<FILING-DATE>20261112',
        '<FILER>',
        '<COMPANY-DATA>',
        '<CONFORMED-NAME>CEDAR HOLLOW CAPITAL LLC',
        '<CIK>0001563000',
        '</COMPANY-DATA>',
        '<FORMER-COMPANY>',
        '<FORMER-CONFORMED-NAME>CEDAR HOLLOW PARTNERS LLC',
        '</FORMER-COMPANY>',
        '</FILER>',
        '<FILER>',
        '<COMPANY-DATA>',
        '<CONFORMED-NAME>SECOND FILER LP',
        '<CIK>0001999999',
        '</COMPANY-DATA>',
        '</FILER>',
        '<SERIES-AND-CLASSES-CONTRACTS-DATA>',
        '<EXISTING-SERIES-AND-CLASSES-CONTRACTS>',
        '<SERIES>',
        '<OWNER-CIK>0009999999',
        '<CIK>0008888888',
        '</SERIES>',
        '</EXISTING-SERIES-AND-CLASSES-CONTRACTS>',
        '</SERIES-AND-CLASSES-CONTRACTS-DATA>',
        '',
      ].join('\r\n'),
    );
    expect(header.values).toEqual({
      accession: '0001563000-26-000031',
      submissionType: '13F-HR',
      period: '20260930',
      filedAt: '20261112',
      cik: '0001563000',
      filerName: 'CEDAR HOLLOW CAPITAL LLC',
    });
  });

  it('reads the tagged layout inside a <SEC-HEADER> (EDGAR .hdr.sgml) and names that element', () => {
    const header = readSubmissionHeader(
      '<SEC-HEADER>0001563000-26-000031.hdr.sgml : 20261112\n<ACCESSION-NUMBER>0001563000-26-000031\n<TYPE>13F-NT\n',
    );
    expect(header).toMatchObject({ layout: 'tagged', element: 'SEC-HEADER' });
    expect(header.values).toEqual({ accession: '0001563000-26-000031', submissionType: '13F-NT' });
  });

  it('keeps the KEY: value layout for a header with no field in either, so the old reason stands', () => {
    expect(readSubmissionHeader('<SEC-HEADER>\nPUBLIC DOCUMENT COUNT:\t2\n')).toMatchObject({
      layout: 'key-value',
      element: 'SEC-HEADER',
      values: {},
    });
  });
});
