import { execa } from 'execa';
import { cp, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleFilePath } from '../helpers/bundle-file.js';
import { CLI, REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';

const NOW = '2026-11-22T12:00:00.000Z';
const LATER = '2026-11-22T13:00:00.000Z';

/** Starts a build that stops at a named point inside publishing, then kills it with SIGKILL. */
async function killBuildAt(point: string, sources: string, store: string, extra: string[] = []): Promise<void> {
  const child = execa('node', [CLI, 'build', '--datasets', 'articles', '--sources', sources, '--store', store, '--now', LATER, ...extra], {
    cwd: REPO_ROOT,
    reject: false,
    env: { PDSNAP_PAUSE_AT: point },
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(`paused at ${point}`)) resolve();
    });
    child.once('exit', () => reject(new Error(`build exited before reaching ${point}: ${seen}`)));
  });
  child.kill('SIGKILL');
  const result = await child;
  expect(result.signal).toBe('SIGKILL');
}

/** The articles build at LATER, in the test's process, as the run after a killed one. */
function buildLater(store: string, ...extra: string[]) {
  return runCli(['build', '--datasets', 'articles', '--sources', sources, '--store', store, '--now', LATER, '--json', ...extra]);
}

let sources: string;
beforeAll(async () => {
  sources = await tempDir('sources');
  expect((await runCli(['sample', '--out', sources, '--now', NOW, '--force'])).exitCode).toBe(0);
});

describe('a build killed in the middle of publishing', () => {
  /** A store with one articles build at NOW, copied for each test (a build is byte-identical). */
  let built: string;
  let firstId: string;
  beforeAll(async () => {
    built = await tempDir('store-built');
    const first = await runCli(['build', '--datasets', 'articles', '--sources', sources, '--store', built, '--now', NOW, '--json']);
    expect(first.exitCode, String(first.stderr)).toBe(0);
    firstId = JSON.parse(String(first.stdout)).datasets[0].snapshotId as string;
  });

  it.each(['resources-staged', 'manifest-written', 'bundle-renamed'])(
    'killed at %s leaves current on the previous, verifiable bundle',
    async (point) => {
      const store = await tempDir('store');
      await cp(built, store, { recursive: true });

      await killBuildAt(point, sources, store);

      const pointer = JSON.parse(await readFile(path.join(store, 'current/articles.json'), 'utf8'));
      expect(pointer.snapshotId).toBe(firstId);
      const inspect = await runCli(['inspect', firstId, '--store', store, '--json']);
      expect(inspect.exitCode, String(inspect.stderr)).toBe(0);
      expect(JSON.parse(String(inspect.stdout))).toMatchObject({ verified: true, current: true });

      // The next build completes and clears what the killed one left in tmp/.
      const retry = await buildLater(store);
      expect(retry.exitCode, String(retry.stderr)).toBe(0);
      const retryId = JSON.parse(String(retry.stdout)).datasets[0].snapshotId as string;
      expect(retryId).not.toBe(firstId);
      expect(JSON.parse(await readFile(path.join(store, 'current/articles.json'), 'utf8')).snapshotId).toBe(retryId);
      expect(await readdir(path.join(store, 'tmp'))).toEqual([]);
    },
  );

  it('killed before its candidate bundle was renamed into place, is published by the next run of either kind', async () => {
    const store = await tempDir('store');
    await cp(built, store, { recursive: true });
    await killBuildAt('manifest-written', sources, store, ['--no-promote']);
    // The killed run wrote its candidate marker first; the same snapshot again must not trip over it.
    const candidate = await buildLater(store, '--no-promote');
    expect(candidate.exitCode, String(candidate.stderr)).toBe(0);
    const candidateId = JSON.parse(String(candidate.stdout)).datasets[0].snapshotId as string;
    const listed = JSON.parse(String((await runCli(['list', '--store', store, '--json'])).stdout)) as {
      snapshots: { snapshotId: string; candidate: boolean }[];
    };
    expect(listed.snapshots.find((s) => s.snapshotId === candidateId)).toMatchObject({ candidate: true });

    const promoting = await tempDir('store');
    await cp(built, promoting, { recursive: true });
    await killBuildAt('manifest-written', sources, promoting, ['--no-promote']);
    const promoted = await buildLater(promoting);
    expect(promoted.exitCode, String(promoted.stderr)).toBe(0);
    expect(await readdir(path.join(promoting, 'candidates/articles'))).toEqual([]);
  });

  it('killed after the pointer moved leaves current on the new, complete bundle', async () => {
    const store = await tempDir('store');
    await killBuildAt('pointer-written', sources, store);
    const pointer = JSON.parse(await readFile(path.join(store, 'current/articles.json'), 'utf8'));
    const inspect = await runCli(['inspect', pointer.snapshotId, '--store', store]);
    expect(inspect.exitCode, String(inspect.stderr)).toBe(0);
  });
});

describe('a published bundle with one flipped byte', () => {
  it('is refused by inspect, and a rebuild of the same content republishes it whole, saying so', async () => {
    const store = await tempDir('store');
    const build = await runCli(['build', '--datasets', 'calendar', '--sources', sources, '--store', store, '--now', NOW, '--json']);
    const id = JSON.parse(String(build.stdout)).datasets[0].snapshotId as string;
    const file = await bundleFilePath(store, id, 'events/00000.ndjson');
    const bytes = await readFile(file);
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = bytes[middle]! ^ 0x20;
    await writeFile(file, bytes);

    const inspect = await runCli(['inspect', id, '--store', store]);
    expect(inspect.exitCode).toBe(2);
    expect(String(inspect.stderr)).toMatch(/events\/00000\.ndjson does not match its sha256/);

    const rebuild = await runCli(['build', '--datasets', 'calendar', '--sources', sources, '--store', store, '--now', NOW, '--json']);
    expect(rebuild.exitCode, String(rebuild.stderr)).toBe(0);
    const report = JSON.parse(String(rebuild.stdout)).datasets[0];
    expect(report.snapshotId).toBe(id);
    expect(report.notes.map((n: { message: string }) => n.message)).toContainEqual(
      expect.stringMatching(new RegExp(`^republished damaged bundle ${id}: .*events/00000\\.ndjson does not match its sha256`)),
    );
    expect((await readFile(file)).equals(bytes)).toBe(false);
    expect((await runCli(['inspect', id, '--store', store])).exitCode).toBe(0);
  });
});
