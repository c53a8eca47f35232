import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { bearer, get } from './helpers/harness.js';
import { startServe, type ServeProcess } from './helpers/serve-process.js';
import { makeStore } from './helpers/test-store.js';

/**
 * Several `pdsnap serve` processes against one real Redis, as a deployment behind a load balancer
 * runs them: limits, quotas and revocations hold across the instances, and a Redis outage fails
 * every request closed until Redis is back.
 */

const NOW = new Date('2026-11-22T12:00:00.000Z');
let redis: TestRedis;
let root: string;
const servers: ServeProcess[] = [];

async function serveTwo(): Promise<[ServeProcess, ServeProcess]> {
  const args = [
    '--store',
    path.join(root, 'snapshots'),
    '--state',
    redis.url,
    '--now',
    NOW.toISOString(),
    '--log-level',
    'silent',
    '--reload-interval',
    '0s',
  ];
  const pair = await Promise.all([startServe(args), startServe(args)]);
  servers.push(...pair);
  return pair;
}

async function createKey(tier: 'member' | 'premium'): Promise<{ id: string; key: string }> {
  const result = await runCli([
    'keys',
    '--state',
    redis.url,
    'create',
    '--name',
    `${tier} key`,
    '--scopes',
    'articles:read,calendar:read',
    '--tier',
    tier,
    '--json',
  ]);
  expect(result.exitCode, String(result.stderr)).toBe(0);
  return JSON.parse(String(result.stdout));
}

async function usageOf(keyId: string) {
  const result = await runCli(['usage', '--state', redis.url, '--now', NOW.toISOString(), '--json']);
  expect(result.exitCode, String(result.stderr)).toBe(0);
  return JSON.parse(String(result.stdout)).keys.find((k: { keyId: string }) => k.keyId === keyId);
}

