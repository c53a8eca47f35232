import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADER_OVERFLOW_MESSAGE } from '../../src/serve/client-error.js';
import { HEADER_COUNT_MESSAGE, MAX_HEADER_COUNT } from '../../src/serve/header-count.js';
import { ALL_SCOPES, DOCS, newKey } from './helpers/harness.js';
import { sendRaw } from './helpers/raw-http.js';
import { type ServeProcess, startServe } from './helpers/serve-process.js';
import { makeStore } from './helpers/test-store.js';

// Node 20 keeps the first 2,000 header lines and drops the rest without a word; a second credential,
// Host or Transfer-Encoding past them must not decide the answer. (Node 22 and later refuse a request
// past the count in their parser; at exactly the count every Node hands the request on.) Against a
// real `pdsnap serve`.

/** What a request past the count is told: pdsnap's own refusal (Node 20) or the parser's (later Nodes). */
const PAST_COUNT_MESSAGES = [HEADER_COUNT_MESSAGE, HEADER_OVERFLOW_MESSAGE];
let server: ServeProcess;
let key: string;
let otherKey: string;
let host: string;

beforeAll(async () => {
  const { root } = await makeStore(new Date('2026-11-22T12:00:00.000Z'));
  key = await newKey(root, ALL_SCOPES);
  otherKey = await newKey(root, ALL_SCOPES);
  server = await startServe([
    ...['--store', path.join(root, 'snapshots'), '--keys', path.join(root, 'keys.json')],
    ...['--usage-db', path.join(root, 'usage.sqlite'), '--now', '2026-11-22T12:00:00Z', '--docs-url', DOCS, '--log-level', 'silent'],
  ]);
  host = new URL(server.base).host;
});
afterAll(() => server.stop());

/**
 * A request of exactly `count` header lines: `first`, then fillers (`a0:`, `a1:`, …), then `last`,
 * the line Node drops once the count is past its limit. `body` follows the header section.
 */
function withHeaderCount(target: string, count: number, first: string[], last: string, body = '') {
  const fillers = Array.from({ length: count - first.length - 1 }, (_, i) => `a${i}:`);
  const lines = [`GET ${target} HTTP/1.1`, ...first, ...fillers, last];
  expect(lines.length - 1).toBe(count);
  return sendRaw(server.base, `${lines.join('\r\n')}\r\n\r\n${body}`);
}

describe('a request with as many header lines as Node keeps', () => {
  it('is decided on every header below the count: a repeated Authorization is 401', async () => {
    const first = [`Host: ${host}`, 'Connection: close', `Authorization: Bearer ${key}`];
    const below = await withHeaderCount('/v1/articles?limit=1', MAX_HEADER_COUNT - 1, first, `Authorization: Bearer ${otherKey}`);
    expect(below.status).toBe(401);
    expect(JSON.parse(below.body).error.message).toBe('API key header sent more than once');
  });

  it('is refused with 431 at exactly the count and one past it, in the envelope of the profile the path names', async () => {
    const first = [`Host: ${host}`, 'Connection: close', `Authorization: Bearer ${key}`];
    for (const count of [MAX_HEADER_COUNT, MAX_HEADER_COUNT + 1]) {
      const answer = await withHeaderCount('/v1/articles?limit=1', count, first, `Authorization: Bearer ${otherKey}`);
      expect(answer.status, String(count)).toBe(431);
      expect(answer.headers.connection).toBe('close');
      expect(answer.headers['cache-control']).toBe('no-store');
      const { error } = JSON.parse(answer.body);
      expect(error).toEqual({
        code: 'invalid_request',
        message: error.message,
        requestId: answer.headers['x-request-id'],
        docsUrl: `${DOCS}/errors#invalid_request`,
      });
      if (count === MAX_HEADER_COUNT) expect(error.message).toBe(`a request may send fewer than ${MAX_HEADER_COUNT} header fields`);
      else expect(PAST_COUNT_MESSAGES).toContain(error.message);
    }
  });

  it('refuses a differing X-API-Key, a second Host or another transfer coding hidden past the count', async () => {
    const past = MAX_HEADER_COUNT + 1;
    const cases: Array<[string, string[], string, string]> = [
      ['/api/v1/articles?limit=1', [`Host: ${host}`, 'Connection: close', `X-API-Key: ${key}`], `X-API-Key: ${otherKey}`, ''],
      ['/v1/articles?limit=1', [`Host: ${host}`, 'Connection: close', `Authorization: Bearer ${key}`], 'Host: elsewhere.example', ''],
      [
        '/v1/articles?limit=1',
        [`Host: ${host}`, 'Connection: close', `Authorization: Bearer ${key}`],
        'Transfer-Encoding: gzip, chunked',
        '0\r\n\r\n',
      ],
    ];
    for (const [target, first, last, body] of cases) {
      const answer = await withHeaderCount(target, past, first, last, body);
      expect(answer.status, last).toBe(431);
      const expected = target.startsWith('/api/v1') ? { code: 'invalid_params' } : { code: 'invalid_request' };
      expect(JSON.parse(answer.body).error, last).toMatchObject(expected);
    }
    // Profile B's envelope is {error:{code,message}} and nothing else.
    const b = await withHeaderCount('/api/v1/articles', past, [`Host: ${host}`, 'Connection: close'], `X-API-Key: ${key}`);
    const { error } = JSON.parse(b.body);
    expect(error).toEqual({ code: 'invalid_params', message: error.message });
    expect(PAST_COUNT_MESSAGES).toContain(error.message);
  });
});
