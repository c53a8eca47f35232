import { chmod, copyFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/serve/app.js';
import { HEADER_OVERFLOW_MESSAGE } from '../../src/serve/client-error.js';
import { loadOrCreateCursorSecret } from '../../src/serve/cursor-secret.js';
import { hostProblem } from '../../src/serve/request-hooks.js';
import { FAILED_AUTH_LIMIT } from '../../src/serve/failed-auth-throttle.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { ALL_SCOPES, DOCS, newKey, type RunningServer, SECRET, startServer, TestClock } from './helpers/harness.js';
import { rawGet, sendRaw } from './helpers/raw-http.js';
import { makeStore } from './helpers/test-store.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
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
beforeEach(() => clock.advance(61_000));

describe('routes without an access rule', () => {
  it('cannot be registered, so they can never be reached', async () => {
    const attempt = buildServer({
      storeDir: path.join(root, 'snapshots'),
      keysFile: path.join(root, 'keys.json'),
      usageDbFile: path.join(root, 'usage-2.sqlite'),
      docsUrl: DOCS,
      cursorSecret: SECRET,
      now: clock.now,
      logger: false,
      reloadIntervalMs: 0,
      profileRoutes: { A: (scope) => scope.get('/sneaky', async () => ({ data: 'secret' })) },
    });
    await expect(attempt).rejects.toThrow('route GET /v1/sneaky declares no access rule (config.access): refusing to register it');
  });

  it('cannot be added to a running server outside both profiles either', () => {
    expect(() => server.app.get('/sneaky', async () => 'secret')).toThrow();
  });
});

describe('credentials', () => {
  it('refuses a repeated Authorization header, even when the first carries a valid key', async () => {
    const answer = await rawGet(server.base, '/v1/articles', [`Authorization: Bearer ${key}`, 'Authorization: Bearer pds_live_other']);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'invalid_api_key', message: 'API key header sent more than once' });
    const same = await rawGet(server.base, '/v1/articles', [`Authorization: Bearer ${key}`, `Authorization: Bearer ${key}`]);
    expect(same.status).toBe(401);
  });

  it('counts an empty credential header line as one of a repeated header', async () => {
    for (const [target, lines] of [
      ['/v1/articles', ['Authorization: ', `Authorization: Bearer ${key}`]],
      ['/v1/articles', [`Authorization: Bearer ${key}`, 'Authorization:']],
      ['/api/v1/articles', ['X-API-Key: ', `X-API-Key: ${key}`]],
      ['/api/v1/articles', ['Authorization: ', `X-API-Key: ${key}`, 'Authorization: Bearer x']],
    ] as const) {
      const answer = await rawGet(server.base, target, [...lines]);
      expect(answer.status, lines.join(' | ')).toBe(401);
      expect(JSON.parse(answer.body).error.message, lines.join(' | ')).toBe('API key header sent more than once');
    }
    // One empty header alone is no key, and beside the other header it hides nothing.
    expect((await rawGet(server.base, '/v1/articles', ['Authorization: '])).status).toBe(401);
    expect((await rawGet(server.base, '/api/v1/articles', ['Authorization: ', `X-API-Key: ${key}`])).status).toBe(200);
  });

  it('refuses a repeated X-API-Key header on Profile B', async () => {
    const answer = await rawGet(server.base, '/api/v1/articles', [`X-API-Key: ${key}`, `X-API-Key: ${key}`]);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'invalid_key', message: 'API key header sent more than once' } });
  });

  it('throttles an address after too many failed authentications, keys and all, until the window ends', async () => {
    clock.set('2026-11-22T13:00:00.000Z');
    for (let i = 0; i < FAILED_AUTH_LIMIT; i += 1) {
      const answer = await rawGet(server.base, '/v1/articles', ['Authorization: Bearer pds_live_guess']);
      expect(answer.status).toBe(401);
    }
    clock.set('2026-11-22T13:00:45.000Z');
    const throttled = await rawGet(server.base, '/api/v1/articles', [`Authorization: Bearer ${key}`]);
    expect(throttled.status).toBe(429);
    expect(throttled.headers['retry-after']).toBe('15');
    expect(JSON.parse(throttled.body).error.code).toBe('rate_limited');
    clock.set('2026-11-22T13:01:00.000Z');
    expect((await rawGet(server.base, '/api/v1/articles', [`Authorization: Bearer ${key}`])).status).toBe(200);
  });
});

