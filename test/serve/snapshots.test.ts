import { mkdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SCOPES, bearer, get, newKey, type RunningServer, startServer, TestClock } from './helpers/harness.js';
import { articles } from './helpers/records.js';
import { buildServer } from '../../src/serve/app.js';
import { RETRY_MAX_MS, SnapshotRegistry } from '../../src/serve/snapshots.js';
import { bundleFilePath } from '../helpers/bundle-file.js';
import { articleResources, calendarResources, makeStore, publishDataset, smartMoneyResources } from './helpers/test-store.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const DAY = 86_400_000;
let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function setUp(datasets?: Parameters<typeof makeStore>[1]) {
  const clock = new TestClock(NOW);
  const made = await makeStore(NOW, datasets);
  const key = await newKey(made.root, ALL_SCOPES, 'premium');
  server = await startServer(made.root, clock);
  const running = server;
  const call = (url: string) => get(running.base, url, bearer(key));
  return { ...made, clock, key, call, server: running };
}

describe('snapshot swaps', () => {
  it('serves a newly published snapshot after reload and answers invalid_cursor to a cursor of the old one', async () => {
    const { store, ids, call, server } = await setUp();
    const page = await call('/v1/articles?limit=5');
    expect(page.body.snapshot.id).toBe(ids.articles);
    const cursor = page.body.page.nextCursor as string;

    const later = new Date(NOW.getTime() + 3_600_000);
    const newId = await publishDataset(
      store,
      'articles',
      { articles: articles(later) },
      {
        generatedAt: later,
        freshUntil: new Date(NOW.getTime() + 7 * DAY),
      },
    );
    // Not yet reloaded: the old snapshot still answers, and its cursor still works.
    expect((await call(`/v1/articles?limit=5&cursor=${cursor}`)).status).toBe(200);
    await server.app.snapshots.reload();

    const replay = await call(`/v1/articles?limit=5&cursor=${cursor}`);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toMatchObject({
      code: 'invalid_cursor',
      message: 'cursor belongs to another snapshot; start again without a cursor',
    });
    const fresh = await call('/v1/articles?limit=5');
    expect(fresh.body.snapshot.id).toBe(newId);
    expect(newId).not.toBe(ids.articles);
  });

  it('answers every request while new snapshots are published and swapped in', async () => {
    const { store, ids, call, server, clock } = await setUp();
    const seen = new Set<string>();
    const statuses: number[] = [];
    let publishing = true;
    const traffic = (async () => {
      while (publishing) {
        clock.advance(60_000); // a new rate-limit window per batch: this test is about swaps, not limits
        const batch = await Promise.all(Array.from({ length: 10 }, () => call('/v1/articles?limit=2')));
        for (const answer of batch) {
          statuses.push(answer.status);
          seen.add(answer.body.snapshot?.id);
        }
      }
    })();
    const published = [ids.articles];
    for (let i = 1; i <= 3; i += 1) {
      const at = new Date(NOW.getTime() + i * 60_000);
      published.push(
        await publishDataset(store, 'articles', articleResources(at), { generatedAt: at, freshUntil: new Date(NOW.getTime() + 7 * DAY) }),
      );
      await server.app.snapshots.reload();
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    publishing = false;
    await traffic;
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect([...seen].every((id) => published.includes(id))).toBe(true);
    expect(server.app.snapshots.currentIds().articles).toBe(published[3]);
  });
});

describe('polling', () => {
  it('picks up a newly published snapshot by itself, without a restart', async () => {
    const clock = new TestClock(NOW);
    const { root, store, ids } = await makeStore(NOW, ['articles']);
    const key = await newKey(root, ALL_SCOPES, 'premium');
    server = await startServer(root, clock, undefined, 50);
    const at = new Date(NOW.getTime() + 60_000);
    const newId = await publishDataset(store, 'articles', articleResources(at), {
      generatedAt: at,
      freshUntil: new Date(NOW.getTime() + 7 * DAY),
    });
    expect(newId).not.toBe(ids.articles);
    let served = '';
    for (let attempt = 0; attempt < 100 && served !== newId; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      served = (await get(server.base, '/v1/articles?limit=1', bearer(key))).body.snapshot.id;
    }
    expect(served).toBe(newId);
  });
});

describe('unavailable datasets', () => {
  it('answers 503 snapshot_unavailable for a stale dataset while the others answer 200', async () => {
    const { store, clock, call, server } = await setUp();
    await publishDataset(store, 'articles', articleResources(NOW), { generatedAt: NOW, freshUntil: new Date(NOW.getTime() + DAY) });
    await server.app.snapshots.reload();
    expect((await call('/v1/articles')).status).toBe(200);
    clock.advance(DAY + 1_000);
    const stale = await call('/v1/articles');
    expect(stale.status).toBe(503);
    expect(stale.body.error).toMatchObject({
      code: 'snapshot_unavailable',
      docsUrl: 'https://docs.example.test/api/errors#snapshot_unavailable',
    });
    expect(stale.body.error.message).toContain('fresh until 2026-11-23T12:00:00.000Z');
    expect(stale.headers.get('x-ratelimit-limit')).toBe('300');
    const staleB = await call('/api/v1/articles');
    expect(staleB.status).toBe(503);
    expect(staleB.body.error.code).toBe('snapshot_unavailable');
    expect((await call('/v1/economic-calendar?from=2026-12-01&to=2026-12-31')).status).toBe(200);
    expect((await call('/api/v1/economic-calendar')).status).toBe(200);
    expect((await call('/v1/smart-money/consensus')).status).toBe(200);
  });

  it('answers 503 for a dataset that was never published while the others answer 200', async () => {
    const { call } = await setUp(['articles']);
    for (const url of [
      '/v1/economic-calendar?from=2026-12-01&to=2026-12-31',
      '/api/v1/economic-calendar',
      '/v1/smart-money/investors',
      '/v1/smart-money/investors/pershing-square',
    ]) {
      const answer = await call(url);
      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe('snapshot_unavailable');
    }
    expect((await call('/v1/articles')).status).toBe(200);
  });

  it('keeps serving when the whole store is out of reach (moved, unmounted), but not when a pointer alone is removed', async () => {
    const { call, root, ids, server: running } = await setUp(['articles']);
    const storeDir = path.join(root, 'snapshots');
    await rename(storeDir, `${storeDir}.away`);
    await running.app.snapshots.reload();
    const meanwhile = await call('/v1/articles?limit=1');
    expect(meanwhile.status).toBe(200);
    expect(meanwhile.body.snapshot.id).toBe(ids.articles);
    await rename(`${storeDir}.away`, storeDir);
    // An unmounted volume leaves its mount point behind, empty: out of reach too.
    await rename(storeDir, `${storeDir}.away`);
    await mkdir(storeDir);
    await running.app.snapshots.reload();
    expect((await call('/v1/articles?limit=1')).status).toBe(200);
    await rmdir(storeDir);
    await rename(`${storeDir}.away`, storeDir);
    // A store that is there without the dataset's pointer: the dataset was taken down.
    await rm(path.join(storeDir, 'current/articles.json'));
    await running.app.snapshots.reload();
    expect((await call('/v1/articles?limit=1')).status).toBe(503);
  });

  it('keeps serving while fresh when the pointer is damaged (not absent), names it in /readyz and the log once, and only an absent pointer takes the dataset down', async () => {
    const { call, root, ids, server: running } = await setUp(['articles']);
    const pointerFile = path.join(root, 'snapshots/current/articles.json');
    const valid = await readFile(pointerFile, 'utf8');
    await writeFile(pointerFile, 'garbage{\u0000');
    await running.app.snapshots.reload();
    const meanwhile = await call('/v1/articles?limit=1');
    expect(meanwhile.status).toBe(200);
    expect(meanwhile.body.snapshot.id).toBe(ids.articles);
    // Ready: the dataset still has its verified snapshot (the others were never published here).
    const readyz = await get(running.base, '/readyz');
    expect(readyz.body.datasets.articles).toEqual({
      ready: true,
      snapshotId: ids.articles,
      unreadablePointer: { reason: expect.stringContaining(`${pointerFile} is not a valid current pointer (not JSON: `) },
    });
    const metrics = await running.app.metrics.text();
    expect(metrics).toContain('pdsnap_snapshot_pointer_unreadable{dataset="articles"} 1');
    // Repaired: the same pointer again, and /readyz no longer names it.
    await writeFile(pointerFile, valid);
    await running.app.snapshots.reload();
    expect((await get(running.base, '/readyz')).body.datasets.articles).toEqual({ ready: true, snapshotId: ids.articles });
    // Absent, in a store that is there: taken down.
    await rm(pointerFile);
    await running.app.snapshots.reload();
    expect((await call('/v1/articles?limit=1')).status).toBe(503);
  });

  it('logs a damaged pointer once while it stays the same, and again after it was repaired and damaged again', async () => {
    const made = await makeStore(NOW, ['articles']);
    const pointerFile = path.join(made.root, 'snapshots/current/articles.json');
    const said: string[] = [];
    const registry = new SnapshotRegistry(path.join(made.root, 'snapshots'), {
      info: (_details, message) => said.push(message),
      error: (_details, message) => said.push(message),
    });
    await registry.reload();
    const valid = await readFile(pointerFile, 'utf8');
    for (let round = 0; round < 2; round++) {
      await writeFile(pointerFile, '');
      await registry.reload();
      await registry.reload();
      await writeFile(pointerFile, valid);
      await registry.reload();
    }
    expect(said.filter((message) => message.startsWith('current pointer damaged'))).toHaveLength(2);
    expect(said.filter((message) => message === 'current pointer readable again')).toHaveLength(2);
    expect(registry.currentIds()).toEqual({ articles: made.ids.articles });
    await registry.close();
  });

  it('says once per outage that the store is out of reach, and again after it came back and went again', async () => {
    const made = await makeStore(NOW, ['articles']);
    const storeDir = path.join(made.root, 'snapshots');
    const said: string[] = [];
    const registry = new SnapshotRegistry(storeDir, { info: () => {}, error: (_details, message) => said.push(message) });
    await registry.reload();
    const outage = async () => {
      await rename(storeDir, `${storeDir}.away`);
      await registry.reload();
      await registry.reload();
      await rename(`${storeDir}.away`, storeDir);
      await registry.reload();
    };
    await outage();
    await outage();
    expect(said.filter((message) => message.startsWith('store not found'))).toHaveLength(2);
    expect(registry.currentIds()).toEqual({ articles: made.ids.articles });
  });

  it('keeps serving the previous verified snapshot when a new bundle fails verification, and moves on after a rollback', async () => {
    const { store, ids, call, server } = await setUp();
    const at = new Date(NOW.getTime() + 60_000);
    const badId = await publishDataset(store, 'calendar', calendarResources(at), {
      generatedAt: at,
      freshUntil: new Date(NOW.getTime() + 7 * DAY),
      facts: { coverageThrough: '2027-03-31' },
    });
    const file = await bundleFilePath(store.root, badId, 'events/00000.ndjson');
    const bytes = await readFile(file, 'utf8');
    await writeFile(file, bytes.replace('CPI y/y', 'CPI y/Y'));
    await server.app.snapshots.reload();
    const kept = await call('/v1/economic-calendar?from=2026-12-01&to=2026-12-31');
    expect(kept.status).toBe(200);
    expect(kept.body.snapshot.id).toBe(ids.calendar);
    expect((await call('/v1/articles')).status).toBe(200);

    await store.rollback('calendar', ids.calendar as string, at);
    await server.app.snapshots.reload();
    const back = await call('/v1/economic-calendar?from=2026-12-01&to=2026-12-31');
    expect(back.status).toBe(200);
    expect(back.body.snapshot.id).toBe(ids.calendar);
  });
});

describe('read errors and corruption at start', () => {
  it('answers 503 when the only snapshot of a dataset fails verification', async () => {
    const clock = new TestClock(NOW);
    const made = await makeStore(NOW);
    const file = await bundleFilePath(made.store.root, made.ids.calendar as string, 'events/00000.ndjson');
    await writeFile(file, (await readFile(file, 'utf8')).replace('CPI y/y', 'CPI y/Y'));
    const key = await newKey(made.root, ALL_SCOPES, 'premium');
    server = await startServer(made.root, clock);
    const corrupt = await get(server.base, '/v1/economic-calendar?from=2026-12-01&to=2026-12-31', bearer(key));
    expect(corrupt.status).toBe(503);
    expect(corrupt.body.error.code).toBe('snapshot_unavailable');
    expect(JSON.stringify(corrupt.body)).not.toContain('sha256');
  });

  it('does not remember a read error as corruption: the next reload serves the bundle once it reads', async () => {
    const clock = new TestClock(NOW);
    const made = await makeStore(NOW);
    const file = await bundleFilePath(made.store.root, made.ids.articles as string, 'articles/00000.ndjson');
    // A folder where the part belongs: reading it fails with EISDIR, an I/O error, not a mismatch.
    await rename(file, `${file}.away`);
    await mkdir(file);
    const key = await newKey(made.root, ALL_SCOPES, 'premium');
    server = await startServer(made.root, clock);
    expect((await get(server.base, '/v1/articles', bearer(key))).status).toBe(503);
    await rmdir(file);
    await rename(`${file}.away`, file);
    await server.app.snapshots.reload();
    const back = await get(server.base, '/v1/articles', bearer(key));
    expect(back.status).toBe(200);
    expect(back.body.snapshot.id).toBe(made.ids.articles);
  });
});

describe('a refused snapshot repaired in place', () => {
  it('is judged again after a backoff while its pointer stays the same, and served once it verifies, without a restart', async () => {
    const made = await makeStore(NOW, ['articles']);
    const manifest = path.join(made.store.bundleDir(made.ids.articles as string), 'manifest.json');
    await rename(manifest, `${manifest}.away`);
    let monotonic = 0;
    const key = await newKey(made.root, ALL_SCOPES, 'premium');
    const running = await buildServer({
      storeDir: path.join(made.root, 'snapshots'),
      keysFile: path.join(made.root, 'keys.json'),
      usageDbFile: path.join(made.root, 'usage.sqlite'),
      docsUrl: 'https://docs.example.test/api',
      cursorSecret: 'test-cursor-secret-0123456789abcdef0123456789',
      now: () => NOW,
      logger: false,
      reloadIntervalMs: 0,
      monotonicMs: () => monotonic,
    });
    try {
      const base = await running.listen({ port: 0, host: '127.0.0.1' });
      let attempts = 0;
      running.snapshots.onReload = () => (attempts += 1);
      expect((await get(base, '/v1/articles?limit=1', bearer(key))).status).toBe(503);
      // The same pointer: not judged again before its retry is due, then after 15 s, 30 s, 60 s...
      const judgedAfter = async (ms: number) => {
        const before = attempts;
        monotonic += ms;
        await running.snapshots.reload();
        return attempts - before;
      };
      expect(await judgedAfter(14_999)).toBe(0);
      expect(await judgedAfter(1)).toBe(1);
      expect(await judgedAfter(29_999)).toBe(0);
      expect(await judgedAfter(1)).toBe(1);
      expect(await judgedAfter(59_999)).toBe(0);
      // Restored in place (a rebuild of the same content, a restore): served at the next judgement.
      await rename(`${manifest}.away`, manifest);
      expect(await judgedAfter(1)).toBe(1);
      const served = await get(base, '/v1/articles?limit=1', bearer(key));
      expect(served.status).toBe(200);
      expect(served.body.snapshot.id).toBe(made.ids.articles);
      // Served: nothing to judge again.
      expect(await judgedAfter(RETRY_MAX_MS)).toBe(0);
    } finally {
      await running.close();
    }
  });

  it('is judged again while an earlier snapshot is served, backing off up to its cap', async () => {
    const made = await makeStore(NOW, ['articles']);
    let monotonic = 0;
    const registry = new SnapshotRegistry(path.join(made.root, 'snapshots'), undefined, undefined, () => monotonic);
    await registry.reload();
    const at = new Date(NOW.getTime() + 60_000);
    const badId = await publishDataset(made.store, 'articles', articleResources(at), {
      generatedAt: at,
      freshUntil: new Date(NOW.getTime() + 7 * DAY),
    });
    const part = await bundleFilePath(made.store.root, badId, 'articles/00000.ndjson');
    const bytes = await readFile(part, 'utf8');
    await writeFile(part, bytes.replace('"title":"', '"title":"X'));
    let attempts = 0;
    registry.onReload = () => (attempts += 1);
    await registry.reload();
    expect(attempts).toBe(1);
    expect(registry.statuses()[0]).toMatchObject({ snapshotId: made.ids.articles, refused: { snapshotId: badId } });
    // 15 s, 30 s, ... 16 min, then every 30 min.
    for (const wait of [15_000, 30_000, 60_000, 120_000, 240_000, 480_000, 960_000, RETRY_MAX_MS, RETRY_MAX_MS]) {
      monotonic += wait - 1;
      await registry.reload();
      expect(attempts, String(wait)).toBe(1);
      monotonic += 1;
      await registry.reload();
      expect(attempts, String(wait)).toBe(2);
      attempts = 1;
    }
    await writeFile(part, bytes);
    monotonic += RETRY_MAX_MS;
    await registry.reload();
    expect(registry.currentIds()).toEqual({ articles: badId });
    await registry.close();
  });
});

describe('smart money resources', () => {
  it('serves the smart-money bundle as published through the store', async () => {
    const { call } = await setUp(['smart-money']);
    const resources = smartMoneyResources();
    const trades = await call('/v1/smart-money/trades?limit=100');
    expect(trades.body.data).toEqual(resources.trades);
  });

  it('verifies a serving index listed without chunk digests (a bundle built before them) by its whole-file digest', async () => {
    const { store, call, server } = await setUp(['articles', 'calendar', 'smart-money']);
    const resources = smartMoneyResources();
    const withoutChunks = async (minutes: number, trades: unknown[]) => {
      const at = new Date(NOW.getTime() + minutes * 60_000);
      const id = await publishDataset(
        store,
        'smart-money',
        { ...resources, trades },
        { generatedAt: at, freshUntil: new Date(NOW.getTime() + 7 * DAY) },
      );
      const manifestFile = path.join(store.bundleDir(id), 'manifest.json');
      const { servingIndex, ...manifest } = JSON.parse(await readFile(manifestFile, 'utf8'));
      expect(servingIndex.chunks.sha256).toHaveLength(1);
      const { chunks: _chunks, ...entry } = servingIndex;
      await writeFile(manifestFile, JSON.stringify({ ...manifest, servingIndex: entry }));
      return id;
    };
    const olderId = await withoutChunks(1, resources.trades.slice(1));
    await server.app.snapshots.reload();
    expect(server.app.snapshots.currentIds()['smart-money']).toBe(olderId);
    expect((await call('/v1/smart-money/trades?limit=100')).body.data).toEqual(resources.trades.slice(1));

    const damagedId = await withoutChunks(2, resources.trades.slice(2));
    const index = await bundleFilePath(store.root, damagedId, 'serving-index.sqlite');
    const bytes = await readFile(index);
    bytes.writeUInt8(bytes.readUInt8(100) ^ 0x01, 100);
    await writeFile(index, bytes);
    await server.app.snapshots.reload();
    expect(server.app.snapshots.statuses().find((s) => s.dataset === 'smart-money')).toMatchObject({
      snapshotId: olderId,
      refused: { snapshotId: damagedId, reason: `bundle ${damagedId} failed verification: serving-index.sqlite does not match its sha256` },
    });
  });

  it('never serves a Smart Money part changed after publishing: its records are read from the parts, verified with the index', async () => {
    const { store, ids, call, server } = await setUp(['articles', 'calendar', 'smart-money']);
    const resources = smartMoneyResources();
    const at = new Date(NOW.getTime() + 60_000);
    const changedId = await publishDataset(
      store,
      'smart-money',
      { ...resources, trades: resources.trades.slice(1) },
      { generatedAt: at, freshUntil: new Date(NOW.getTime() + 7 * DAY) },
    );
    // One byte of a trade's share count, a change a reader of the records alone would not notice.
    const part = await bundleFilePath(store.root, changedId, 'trades/00000.ndjson');
    const text = await readFile(part, 'utf8');
    const at9 = text.indexOf('"sharesAfter":') + '"sharesAfter":'.length;
    await writeFile(part, `${text.slice(0, at9)}${text[at9] === '9' ? '8' : '9'}${text.slice(at9 + 1)}`);
    await server.app.snapshots.reload();
    expect(server.app.snapshots.statuses().find((s) => s.dataset === 'smart-money')).toMatchObject({
      snapshotId: ids['smart-money'],
      refused: { snapshotId: changedId, reason: `bundle ${changedId} failed verification: trades/00000.ndjson does not match its sha256` },
    });
    expect((await call('/v1/smart-money/trades?limit=100')).body.data).toEqual(resources.trades);

    // With nothing verified to fall back on, the dataset is unavailable rather than served from that part.
    const alone = await makeStore(NOW, ['smart-money']);
    const partOfCurrent = await bundleFilePath(alone.store.root, alone.ids['smart-money']!, 'investors/00000.ndjson');
    const bytes = await readFile(partOfCurrent);
    bytes.writeUInt8(bytes.readUInt8(10) ^ 0x01, 10);
    await writeFile(partOfCurrent, bytes);
    const aloneKey = await newKey(alone.root, ALL_SCOPES, 'premium');
    const started = await startServer(alone.root, new TestClock(NOW));
    try {
      const answer = await get(started.base, '/v1/smart-money/investors', bearer(aloneKey));
      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe('snapshot_unavailable');
    } finally {
      await started.close();
    }
  });

  it('keeps serving the previous Smart Money snapshot when the new serving index is damaged, and says so in /readyz', async () => {
    const { store, ids, call, server } = await setUp(['articles', 'calendar', 'smart-money']);
    const at = new Date(NOW.getTime() + 60_000);
    const resources = smartMoneyResources();
    const badId = await publishDataset(
      store,
      'smart-money',
      { ...resources, trades: resources.trades.slice(1) },
      { generatedAt: at, freshUntil: new Date(NOW.getTime() + 7 * DAY) },
    );
    const index = await bundleFilePath(store.root, badId, 'serving-index.sqlite');
    const bytes = await readFile(index);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0x01, bytes.length - 1);
    await writeFile(index, bytes);
    await server.app.snapshots.reload();

    const kept = await call('/v1/smart-money/trades?limit=100');
    expect(kept.status).toBe(200);
    expect(kept.body.data).toEqual(resources.trades);
    const readyz = await get(server.base, '/readyz');
    expect(readyz.status).toBe(200);
    expect(readyz.body.datasets['smart-money']).toEqual({
      ready: true,
      snapshotId: ids['smart-money'],
      refused: {
        snapshotId: badId,
        reason: `bundle ${badId} failed verification: serving-index.sqlite does not match its sha256 in bytes 0 to ${bytes.length - 1}`,
      },
    });
  });
});
