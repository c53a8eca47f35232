import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execa } from 'execa';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, runCli, runCliProcess, tempDir } from '../helpers/cli.js';
import { spaceTag } from '../../src/lib/process-temp-dir.js';
import { startS3, type TestS3 } from '../helpers/s3-server.js';
import { ALL_SCOPES, bearer, get, newKey } from '../serve/helpers/harness.js';
import { startServe, type ServeProcess } from '../serve/helpers/serve-process.js';

const NOW = '2026-11-22T12:00:00.000Z';
const LATER = '2026-11-22T13:00:00.000Z';
const LATEST = '2026-11-22T14:00:00.000Z';

let s3: TestS3;
let sources: string;

beforeAll(async () => {
  s3 = await startS3();
  sources = await tempDir('sources');
  expect((await runCli(['sample', '--out', sources, '--now', NOW, '--force'])).exitCode).toBe(0);
});
afterAll(async () => {
  await s3?.dispose();
});

async function cli(args: string[], env: Record<string, string> = {}) {
  const result = await runCli(args, { env: { ...s3.env, ...env } });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}
const bucket = (name: string) => `s3://${s3.bucket}/${name}`;

async function build(store: string, now: string, datasets = 'articles', env: Record<string, string> = {}) {
  return cli(['build', '--datasets', datasets, '--sources', sources, '--store', store, '--now', now, '--json', '--quiet'], env);
}

/** A build as a process of its own: two of them race for the bucket's pointers for real. */
async function buildProcess(store: string, now: string, datasets: string) {
  const args = ['build', '--datasets', datasets, '--sources', sources, '--store', store, '--now', now, '--json', '--quiet'];
  const result = await runCliProcess(args, { env: { ...s3.env } });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

async function builtId(store: string, now: string, datasets = 'articles'): Promise<string> {
  const result = await build(store, now, datasets);
  expect(result.exitCode, result.stderr + result.stdout).toBe(0);
  return JSON.parse(result.stdout).datasets[0].snapshotId;
}

async function pointers(store: string): Promise<Record<string, { state: string; snapshotId?: string }>> {
  const result = await cli(['list', '--store', store, '--json']);
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout).pointers;
}

/** Starts a build that stops at a named point inside publishing, then kills it with SIGKILL. */
async function killBuildAt(point: string, store: string, now: string): Promise<void> {
  const child = execa('node', [CLI, 'build', '--datasets', 'articles', '--sources', sources, '--store', store, '--now', now, '--quiet'], {
    cwd: REPO_ROOT,
    reject: false,
    env: { ...s3.env, PDSNAP_PAUSE_AT: point },
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
  expect((await child).signal).toBe('SIGKILL');
}

async function serveFrom(
  store: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<{ server: ServeProcess; root: string; key: string }> {
  const root = await tempDir('bucket-serve');
  const key = await newKey(root, ALL_SCOPES);
  const server = await startServe(
    [
      '--store',
      store,
      '--keys',
      path.join(root, 'keys.json'),
      '--usage-db',
      path.join(root, 'usage.sqlite'),
      '--now',
      NOW,
      '--reload-interval',
      '200ms',
      ...extra,
    ],
    { ...s3.env, ...env },
  );
  return { server, root, key };
}

type Readiness = {
  datasets: Record<
    string,
    { ready: boolean; snapshotId?: string; refused?: { snapshotId: string; reason: string }; unreadablePointer?: { reason: string } }
  >;
};

/** A client of the test's s3rver, for writing objects as another tool would. */
function s3Client(): S3Client {
  return new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: s3.env.AWS_ACCESS_KEY_ID!, secretAccessKey: s3.env.AWS_SECRET_ACCESS_KEY! },
  });
}

async function readiness(base: string): Promise<Readiness> {
  return (await get(base, '/readyz')).body as Readiness;
}

async function until<T>(what: string, probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await probe();
  }
  return last;
}

