import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestFilings } from '../../../src/ingest/filings/index.js';
import { SILENT_PROGRESS } from '../../../src/model/progress.js';

/**
 * A Form 13F reports holdings as of a calendar quarter end. A filing dated otherwise cannot be an
 * investor's period ("quarter end" in its record) and has no adjacent quarter for trades: it would
 * become the filer's latest period and hide its real quarters. It is rejected, with the reason.
 */

const GOOD = path.resolve('test/fixtures/filings/edgar-good');
const DATASET = path.resolve('test/fixtures/filings/dataset-2026q3');
const roots: string[] = [];

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function replaceIn(file: string, from: string, to: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
  await writeFile(file, text.replaceAll(from, to));
}

describe('a report period that is not a quarter end', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-period-'));
  roots.push(root);
  await cp(GOOD, root, { recursive: true });
  const edgar = path.join(root, 'filings/edgar');
  // A folder filing and a full submission of 2026-08-31, a month-end that ends no quarter.
  await replaceIn(path.join(edgar, '1523000/0001523000-26-000412/primary_doc.xml'), '09-30-2026', '08-31-2026');
  await replaceIn(path.join(edgar, '1527817/0001527817-26-000058.txt'), '20260930', '20260831');
  await replaceIn(path.join(edgar, '1527817/0001527817-26-000058.txt'), '09-30-2026', '08-31-2026');
  const dataset = path.join(root, 'filings/datasets/2026q3');
  await cp(DATASET, dataset, { recursive: true });
  await replaceIn(
    path.join(dataset, 'SUBMISSION.tsv'),
    '0001606000-26-000106\t14-NOV-2026\t13F-HR\t0001606000\t30-SEP-2026',
    '0001606000-26-000106\t14-NOV-2026\t13F-HR\t0001606000\t15-SEP-2026',
  );
  const result = await ingestFilings(root, SILENT_PROGRESS);
  const accepted = new Set([...result.catalog.filings()].map((meta) => meta.accessionNumber));
  const reason = (period: string, accession: string) =>
    `filing ${accession} rejected: report period ${period} is not a calendar quarter end (March 31, June 30, September 30 or December 31)`;

  it('rejects the filing as a whole, from a folder, a full submission and a data set, saying why', () => {
    // (The data set holds a copy of 0001527817-26-000058 with its real period, accepted from there.)
    for (const accession of ['0001523000-26-000412', '0001606000-26-000106']) {
      expect(accepted.has(accession)).toBe(false);
    }
    expect(result.rejections).toContainEqual({
      source: 'filings/edgar/1523000/0001523000-26-000412',
      location: 'folder',
      reason: reason('2026-08-31', '0001523000-26-000412'),
    });
    expect(result.rejections).toContainEqual(
      expect.objectContaining({
        source: 'filings/edgar/1527817/0001527817-26-000058.txt',
        reason: reason('2026-08-31', '0001527817-26-000058'),
      }),
    );
    expect(result.rejections).toContainEqual(expect.objectContaining({ reason: reason('2026-09-15', '0001606000-26-000106') }));
  });

  it('keeps the other filings', () => {
    expect(accepted.has('0001523000-26-000433')).toBe(true);
    expect(accepted.has('0001601000-26-000101')).toBe(true);
  });
});