describe('answers that never reach a route', () => {
  it('answers oversized headers with 431 in the envelope of the profile the path names', async () => {
    const big = `X-Padding: ${'a'.repeat(20_000)}`;
    const b = await rawGet(server.base, '/api/v1/articles', [big]);
    expect(b.status).toBe(431);
    expect(b.headers['x-request-id']).toMatch(/^req_/);
    expect(JSON.parse(b.body)).toEqual({ error: { code: 'invalid_params', message: HEADER_OVERFLOW_MESSAGE } });
    expect(HEADER_OVERFLOW_MESSAGE).toMatch(/^the request line and headers exceed 16 KiB, /);
    // Like every answer of the profile, with its limit headers (member tier, nothing counted).
    expect(b.headers).toMatchObject({ 'x-ratelimit-limit': '60', 'x-quota-tier': 'free', 'x-quota-used': '0' });
    const a = await rawGet(server.base, '/v1/articles', [big]);
    expect(JSON.parse(a.body).error).toMatchObject({
      code: 'invalid_request',
      requestId: a.headers['x-request-id'],
      docsUrl: `${DOCS}/errors#invalid_request`,
    });
  });

  it('answers malformed HTTP with 400 in an envelope with a request id', async () => {
    const answer = await sendRaw(server.base, 'GET /v1/articles HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error).toMatchObject({
      code: 'invalid_request',
      message: 'the request is not valid HTTP',
      requestId: answer.headers['x-request-id'],
    });
    expect(answer.headers).toMatchObject({ 'x-ratelimit-limit': '60', 'x-quota-limit': '20000' });
  });

  it('refuses an Expect other than 100-continue with 417 in the envelope of the profile the path names', async () => {
    const b = await rawGet(server.base, '/api/v1/articles', [`Authorization: Bearer ${key}`, 'Expect: 200-ok']);
    expect(b.status).toBe(417);
    expect(b.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    expect(b.headers['cache-control']).toBe('no-store');
    expect(b.headers['x-quota-tier']).toBe('free');
    expect(JSON.parse(b.body)).toEqual({
      error: { code: 'invalid_params', message: 'the only expectation supported is Expect: 100-continue' },
    });
    const a = await rawGet(server.base, '/v1/articles?limit=1', [`Authorization: Bearer ${key}`, 'Expect: foo']);
    expect(a.status).toBe(417);
    expect(a.headers['x-ratelimit-limit']).toBe('60');
    expect(JSON.parse(a.body).error).toMatchObject({ code: 'invalid_request', requestId: a.headers['x-request-id'] });
    // 100-continue is still honoured: the interim 100, then the answer.
    const continued = await rawGet(server.base, '/v1/articles?limit=1', [`Authorization: Bearer ${key}`, 'Expect: 100-continue']);
    expect(continued.status).toBe(100);
    expect(continued.body).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers an HTTP/1.1 request without Host with 400 in its profile envelope', async () => {
    const answer = await sendRaw(server.base, `GET /api/v1/articles HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    expect(answer.status).toBe(400);
    expect(answer.headers['x-request-id']).toMatch(/^req_/);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'invalid_params', message: 'an HTTP/1.1 request must send a Host header' } });
  });

  it('refuses a request with two Host headers, or a Host that is no host, with 400 before authentication', async () => {
    for (const [headers, message] of [
      ['Host: a.example\r\nhost: b.example', 'a request must send one Host header, not several'],
      ['Host: a.example/../admin', 'the Host header is not a host name or address'],
      ['Host: user@a.example', 'the Host header is not a host name or address'],
    ]) {
      const answer = await sendRaw(
        server.base,
        `GET /v1/articles HTTP/1.1\r\n${headers}\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.status, headers).toBe(400);
      expect(JSON.parse(answer.body).error, headers).toMatchObject({ code: 'invalid_request', message });
    }
    // HTTP/1.0 needs no Host, but two are refused there too.
    const twice = await sendRaw(server.base, 'GET /api/v1/articles HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n');
    expect(JSON.parse(twice.body)).toEqual({
      error: { code: 'invalid_params', message: 'a request must send one Host header, not several' },
    });
    // Refused before authentication, yet with the profile's limit headers, like every answer of it.
    expect(twice.headers).toMatchObject({ 'x-ratelimit-limit': '60', 'x-quota-tier': 'free', 'x-quota-used': '0' });
    const spaced = await sendRaw(server.base, 'GET /v1/articles HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n');
    expect(spaced.status).toBe(400);
    expect(spaced.headers).toMatchObject({ 'x-ratelimit-limit': '60', 'x-quota-limit': '20000' });
  });

  it('takes every form of host the URI syntax allows', () => {
    for (const host of [
      '',
      'localhost',
      'localhost:4701',
      '127.0.0.1:80',
      '[::1]:4701',
      '[v1.fe80::a+en1]',
      '[fe80::1%eth0]:4701',
      '[fe80::1%25eth0]',
      'LOCALHOST.',
      'xn--bcher-kva.example',
      'a%2Eb',
    ]) {
      expect(hostProblem(['Host', host], '1.1'), host).toBeNull();
    }
    expect(hostProblem([], '1.0')).toBeNull();
    for (const host of ['a b', 'a:80:80', '[::1', 'a\\b', 'a?b', 'a#b']) {
      expect(hostProblem(['Host', host], '1.1'), host).not.toBeNull();
    }
  });
});

