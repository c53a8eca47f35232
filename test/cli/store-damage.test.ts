import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleFilePath } from '../helpers/bundle-file.js';
import { REPO_ROOT, runCli, runCliProcess, tempDir } from '../helpers/cli.js';

// The committed sample is dated for this instant; later builds stay within its freshness.
const NOW = '2026-11-22T12:00:00.000Z';
const at = (hour: number) => `2026-11-22T${String(hour).padStart(2, '0')}:00:00.000Z`;

let sources: string;
/** A store holding one articles build at 10:00, which most tests start from. */
let builtAt10: { store: string; report: any };
beforeAll(async () => {
  sources = await tempDir('damage-sources');
  await cp(path.join(REPO_ROOT, 'data/sources'), sources, { recursive: true });
  const store = await tempDir('store-at-10');
  const first = await build(store, at(10));
  expect(first.result.exitCode, String(first.result.stderr)).toBe(0);
  builtAt10 = { store, report: first.report };
});

/** A store of the test's own with the 10:00 build in it, copied (a build is byte-identical), and that build's report. */
async function storeBuiltAt10() {
  const store = await tempDir('store');
  await cp(builtAt10.store, store, { recursive: true });
  return { store, first: { report: builtAt10.report } };
}

async function build(store: string, now = NOW, env: Record<string, string> = {}) {
  const result = await runCli(['build', '--datasets', 'articles', '--sources', sources, '--store', store, '--now', now, '--json'], { env });
  return { result, report: result.stdout ? JSON.parse(String(result.stdout)).datasets[0] : null };
}

/**
 * A live process on this host that is not the command's: the test runner's parent (commands run
 * in the test's own process, test/helpers/cli.ts).
 */
const livePid = process.ppid;

/** The pid of a process that has already exited. */
async function deadPid(): Promise<number> {
  const child = execa('node', ['-e', '']);
  const pid = child.pid!;
  await child;
  return pid;
}

const pointerFile = (store: string) => path.join(store, 'current/articles.json');

