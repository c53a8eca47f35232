import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestFilings } from '../../../src/ingest/filings/index.js';
import { SILENT_PROGRESS } from '../../../src/model/progress.js';

/**
 * An accession belongs to the first copy that is accepted, not to the first copy that is read:
 * a broken copy must not knock out a good one read after it.
 */

const GOOD = path.resolve('test/fixtures/filings/edgar-good');
const BROKEN_COPY = path.resolve('test/fixtures/filings/broken-copy');
const DATASET = path.resolve('test/fixtures/filings/dataset-2026q3');
const roots: string[] = [];

async function sourcesWith(setup: (root: string) => Promise<void>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-duplicates-'));
  roots.push(root);
  await setup(root);
  return root;
}

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

describe('a broken EDGAR copy read before the good one', async () => {
  const root = await sourcesWith(async (dir) => {
    await cp(GOOD, dir, { recursive: true });
    // filings/edgar/0000-broken/copy.txt: the SGML header of 0001523000-26-000412 and no documents.
    await cp(BROKEN_COPY, dir, { recursive: true });
    // A second valid copy, sorted after the first.
    const mirror = path.join(dir, 'filings/edgar/zz-mirror');
    await mkdir(mirror, { recursive: true });
    await cp(path.join(GOOD, 'filings/edgar/1527817/0001527817-26-000058.txt'), path.join(mirror, 'copy.txt'));
  });
  const result = await ingestFilings(root, SILENT_PROGRESS);

  it('accepts the good folder filing and rejects the broken copy for its own reason', () => {
    expect(result.catalog.meta('0001523000-26-000412')?.source).toBe('filings/edgar/1523000/0001523000-26-000412');
    expect(result.rejections).toContainEqual({
      source: 'filings/edgar/0000-broken/copy.txt',
      location: 'DOCUMENT',
      reason: 'no XML cover page (primary_doc.xml) among the DOCUMENT blocks',
    });
    expect(result.rejections.filter((r) => r.reason.includes('0001523000-26-000412'))).toEqual([]);
  });

  it('rejects a second valid copy as a duplicate naming the accepted one', () => {
    expect(result.catalog.meta('0001527817-26-000058')?.source).toBe('filings/edgar/1527817/0001527817-26-000058.txt');
    expect(result.rejections).toContainEqual({
      source: 'filings/edgar/zz-mirror/copy.txt',
      location: 'SEC-HEADER/ACCESSION NUMBER',
      reason:
        'duplicate accession 0001527817-26-000058: already listed in filings/edgar/1527817/0001527817-26-000058.txt (SEC-HEADER/ACCESSION NUMBER)',
    });
    expect(result.catalog.filingCount).toBe(8);
    expect(result.rejections.filter((r) => r.source.startsWith('filings/edgar/'))).toHaveLength(2);
  });
});

describe('data sets whose copies of a filing fail', async () => {
  it('a data set rejected as a whole leaves its accessions to a later data set', async () => {
    const root = await sourcesWith(async (dir) => {
      const broken = path.join(dir, 'filings/datasets/2026q3_a_broken');
      await cp(DATASET, broken, { recursive: true });
      // An INFOTABLE header without the VALUE column: the data set cannot be read at all.
      const infotable = await readFile(path.join(DATASET, 'INFOTABLE.tsv'), 'utf8');
      await writeFile(path.join(broken, 'INFOTABLE.tsv'), infotable.replace('\tVALUE\t', '\tWORTH\t'));
      await cp(DATASET, path.join(dir, 'filings/datasets/2026q3_b_good'), { recursive: true });
    });
    const result = await ingestFilings(root, SILENT_PROGRESS);
    expect([...result.catalog.filings()].map((meta) => [meta.accessionNumber, meta.source])).toEqual([
      ['0001601000-26-000101', 'filings/datasets/2026q3_b_good'],
      ['0001603000-26-000103', 'filings/datasets/2026q3_b_good'],
      ['0001605000-26-000105', 'filings/datasets/2026q3_b_good'],
      ['0001606000-26-000106', 'filings/datasets/2026q3_b_good'],
      ['0001527817-26-000058', 'filings/datasets/2026q3_b_good'], // its totals disagree: noted, not rejected
    ]);
    expect(result.rejections).toContainEqual({
      source: 'filings/datasets/2026q3_a_broken',
      location: 'line 1',
      reason: expect.stringMatching(/^data set not read: .*INFOTABLE\.tsv/),
    });
    // In the good data set only its own repeated SUBMISSION row is a duplicate.
    const inGood = result.rejections.filter((r) => r.source.startsWith('filings/datasets/2026q3_b_good/'));
    expect(inGood.filter((r) => r.reason.startsWith('duplicate accession'))).toEqual([
      expect.objectContaining({ source: 'filings/datasets/2026q3_b_good/SUBMISSION.tsv', location: 'row 8 (line 9)' }),
    ]);
  });

  it('a filing rejected in one data set does not block its valid copy in a later one', async () => {
    const root = await sourcesWith(async (dir) => {
      await cp(DATASET, path.join(dir, 'filings/datasets/2026q3_a'), { recursive: true });
      const fixed = path.join(dir, 'filings/datasets/2026q3_b');
      await cp(DATASET, fixed, { recursive: true });
      // The same filing with its bad VALUE corrected (the SUMMARYPAGE total, 30000000, then matches).
      const infotable = await readFile(path.join(DATASET, 'INFOTABLE.tsv'), 'utf8');
      await writeFile(path.join(fixed, 'INFOTABLE.tsv'), infotable.replace('\t12.5O\t', '\t12450000\t'));
    });
    const result = await ingestFilings(root, SILENT_PROGRESS);
    expect(result.catalog.meta('0001604000-26-000104')?.source).toBe('filings/datasets/2026q3_b');
    expect(result.rejections).toContainEqual({
      source: 'filings/datasets/2026q3_a/INFOTABLE.tsv',
      location: 'row 7 (line 8)',
      reason: 'filing 0001604000-26-000104 rejected: VALUE "12.5O" is not a non-negative number',
    });
    // The copies in b of filings accepted from a are duplicates naming a's SUBMISSION.tsv row.
    expect(result.rejections).toContainEqual({
      source: 'filings/datasets/2026q3_b/SUBMISSION.tsv',
      location: 'row 1 (line 2)',
      reason: 'duplicate accession 0001601000-26-000101: already listed in filings/datasets/2026q3_a/SUBMISSION.tsv (row 1 (line 2))',
    });
  });
});
