import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, newKey, type RunningServer, startServer, TestClock } from './helpers/harness.js';
import { rawGet } from './helpers/raw-http.js';
import { makeStore } from './helpers/test-store.js';
import { runCli } from '../helpers/cli.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const ALLOWED = 'https://app.example.test';
const clock = new TestClock(NOW);
let closed: RunningServer;
let open: RunningServer;
let key: string;

beforeAll(async () => {
  const { root } = await makeStore(NOW);
  key = await newKey(root, ALL_SCOPES, 'premium');
  closed = await startServer(root, clock);
  open = await startServer(root, clock, undefined, 0, { corsOrigins: [ALLOWED, 'http://localhost:5173'] });
});
afterAll(async () => {
  await closed.close();
  await open.close();
});

const preflight = (base: string, target: string, origin: string, method = 'GET') =>
  rawGet(
    base,
    target,
    [`Origin: ${origin}`, `Access-Control-Request-Method: ${method}`, 'Access-Control-Request-Headers: authorization'],
    'OPTIONS',
  );

describe('CORS', () => {
  it('is off by default: no CORS header, and a preflight is refused like any OPTIONS (401 under a prefix without a key)', async () => {
    const answer = await rawGet(closed.base, '/v1/articles', [`Authorization: Bearer ${key}`, `Origin: ${ALLOWED}`]);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const refused = await preflight(closed.base, '/v1/articles', ALLOWED);
    expect(refused.status).toBe(401);
    expect((await preflight(closed.base, '/docs', ALLOWED)).status).toBe(404);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets a listed origin read answers and their limit headers, never with credentials', async () => {
    const answer = await rawGet(open.base, '/v1/articles', [`Authorization: Bearer ${key}`, `Origin: ${ALLOWED}`]);
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
    expect(answer.headers['access-control-expose-headers']).toContain('ETag');
    expect(answer.headers['access-control-expose-headers']).toContain('X-RateLimit-Remaining');
    expect(answer.headers.vary).toBe('Origin, accept-encoding');
    // Another origin, or none, gets no permission (and the same Vary).
    const other = await rawGet(open.base, '/v1/articles', [`Authorization: Bearer ${key}`, 'Origin: https://evil.example.test']);
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers.vary).toBe('Origin, accept-encoding');
  });

  it('answers a preflight from a listed origin with headers only, and opens nothing without a key', async () => {
    const answer = await preflight(open.base, '/v1/smart-money/consensus', ALLOWED);
    expect(answer.status).toBe(204);
    expect(answer.body).toBe('');
    expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(answer.headers['access-control-allow-methods']).toBe('GET, HEAD');
    expect(answer.headers['access-control-allow-headers']).toBe('Authorization, X-API-Key, If-None-Match, If-Modified-Since');
    expect(answer.headers['x-request-id']).toMatch(/^req_/);
    // The request the preflight announced still needs its key.
    const anonymous = await rawGet(open.base, '/v1/smart-money/consensus', [`Origin: ${ALLOWED}`]);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(JSON.parse(anonymous.body).error.code).toBe('invalid_api_key');
  });

  it('refuses a preflight for another method, from another origin, or without one, like any OPTIONS', async () => {
    for (const answer of [
      await preflight(open.base, '/v1/articles', ALLOWED, 'DELETE'),
      await preflight(open.base, '/v1/articles', 'https://evil.example.test'),
      await rawGet(open.base, '/v1/articles', [], 'OPTIONS'),
    ]) {
      expect(answer.status).toBe(401);
      expect(answer.headers['access-control-allow-methods']).toBeUndefined();
    }
    expect((await preflight(open.base, '/docs', ALLOWED, 'POST')).status).toBe(404);
    expect((await rawGet(open.base, '*', [], 'OPTIONS')).status).toBe(404);
  });

  it('serve --cors-origin takes exact origins only', async () => {
    const result = await runCli(['serve', '--cors-origin', 'https://app.example.test/path', '--port', '0']);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain('--cors-origin');
  });
});
