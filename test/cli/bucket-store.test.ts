import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execa } from 'execa';
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFilePath } from '../helpers/bundle-file.js';
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
/**
 * The sample with one article retitled: a build of it has an articles part of its own to upload
 * and download, where a build of the same sources at a later --now shares its parts' blobs.
 */
let retitled: string;

beforeAll(async () => {
  s3 = await startS3();
  sources = await tempDir('sources');
  expect((await runCli(['sample', '--out', sources, '--now', NOW, '--force'])).exitCode).toBe(0);
  retitled = await tempDir('sources-retitled');
  await cp(sources, retitled, { recursive: true });
  const article = path.join(
    retitled,
    'articles/en-US',
    (await readdir(path.join(retitled, 'articles/en-US'))).find((n) => n.endsWith('.md'))!,
  );
  await writeFile(article, (await readFile(article, 'utf8')).replace(/^title: .*$/m, 'title: "A title of its own"'));
});
afterAll(async () => {
  await s3?.dispose();
});

async function cli(args: string[], env: Record<string, string> = {}) {
  const result = await runCli(args, { env: { ...s3.env, ...env } });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}
const bucket = (name: string) => `s3://${s3.bucket}/${name}`;

async function build(store: string, now: string, datasets = 'articles', env: Record<string, string> = {}, from = sources) {
  return cli(['build', '--datasets', datasets, '--sources', from, '--store', store, '--now', now, '--json', '--quiet'], env);
}

/** A build as a process of its own: two of them race for the bucket's pointers for real. */
async function buildProcess(store: string, now: string, datasets: string) {
  const args = ['build', '--datasets', datasets, '--sources', sources, '--store', store, '--now', now, '--json', '--quiet'];
  const result = await runCliProcess(args, { env: { ...s3.env } });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Writes an object as a tool other than pdsnap would. */
async function putObject(key: string, body: string): Promise<void> {
  const client = s3Client();
  try {
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: body }));
  } finally {
    client.destroy();
  }
}

async function builtId(store: string, now: string, datasets = 'articles', from = sources): Promise<string> {
  const result = await build(store, now, datasets, {}, from);
  expect(result.exitCode, result.stderr + result.stdout).toBe(0);
  return JSON.parse(result.stdout).datasets[0].snapshotId;
}

async function pointers(store: string): Promise<Record<string, { state: string; snapshotId?: string }>> {
  const result = await cli(['list', '--store', store, '--json']);
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout).pointers;
}

/**
 * Starts a build of the retitled sources (an articles part to upload) that stops at a named point
 * inside publishing, then kills it with SIGKILL.
 */