describe('a store damaged from outside pdsnap', () => {
  it('a regular file where the publish lock belongs fails the build at once, naming the path and what to do', async () => {
    const store = await tempDir('store');
    await mkdir(store, { recursive: true });
    await writeFile(path.join(store, 'publish.lock'), 'left by a restore script\n');
    const { result, report } = await build(store);
    expect(result.exitCode).toBe(3);
    expect(report.outcome).toBe('error');
    expect(report.reason).toContain(
      `${path.join(store, 'publish.lock')} is not a pdsnap lock (it is a file, not a folder): remove it if no pdsnap process is running`,
    );
    expect(report.reason).not.toContain('unexpected error');
  });

  it('a garbage current pointer: list marks it, validate fails naming it, build repairs it with a note, rollback repairs it too', async () => {
    const { store, first } = await storeBuiltAt10();
    await writeFile(pointerFile(store), 'garbage from a bad restore');

    const list = await runCli(['list', '--store', store]);
    expect(list.exitCode).toBe(0);
    expect(String(list.stdout)).toContain(
      `articles: BROKEN current pointer: ${pointerFile(store)} is not a valid current pointer (not JSON: Unexpected token`,
    );
    expect(String(list.stdout)).toContain(first.report.snapshotId);

    const validate = await runCli(['validate', '--datasets', 'articles', '--store', store, '--now', NOW]);
    expect(validate.exitCode).toBe(2);
    expect(String(validate.stdout)).toContain(pointerFile(store));

    const repaired = await build(store, at(11));
    expect(repaired.result.exitCode, String(repaired.result.stderr)).toBe(0);
    expect(repaired.report.madeCurrent).toBe(true);
    expect(repaired.report.notes.map((n: { message: string }) => n.message)).toContainEqual(
      expect.stringMatching(/^repaired current pointer: current\/articles\.json was /),
    );
    expect(JSON.parse(await readFile(pointerFile(store), 'utf8')).snapshotId).toBe(repaired.report.snapshotId);

    await writeFile(pointerFile(store), '');
    const rollback = await runCli(['rollback', 'articles', first.report.snapshotId, '--store', store]);
    expect(rollback.exitCode, String(rollback.stderr)).toBe(0);
    expect(String(rollback.stdout)).toContain('was a broken pointer: empty; repaired');
    expect(JSON.parse(await readFile(pointerFile(store), 'utf8')).snapshotId).toBe(first.report.snapshotId);
  });

  it('a pointer to a bundle that is not in the store: list marks it BROKEN, and gc leaves the dataset alone', async () => {
    const { store, first } = await storeBuiltAt10();
    const second = (await build(store, at(11))).report.snapshotId as string;
    const missing = 'articles-20261122T090000Z-000000000000';
    await writeFile(pointerFile(store), (await readFile(pointerFile(store), 'utf8')).replace(second, missing));
    const list = await runCli(['list', '--store', store, '--json']);
    expect(list.exitCode).toBe(0);
    expect(JSON.parse(String(list.stdout)).pointers.articles).toEqual({
      state: 'broken',
      snapshotId: missing,
      reason: `${pointerFile(store)} points at ${missing}, which is not in the store`,
    });
    expect(String((await runCli(['list', '--store', store])).stdout)).toContain(
      `articles: BROKEN current pointer: ${pointerFile(store)} points at`,
    );
    const gc = await runCli(['gc', '--keep', '1', '--store', store, '--json']);
    // Without a current snapshot to protect, gc --keep 1 would otherwise delete the 10:00 bundle.
    expect(JSON.parse(String(gc.stdout))).toMatchObject({ deleted: [] });
    expect(JSON.parse(String(gc.stdout)).kept.sort()).toEqual([first.report.snapshotId, second].sort());
  });

  it('gc never deletes a bundle whose manifest it cannot read, and names it', async () => {
    const store = await tempDir('store');
    const ids: string[] = [];
    for (const hour of [8, 9, 10, 11]) ids.push((await build(store, at(hour))).report.snapshotId);
    await writeFile(path.join(store, 'bundles/articles', ids[0]!, 'manifest.json'), '{ truncated');
    const gc = await runCli(['gc', '--keep', '1', '--store', store, '--json']);
    expect(gc.exitCode).toBe(0);
    const result = JSON.parse(String(gc.stdout));
    expect(result.unreadable).toEqual([ids[0]]);
    expect(result.deleted).toEqual([ids[1]]);
    // Every reader of the manifest says what is wrong with it: not JSON, rather than a schema mismatch of nothing.
    const inspect = await runCli(['inspect', ids[0]!, '--store', store]);
    expect(inspect.exitCode).toBe(2);
    expect(String(inspect.stderr)).toMatch(/manifest\.json is not JSON: (Expected property name|Unexpected token)/);
    expect((await readdir(path.join(store, 'bundles/articles'))).sort()).toEqual([ids[0], ids[2], ids[3]].sort());
  });

  it("gc and build remove what dead processes on this host left behind, report it, and keep a live process's", async () => {
    const { store } = await storeBuiltAt10();
    const dead = await deadPid();
    const host = hostname().replace(/[^A-Za-z0-9.-]/g, '_');
    await mkdir(path.join(store, `tmp/articles~${host}~${dead}~0a0b0c`), { recursive: true });
    await mkdir(path.join(store, `tmp/gc~${host}~${dead}~0d0e0f`), { recursive: true });
    await mkdir(path.join(store, `tmp/articles~${host}~${livePid}~live00`), { recursive: true });
    await writeFile(path.join(store, `current/.articles.json.${dead}.abcd1234.tmp`), '');
    const gc = await runCli(['gc', '--keep', '5', '--store', store, '--json']);
    expect(JSON.parse(String(gc.stdout)).removedLeftovers.sort()).toEqual(
      [`current/.articles.json.${dead}.abcd1234.tmp`, `tmp/articles~${host}~${dead}~0a0b0c`, `tmp/gc~${host}~${dead}~0d0e0f`].sort(),
    );
    expect(await readdir(path.join(store, 'tmp'))).toEqual([`articles~${host}~${livePid}~live00`]);

    await mkdir(path.join(store, `tmp/calendar~${host}~${dead}~111111`), { recursive: true });
    const next = await build(store, at(11));
    expect(next.report.notes.map((n: { message: string }) => n.message)).toContain(
      `removed tmp/calendar~${host}~${dead}~111111, left by a process that died`,
    );
  });

  it("a folder restored where a part file belongs is that bundle's damage, named, not an unexpected error", async () => {
    const { store, first } = await storeBuiltAt10();
    const part = await bundleFilePath(store, first.report.snapshotId, 'articles/00000.ndjson');
    await rm(part);
    await mkdir(part);
    const validate = await runCli(['validate', '--store', store, '--datasets', 'articles', '--now', NOW, '--json']);
    expect(validate.exitCode, String(validate.stderr)).toBe(2);
    expect(JSON.parse(String(validate.stdout)).datasets[0].rules[0]).toMatchObject({
      rule: 'integrity',
      status: 'fail',
      message: expect.stringContaining('articles/00000.ndjson cannot be read: a folder is in its place'),
    });
    const inspect = await runCli(['inspect', first.report.snapshotId, '--store', store]);
    expect(inspect.exitCode).toBe(2);
    expect(String(inspect.stderr)).toContain('articles/00000.ndjson cannot be read: a folder is in its place');
  });

  it('gc --dry-run takes no lock: it answers while another process holds it', async () => {
    const { store } = await storeBuiltAt10();
    await mkdir(path.join(store, 'publish.lock'));
    await writeFile(path.join(store, 'publish.lock/holder.json'), JSON.stringify({ host: hostname(), pid: livePid, startedAt: NOW }));
    const dry = await runCli(['gc', '--keep', '1', '--dry-run', '--store', store]);
    expect(dry.exitCode, String(dry.stderr)).toBe(0);
    expect(String(dry.stdout)).toContain('would delete 0 bundle(s)');
  });
});

