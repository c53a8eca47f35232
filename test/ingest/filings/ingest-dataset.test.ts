import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestFilings } from '../../../src/ingest/filings/index.js';
import { zipDatasetFolder } from '../../helpers/dataset-zip.js';
import { SILENT_PROGRESS, type Progress } from '../../../src/model/progress.js';

const DATASET = path.resolve('test/fixtures/filings/dataset-2026q3');
const GOOD = path.resolve('test/fixtures/filings/edgar-good');
const roots: string[] = [];

async function sourcesWith(setup: (root: string) => Promise<void>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-filings-'));
  roots.push(root);
  await setup(root);
  return root;
}

/** The SEC's ZIP nests the TSVs in a folder; the reader matches members by base name. */
const zipDataset = (zipPath: string) => zipDatasetFolder(DATASET, zipPath);

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

describe.each([
  [
    'an extracted folder',
    (root: string) => cp(DATASET, path.join(root, 'filings/datasets/2026q3_form13f'), { recursive: true }),
    'filings/datasets/2026q3_form13f/INFOTABLE.tsv',
  ],
  [
    'a zip',
    async (root: string) => {
      await mkdir(path.join(root, 'filings/datasets'), { recursive: true });
      await zipDataset(path.join(root, 'filings/datasets/2026q3_form13f.zip'));
    },
    'filings/datasets/2026q3_form13f.zip!2026q3_form13f/INFOTABLE.tsv',
  ],
])('a Form 13F data set as %s', async (_label, setup, infotable) => {
  const steps: Array<{ label: string; total: number | undefined; advanced: number[] }> = [];
  const recording: Progress = {
    step(label, total) {
      const step = { label, total, advanced: [] as number[] };
      steps.push(step);
      return { advance: (units = 1) => step.advanced.push(units), done: () => {} };
    },
  };
  const result = await ingestFilings(await sourcesWith(setup), recording);

  it('reports progress in bytes of INFOTABLE read, out of its inflated size', async () => {
    const size = (await readFile(path.join(DATASET, 'INFOTABLE.tsv'))).length;
    const read = steps.find((step) => step.label.includes('INFOTABLE'));
    expect(read?.total).toBe(size);
    expect(read?.advanced.reduce((a, b) => a + b, 0)).toBe(size);
  });
  const accepted = [...result.catalog.filings()];
  const byAccession = new Map(accepted.map((meta) => [meta.accessionNumber, meta]));

  it('accepts the valid filings, including a notice and an amendment of an earlier period', () => {
    expect(accepted.map((meta) => meta.accessionNumber)).toEqual([
      '0001601000-26-000101',
      '0001603000-26-000103',
      '0001605000-26-000105',
      '0001606000-26-000106',
      '0001527817-26-000058',
    ]);
    expect(byAccession.get('0001601000-26-000101')).toMatchObject({
      cik: '1601000',
      filerName: 'MERIDIAN RIDGE ADVISORS LLC',
      period: '2026-09-30',
      filedAt: '2026-11-12',
      submissionType: '13F-HR',
      valueUnit: 'dollars',
    });
    expect(byAccession.get('0001603000-26-000103')).toMatchObject({ submissionType: '13F-NT' });
    expect(byAccession.get('0001605000-26-000105')).toMatchObject({
      period: '2026-06-30',
      submissionType: '13F-HR/A',
      amendmentType: 'RESTATEMENT',
    });
  });

  it('keeps rows of a filing that are interleaved with another filing, and stray quotes in names', () => {
    expect(result.catalog.rows('0001601000-26-000101').map((row) => [row.issuerName, row.putCall, row.value])).toEqual([
      ['APPLE INC', null, 45600000],
      ['APPLE INC', 'call', 11400000],
      ['NVIDIA CORPORATION', null, 36300000],
      ['SOUTHERN "NEW" ENGLAND TEL CO', null, 11400000],
    ]);
  });

  it('rejects the whole filing of a row with the wrong number of fields, and keeps the others', () => {
    expect(byAccession.has('0001602000-26-000102')).toBe(false);
    expect(result.rejections).toContainEqual({
      source: infotable,
      location: 'row 4 (line 5)',
      reason: 'filing 0001602000-26-000102 rejected: expected 15 fields, got 14',
    });
  });

  it('rejects the whole filing of a non-numeric value', () => {
    expect(byAccession.has('0001604000-26-000104')).toBe(false);
    expect(result.rejections).toContainEqual({
      source: infotable,
      location: 'row 7 (line 8)',
      reason: 'filing 0001604000-26-000104 rejected: VALUE "12.5O" is not a non-negative number',
    });
  });

  it('publishes a filing whose SUMMARYPAGE entry total disagrees with its INFOTABLE rows, from the rows, and notes it', () => {
    expect(result.catalog.rows('0001527817-26-000058')).toHaveLength(1);
    expect(result.rejections.filter((r) => r.reason.includes('0001527817-26-000058'))).toEqual([]);
    expect(result.notes).toContainEqual({
      source: infotable.replace('INFOTABLE', 'SUMMARYPAGE'),
      message:
        "filing 0001527817-26-000058: cover page tableEntryTotal is 3 but the information table has 1 rows; cover page tableValueTotal is 56160000 but the information table's values sum to 36300000; published from the information table (--strict rejects it)",
    });
  });

  it('rejects an accession listed twice, naming the first', () => {
    const duplicate = result.rejections.find((r) => r.reason.startsWith('duplicate accession 0001601000-26-000101'));
    expect(duplicate?.location).toBe('row 8 (line 9)');
    expect(duplicate?.reason).toMatch(/already listed in .*SUBMISSION\.tsv \(row 1 \(line 2\)\)$/);
  });

  it('rejects information-table rows of an accession the data set does not list', () => {
    expect(result.rejections).toContainEqual({
      source: infotable,
      location: 'row 14 (line 15)',
      reason: expect.stringMatching(/^1 row\(s\) for accession 0001699999-26-000199, which is not listed in /),
    });
    expect(result.rejections).toHaveLength(4);
  });
});