describe('transfer codings', () => {
  const chunkedGet = (target: string, lines: string[]) =>
    sendRaw(server.base, `GET ${target} HTTP/1.1\r\nHost: x\r\n${lines.join('\r\n')}\r\nConnection: close\r\n\r\n0\r\n\r\n`);

  it('refuses a transfer coding other than chunked with 501 in the envelope, key or not', async () => {
    for (const [target, lines, code] of [
      ['/v1/articles', ['Transfer-Encoding: gzip, chunked', `Authorization: Bearer ${key}`], 'invalid_request'],
      ['/v1/articles', ['Transfer-Encoding: gzip', 'Transfer-Encoding: chunked', `Authorization: Bearer ${key}`], 'invalid_request'],
      ['/api/v1/articles', ['Transfer-Encoding: GZIP , Chunked', `X-API-Key: ${key}`], 'invalid_params'],
      ['/api/v1/articles', ['Transfer-Encoding: br, chunked'], 'invalid_params'],
    ] as const) {
      const answer = await chunkedGet(target, [...lines]);
      expect(answer.status, lines.join(' | ')).toBe(501);
      expect(answer.headers['x-request-id']).toMatch(/^req_/);
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers['x-ratelimit-limit']).toBe('60');
      expect(JSON.parse(answer.body).error, lines.join(' | ')).toMatchObject({
        code,
        message: 'the only transfer coding implemented is chunked',
      });
    }
  });

  it('takes chunked alone, empty list elements included', async () => {
    for (const coding of ['chunked', ', chunked', 'Chunked']) {
      const answer = await chunkedGet('/v1/articles?limit=1', [`Transfer-Encoding: ${coding}`, `Authorization: Bearer ${key}`]);
      expect(answer.status, coding).toBe(200);
    }
  });
});

describe('caching', () => {
  it("marks keyed answers private (one key's answer is never another's) and errors never stored", async () => {
    const ok = await rawGet(server.base, '/v1/articles', [`Authorization: Bearer ${key}`]);
    expect(ok.status).toBe(200);
    expect(ok.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
    const refused = await rawGet(server.base, '/api/v1/articles');
    expect(refused.headers['cache-control']).toBe('no-store');
  });
});

describe('the cursor secret on disk', () => {
  it('refuses a secret file that group or others can read, naming the file and the fix', async () => {
    const dir = await tempDir('secret');
    const file = path.join(dir, 'cursor-secret');
    await writeFile(file, `${'f'.repeat(64)}\n`, { mode: 0o644 });
    await chmod(file, 0o644);
    await expect(loadOrCreateCursorSecret(file)).rejects.toThrow(
      `${file} is readable by group or others (mode 644): run chmod 600 ${file}`,
    );
  });

  it('makes serve exit 3 with that message', async () => {
    const dir = await tempDir('secret');
    const file = path.join(dir, 'cursor-secret');
    await writeFile(file, `${'f'.repeat(64)}\n`, { mode: 0o640 });
    await chmod(file, 0o640);
    const result = await runCli([
      'serve',
      '--store',
      path.join(root, 'snapshots'),
      '--keys',
      path.join(root, 'keys.json'),
      '--usage-db',
      path.join(dir, 'u.sqlite'),
      '--cursor-secret-file',
      file,
      '--port',
      '0',
      '--log-level',
      'silent',
    ]);
    expect(result.exitCode).toBe(3);
    expect(String(result.stderr)).toContain(`${file} is readable by group or others (mode 640)`);
  });
});

describe('the keys file on disk', () => {
  it('is written readable by its owner only, since it names every key', async () => {
    expect((await stat(path.join(root, 'keys.json'))).mode & 0o777).toBe(0o600);
  });

  it('is refused by serve (exit 3) when group or others can read it, as a cursor secret is', async () => {
    const dir = await tempDir('keys');
    const keys = path.join(dir, 'keys.json');
    await copyFile(path.join(root, 'keys.json'), keys);
    const serve = (keysFile: string, secret: string) =>
      runCli([
        'serve',
        ...['--store', path.join(root, 'snapshots'), '--keys', keysFile, '--usage-db', path.join(dir, 'u.sqlite')],
        ...['--cursor-secret-file', secret, '--port', '0', '--log-level', 'silent'],
      ]);
    await chmod(keys, 0o644);
    const exposedKeys = await serve(keys, path.join(dir, 'cursor-secret'));
    expect(exposedKeys.exitCode).toBe(3);
    expect(String(exposedKeys.stderr)).toContain(
      `cannot start the server: ${keys} is readable by group or others (mode 644): run chmod 600 ${keys}`,
    );
    // The same words for a cursor secret at the same mode, beside a keys file that is in order.
    await chmod(keys, 0o600);
    const secret = path.join(dir, 'other-secret');
    await writeFile(secret, `${'f'.repeat(64)}\n`);
    await chmod(secret, 0o644);
    const exposedSecret = await serve(keys, secret);
    expect(exposedSecret.exitCode).toBe(3);
    expect(String(exposedSecret.stderr)).toContain(
      `cannot start the server: ${secret} is readable by group or others (mode 644): run chmod 600 ${secret}`,
    );
  });
});
