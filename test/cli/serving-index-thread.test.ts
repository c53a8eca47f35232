import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RECIPES } from '../../src/cli/pipeline/recipes.js';
import { SILENT_PROGRESS } from '../../src/model/progress.js';
import { openStore } from '../../src/publish/snapshot-store.js';
import { DEFAULT_LIMITS } from '../../src/validate/limits.js';
import { REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';

/**
 * The CLI writes a Smart Money bundle's serving index on a thread of its own, fed batches of rows
 * (src/publish/serving-index-thread.ts); in-process (this test runner) the same writer runs on the
 * calling thread. The file must be byte for byte the same either way, and a failure of the thread
 * must fail the build as a full disk on the main thread does.
 */

const NOW = '2026-11-22T12:00:00.000Z';
const SOURCES = path.join(REPO_ROOT, 'data/sources');

async function build(store: string, env: Record<string, string> = {}) {
  const result = await runCli(
    ['build', '--datasets', 'smart-money', '--sources', SOURCES, '--store', store, '--now', NOW, '--json', '--quiet'],
    { env },
  );
  return { result, report: JSON.parse(String(result.stdout)).datasets[0] };
}

describe('the serving index written on a thread of its own', () => {
  let cliStore: string;
  let cliReport: { snapshotId: string; outcome: string };
  beforeAll(async () => {
    cliStore = await tempDir('index-thread');
    const built = await build(cliStore);
    expect(built.result.exitCode, String(built.result.stderr)).toBe(0);
    cliReport = built.report;
  });

  it('is byte for byte the file the same records make on the calling thread', async () => {
    const manifest = JSON.parse(
      await readFile(path.join(cliStore, 'bundles/smart-money', cliReport.snapshotId, 'manifest.json'), 'utf8'),
    ) as { servingIndex: { sha256: string; bytes: number } };
    const recipe = await RECIPES['smart-money']({
      sourcesDir: SOURCES,
      now: new Date(NOW),
      limits: DEFAULT_LIMITS,
      allFilers: false,
      strict: false,
      allowStale: false,
      progress: SILENT_PROGRESS,
    });
    const store = openStore(await tempDir('index-in-thread'));
    const { staged } = await store.stage('smart-money', (sink) => recipe.derive(sink));
    try {
      expect(staged.servingIndex).toMatchObject({ sha256: manifest.servingIndex.sha256, bytes: manifest.servingIndex.bytes });
    } finally {
      await store.discard(staged);
    }
  });

  it('fails the build naming the file when the thread cannot write it (a full disk), and leaves nothing staged', async () => {
    const store = await tempDir('index-thread-full');
    const { result, report } = await build(store, { PDSNAP_FAIL_AT: 'serving-index-write' });
    expect(result.exitCode).toBe(3);
    expect(report.published).toBe(false);
    expect(report.reason).toMatch(/\/tmp\/smart-money~[^:]+\/serving-index\.sqlite: ENOSPC: no space left on device/);
    expect(await readdir(path.join(store, 'tmp'))).toEqual([]);
    expect(await readdir(path.join(store, 'bundles')).catch(() => [])).toEqual([]);
  });
});
