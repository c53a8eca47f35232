import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderStore } from '../../src/publish/folder-store.js';
import { bundleFiles as listedFiles } from '../../src/publish/manifest-check.js';
import { REPO_ROOT, runCli, runCliProcess, tempDir } from '../helpers/cli.js';

/**
 * A Smart Money bundle's files are written on a thread of their own once its records fill a first
 * chunk (src/publish/bundle-file-output.ts). The sample fills none at the default part size, so
 * these builds use small parts, which hand chunks over from the first records on.
 */

const NOW = '2026-11-22T12:00:00.000Z';
const SOURCES = path.join(REPO_ROOT, 'data/sources');

const buildArgs = (store: string) => ['build', '--datasets', 'smart-money', '--sources', SOURCES, '--store', store, '--now', NOW, '--json'];

/** Builds the sample's Smart Money with small parts, in this process, counting the Workers this thread started. */
async function build(env: Record<string, string>) {
  const store = await tempDir('writer-thread-store');
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

/** The same build as a process of its own, counting every thread it ran, those a worker started included. */
async function buildProfiled(env: Record<string, string>) {
  const store = await tempDir('writer-thread-store');
  const profiles = await tempDir('writer-thread-profiles');
  // One CPU profile per thread: a thread started by the writer thread is seen too, unlike by the 'worker' event.
  const result = await runCliProcess(buildArgs(store), { env: { PDSNAP_PART_BYTES: '4096', ...env } }, [
    `--cpu-prof-dir=${profiles}`,
    '--cpu-prof',
  ]);
  return { result, store, threads: (await readdir(profiles)).length };
}

/** Every file of a store's bundles, by path, with its bytes. */
/** Every bundle's manifest and every file it lists, by `<snapshotId>/<name>`. */
async function bundleFiles(store: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const folder = new FolderStore(store);
  for (const { snapshotId } of await folder.listSnapshots()) {
    const bundle = await folder.openBundle(snapshotId);
    files.set(`${snapshotId}/manifest.json`, await readFile(path.join(folder.bundleDir(snapshotId), 'manifest.json')));
    for (const entry of listedFiles(bundle.manifest)) files.set(`${snapshotId}/${entry.path}`, await readFile(bundle.locate(entry)));
  }
  return files;
}

describe('the bundle files written on a thread of their own', () => {
  it('are byte for byte the files written on the deriving thread, serving index and manifest included', async () => {
    const [threaded, here] = await Promise.all([buildProfiled({}), buildProfiled({ PDSNAP_WRITER_THREAD: '0' })]);
    expect(threaded.result.exitCode, String(threaded.result.stderr)).toBe(0);
    expect(here.result.exitCode, String(here.result.stderr)).toBe(0);
    // The deriving thread, and the writer in the threaded build only: the sample's serving index is
    // one chunk, digested without a helper thread.
    expect(here.threads).toBe(1);
    expect(threaded.threads).toBe(2);

    const [a, b] = await Promise.all([bundleFiles(threaded.store), bundleFiles(here.store)]);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    expect([...a.keys()].filter((file) => file.includes('/trades/')).length).toBeGreaterThan(3);
    expect([...a.keys()].some((file) => file.endsWith('serving-index.sqlite'))).toBe(true);
    for (const [file, bytes] of a) expect(bytes.equals(b.get(file)!), file).toBe(true);
  });

  it('fail the build when a write there fails, naming the part file, and leave nothing behind', async () => {
    const { result, store, workers } = await build({ PDSNAP_FAIL_AT: 'part-write' });
    expect(workers).toBe(1);
    expect(result.exitCode).toBe(3);
    const report = JSON.parse(String(result.stdout)).datasets[0];
    expect(report.outcome).toBe('error');
    expect(report.reason).toMatch(
      /[/\\]smart-money~[^ ]+[/\\](investors|trades)[/\\]00000\.ndjson: ENOSPC: no space left on device, write$/,
    );
    expect(await readdir(path.join(store, 'tmp'))).toEqual([]);
    expect(await readdir(store)).not.toContain('current');
  });

  it.each([
    ['index-open', '1'],
    ['index-open', '0'],
    ['index-finish', '1'],
  ])(
    'fail the build when the serving index cannot be written (%s), with its path, and never wait for a thread that failed (PDSNAP_WRITER_THREAD=%s)',
    async (point, thread) => {
      // Small parts hand over dozens of chunks, more than the thread holds in flight: a thread that
      // failed while it started must still take them, or the deriving thread would wait forever.
      const { result, store } = await build({ PDSNAP_FAIL_AT: point, PDSNAP_WRITER_THREAD: thread });
      expect(result.exitCode).toBe(3);
      const report = JSON.parse(String(result.stdout)).datasets[0];
      expect(report.reason).toMatch(/[/\\]smart-money~[^ ]+[/\\]serving-index\.sqlite: ENOSPC: no space left on device, write$/);
      expect(await readdir(path.join(store, 'tmp'))).toEqual([]);
    },
  );

  it.each(['1', '0'])(
    'fail the build when a record there fails its schema, naming the resource and the record, and publish nothing (PDSNAP_WRITER_THREAD=%s)',
    async (thread) => {
      const { result, store } = await build({ PDSNAP_FAIL_AT: 'record-schema', PDSNAP_WRITER_THREAD: thread });
      expect(result.exitCode, String(result.stderr)).toBe(2);
      const report = JSON.parse(String(result.stdout)).datasets[0];
      expect(report.reason).toMatch(
        /^a derived record failed its schema check, not published: (investors|trades|consensus) record 0: \/ fails its schema \(PDSNAP_FAIL_AT=record-schema\)$/,
      );
      expect(await readdir(path.join(store, 'tmp'))).toEqual([]);
      expect(await readdir(store)).not.toContain('current');
    },
  );

  it('is a usage error for a PDSNAP_WRITER_THREAD other than 0 or 1, before anything is read', async () => {
    // The default part size: the sample would never start the thread, and the value is still refused.
    const store = await tempDir('writer-thread-store');
    const result = await runCli(['build', '--sources', SOURCES, '--store', store, '--now', NOW, '--json'], {
      env: { PDSNAP_WRITER_THREAD: 'yes' },
    });
    expect(result.exitCode).toBe(3);
    expect(JSON.parse(String(result.stdout)).error).toMatchObject({
      kind: 'usage',
      message: 'PDSNAP_WRITER_THREAD must be 0 or 1 (got "yes")',
    });
    expect(await readdir(store)).toEqual([]);
  });
});