/** Polls until `probe` holds; fails after 10 s. For effects due within a documented bound. */
async function eventually(probe: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!(await probe())) {
    if (performance.now() > deadline) throw new Error('not within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  redis = await startRedis();
  root = (await makeStore(NOW)).root;
});
afterAll(async () => {
  await redis.dispose();
});
beforeEach(async () => {
  const admin = new Redis(redis.url);
  await admin.flushdb();
  await admin.quit();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

describe('two serve processes, one Redis', () => {
  it('admit together exactly the tier per-minute limit, and both refuse a key revoked with pdsnap keys', async () => {
    // The keys are created (each by a pdsnap keys process) while the servers start.
    const [{ id, key }, calendarKey, [one, two]] = await Promise.all([createKey('member'), createKey('premium'), serveTwo()]);

    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        get(i % 2 === 0 ? one.base : two.base, i % 4 < 2 ? '/v1/articles?limit=1' : '/api/v1/articles?limit=1', bearer(key)),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    // Each instance admitted some: the limit was shared, not split.
    expect(answers.filter((a, i) => i % 2 === 0 && a.status === 200).length).toBeGreaterThan(0);
    expect(answers.filter((a, i) => i % 2 === 1 && a.status === 200).length).toBeGreaterThan(0);
    expect(await usageOf(id)).toMatchObject({ requests: 60, rejected: 40 });

    expect((await get(one.base, '/v1/articles?limit=1', bearer(calendarKey.key))).status).toBe(200);
    expect((await get(two.base, '/v1/articles?limit=1', bearer(calendarKey.key))).status).toBe(200);
    const revoke = await runCli(['keys', '--state', redis.url, 'revoke', calendarKey.id]);
    expect(revoke.exitCode).toBe(0);
    for (const server of [one, two]) {
      await eventually(async () => (await get(server.base, '/v1/articles?limit=1', bearer(calendarKey.key))).status === 401);
      expect((await get(server.base, '/api/v1/articles', bearer(calendarKey.key))).body.error).toMatchObject({
        code: 'invalid_key',
        message: 'API key has been revoked',
      });
    }
  });

  it('answer 503 in each profile envelope while Redis is stopped, count nothing then, and serve again once it is back', async () => {
    const [{ id, key }, [one, two]] = await Promise.all([createKey('premium'), serveTwo()]);
    let served = 0;
    for (const server of [one, two]) {
      expect((await get(server.base, '/v1/articles?limit=1', bearer(key))).status).toBe(200);
      served += 1;
    }

    await redis.stop();
    for (const server of [one, two]) {
      const a = await get(server.base, '/v1/articles?limit=1', bearer(key));
      expect(a.status).toBe(503);
      expect(a.body.error).toMatchObject({
        code: 'internal_error',
        requestId: a.headers.get('x-request-id'),
        docsUrl: expect.stringContaining('#internal_error'),
      });
      expect(a.body).not.toHaveProperty('data');
      expect(a.headers.get('retry-after')).toBe('1');
      const b = await get(server.base, '/api/v1/articles', bearer(key));
      expect(b.status).toBe(503);
      expect(b.body).toEqual({
        error: {
          code: 'internal_error',
          message: 'The service cannot check API keys and limits right now; nothing was counted. Retry shortly',
        },
      });
    }

    await redis.start();
    for (const server of [one, two]) {
      await eventually(async () => (await get(server.base, '/v1/articles?limit=1', bearer(key))).status === 200);
      served += 1;
    }
    expect(await usageOf(id)).toMatchObject({ requests: served, rejected: 0 });
  });

  it('need TIME only to count: keys and usage work for a Redis user without it, serve refuses to start', async () => {
    const admin = new Redis(redis.url);
    await admin.call('ACL', 'SETUSER', 'no-time', 'on', '>no-time-pass', '~*', '+@all', '-time');
    try {
      const env = { PDSNAP_STATE: `redis://no-time:no-time-pass@127.0.0.1:${redis.port}/0` };
      const created = await runCli(['keys', 'create', '--name', 'no time', '--scopes', 'articles:read', '--json'], { env });
      expect(created.exitCode, String(created.stderr)).toBe(0);
      const usage = await runCli(['usage', '--now', NOW.toISOString(), '--json'], { env });
      expect(usage.exitCode, String(usage.stderr)).toBe(0);
      const serve = await runCli(['serve', '--store', path.join(root, 'snapshots'), '--port', '0', '--now', NOW.toISOString()], { env });
      expect(serve.exitCode).toBe(3);
      expect(String(serve.stderr)).toMatch(
        /cannot start the server: the state store redis:\/\/\*\*\*:\*\*\*@.* did not answer TIME, .*: NOPERM.*'time'/,
      );
    } finally {
      await admin.call('ACL', 'DELUSER', 'no-time');
      await admin.quit();
    }
  });

  it('take a password only from PDSNAP_STATE and never print it', async () => {
    const admin = new Redis(redis.url);
    await admin.config('SET', 'requirepass', 'hunter2-in-env');
    try {
      const withPassword = `redis://:hunter2-in-env@127.0.0.1:${redis.port}/0`;
      const onCommandLine = await runCli(['keys', '--state', withPassword, 'list']);
      expect(onCommandLine.exitCode).toBe(3);
      expect(String(onCommandLine.stderr)).toContain('PDSNAP_STATE');
      expect(String(onCommandLine.stderr)).not.toContain('hunter2');

      const env = { PDSNAP_STATE: withPassword };
      const created = await runCli(['keys', 'create', '--name', 'env', '--scopes', 'articles:read', '--json'], { env });
      expect(created.exitCode, String(created.stderr)).toBe(0);
      const server = await startServe(['--store', path.join(root, 'snapshots'), '--now', NOW.toISOString(), '--log-level', 'info'], env);
      servers.push(server);
      expect((await get(server.base, '/v1/articles?limit=1', bearer(JSON.parse(String(created.stdout)).key))).status).toBe(200);
      expect(server.stderr()).toContain(`keys and usage in redis://:***@127.0.0.1:${redis.port}/0`);
      await server.stop();
      servers.splice(0);
      expect(server.stdout()).toContain('request completed');
      expect(server.stdout() + server.stderr()).not.toContain('hunter2');
    } finally {
      await admin.config('SET', 'requirepass', '');
      await admin.quit();
    }
  });
});