// Each test works in a store (a prefix of the bucket) of its own, so they run side by side: one
// after the other they took 100 s, the longest file of the suite.
describe.concurrent('a store in an S3 bucket (a real s3rver process)', () => {
  it('builds into s3://, then list, validate, gate, inspect and serve read it; serve verifies into a cache of its own', async () => {
    const store = bucket('main');
    const built = await build(store, NOW, 'articles,calendar,smart-money');
    expect(built.exitCode, built.stderr + built.stdout).toBe(0);
    const report = JSON.parse(built.stdout);
    expect(report.store).toBe(store);
    const ids = Object.fromEntries(report.datasets.map((d: { dataset: string; snapshotId: string }) => [d.dataset, d.snapshotId]));

    const listed = await pointers(store);
    for (const dataset of ['articles', 'calendar', 'smart-money'])
      expect(listed[dataset]).toEqual({ state: 'ok', snapshotId: ids[dataset] });
    // The layout a folder store has, with pointer records beside the head.
    expect(await readFile(s3.objectFile(`main/bundles/smart-money/${ids['smart-money']}/manifest.json`), 'utf8')).toContain(
      '"servingIndex"',
    );
    expect(JSON.parse(await readFile(s3.objectFile('main/current/articles.json'), 'utf8')).snapshotId).toBe(ids.articles);

    const validate = await cli(['validate', '--store', store, '--now', NOW]);
    expect(validate.exitCode, validate.stdout + validate.stderr).toBe(0);
    const gate = await cli(['gate', '--store', store, '--now', NOW, '--min-remaining', '1d', '--json']);
    expect(JSON.parse(gate.stdout).status).toBe('pass');
    const inspect = await cli(['inspect', ids['smart-money'], '--store', store, '--json']);
    expect(inspect.exitCode, inspect.stderr).toBe(0);
    expect(JSON.parse(inspect.stdout)).toMatchObject({ verified: true, current: true });

    const cache = await tempDir('bucket-cache');
    const { server, key } = await serveFrom(store, ['--cache', cache]);
    try {
      const ready = await readiness(server.base);
      expect(ready.datasets['smart-money']).toEqual({ ready: true, snapshotId: ids['smart-money'] });
      const investors = await get(server.base, '/v1/smart-money/investors?limit=2', bearer(key));
      expect(investors.status).toBe(200);
      expect(investors.body.data).toHaveLength(2);
      expect((await get(server.base, '/v1/articles?limit=1', bearer(key))).status).toBe(200);
      expect(await readdir(path.join(cache, 'bundles', 'smart-money', ids['smart-money']))).toContain('serving-index.sqlite');
    } finally {
      await server.stop();
    }
    // No credential in what pdsnap prints.
    expect(built.stdout + built.stderr + server.stderr() + server.stdout()).not.toContain('S3RVER');
  });

  it.each([
    ['object-uploaded', 'previous'],
    ['manifest-written', 'previous'],
    ['pointer-recorded', 'new'],
  ] as const)(
    'a build killed with SIGKILL at %s never leaves current on an incomplete bundle; the next build completes',
    async (point, expected) => {
      const store = bucket(`crash-${point}`);
      const before = await builtId(store, NOW);
      await killBuildAt(point, store, LATER);
      const after = (await pointers(store)).articles!;
      expect(after.state).toBe('ok');
      if (expected === 'previous') expect(after.snapshotId).toBe(before);
      else expect(after.snapshotId).not.toBe(before);
      const validate = await cli(['validate', '--store', store, '--now', LATER, '--datasets', 'articles']);
      expect(validate.exitCode, validate.stdout).toBe(0);

      const again = await build(store, LATER);
      expect(again.exitCode, again.stdout + again.stderr).toBe(0);
      const id = JSON.parse(again.stdout).datasets[0].snapshotId;
      expect((await pointers(store)).articles).toEqual({ state: 'ok', snapshotId: id });
      expect(id).not.toBe(before);
    },
  );

  it('two builds racing end with the snapshot generated last current, and the loser says so', async () => {
    const store = bucket('race');
    const [later, latest] = await Promise.all([
      buildProcess(store, LATER, 'articles,calendar'),
      buildProcess(store, LATEST, 'articles,calendar'),
    ]);
    expect(later.exitCode, later.stdout + later.stderr).toBe(0);
    expect(latest.exitCode, latest.stdout + latest.stderr).toBe(0);
    const lost = JSON.parse(later.stdout).datasets as Array<{ dataset: string; madeCurrent: boolean; reason: string | null }>;
    const won = JSON.parse(latest.stdout).datasets as Array<{ dataset: string; snapshotId: string }>;
    const now = await pointers(store);
    for (const winner of won) {
      expect(now[winner.dataset]).toEqual({ state: 'ok', snapshotId: winner.snapshotId });
      const loser = lost.find((d) => d.dataset === winner.dataset)!;
      // Either it moved current first and was superseded, or it says which snapshot kept current.
      if (!loser.madeCurrent) expect(loser.reason).toContain(winner.snapshotId);
    }
  });

  it('two servers polling one bucket both switch to a newly published snapshot; each cache keeps current and previous only', async () => {
    const store = bucket('fleet');
    const first = await builtId(store, NOW);
    const caches = [await tempDir('cache-a'), await tempDir('cache-b')];
    const servers = await Promise.all(caches.map(async (cache) => (await serveFrom(store, ['--cache', cache])).server));
    try {
      for (const server of servers) expect((await readiness(server.base)).datasets.articles?.snapshotId).toBe(first);
      const second = await builtId(store, LATER);
      const third = await builtId(store, LATEST);
      for (const server of servers) {
        await until(
          'the newest snapshot',
          () => readiness(server.base),
          (r) => r.datasets.articles?.snapshotId === third,
        );
      }
      for (const cache of caches) {
        // serve prunes its cache just after the swap that /readyz reports: wait for the prune.
        const kept = await until(
          'the pruned cache',
          () => readdir(path.join(cache, 'bundles', 'articles')),
          (names) => names.length <= 2,
        );
        expect(kept).toContain(third);
        expect(kept).not.toContain(first === second ? 'never' : first);
        expect(kept.length).toBeLessThanOrEqual(2);
      }
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });

  it('a restart with --cache keeps every dataset copy, downloads a damaged one again, and sweeps a dead download', async () => {
    const store = bucket('restart');
    expect((await build(store, NOW, 'articles,calendar')).exitCode).toBe(0);
    const cache = await tempDir('cache-restart');
    const first = await serveFrom(store, ['--cache', cache]);
    const ids = (await readiness(first.server.base)).datasets;
    await first.server.stop();
    const articles = ids.articles!.snapshotId!;
    const calendar = ids.calendar!.snapshotId!;
    const calendarPart = path.join(cache, 'bundles', 'calendar', calendar, 'events', '00000.ndjson');
    const inode = (await stat(calendarPart)).ino;
    // The articles copy damaged in the cache; a download left by a killed server (pid 999999 runs nowhere).
    const articlesPart = path.join(cache, 'bundles', 'articles', articles, 'articles', '00000.ndjson');
    await writeFile(articlesPart, `${await readFile(articlesPart, 'utf8')}x`);
    const downloading = (await readdir(path.join(cache, 'downloading'))).length;
    const dead = path.join(cache, 'downloading', `download-${spaceTag()}-999999-AbC123`);
    await mkdir(path.join(dead, 'articles'), { recursive: true });

    const again = await serveFrom(store, ['--cache', cache]);
    try {
      const datasets = (
        await until(
          'both datasets',
          () => readiness(again.server.base),
          (r) => r.datasets.articles?.ready === true && r.datasets.calendar?.ready === true,
        )
      ).datasets;
      expect([datasets.articles?.snapshotId, datasets.calendar?.snapshotId]).toEqual([articles, calendar]);
      // The log goes out in batches, within 200 ms.
      await until(
        'the log line of the damaged copy',
        async () => again.server.stdout(),
        (out) => out.includes('local copy of the bundle failed verification; removed, downloading it again'),
      );
      // The calendar copy was reused, not pruned while articles loaded first and downloaded again.
      expect((await stat(calendarPart)).ino).toBe(inode);
      expect(await readFile(articlesPart, 'utf8')).not.toMatch(/x$/);
      expect(await readdir(path.join(cache, 'downloading'))).toHaveLength(downloading);
    } finally {
      await again.server.stop();
    }
  });

  it('a download cut off half way keeps the previous snapshot served, and leaves no partial bundle in the cache', async () => {
    const store = bucket('cut');
    const first = await builtId(store, NOW);
    const cache = await tempDir('cache-cut');
    // A first server fills the cache; the second starts from it, with every download failing.
    const warm = await serveFrom(store, ['--cache', cache]);
    await warm.server.stop();
    const { server, key } = await serveFrom(store, ['--cache', cache], { PDSNAP_FAIL_AT: 'object-download' });
    try {
      expect((await readiness(server.base)).datasets.articles?.snapshotId).toBe(first);
      const second = await builtId(store, LATER);
      const state = await until(
        'the refusal',
        () => readiness(server.base),
        (r) => r.datasets.articles?.refused?.snapshotId === second,
      );
      expect(state.datasets.articles).toMatchObject({ ready: true, snapshotId: first });
      // The object whose download was cut is named, not the local file it was going to.
      expect(state.datasets.articles?.refused?.reason).toMatch(/load failed: s3:\/\/[^ ]+\/articles\/00000\.ndjson: .*socket hang up/);
      expect((await get(server.base, '/v1/articles?limit=1', bearer(key))).status).toBe(200);
      expect(await readdir(path.join(cache, 'bundles', 'articles'))).toEqual([first]);
      // A read error is retried at the next poll, so another attempt may be under way at any
      // moment; each removes its partial copy when it fails, so the folder empties between them.
      await until(
        'no partial download left behind',
        () => readdir(path.join(cache, 'downloading')),
        (names) => names.length === 0,
      );
      // The log line is written to a pipe, which may reach us a moment after /readyz says it.
      await until(
        'the log line',
        async () => server.stderr() + server.stdout(),
        (text) => text.includes('still serving the previous verified one'),
      );
    } finally {
      await server.stop();
    }
  });

  it('a damaged object in the bucket is refused and named by serve, validate, inspect and rollback', async () => {
    const store = bucket('damage');
    const first = await builtId(store, NOW);
    const { server } = await serveFrom(store);
    try {
      // The bundle is uploaded and read back, then its object is damaged before the pointer moves
      // (bit rot, or a tool writing into the bucket): same size, other bytes.
      await killBuildAt('manifest-written', store, LATER);
      const prefix = (await readdir(path.join(s3.dir, s3.bucket, 'damage', 'bundles', 'articles'))).find((id) => id !== first)!;
      const file = s3.objectFile(`damage/bundles/articles/${prefix}/articles/00000.ndjson`);
      const bytes = await readFile(file);
      bytes[10] = bytes[10] === 0x61 ? 0x62 : 0x61;
      await writeFile(file, bytes);
      // The next build finds the bundle in place (sizes and recorded digests agree) and points at it.
      const second = await builtId(store, LATER);
      expect(second).toBe(prefix);

      const state = await until(
        'the refusal',
        () => readiness(server.base),
        (r) => r.datasets.articles?.refused?.snapshotId === second,
      );
      expect(state.datasets.articles).toMatchObject({ ready: true, snapshotId: first });
      const object = `s3://${s3.bucket}/damage/bundles/articles/${second}/articles/00000.ndjson`;
      expect(state.datasets.articles?.refused?.reason).toContain(`articles/00000.ndjson does not match its sha256 (${object})`);

      const validate = await cli(['validate', '--store', store, '--now', LATER, '--datasets', 'articles']);
      expect(validate.exitCode).toBe(2);
      expect(validate.stdout).toContain(object);
      const inspect = await cli(['inspect', second, '--store', store]);
      expect(inspect.exitCode).toBe(2);
      expect(inspect.stderr).toContain(object);
      const rollback = await cli(['rollback', 'articles', second, '--store', store, '--now', LATER]);
      expect(rollback.exitCode).toBe(2);
      expect(rollback.stderr).toContain('current not changed');
    } finally {
      await server.stop();
    }
  });

  it('sync copies bundles then pointers folder -> bucket -> folder, verifying, skipping what is there', async () => {
    const folder = await tempDir('sync-from');
    const first = await builtId(folder, NOW);
    const second = await builtId(folder, LATER);
    const store = bucket('synced');
    const out = await cli(['sync', folder, store, '--now', LATER, '--json']);
    expect(out.exitCode, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ copied: [first, second], present: [] });
    expect((await pointers(store)).articles).toEqual({ state: 'ok', snapshotId: second });

    const again = await cli(['sync', folder, store, '--now', LATER, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ copied: [], present: [first, second] });

    const back = await tempDir('sync-back');
    const home = await cli(['sync', store, back, '--now', LATER]);
    expect(home.exitCode, home.stderr).toBe(0);
    expect((await pointers(back)).articles).toEqual({ state: 'ok', snapshotId: second });
    const validate = await cli(['validate', '--store', back, '--now', LATER, '--datasets', 'articles']);
    expect(validate.exitCode, validate.stdout).toBe(0);

    // A damaged source object stops the sync before any pointer moves, naming it.
    await builtId(folder, LATEST);
    const third = (await pointers(folder)).articles!.snapshotId!;
    const part = path.join(folder, 'bundles', 'articles', third, 'articles', '00000.ndjson');
    const bytes = await readFile(part);
    bytes[5] = bytes[5] === 0x61 ? 0x62 : 0x61;
    await writeFile(part, bytes);
    const refused = await cli(['sync', folder, store, '--now', LATEST]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(`articles/00000.ndjson does not match its sha256`);
    expect((await pointers(store)).articles).toEqual({ state: 'ok', snapshotId: second });
  }, 180_000); // a dozen CLI processes and two full copies: the slowest test, given room beside the others

  it('names what to do when the bucket refuses the credentials, and never repeats a key typed into the URL', async () => {
    const store = bucket('denied');
    expect((await build(store, NOW)).exitCode).toBe(0);
    const denied = await cli(['list', '--store', store], { AWS_ACCESS_KEY_ID: 'AKIAWRONGKEY', AWS_SECRET_ACCESS_KEY: 'wrong' });
    expect(denied.exitCode).toBe(3);
    expect(denied.stderr).toContain('(HTTP 403)');
    expect(denied.stderr).toContain('access denied: check the AWS credentials in use');
    expect(denied.stderr).not.toContain('unexpected error');
    const typed = await cli(['list', '--store', `s3://AKIAEXAMPLE:topsecret@${s3.bucket}/p`]);
    expect(typed.exitCode).toBe(3);
    expect(typed.stderr).toContain('s3://***@');
    expect(typed.stderr).not.toContain('topsecret');
  });

  it('keeps serving when the store prefix is emptied (objects deleted or moved), and takes the snapshots of a bucket that holds them again', async () => {
    const store = bucket('emptied');
    const first = await builtId(store, NOW);
    const { server, key } = await serveFrom(store);
    try {
      expect((await readiness(server.base)).datasets.articles?.snapshotId).toBe(first);
      // Every object of the prefix gone, the bucket still there (s3rver keeps a prefix as a folder),
      // but for the empty folder objects a console leaves behind.
      await rm(path.join(s3.dir, s3.bucket, 'emptied'), { recursive: true, force: true });
      const client = s3Client();
      for (const marker of ['emptied/', 'emptied/bundles/'])
        await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: marker, Body: '' }));
      client.destroy();
      await until(
        'the log line',
        async () => server.stderr() + server.stdout(),
        (text) => text.includes('store not found or empty'),
      );
      expect((await readiness(server.base)).datasets.articles).toEqual({ ready: true, snapshotId: first });
      expect((await get(server.base, '/v1/articles?limit=1', bearer(key))).status).toBe(200);
      // Published again: the next poll reads the pointers and takes the new snapshot.
      const second = await builtId(store, LATER);
      await until(
        'the new snapshot',
        () => readiness(server.base),
        (r) => r.datasets.articles?.snapshotId === second,
      );
    } finally {
      await server.stop();
    }
  });

  it('keeps serving while fresh when the newest pointer record is garbage, names it in /readyz and the log, until a newer record repairs it', async () => {
    const store = bucket('pointer-damage');
    const first = await builtId(store, NOW);
    const { server, key } = await serveFrom(store);
    const client = s3Client();
    try {
      expect((await readiness(server.base)).datasets.articles?.snapshotId).toBe(first);
      const records = await readdir(path.join(s3.dir, s3.bucket, 'pointer-damage', 'current', 'articles'));
      const newest = records
        .filter((name) => name.endsWith('._S3rver_object'))
        .sort()
        .at(-1)!
        .replace('._S3rver_object', '');
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `pointer-damage/current/articles/${newest}`, Body: 'garbage{' }));
      // The head is only a hint, whose records are listed every 30 s or when it changes: a changed
      // head makes the server list them at its next poll instead of within 30 s.
      const head = await readFile(s3.objectFile('pointer-damage/current/articles.json'), 'utf8');
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'pointer-damage/current/articles.json', Body: `${head} ` }));
      const damaged = await until(
        'the damage named',
        () => readiness(server.base),
        (r) => r.datasets.articles?.unreadablePointer !== undefined,
      );
      expect(damaged.datasets.articles).toMatchObject({ ready: true, snapshotId: first });
      expect(damaged.datasets.articles?.unreadablePointer?.reason).toContain(`s3://${s3.bucket}/pointer-damage/current/articles/${newest}`);
      const served = await get(server.base, '/v1/articles?limit=1', bearer(key));
      expect(served.status).toBe(200);
      expect(served.body.snapshot.id).toBe(first);
      await until(
        'the log line',
        async () => server.stdout(),
        (text) => text.includes('current pointer damaged; still serving the previous verified snapshot'),
      );
      // A rollback adds a newer record: the pointer reads again, and the damage is no longer named.
      expect((await cli(['rollback', 'articles', first, '--store', store, '--now', LATER])).exitCode).toBe(0);
      const repaired = await until(
        'the repair',
        () => readiness(server.base),
        (r) => r.datasets.articles?.unreadablePointer === undefined,
      );
      expect(repaired.datasets.articles).toEqual({ ready: true, snapshotId: first });
    } finally {
      client.destroy();
      await server.stop();
    }
  });

  it('rollback and gc on a bucket follow the folder rules', async () => {
    const store = bucket('gc');
    const ids = [await builtId(store, NOW), await builtId(store, LATER), await builtId(store, LATEST)];
    const rolled = await cli(['rollback', 'articles', ids[0]!, '--store', store, '--now', LATEST]);
    expect(rolled.exitCode, rolled.stderr).toBe(0);
    expect((await pointers(store)).articles?.snapshotId).toBe(ids[0]);
    // keep 1: the newest stays, current (the oldest) stays; the one before current is none, so the middle goes.
    const gc = await cli(['gc', '--keep', '1', '--store', store, '--json']);
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(JSON.parse(gc.stdout).deleted).toEqual([ids[1]]);
    const listed = JSON.parse((await cli(['list', '--store', store, '--json'])).stdout).snapshots.map(
      (s: { snapshotId: string }) => s.snapshotId,
    );
    expect(listed.sort()).toEqual([ids[0], ids[2]].sort());
  });

  it('promote, diff and history refuse a bucket store instead of reading s3:// as a folder path', async () => {
    for (const args of [
      ['promote', 'articles', 'articles-20261122T120000Z-000000000000'],
      ['diff', 'articles', 'current', 'current'],
      ['history', 'articles'],
    ]) {
      const result = await cli([...args, '--store', bucket('main')]);
      expect(result.exitCode, args.join(' ')).toBe(3);
      expect(result.stderr).toContain('--store: this command works on a folder store only');
    }
  });
});
