import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryGet } from './helpers/binary-get.js';
import { ALL_SCOPES, DOCS, newKey, type RunningServer, startServer, TestClock } from './helpers/harness.js';
import { makeStore } from './helpers/test-store.js';

// What a request without a key may cost: fixed assets compressed once per encoding, HEAD never
// compressing, answers compressed once per tag, and a per-address limit on the documentation routes
// that never touches the probes. The limit's clock is injected: nothing here waits.
const NOW = new Date('2026-11-22T12:00:00.000Z');
const BUNDLE = '/docs/redoc.standalone.js';
let server: RunningServer;
let key: string;
let monotonic = 0;

beforeAll(async () => {
  const { root } = await makeStore(NOW);
  key = await newKey(root, ALL_SCOPES, 'premium');
  // One request a second, in bursts of ten.
  server = await startServer(root, new TestClock(NOW), undefined, 0, { publicRatePerSecond: 1, monotonicMs: () => monotonic });
});
afterAll(() => server.close());

/** A request from another loopback address, as a second client. */
function getFrom(localAddress: string, target: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    request(`${server.base}${target}`, { localAddress }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('fixed assets', () => {
  it('answer HEAD without compressing, then compress once per encoding and send those bytes to every GET', async () => {
    // Before any GET asked for brotli, HEAD describes the identity representation: it compressed nothing.
    const headFirst = await binaryGet(server.base, BUNDLE, { 'accept-encoding': 'br' }, 'HEAD');
    expect(headFirst.status).toBe(200);
    expect(headFirst.headers['content-encoding']).toBeUndefined();
    const plain = await binaryGet(server.base, BUNDLE);
    expect(headFirst.headers['content-length']).toBe(String(plain.body.length));

    const first = await binaryGet(server.base, BUNDLE, { 'accept-encoding': 'br' });
    const second = await binaryGet(server.base, BUNDLE, { 'accept-encoding': 'br' });
    expect(first.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(first.body).equals(plain.body)).toBe(true);
    expect(second.body.equals(first.body)).toBe(true);
    expect(first.body.length).toBeLessThan(plain.body.length / 3);
    // Now HEAD has GET's headers: the bytes made for the GET.
    const head = await binaryGet(server.base, BUNDLE, { 'accept-encoding': 'br' }, 'HEAD');
    for (const name of ['content-encoding', 'content-length', 'etag', 'vary', 'cache-control']) {
      expect(head.headers[name], name).toEqual(first.headers[name]);
    }
    const gzip = await binaryGet(server.base, '/v1/openapi.json', { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzip.body).toString()).info.version).toBe('1.0.0');
  });
});

describe('the limit of the documentation routes', () => {
  it('refuses an address past its bucket with 429 in the route profile’s envelope, never the probes, and refills with time', async () => {
    monotonic = 1_000_000;
    // A bucket of ten: the documentation routes share it.
    const targets = ['/docs', '/docs/docs.js', BUNDLE, '/v1/openapi.json', '/api/v1/openapi.json'];
    for (let i = 0; i < 10; i++) expect((await binaryGet(server.base, targets[i % targets.length]!)).status, String(i)).toBe(200);
    const docs = await binaryGet(server.base, '/docs');
    expect(docs.status).toBe(429);
    expect(docs.headers['retry-after']).toBe('1');
    expect(docs.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(docs.body.toString()).error).toMatchObject({
      code: 'rate_limited',
      requestId: docs.headers['x-request-id'],
      docsUrl: `${DOCS}/errors#rate_limited`,
    });
    const b = await binaryGet(server.base, '/api/v1/openapi.json');
    expect(b.status).toBe(429);
    expect(Object.keys(JSON.parse(b.body.toString()).error)).toEqual(['code', 'message']);
    // The orchestrator's probes and keyed routes are not the documentation's: they answer as ever.
    for (let i = 0; i < 50; i++) {
      expect((await binaryGet(server.base, '/healthz')).status).toBe(200);
      expect((await binaryGet(server.base, '/readyz')).status).toBe(200);
    }
    expect((await binaryGet(server.base, '/v1/articles?limit=1', { authorization: `Bearer ${key}` })).status).toBe(200);
    // Another address has its own bucket.
    expect((await getFrom('127.0.0.2', '/docs')).status).toBe(200);
    // A second later, one more request.
    monotonic += 1000;
    expect((await binaryGet(server.base, '/docs')).status).toBe(200);
    expect((await binaryGet(server.base, '/docs')).status).toBe(429);
  });
});