describe('a data set next to EDGAR filings', async () => {
  const root = await sourcesWith(async (dir) => {
    await cp(GOOD, dir, { recursive: true });
    await cp(DATASET, path.join(dir, 'filings/datasets/2026q3_form13f'), { recursive: true });
  });
  const result = await ingestFilings(root, SILENT_PROGRESS);

  it('rejects the data set copy of an accession already read from EDGAR, naming the EDGAR file', () => {
    expect(result.catalog.meta('0001527817-26-000058')!.source).toBe('filings/edgar/1527817/0001527817-26-000058.txt');
    expect(result.rejections).toContainEqual({
      source: 'filings/datasets/2026q3_form13f/SUBMISSION.tsv',
      location: 'row 7 (line 8)',
      reason:
        'duplicate accession 0001527817-26-000058: already listed in filings/edgar/1527817/0001527817-26-000058.txt (SEC-HEADER/ACCESSION NUMBER)',
    });
    // Its INFOTABLE rows are not reported again as unlisted.
    expect(result.rejections.filter((r) => r.reason.includes('0001527817-26-000058'))).toHaveLength(1);
  });
});

/** Rewrites the uncompressed size that a ZIP's central directory declares for one member. */
async function declareSize(zipPath: string, memberSuffix: string, change: (size: number) => number): Promise<number> {
  const zip = await readFile(zipPath);
  for (let at = zip.indexOf(CENTRAL_HEADER); at !== -1; at = zip.indexOf(CENTRAL_HEADER, at + 4)) {
    const name = zip.toString('utf8', at + 46, at + 46 + zip.readUInt16LE(at + 28));
    if (!name.endsWith(memberSuffix)) continue;
    const declared = change(zip.readUInt32LE(at + 24));
    zip.writeUInt32LE(declared, at + 24);
    await writeFile(zipPath, zip);
    return declared;
  }
  throw new Error(`no member ${memberSuffix}`);
}
const CENTRAL_HEADER = Buffer.from([0x50, 0x4b, 0x01, 0x02]);

describe('a data set ZIP whose member inflates to another size than its entry declares', () => {
  it.each([
    ['more', (size: number) => size - 100, 'inflates to more than the {declared} bytes its entry declares'],
    ['fewer', (size: number) => size + 100, 'inflates to {actual} bytes, fewer than the {declared} its entry declares'],
  ])('rejects the data set when it inflates to %s bytes, naming the member', async (_more, change, reason) => {
    let declared = 0;
    const root = await sourcesWith(async (sources) => {
      await mkdir(path.join(sources, 'filings/datasets'), { recursive: true });
      const zipPath = path.join(sources, 'filings/datasets/2026q3_form13f.zip');
      await zipDataset(zipPath);
      declared = await declareSize(zipPath, 'INFOTABLE.tsv', change);
    });
    const actual = (await readFile(path.join(DATASET, 'INFOTABLE.tsv'))).length;
    const result = await ingestFilings(root, SILENT_PROGRESS);
    // Nothing of the data set is used (the fixture's own duplicate accession is still rejected first).
    expect(result.catalog.filingCount).toBe(0);
    expect(result.rejections.filter((r) => r.location === '2026q3_form13f/INFOTABLE.tsv')).toEqual([
      {
        source: 'filings/datasets/2026q3_form13f.zip',
        location: '2026q3_form13f/INFOTABLE.tsv',
        reason: `data set not read: filings/datasets/2026q3_form13f.zip!2026q3_form13f/INFOTABLE.tsv ${reason
          .replace('{declared}', String(declared))
          .replace('{actual}', String(actual))}`,
      },
    ]);
  });
});
