import { connect, createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { ALL_SCOPES, bearer, get, newKey, type RunningServer, startServer, TestClock } from './helpers/harness.js';
import { startServe } from './helpers/serve-process.js';
import { makeStore } from './helpers/test-store.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const FIXED = ['--now', '2026-11-22T12:00:00Z', '--log-level', 'silent'];

let root: string;
let key: string;
beforeAll(async () => {
  ({ root } = await makeStore(NOW));
  key = await newKey(root, ALL_SCOPES, 'premium');
});

const serveArgs = (extra: string[] = []) => [
  '--store',
  path.join(root, 'snapshots'),
  '--keys',
  path.join(root, 'keys.json'),
  '--usage-db',
  path.join(root, 'usage.sqlite'),
  ...FIXED,
  ...extra,
];

describe('shutting down', () => {
  it('on SIGTERM fails /readyz at once, answers every request sent around the signal during the drain delay, then exits 0', async () => {
    const server = await startServe(serveArgs(['--drain-delay', '1s']));
    expect((await get(server.base, '/readyz')).status).toBe(200);
    const before = Array.from({ length: 25 }, () => fetch(`${server.base}/v1/articles?limit=1`, { headers: bearer(key) }));
    const stopped = server.signal('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const readiness = await get(server.base, '/readyz');
    const after = Array.from({ length: 25 }, () => fetch(`${server.base}/v1/articles?limit=1`, { headers: bearer(key) }));
    const answers = await Promise.all([...before, ...after]);
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(readiness.status).toBe(503);
    expect(readiness.body).toMatchObject({ ready: false, draining: true });
    expect(await stopped).toEqual({ exitCode: 0 });
    expect(server.stderr()).toContain('SIGTERM, draining for 1s');
  });

  it('skips what is left of the drain delay at a second signal, closing what is still open: exit 0', async () => {
    const server = await startServe(serveArgs(['--drain-delay', '10m']));
    const stopped = server.signal('SIGTERM');
    while (!server.stderr().includes('draining for 600s')) await new Promise((resolve) => setTimeout(resolve, 20));
    void server.signal('SIGTERM');
    // Without the second signal ending the wait, this would not end before the test's own timeout.
    expect(await stopped).toEqual({ exitCode: 0 });
    expect(server.stderr()).toContain('a second signal: closing the connections still open');
  });

  it('answers a request that finishes arriving while the server closes like any other, asking the client to reconnect', async () => {
    const server = await startServe(serveArgs(['--shutdown-timeout', '5s']));
    const { hostname, port } = new URL(server.base);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(`GET /v1/articles?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopped = server.signal('SIGTERM');
    while (!server.stderr().includes('finishing requests in flight')) await new Promise((resolve) => setTimeout(resolve, 20));
    socket.write('\r\n');
    await closed;
    const answer = Buffer.concat(received).toString('utf8');
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toMatch(/\r\nx-request-id: req_/i);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toContain('"data":[');
    expect(await stopped).toEqual({ exitCode: 0 });
  });

  it('closes a connection whose client never finishes its request once the shutdown timeout is over', async () => {
    const server = await startServe(serveArgs(['--shutdown-timeout', '1s']));
    const { hostname, port } = new URL(server.base);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /v1/articles HTTP/1.1\r\nHost: x\r\n'); // and never the blank line
    // Let the server read those bytes: a connection it has seen nothing on yet is idle, and closed at once.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.on('error', () => undefined);
    expect(await server.signal('SIGINT')).toEqual({ exitCode: 0 });
    await closed;
    expect(server.stderr()).toContain('requests still in flight after 1s; closing their connections');
  });
});

describe('starting up', () => {
  it('refuses a missing keys file or store with exit 3, naming the path', async () => {
    const missingKeys = await runCli(['serve', ...serveArgs(['--keys', path.join(root, 'nope.json'), '--port', '0'])]);
    expect(missingKeys.exitCode).toBe(3);
    expect(String(missingKeys.stderr)).toContain(`--keys: the API keys file ${path.join(root, 'nope.json')} does not exist`);
    const missingStore = await runCli(['serve', ...serveArgs(['--store', path.join(root, 'no-store'), '--port', '0'])]);
    expect(missingStore.exitCode).toBe(3);
    expect(String(missingStore.stderr)).toContain(`--store: the bundle store ${path.join(root, 'no-store')} does not exist`);
  });

  it('starts on an existing store that has no bundle yet, not ready until one is published', async () => {
    const empty = await tempDir('empty-store');
    const server = await startServe(serveArgs(['--store', empty]));
    const readiness = await get(server.base, '/readyz');
    expect(readiness.status).toBe(503);
    expect(readiness.body.datasets.articles).toEqual({ ready: false });
    expect((await get(server.base, '/healthz')).body).toEqual({ status: 'ok' });
    expect(await server.stop()).toBe(0);
  });

  it('finds a busy port before reading any bundle', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const result = await runCli(['serve', ...serveArgs(['--port', String(port)])]);
    blocker.close();
    expect(result.exitCode).toBe(3);
    expect(String(result.stderr)).toContain(`cannot listen on 127.0.0.1:${port}`);
    expect(String(result.stderr)).not.toContain('snapshots ');
  });
});

describe('probes and metrics', () => {
  it('serves /metrics in Prometheus text on its own port only', async () => {
    const server = await startServe(serveArgs(['--metrics-port', '0']));
    const match = /metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(server.stderr());
    expect(match).not.toBeNull();
    await fetch(`${server.base}/v1/articles?limit=1`, { headers: bearer(key) });
    await fetch(`${server.base}/v1/articles?limit=1`);
    const text = await (await fetch(`${match![1]}/metrics`)).text();
    expect(text).toMatch(/pdsnap_http_requests_total\{route="\/v1\/articles",status="200"\} 1/);
    expect(text).toMatch(/pdsnap_http_requests_total\{route="\/v1\/articles",status="401"\} 1/);
    expect(text).toMatch(/pdsnap_snapshot_info\{dataset="articles",snapshot_id="articles-[^"]+"\} 1/);
    expect(text).toMatch(/pdsnap_snapshot_seconds_until_stale\{dataset="calendar"\} \d+/);
    expect(text).toMatch(/pdsnap_snapshot_reloads_total\{dataset="smart-money",outcome="loaded"\} 1/);
    expect((await get(server.base, '/metrics')).status).toBe(404);
    expect(await server.stop()).toBe(0);
  });
});

describe('query values that are not UTF-8', () => {
  let server: RunningServer;
  const clock = new TestClock(NOW);
  beforeAll(async () => {
    server = await startServer(root, clock);
  });
  afterAll(() => server.close());

  it('answers 400 naming the parameter instead of serving U+FFFD', async () => {
    const a = await get(server.base, '/v1/articles?category=%FF', bearer(key));
    expect(a.status).toBe(400);
    expect(a.body.error).toMatchObject({ code: 'invalid_request', message: 'category is not valid percent-encoded UTF-8' });
    const b = await get(server.base, '/api/v1/articles?q=%C3%28', bearer(key));
    expect(b.status).toBe(400);
    expect(b.body).toEqual({ error: { code: 'invalid_params', message: 'q is not valid percent-encoded UTF-8' } });
    expect((await get(server.base, '/v1/articles?category=%C3%A9conomie', bearer(key))).status).toBe(200);
  });
});
