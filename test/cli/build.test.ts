import { cp, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FolderStore } from '../../src/publish/folder-store.js';
import { bundleFiles } from '../../src/publish/manifest-check.js';
import { runCli, tempDir } from '../helpers/cli.js';

const NOW = '2026-11-22T12:00:00.000Z';
const LATER = '2026-11-22T13:00:00.000Z';
const LATEST = '2026-11-22T14:00:00.000Z';

async function filesUnder(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const walk = async (d: string) => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out.set(path.relative(dir, full), await readFile(full));
    }
  };
  await walk(dir);
  return out;
}

/**
 * The machine's clock is injected (PDSNAP_CLOCK) as the build's --now, and the store is the test's
 * own (--allow-future-now): no test depends on the wall clock.
 */
async function buildJson(sources: string, store: string, now: string, extra: string[] = []) {
  const result = await runCli(['build', '--sources', sources, '--store', store, '--now', now, '--json', '--allow-future-now', ...extra], {
    env: { PDSNAP_CLOCK: now },
  });
  return { result, report: result.stdout ? JSON.parse(String(result.stdout)) : null };
}

describe('pdsnap sample + build', () => {
  let sources: string;
  /** One build of every dataset, shared by the tests that only read it (or rebuild it unchanged). */
  let built: Awaited<ReturnType<typeof buildJson>> & { store: string };
  beforeAll(async () => {
    sources = await tempDir('sources');
    const sample = await runCli(['sample', '--out', sources, '--now', NOW, '--force']);
    expect(sample.exitCode, String(sample.stderr)).toBe(0);
    const store = await tempDir('store');
    built = { store, ...(await buildJson(sources, store, NOW)) };
  });

  it('publishes all three datasets from the sample with no rejected record', async () => {
    const { result, report } = built;
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(report.datasets.map((d: { dataset: string; outcome: string }) => [d.dataset, d.outcome])).toEqual([
      ['articles', 'published'],
      ['calendar', 'published'],
      ['smart-money', 'published'],
    ]);
    for (const d of report.datasets) {
      expect(d.rejected, d.dataset).toEqual([]);
      expect(d.freshUntil > NOW).toBe(true);
    }
  });

  it('publishes no CUSIP, FIGI or identifier field in the smart-money bundle', async () => {
    const { store, report } = built;
    const smartMoney = report.datasets.find((d: { dataset: string }) => d.dataset === 'smart-money');
    const filed = new Set<string>();
    for (const [name, bytes] of await filesUnder(path.join(sources, 'filings'))) {
      if (!/\.(xml|txt)$/.test(name)) continue;
      for (const match of bytes.toString('utf8').matchAll(/<(?:\w+:)?cusip>\s*([0-9A-Z]{9})\s*</gi)) filed.add(match[1]!);
    }
    expect(filed.size).toBeGreaterThan(20);
    // Every file the manifest lists (blobs of the store), and the manifest.
    const opened = await new FolderStore(store).openBundle(smartMoney.snapshotId);
    const listed = await Promise.all(bundleFiles(opened.manifest).map((entry) => readFile(opened.locate(entry))));
    expect(listed.length).toBeGreaterThan(3);
    const manifest = await readFile(path.join(store, 'bundles/smart-money', smartMoney.snapshotId, 'manifest.json'));
    const text = [...listed, manifest].map((b) => b.toString('utf8')).join('\n');
    expect(text).toContain('"issuerName"');
    expect([...filed].filter((cusip) => text.includes(cusip))).toEqual([]);
    expect(text).not.toMatch(/"(cusip|figi|ticker|symbol|isin)"/i);
    // Numbers such as reported values may have nine digits; a CUSIP-shaped *string* may not.
    expect(text).not.toMatch(/"[0-9]{3}[0-9A-Z]{5}[0-9]"/);
  });

  it('gives byte-identical bundles and the same snapshot ids for the same sources and --now', async () => {
    const { store: storeA, ...a } = built;
    const storeB = await tempDir('store-b');
    const b = await buildJson(sources, storeB, NOW);
    expect(b.report.datasets.map((d: { snapshotId: string }) => d.snapshotId)).toEqual(
      a.report.datasets.map((d: { snapshotId: string }) => d.snapshotId),
    );
    // The manifests and the blobs their files are.
    const filesOf = async (store: string) =>
      new Map([...(await filesUnder(path.join(store, 'bundles'))), ...(await filesUnder(path.join(store, 'blobs')))]);
    const [filesA, filesB] = [await filesOf(storeA), await filesOf(storeB)];
    expect([...filesA.keys()].some((name) => name.includes('sha256'))).toBe(true);
    expect([...filesA.keys()].sort()).toEqual([...filesB.keys()].sort());
    for (const [name, bytes] of filesA) expect(bytes.equals(filesB.get(name)!), name).toBe(true);
  });

  it('makes a second build of the same content a no-op', async () => {
    const { store, ...first } = built;
    const second = await buildJson(sources, store, NOW);
    expect(second.result.exitCode).toBe(0);
    for (const d of second.report.datasets) {
      expect(d).toMatchObject({ outcome: 'unchanged', published: false, madeCurrent: false });
    }
    expect(second.report.datasets.map((d: { snapshotId: string }) => d.snapshotId)).toEqual(
      first.report.datasets.map((d: { snapshotId: string }) => d.snapshotId),
    );
  });

  it('stores a rebuild whose records did not change as a new manifest and no new blob', async () => {
    const store = await tempDir('store');
    await cp(built.store, store, { recursive: true });
    const blobs = async () =>
      (await readdir(path.join(store, 'blobs'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
    const before = await blobs();
    // The next day's build of the same sources: every dataset gets a new snapshot, current moves to it.
    const { result, report } = await buildJson(sources, store, LATER);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    for (const d of report.datasets) {
      expect(d, d.dataset).toMatchObject({ outcome: 'published', madeCurrent: true });
      expect(d.snapshotId).not.toBe(built.report.datasets.find((b: { dataset: string }) => b.dataset === d.dataset).snapshotId);
    }
    expect((await blobs()).map((e) => e.name).sort()).toEqual(before.map((e) => e.name).sort());
    const validate = await runCli(['validate', '--store', store, '--now', LATER]);
    expect(validate.exitCode, String(validate.stdout)).toBe(0);
  });

  it('refuses to publish a snapshot that is already stale and leaves current unchanged', async () => {
    // The shared build at NOW, copied: its articles snapshot is current before the stale build.
    const store = await tempDir('store');
    await cp(built.store, store, { recursive: true });
    const first = built;
    const before = await readFile(path.join(store, 'current/articles.json'), 'utf8');
    const stale = await buildJson(sources, store, '2026-12-10T00:00:00.000Z', ['--datasets', 'articles']);
    expect(stale.result.exitCode).toBe(2);
    expect(stale.report.datasets[0].outcome).toBe('failed');
    expect(stale.report.datasets[0].reason).toMatch(/stale/);
    expect(await readFile(path.join(store, 'current/articles.json'), 'utf8')).toBe(before);
    expect(first.report.datasets.find((d: { dataset: string }) => d.dataset === 'articles').snapshotId).toBe(JSON.parse(before).snapshotId);
  });

  it('reports a rejected source record with file, location and reason, and --strict fails that dataset', async () => {
    // The file's sample (the same command's output), copied.
    const broken = await tempDir('broken');
    await cp(sources, broken, { recursive: true });
    await writeFile(path.join(broken, 'articles', 'zz-broken.md'), '---\ntitle: [unclosed\n---\nBody\n');
    const store = await tempDir('store');
    const strictStore = await tempDir('store');
    const [lenient, strict] = await Promise.all([
      buildJson(broken, store, NOW, ['--datasets', 'articles']),
      buildJson(broken, strictStore, NOW, ['--datasets', 'articles', '--strict']),
    ]);
    expect(lenient.result.exitCode).toBe(0);
    // Line 3 of the file: where the front matter ends with the flow sequence still open.
    expect(lenient.report.datasets[0].rejected).toEqual([
      {
        source: 'articles/zz-broken.md',
        location: 'front matter, line 3',
        reason: 'invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
      },
    ]);
    expect(strict.result.exitCode).toBe(2);
    expect(strict.report.datasets[0].reason).toMatch(/--strict/);
    await expect(readFile(path.join(strictStore, 'current/articles.json'))).rejects.toThrow();
  });

  it('refuses to publish a record carrying a security identifier, as validate would', async () => {
    const tainted = await tempDir('tainted');
    await cp(sources, tainted, { recursive: true });
    const dir = path.join(tainted, 'articles', 'en-US');
    const fedStory = (await readdir(dir)).find((name) => name.includes('fed-holds-rates'));
    const file = path.join(dir, fedStory!);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace(/\n\n/, '\n\nShares of Apple (037833100) were little changed.\n\n'));
    const store = await tempDir('store');
    const { result, report } = await buildJson(tainted, store, NOW, ['--datasets', 'articles']);
    expect(result.exitCode).toBe(2);
    expect(report.datasets[0].reason).toMatch(/content rules failed.*CUSIP 037833100/);
    await expect(readFile(path.join(store, 'current/articles.json'))).rejects.toThrow();
  });

  it('reports a fault of the machine as an error of that dataset and still prints the report (exit 3)', async () => {
    // The store is there, but its staging folder is a file: every dataset fails while it publishes.
    const store = await tempDir('store');
    await writeFile(path.join(store, 'tmp'), 'this is a file, not the staging folder');
    const { result, report } = await buildJson(sources, store, NOW, ['--datasets', 'articles,calendar']);
    expect(result.exitCode).toBe(3);
    expect(report.datasets.map((d: { outcome: string }) => d.outcome)).toEqual(['error', 'error']);
    expect(report.datasets[0].reason).toMatch(/unexpected error/);
  });

  it('refuses a store that cannot be created before reading any source (exit 3, naming it)', async () => {
    const notADirectory = path.join(await tempDir('file'), 'store');
    await writeFile(notADirectory, 'this is a file, not a store');
    const { result, report } = await buildJson(sources, notADirectory, NOW, ['--datasets', 'articles,calendar']);
    expect(result.exitCode).toBe(3);
    expect(report).toMatchObject({ ok: false, error: { kind: 'usage', exitCode: 3 } });
    expect(report.error.message).toContain(`store ${notADirectory} cannot be created`);
  });

  it('prints a readable summary without --json and keeps stderr free of progress when not a TTY', async () => {
    const store = await tempDir('store');
    const result = await runCli(['build', '--sources', sources, '--store', store, '--now', NOW]);
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toMatch(/^dataset\s+outcome\s+snapshot/m);
    expect(String(result.stdout)).toMatch(/OK: 3 dataset\(s\) built/);
    expect(String(result.stderr)).toBe('');
  });

  it('exits 3 with a message for a bad --now', async () => {
    const result = await runCli(['build', '--now', 'yesterday']);
    expect(result.exitCode).toBe(3);
    expect(String(result.stderr)).toMatch(/--now: "yesterday" is not an ISO 8601 instant/);
  });

  it('lists, rolls back and garbage-collects through the CLI', async () => {
    const store = await tempDir('store');
    const ids: string[] = [];
    for (const at of [NOW, LATER, LATEST])
      ids.push((await buildJson(sources, store, at, ['--datasets', 'articles'])).report.datasets[0].snapshotId);
    const [firstId, secondId, thirdId] = ids as [string, string, string];
    expect(new Set(ids).size).toBe(3);
    const bundleIds = async () => (await readdir(path.join(store, 'bundles/articles'))).sort();
    const gcKeepOne = async () => {
      const gc = await runCli(['gc', '--keep', '1', '--store', store, '--json']);
      expect(gc.exitCode, String(gc.stderr)).toBe(0);
      return JSON.parse(String(gc.stdout));
    };

    const rollback = await runCli(['rollback', 'articles', secondId, '--store', store]);
    expect(rollback.exitCode, String(rollback.stderr)).toBe(0);
    expect(String(rollback.stdout)).toBe(`articles: current is now ${secondId} (was ${thirdId})`);
    const again = await runCli(['rollback', 'articles', secondId, '--store', store]);
    expect(String(again.stdout)).toBe(`articles: current is already ${secondId}; nothing changed`);
    const list = JSON.parse(String((await runCli(['list', '--store', store, '--json'])).stdout));
    expect(list.snapshots.filter((s: { current: boolean }) => s.current).map((s: { snapshotId: string }) => s.snapshotId)).toEqual([
      secondId,
    ]);
    // The newest is kept by --keep 1; the current one and the one generated before it are protected.
    const protectedAll = await gcKeepOne();
    expect(protectedAll).toMatchObject({ dryRun: false, deleted: [] });
    expect([...protectedAll.kept].sort()).toEqual([...ids].sort());
    expect(await bundleIds()).toEqual([...ids].sort());

    // Current back on the newest: the first is now neither kept, current nor the one before it.
    expect((await runCli(['rollback', 'articles', thirdId, '--store', store])).exitCode).toBe(0);
    const collected = await gcKeepOne();
    expect(collected.deleted).toEqual([firstId]);
    expect([...collected.kept].sort()).toEqual([secondId, thirdId].sort());
    expect(await bundleIds()).toEqual([secondId, thirdId].sort());
    const human = await runCli(['list', '--store', store]);
    expect(String(human.stdout)).toMatch(new RegExp(`^\\*\\s+articles\\s+${thirdId}`, 'm'));
    expect(String(human.stdout)).not.toContain(firstId);
  });
});
