import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderStore } from '../../src/publish/folder-store.js';
import { bundleFiles as listedFiles } from '../../src/publish/manifest-check.js';
import { REPO_ROOT, runCli, runCliProcess, tempDir } from '../helpers/cli.js';

/**
 * A large Smart Money build derives its investors on worker threads that share the catalog
 * (src/cli/pipeline/smart-money-workers.ts); the sample is too small for that by default, so these
 * builds ask for the threads with PDSNAP_DERIVE_THREADS, and compare with 0 (the main thread).
 */

const NOW = '2026-11-22T12:00:00.000Z';
const SOURCES = path.join(REPO_ROOT, 'data/sources');

const buildArgs = (store: string) => ['build', '--datasets', 'smart-money', '--sources', SOURCES, '--store', store, '--now', NOW, '--json'];

/** Builds the sample's Smart Money in this process, with small parts so that a resource spans several, counting the Workers started. */
async function build(env: Record<string, string>) {
  const store = await tempDir('derive-threads-store');
  let workers = 0;
  const started = () => {
    workers += 1;
  };
  // Node announces each Worker a thread creates on that thread's process object: how a test sees it.
  process.on('worker', started);
  try {
    const result = await runCli(buildArgs(store), { env: { PDSNAP_PART_BYTES: '4096', ...env } });
    await new Promise((resolve) => setImmediate(resolve)); // announced on a later tick
    return { result, store, workers };
  } finally {
    process.off('worker', started);
  }
}

/** Every file of a store's bundles, by snapshot id and the name its manifest gives it, with its bytes (manifests included). */
async function bundleFiles(store: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const folder = new FolderStore(store);
  for (const id of await readdir(path.join(store, 'bundles', 'smart-money'))) {
    const bundle = await folder.openBundle(id);
    files.set(`${id}/manifest.json`, await readFile(path.join(folder.bundleDir(id), 'manifest.json')));
    for (const entry of listedFiles(bundle.manifest)) files.set(`${id}/${entry.path}`, await readFile(bundle.locate(entry)));
  }
  return files;
}

describe('Smart Money investors derived on threads of their own', () => {
  it('give byte for byte the bundle derived on the main thread, serving index and manifest included, and the same report', async () => {
    const threaded = await build({ PDSNAP_DERIVE_THREADS: '3', PDSNAP_INGEST_THREADS: '0', PDSNAP_BATCH_INVESTORS: '2' });
    const here = await build({ PDSNAP_DERIVE_THREADS: '0', PDSNAP_INGEST_THREADS: '0', PDSNAP_BATCH_INVESTORS: '2' });
    expect(threaded.result.exitCode, String(threaded.result.stderr)).toBe(0);
    expect(here.result.exitCode, String(here.result.stderr)).toBe(0);
    expect(threaded.workers).toBe(3);
    expect(here.workers).toBe(0);

    const [a, b] = await Promise.all([bundleFiles(threaded.store), bundleFiles(here.store)]);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    expect([...a.keys()].filter((file) => file.includes('/trades/')).length).toBeGreaterThan(3);
    expect([...a.keys()].some((file) => file.endsWith('serving-index.sqlite'))).toBe(true);
    for (const [file, bytes] of a) expect(bytes.equals(b.get(file)!), file).toBe(true);
    const report = (result: typeof here.result) => {
      const { store: _store, ...rest } = JSON.parse(String(result.stdout));
      return rest;
    };
    expect(report(threaded.result)).toEqual(report(here.result));
  });

  it('derive on the main thread by default for a build as small as the sample', async () => {
    const { result, workers } = await build({ PDSNAP_INGEST_THREADS: '0' });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(workers).toBe(0);
  });

  it.each(['2', '0'])(
    'fail the build when a write fails, naming the part file, and leave nothing behind (PDSNAP_DERIVE_THREADS=%s)',
    async (threads) => {
      const { result, store } = await build({ PDSNAP_FAIL_AT: 'part-write', PDSNAP_DERIVE_THREADS: threads });
      expect(result.exitCode).toBe(3);
      const report = JSON.parse(String(result.stdout)).datasets[0];
      expect(report.outcome).toBe('error');
      expect(report.reason).toMatch(
        /[/\\]smart-money~[^ ]+[/\\](investors|trades|consensus)[/\\]00000\.ndjson: ENOSPC: no space left on device, write$/,
      );
      expect(await readdir(path.join(store, 'tmp'))).toEqual([]);
      expect(await readdir(store)).not.toContain('current');
    },
  );

  it.each([
    ['index-open', '2'],
    ['index-finish', '2'],
    ['index-finish', '0'],
  ])('fail the build when the serving index cannot be written (%s), with its path (PDSNAP_DERIVE_THREADS=%s)', async (point, threads) => {
    const { result, store } = await build({ PDSNAP_FAIL_AT: point, PDSNAP_DERIVE_THREADS: threads });
    expect(result.exitCode).toBe(3);
    const report = JSON.parse(String(result.stdout)).datasets[0];
    expect(report.reason).toMatch(/[/\\]smart-money~[^ ]+[/\\]serving-index\.sqlite: ENOSPC: no space left on device, write$/);
    expect(await readdir(path.join(store, 'tmp'))).toEqual([]);
  });

  it.each(['2', '0'])(
    'fail the build when a record fails its schema there, naming the resource and the record, and publish nothing (PDSNAP_DERIVE_THREADS=%s)',
    async (threads) => {
      const { result, store } = await build({ PDSNAP_FAIL_AT: 'record-schema', PDSNAP_DERIVE_THREADS: threads });
      expect(result.exitCode, String(result.stderr)).toBe(2);
      const report = JSON.parse(String(result.stdout)).datasets[0];
      // The first record of the first batch: its number in the bundle, not in the batch.
      expect(report.reason).toBe(
        'a derived record failed its schema check, not published: investors record 0: / fails its schema (PDSNAP_FAIL_AT=record-schema)',
      );
      expect(await readdir(path.join(store, 'tmp'))).toEqual([]);
      expect(await readdir(store)).not.toContain('current');
    },
  );

  it('is a usage error for a PDSNAP_DERIVE_THREADS that is no whole number from 0 to 64, before anything is read', async () => {
    const store = await tempDir('derive-threads-store');
    const result = await runCli(['build', '--sources', SOURCES, '--store', store, '--now', NOW, '--json'], {
      env: { PDSNAP_DERIVE_THREADS: 'yes' },
    });
    expect(result.exitCode).toBe(3);
    expect(JSON.parse(String(result.stdout)).error).toMatchObject({
      kind: 'usage',
      message: 'PDSNAP_DERIVE_THREADS must be a whole number from 0 to 64 (got "yes")',
    });
    expect(await readdir(store)).toEqual([]);
  });

  it('ends the build with a clear error when a derivation worker dies, and leaves nothing behind', async () => {
    // A process of its own: the worker is told to exit by a fault point read in the worker.
    const store = await tempDir('derive-threads-store');
    const result = await runCliProcess(buildArgs(store), { env: { PDSNAP_DERIVE_THREADS: '2', PDSNAP_FAIL_AT: 'derive-worker' } });
    expect(result.exitCode).toBe(3);
    expect(JSON.parse(String(result.stdout)).datasets[0].reason).toMatch(/a derivation worker stopped \(exit code 1\) before it finished/);
    expect(await readdir(path.join(store, 'tmp'))).toEqual([]);
  });
});
