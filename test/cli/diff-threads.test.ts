import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleFilePath } from '../helpers/bundle-file.js';
import { REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';

/**
 * `pdsnap diff` reads a large resource, keys the lines it leaves over and pairs them on worker
 * threads (src/publish/diff/diff-threads.ts), and a small one on its own thread. PDSNAP_DIFF_THREADS=1
 * takes the threads for the sample's small bundles too: both ways must print the same, and name
 * the same damage.
 */

const SAMPLE = path.join(REPO_ROOT, 'data/sources');
const NOW = '2026-11-22T12:00:00.000Z';
const NEXT_QUARTER = '2027-02-22T12:00:00.000Z';

let store: string;
beforeAll(async () => {
  const dir = await tempDir('diff-threads');
  store = path.join(dir, 'store');
  const later = path.join(dir, 'next-quarter');
  const build = (sources: string, now: string) =>
    // --allow-future-now: the next quarter is ahead of the host's clock, and the store is the test's own.
    runCli(['build', '--datasets', 'smart-money', '--sources', sources, '--store', store, '--now', now, '--quiet', '--allow-future-now'], {
      env: { PDSNAP_CLOCK: now },
    });
  expect((await build(SAMPLE, NOW)).exitCode).toBe(0);
  expect((await runCli(['sample', '--out', later, '--now', '2027-02-22T00:00:00Z'])).exitCode).toBe(0);
  expect((await build(later, NEXT_QUARTER)).exitCode).toBe(0);
});

const diff = (threads: '0' | '1', ...format: string[]) =>
  runCli(['diff', 'smart-money', '--store', store, '--limit', '3', ...format], { env: { PDSNAP_DIFF_THREADS: threads } });

describe('diff on worker threads', () => {
  it('prints what the diff on its own thread prints, in every format, for a new quarter where every record changed', async () => {
    for (const format of [['--json'], [], ['--format', 'markdown']]) {
      const [threaded, here] = [await diff('1', ...format), await diff('0', ...format)];
      expect(threaded.exitCode, format.join(' ')).toBe(0);
      expect(threaded.stdout, format.join(' ')).toBe(here.stdout);
    }
    const report = JSON.parse(String((await diff('1', '--json')).stdout));
    const trades = report.resources.find((r: { resource: string }) => r.resource === 'trades');
    expect(trades.changed + trades.added + trades.removed).toBeGreaterThan(0);
    expect(trades.unchanged).toBe(0);
  });

  it('names a damaged part as the diff on its own thread does, exit 2', async () => {
    const current = JSON.parse(await readFile(path.join(store, 'current', 'smart-money.json'), 'utf8')).snapshotId as string;
    const part = await bundleFilePath(store, current, 'trades/00000.ndjson');
    const text = await readFile(part, 'utf8');
    await writeFile(part, text.replace('"equity"', '"EQUITY"'));
    try {
      const [threaded, here] = [await diff('1'), await diff('0')];
      expect(threaded.exitCode).toBe(2);
      expect(threaded.stderr).toContain(`bundle ${current} failed verification: trades/00000.ndjson does not match its sha256`);
      expect(threaded.stderr).toBe(here.stderr);
    } finally {
      await writeFile(part, text);
    }
    // A part gone: the threads open their files blocking, and name it the same way.
    await rename(part, `${part}.away`);
    try {
      const [threaded, here] = [await diff('1'), await diff('0')];
      expect(threaded.exitCode).toBe(2);
      expect(threaded.stderr).toContain('trades/00000.ndjson');
      expect(threaded.stderr).toBe(here.stderr);
    } finally {
      await rename(`${part}.away`, part);
    }
  });
});