describe('a disk that fills during publish', () => {
  it.each(['part-write', 'manifest-write'])(
    'at %s: the build fails naming the file, the store is as it was, no temp file stays',
    async (point) => {
      const { store, first } = await storeBuiltAt10();
      const { result, report } = await build(store, at(11), { PDSNAP_FAIL_AT: point });
      expect(result.exitCode).toBe(3);
      expect(report.published).toBe(false);
      expect(report.reason).toMatch(
        new RegExp(
          `${store.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/tmp/articles~[^:]+/${point === 'part-write' ? 'articles/00000\\.ndjson' : 'manifest\\.json'}: ENOSPC`,
        ),
      );
      expect(JSON.parse(await readFile(pointerFile(store), 'utf8')).snapshotId).toBe(first.report.snapshotId);
      expect(await readdir(path.join(store, 'tmp'))).toEqual([]);
      expect(await readdir(path.join(store, 'bundles/articles'))).toEqual([first.report.snapshotId]);
    },
  );

  it('at pointer-write: the report says the bundle is in place and current is unchanged, and no temp pointer stays', async () => {
    const { store, first } = await storeBuiltAt10();
    const { result, report } = await build(store, at(11), { PDSNAP_FAIL_AT: 'pointer-write' });
    expect(result.exitCode).toBe(2);
    expect(report).toMatchObject({ outcome: 'failed', published: true, madeCurrent: false });
    expect(report.reason).toContain(`${pointerFile(store)}: ENOSPC`);
    expect(report.reason).toContain(`bundle ${report.snapshotId} is in place (complete and verified), current is unchanged`);
    expect(JSON.parse(await readFile(pointerFile(store), 'utf8')).snapshotId).toBe(first.report.snapshotId);
    expect((await readdir(path.join(store, 'current'))).sort()).toEqual(['articles.json']);
  });

  it('on a disk too full for its lock, gc gives up the ballast, takes the lock and frees space; without one it says why it cannot', async () => {
    const { store } = await storeBuiltAt10();
    for (const hour of [11, 12, 13]) expect((await build(store, at(hour))).result.exitCode).toBe(0);
    expect((await stat(path.join(store, 'ballast'))).size).toBe(1024 * 1024);
    // Its own process, so that the fail point counts from zero: the lock's first write finds the disk full.
    const gc = await runCliProcess(['gc', '--keep', '1', '--store', store], { env: { PDSNAP_FAIL_AT: 'lock-holder-write:1' } });
    expect(gc.exitCode, String(gc.stderr)).toBe(0);
    expect(String(gc.stdout)).toContain(`the disk was full: gave up ${store}/ballast (1 MiB) to take the lock`);
    expect(String(gc.stdout)).toContain('deleted 2 bundle(s), kept 2');
    // Written again once gc had room.
    expect((await stat(path.join(store, 'ballast'))).size).toBe(1024 * 1024);

    await rm(path.join(store, 'ballast'));
    const stuck = await runCliProcess(['gc', '--keep', '1', '--store', store], { env: { PDSNAP_FAIL_AT: 'lock-holder-write:1' } });
    expect(stuck.exitCode).toBe(3);
    expect(String(stuck.stderr)).toContain(`${path.join(store, 'publish.lock', 'holder.json')}: ENOSPC`);
  });
});
