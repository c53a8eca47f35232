import type { FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readKeys } from '../../src/serve/access/key-store.js';
import { UsageStore } from '../../src/serve/access/usage-store.js';
import { buildServer } from '../../src/serve/app.js';
import { ALL_SCOPES, bearer, DOCS, get, newKey, type RunningServer, SECRET, startServer, TestClock } from './helpers/harness.js';
import { makeStore } from './helpers/test-store.js';

const NOW = new Date('2026-11-22T12:00:30.000Z');
const servers: RunningServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function start(root: string, clock: TestClock, extra?: Parameters<typeof startServer>[2]) {
  const server = await startServer(root, clock, extra);
  servers.push(server);
  return server;
}

describe('rate limits', () => {
  it('refuses the 61st request of a member key in one fixed window with 429 rate_limited, and admits again in the next window', async () => {
    const clock = new TestClock(NOW);
    const { root } = await makeStore(NOW, ['articles']);
    const key = await newKey(root, ALL_SCOPES, 'member');
    const server = await start(root, clock);
    for (let i = 1; i <= 60; i += 1) {
      const ok = await get(server.base, '/v1/articles?limit=1', bearer(key));
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(60 - i));
    }
    const limited = await get(server.base, '/v1/articles?limit=1', bearer(key));
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'rate_limited', docsUrl: `${DOCS}/errors#rate_limited` });
    expect(limited.headers.get('retry-after')).toBe('30');
    expect(limited.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-11-22T12:01:00.000Z') / 1000));
    const limitedB = await get(server.base, '/api/v1/articles', { 'x-api-key': key });
    expect(limitedB.status).toBe(429);
    expect(limitedB.body).toEqual({
      error: { code: 'rate_limited', message: 'Rate limit of 60 requests per minute reached; retry in 30 s' },
    });

    clock.set('2026-11-22T12:00:59.999Z');
    expect((await get(server.base, '/v1/articles?limit=1', bearer(key))).status).toBe(429);
    clock.set('2026-11-22T12:01:00.000Z');
    const next = await get(server.base, '/v1/articles?limit=1', bearer(key));
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('refuses a key at its monthly hard cap with 429 quota_exceeded, still after a restart, until the next UTC month', async () => {
    const clock = new TestClock(NOW);
    const { root } = await makeStore(NOW, ['articles']);
    const key = await newKey(root, ALL_SCOPES, 'member', 'heavy user');
    const keyId = (await readKeys(path.join(root, 'keys.json'))).find((k) => k.name === 'heavy user')!.id;
    // 19,999 requests earlier this month, recorded through the usage store the server itself uses.
    const usage = UsageStore.open(path.join(root, 'usage.sqlite'));
    const earlierWindow = Math.floor(Date.parse('2026-11-10T00:00:00.000Z') / 1000);
    const noMinuteLimit = { hardCapPerMonth: 20_000, requestsPerMinute: 20_000 };
    for (let i = 0; i < 19_999; i += 1) usage.admitNow(keyId, 'member', '2026-11', earlierWindow, noMinuteLimit);
    usage.close();

    const first = await start(root, clock);
    const last = await get(first.base, '/v1/articles?limit=1', bearer(key));
    expect(last.status).toBe(200);
    expect(last.headers.get('x-quota-remaining')).toBe('0');
    const refused = await get(first.base, '/v1/articles?limit=1', bearer(key));
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'quota_exceeded', docsUrl: `${DOCS}/extra-usage` });
    const secondsToDecember = Math.ceil((Date.parse('2026-12-01T00:00:00.000Z') - NOW.getTime()) / 1000);
    expect(refused.headers.get('retry-after')).toBe(String(secondsToDecember));
    await first.close();
    servers.splice(0);

    clock.advance(3_600_000);
    const second = await start(root, clock);
    const afterRestart = await get(second.base, '/api/v1/articles', bearer(key));
    expect(afterRestart.status).toBe(429);
    expect(afterRestart.body.error.code).toBe('quota_exceeded');
    expect(afterRestart.headers.get('x-quota-used')).toBe('20000');

    clock.set('2026-12-01T00:00:00.000Z');
    const december = await get(second.base, '/api/v1/articles', bearer(key));
    expect(december.headers.get('x-quota-used')).toBe('1');
  });
});

describe('unexpected failures', () => {
  it('answers 500 internal_error in each profile envelope without leaking the error or its stack', async () => {
    const clock = new TestClock(NOW);
    const { root } = await makeStore(NOW, ['articles']);
    const key = await newKey(root, ALL_SCOPES, 'premium');
    // Test-only routes behind the same hooks and error handler; production never registers them.
    const failing = (scope: FastifyInstance) =>
      scope.get('/test-only/failure', { config: { access: { access: 'key', scope: 'articles:read' } } }, async () => {
        throw new Error('database password is hunter2 at /srv/secret/path');
      });
    const server = await start(root, clock, { A: failing, B: failing });
    const a = await get(server.base, '/v1/test-only/failure', bearer(key));
    expect(a.status).toBe(500);
    expect(a.body).toEqual({
      error: {
        code: 'internal_error',
        message: 'An unexpected error occurred; quote the X-Request-Id when reporting it',
        requestId: a.headers.get('x-request-id'),
        docsUrl: `${DOCS}/errors#internal_error`,
      },
    });
    expect(a.headers.get('x-ratelimit-limit')).toBe('300');
    const b = await get(server.base, '/api/v1/test-only/failure', bearer(key));
    expect(b.status).toBe(500);
    expect(b.body).toEqual({
      error: { code: 'internal_error', message: 'An unexpected error occurred; quote the X-Request-Id when reporting it' },
    });
    expect(JSON.stringify([a.body, b.body])).not.toMatch(/hunter2|srv|at /);
  });
});

describe('request log', () => {
  it('writes one structured line per request with request id, route, status, latency and key id, never the key', async () => {
    const clock = new TestClock(NOW);
    const { root } = await makeStore(NOW, ['articles']);
    const key = await newKey(root, ALL_SCOPES, 'premium', 'logged');
    const keyId = (await readKeys(path.join(root, 'keys.json'))).find((k) => k.name === 'logged')!.id;
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const app = await buildServer({
      storeDir: path.join(root, 'snapshots'),
      keysFile: path.join(root, 'keys.json'),
      usageDbFile: path.join(root, 'usage.sqlite'),
      docsUrl: DOCS,
      cursorSecret: SECRET,
      now: clock.now,
      logger: { level: 'info', stream },
      reloadIntervalMs: 0,
    });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const ok = await get(base, '/v1/articles?limit=1', bearer(key));
    await get(base, '/api/v1/articles', { 'x-api-key': 'pds_not_a_key_at_all' });
    await app.close();
    const requests = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request completed');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      requestId: ok.headers.get('x-request-id'),
      method: 'GET',
      route: '/v1/articles',
      status: 200,
      keyId,
    });
    expect(typeof requests[0].latencyMs).toBe('number');
    expect(requests[1]).toMatchObject({ route: '/api/v1/articles', status: 401, keyId: null });
    const all = lines.join('\n');
    expect(all).not.toContain(key);
    expect(all).not.toContain('pds_not_a_key_at_all');
    expect(all.toLowerCase()).not.toContain('authorization');
  });
});
