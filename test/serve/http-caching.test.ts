import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryGet } from './helpers/binary-get.js';
import { ALL_SCOPES, newKey, type RunningServer, startServer, TestClock } from './helpers/harness.js';
import { makeStore } from './helpers/test-store.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
// makeStore: generated an hour before NOW, fresh for seven days after it.
const GENERATED = 'Sun, 22 Nov 2026 11:00:00 GMT';
const FRESH_UNTIL_MS = NOW.getTime() + 7 * 86_400_000;
const clock = new TestClock(NOW);
let root: string;
let server: RunningServer;
let key: string;

beforeAll(async () => {
  ({ root } = await makeStore(NOW));
  key = await newKey(root, ALL_SCOPES, 'premium');
  server = await startServer(root, clock);
});
afterAll(() => server.close());

const ask = (target: string, headers: Record<string, string> = {}, base = server.base) =>
  binaryGet(base, target, { authorization: `Bearer ${key}`, ...headers });

describe('caching headers', () => {
  it('marks data private, with Last-Modified from the snapshot and a max-age no later than freshUntil', async () => {
    clock.set(NOW.toISOString());
    const answer = await ask('/v1/articles');
    expect(answer.status).toBe(200);
    expect(answer.headers['last-modified']).toBe(GENERATED);
    // This server never reloads (interval 0): freshUntil is the only bound.
    expect(answer.headers['cache-control']).toBe(`private, max-age=${(FRESH_UNTIL_MS - NOW.getTime()) / 1000}`);
    clock.set(new Date(FRESH_UNTIL_MS - 90_500).toISOString());
    expect((await ask('/api/v1/articles')).headers['cache-control']).toBe('private, max-age=90');
    clock.set(NOW.toISOString());
  });

  it('keeps max-age within the reload interval, when the server reloads', async () => {
    const polling = await startServer(root, clock, undefined, 2000);
    try {
      const answer = await ask('/v1/smart-money/consensus', {}, polling.base);
      expect(answer.headers['cache-control']).toBe('private, max-age=2');
      const notModified = await ask('/v1/smart-money/consensus', { 'if-none-match': answer.headers.etag as string }, polling.base);
      expect(notModified.status).toBe(304);
      expect(notModified.headers['cache-control']).toBe('private, max-age=2');
    } finally {
      await polling.close();
    }
  });

  it('bounds the region calendar by the end of the UTC day, when its window moves', async () => {
    clock.set('2026-11-23T06:00:00.000Z');
    const answer = await ask('/api/v1/economic-calendar');
    expect(answer.status).toBe(200);
    expect(answer.headers['last-modified']).toBe('Mon, 23 Nov 2026 00:00:00 GMT');
    expect(answer.headers['cache-control']).toBe('private, max-age=64800');
    clock.set(NOW.toISOString());
  });

  it('answers If-Modified-Since naming the exact Last-Modified with 304, and If-None-Match first', async () => {
    const exact = await ask('/v1/articles', { 'if-modified-since': GENERATED });
    expect(exact.status).toBe(304);
    expect(exact.body.length).toBe(0);
    expect(exact.headers['last-modified']).toBe(GENERATED);
    // Exact, not "since": after a rollback the served snapshot is older than what the client holds.
    expect((await ask('/v1/articles', { 'if-modified-since': 'Mon, 23 Nov 2026 11:00:00 GMT' })).status).toBe(200);
    expect((await ask('/v1/articles', { 'if-modified-since': 'not a date' })).status).toBe(200);
    // The obsolete forms of the same instant are HTTP-dates too; other spellings of it are not (RFC 9110 13.1.3).
    expect((await ask('/v1/articles', { 'if-modified-since': 'Sunday, 22-Nov-26 11:00:00 GMT' })).status).toBe(304);
    expect((await ask('/v1/articles', { 'if-modified-since': 'Sun Nov 22 11:00:00 2026' })).status).toBe(304);
    for (const other of ['2026-11-22T11:00:00.000Z', '22 Nov 2026 11:00:00 GMT', 'Sun, 22 Nov 2026 11:00:00 +0000']) {
      expect((await ask('/v1/articles', { 'if-modified-since': other })).status, other).toBe(200);
    }
    // A non-matching If-None-Match wins over a matching If-Modified-Since (RFC 9110 13.2.2).
    expect((await ask('/v1/articles', { 'if-modified-since': GENERATED, 'if-none-match': '"nope"' })).status).toBe(200);
  });

  it('sends no-store on every error and on the probes', async () => {
    for (const [target, headers, status] of [
      ['/v1/articles?limit=0', {}, 400],
      ['/v1/articles/no-such-article', {}, 404],
      ['/v1/no-such-path', {}, 404],
      ['/api/v1/articles', { authorization: 'Bearer wrong' }, 401],
    ] as const) {
      const answer = await ask(target, headers);
      expect(answer.status, target).toBe(status);
      expect(answer.headers['cache-control'], target).toBe('no-store');
      expect(answer.headers['last-modified']).toBeUndefined();
    }
    for (const probe of ['/healthz', '/readyz']) expect((await binaryGet(server.base, probe)).headers['cache-control']).toBe('no-store');
  });
});
