import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';
import { zipDatasetFolder } from '../helpers/dataset-zip.js';

/**
 * The Form 13F data sets are read in worker threads, several at once, and taken in in source order
 * (src/ingest/filings/form13f-workers.ts). Whatever the number of threads, a build must publish the
 * same bytes and report the same rejections and notes, in the same order, as reading them one after
 * the other on the main thread — also when a data set repeats filings of an earlier source (it is
 * then read again on the main thread) and when one cannot be read at all.
 */

const NOW = '2026-11-22T00:00:00.000Z';
const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/filings');
const DATASET = path.join(FIXTURES, 'dataset-2026q3');

let sources: string;
beforeAll(async () => {
  sources = await tempDir('parallel-sources');
  await cp(path.join(FIXTURES, 'edgar-good'), sources, { recursive: true });
  const datasets = path.join(sources, 'filings/datasets');
  await mkdir(datasets, { recursive: true });
  await cp(DATASET, path.join(datasets, 'a-2026q3'), { recursive: true });
  // The same filings again: each is a duplicate of a-2026q3's copy.
  await zipDatasetFolder(DATASET, path.join(datasets, 'b-copy.zip'));
  await writeFile(path.join(datasets, 'c-broken.zip'), 'PK\u0003\u0004 not a zip at all');
  await cp(path.join(FIXTURES, 'real-world/filings/datasets/2026q3_form13f'), path.join(datasets, 'd-real-world'), { recursive: true });
});

async function build(threads: string) {
  const store = await tempDir(`parallel-store-${threads}`);
  const result = await runCli(
    ['build', '--datasets', 'smart-money', '--all-filers', '--sources', sources, '--store', store, '--now', NOW, '--json', '--quiet'],
    { env: { PDSNAP_INGEST_THREADS: threads } },
  );
  expect(result.exitCode, String(result.stderr)).toBe(0);
  return JSON.parse(String(result.stdout)).datasets[0];
}

describe('Form 13F data sets read in worker threads', () => {
  it('publish the same snapshot with the same report as one thread reading them in order', async () => {
    const [serial, ...parallel] = await Promise.all(['0', '1', '3'].map(build));
    expect(serial.outcome).toBe('published');
    expect(serial.rejected).toContainEqual(
      expect.objectContaining({
        source: 'filings/datasets/c-broken.zip',
        location: 'file',
        reason: expect.stringMatching(/^data set not read: /),
      }),
    );
    const duplicates = serial.rejected.filter(
      (r: { source: string; reason: string }) =>
        r.source.startsWith('filings/datasets/b-copy.zip') &&
        r.reason.includes('already listed in filings/datasets/a-2026q3/SUBMISSION.tsv'),
    );
    expect(duplicates.length).toBeGreaterThan(2);
    for (const report of parallel) expect(report).toEqual(serial);
  });

  it('refuses a PDSNAP_INGEST_THREADS that is no whole number from 0 to 64', async () => {
    const result = await runCli(
      ['build', '--datasets', 'smart-money', '--sources', sources, '--store', await tempDir('parallel-bad'), '--now', NOW],
      {
        env: { PDSNAP_INGEST_THREADS: 'many' },
      },
    );
    expect(result.exitCode).toBe(3);
    expect(String(result.stderr)).toContain('PDSNAP_INGEST_THREADS must be a whole number from 0 to 64 (got "many")');
  });
});