async function killBuildAt(point: string, store: string, now: string): Promise<void> {
  const child = execa('node', [CLI, 'build', '--datasets', 'articles', '--sources', retitled, '--store', store, '--now', now, '--quiet'], {
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
      // The manifest in the bundle's folder, its files in the cache's blobs.
      expect(await readdir(path.join(cache, 'bundles', 'smart-money', ids['smart-money']))).toEqual(['manifest.json']);
      expect((await stat(await bundleFilePath(cache, ids['smart-money'], 'serving-index.sqlite'))).isFile()).toBe(true);
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
    const calendarPart = await bundleFilePath(cache, calendar, 'events/00000.ndjson');
    const inode = (await stat(calendarPart)).ino;
    // The articles copy damaged in the cache; a download left by a killed server (pid 999999 runs nowhere).
    const articlesPart = await bundleFilePath(cache, articles, 'articles/00000.ndjson');
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
      const second = await builtId(store, LATER, 'articles', retitled);
      const state = await until(
        'the refusal',
        () => readiness(server.base),
        (r) => r.datasets.articles?.refused?.snapshotId === second,
      );
      expect(state.datasets.articles).toMatchObject({ ready: true, snapshotId: first });
      // The object whose download was cut is named, not the local file it was going to.
      expect(state.datasets.articles?.refused?.reason).toMatch(/load failed: s3:\/\/[^ ]+\/blobs\/sha256\/[0-9a-f]{64}: .*socket hang up/);
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

  it('a damaged object in the bucket is refused and named by serve, validate, inspect and rollback; a rebuild of the same content repairs it', async () => {
    const store = bucket('damage');
    const first = await builtId(store, NOW);
    const { server } = await serveFrom(store);
    try {
      // The bundle is uploaded and read back, then its object is damaged before the pointer moves
      // (bit rot, or a tool writing into the bucket): same size, other bytes, the recorded digest kept.
      await killBuildAt('manifest-written', store, LATER);
      const second = (await readdir(path.join(s3.dir, s3.bucket, 'damage', 'bundles', 'articles'))).find((id) => id !== first)!;
      const manifest = JSON.parse(await readFile(s3.objectFile(`damage/bundles/articles/${second}/manifest.json`), 'utf8'));
      const blob = `damage/blobs/sha256/${manifest.files[0].sha256}`;
      const file = s3.objectFile(blob);
      const bytes = await readFile(file);
      bytes[10] = bytes[10] === 0x61 ? 0x62 : 0x61;
      await writeFile(file, bytes);
      // A tool moves the pointer by hand to the damaged bundle: a pointer record and the head.
      const record = JSON.stringify({ snapshotId: second, publishedAt: LATER });
      await putObject(`damage/current/articles/000000000002~20261122T130000000Z~${second}.json`, record);
      await putObject('damage/current/articles.json', record);

      const state = await until(
        'the refusal',
        () => readiness(server.base),
        (r) => r.datasets.articles?.refused?.snapshotId === second,
      );
      expect(state.datasets.articles).toMatchObject({ ready: true, snapshotId: first });
      const object = `s3://${s3.bucket}/${blob}`;
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

      // The same content built again finds the object damaged (read back, not trusted by its
      // recorded digest) and uploads it again, as a folder store republishes a damaged bundle.
      const rebuilt = await build(store, LATER, 'articles', {}, retitled);
      expect(rebuilt.exitCode, rebuilt.stderr + rebuilt.stdout).toBe(0);
      const report = JSON.parse(rebuilt.stdout).datasets[0];
      expect(report.snapshotId).toBe(second);
      expect(report.notes.map((n: { message: string }) => n.message)).toContainEqual(
        `republished damaged bundle ${second}: articles/00000.ndjson does not match its sha256`,
      );
      const valid = await cli(['validate', '--store', store, '--now', LATER, '--datasets', 'articles']);
      expect(valid.exitCode, valid.stdout).toBe(0);
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
    // The two snapshots hold the same articles: one blob in the bucket, copied once.
    expect(
      (await readdir(path.join(s3.dir, s3.bucket, 'synced', 'blobs', 'sha256'))).filter((n) => n.endsWith('._S3rver_object')),
    ).toHaveLength(1);

    const again = await cli(['sync', folder, store, '--now', LATER, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ copied: [], present: [first, second] });

    const back = await tempDir('sync-back');
    const home = await cli(['sync', store, back, '--now', LATER]);
    expect(home.exitCode, home.stderr).toBe(0);
    expect((await pointers(back)).articles).toEqual({ state: 'ok', snapshotId: second });
    const validate = await cli(['validate', '--store', back, '--now', LATER, '--datasets', 'articles']);
    expect(validate.exitCode, validate.stdout).toBe(0);

    // A damaged source object stops the sync before any pointer moves, naming it (a part the
    // target lacks: one it holds already is not copied, so not read).
    await builtId(folder, LATEST, 'articles', retitled);
    const third = (await pointers(folder)).articles!.snapshotId!;
    const part = await bundleFilePath(folder, third, 'articles/00000.ndjson');
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
      for (const marker of ['emptied/', 'emptied/bundles/']) await putObject(marker, '');
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
    try {
      expect((await readiness(server.base)).datasets.articles?.snapshotId).toBe(first);
      const records = await readdir(path.join(s3.dir, s3.bucket, 'pointer-damage', 'current', 'articles'));
      const newest = records
        .filter((name) => name.endsWith('._S3rver_object'))
        .sort()
        .at(-1)!
        .replace('._S3rver_object', '');
      await putObject(`pointer-damage/current/articles/${newest}`, 'garbage{');
      // The head is only a hint, whose records are listed every 30 s or when it changes: a changed
      // head makes the server list them at its next poll instead of within 30 s.
      const head = await readFile(s3.objectFile('pointer-damage/current/articles.json'), 'utf8');
      await putObject('pointer-damage/current/articles.json', `${head} `);
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

  it('build --no-promote, diff, history and promote: the review flow works on a bucket as on a folder', async () => {
    const store = bucket('review');
    const first = await builtId(store, NOW);
    const candidate = await build(store, LATER, 'articles');
    expect(candidate.exitCode).toBe(0);
    const noPromote = await cli([
      'build',
      '--datasets',
      'articles',
      '--sources',
      sources,
      '--store',
      store,
      '--now',
      LATEST,
      '--no-promote',
      '--json',
    ]);
    expect(noPromote.exitCode, noPromote.stderr).toBe(0);
    const candidateId = JSON.parse(noPromote.stdout).datasets[0].snapshotId as string;
    const currentId = JSON.parse(candidate.stdout).datasets[0].snapshotId as string;
    expect(JSON.parse(noPromote.stdout).datasets[0]).toMatchObject({ candidate: true, madeCurrent: false });

    // diff alone compares current with the candidate waiting for review.
    const diff = await cli(['diff', 'articles', '--store', store, '--json']);
    expect(diff.exitCode, diff.stderr).toBe(0);
    expect(JSON.parse(diff.stdout)).toMatchObject({ from: currentId, to: candidateId });

    const history = await cli(['history', 'articles', '--store', store, '--now', LATEST, '--json']);
    expect(history.exitCode, history.stderr).toBe(0);
    expect(
      JSON.parse(history.stdout).snapshots.map((s: { snapshotId: string; current: boolean; candidate: boolean }) => [
        s.snapshotId,
        s.current,
        s.candidate,
      ]),
    ).toEqual([
      [first, false, false],
      [currentId, true, false],
      [candidateId, false, true],
    ]);

    const promote = await cli(['promote', 'articles', candidateId, '--store', store, '--now', LATEST, '--json']);
    expect(promote.exitCode, promote.stdout + promote.stderr).toBe(0);
    expect(JSON.parse(promote.stdout)).toMatchObject({ promoted: true, previousSnapshotId: currentId });
    expect((await pointers(store)).articles).toEqual({ state: 'ok', snapshotId: candidateId });
  });

  it("a Smart Money build with --cache reads the investors a day did not touch back from the bucket, and gives the folder build's snapshot", async () => {
    const store = bucket('batches');
    const cache = path.join(await tempDir('bucket-build-cache'), 'pdsnap');
    const smallBatches = { PDSNAP_BATCH_INVESTORS: '2' };
    const fewer = await tempDir('sources-fewer-filings');
    await cp(sources, fewer, { recursive: true });
    const edgar = path.join(fewer, 'filings', 'edgar');
    await rm(path.join(edgar, (await readdir(edgar)).sort()[0]!), { recursive: true });
    const smartMoney = (now: string, from: string, where: string, extra: string[]) =>
      cli(
        [
          'build',
          '--datasets',
          'smart-money',
          '--all-filers',
          '--sources',
          from,
          '--store',
          where,
          '--now',
          now,
          '--json',
          '--quiet',
          ...extra,
        ],
        smallBatches,
      );

    expect((await smartMoney(NOW, sources, store, ['--cache', cache])).exitCode).toBe(0);
    const next = await smartMoney(LATER, fewer, store, ['--cache', cache]);
    expect(next.exitCode, next.stderr).toBe(0);
    const report = JSON.parse(next.stdout).datasets[0] as { snapshotId: string; notes: { source: string; message: string }[] };
    const note = report.notes.find((n) => n.source === 'derivation cache (investors)')!.message;
    const [, readBack, , derived] = /^(\d+) of (\d+) investor\(s\) read back from the parts of an earlier build, (\d+) derived$/
      .exec(note)!
      .map(Number) as number[];
    expect(readBack).toBeGreaterThan(0);
    expect(derived).toBeGreaterThan(0);
    const onFolder = await smartMoney(LATER, fewer, await tempDir('folder-no-cache'), ['--no-cache']);
    expect(report.snapshotId).toBe(JSON.parse(onFolder.stdout).datasets[0].snapshotId);
  });

  it('a build whose uploads are cut off once each tries them again and publishes a bundle that validates', async () => {
    const store = bucket('cut-uploads');
    const built = await build(store, NOW, 'articles', { PDSNAP_FAIL_AT: 'object-upload-once' });
    expect(built.exitCode, built.stdout + built.stderr).toBe(0);
    expect(JSON.parse(built.stdout).datasets[0]).toMatchObject({ published: true, madeCurrent: true });
    const validated = await cli(['validate', '--store', store, '--datasets', 'articles', '--now', NOW]);
    expect(validated.exitCode, validated.stdout).toBe(0);
  });

  it('a build into a bucket that does not exist stops before any work, naming the bucket (exit 3)', async () => {
    const result = await build(`s3://no-such-bucket-${process.pid}/prefix`, NOW);
    expect(result.exitCode).toBe(3);
    // --json: one object whatever happens, and no dataset report: nothing was ingested.
    const out = JSON.parse(result.stdout);
    expect(out).toMatchObject({ ok: false, error: { kind: 'usage', exitCode: 3 } });
    expect(out.error.message).toContain(`bucket no-such-bucket-${process.pid} does not exist`);
    expect(result.stderr).not.toContain('unexpected');
  });
});
