import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readKeys, revokeKey } from '../../src/serve/access/key-store.js';
import { ALL_SCOPES, bearer, DOCS, get, newKey, type RunningServer, startServer, TestClock } from './helpers/harness.js';
import { makeStore, type PublishedIds } from './helpers/test-store.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const clock = new TestClock(NOW);
let server: RunningServer;
let ids: Partial<PublishedIds>;
let key: string;
let articlesOnlyKey: string;
let root: string;

beforeAll(async () => {
  const made = await makeStore(NOW);
  root = made.root;
  ids = made.ids;
  key = await newKey(root, ALL_SCOPES, 'premium');
  articlesOnlyKey = await newKey(root, ['articles:read'], 'premium');
  server = await startServer(root, clock);
});
afterAll(() => server.close());
// A fresh rate-limit window for every test, so the tests never limit each other.
beforeEach(() => clock.advance(60_000));

const A = (url: string, k = key, extra: Record<string, string> = {}) => get(server.base, url, { ...bearer(k), ...extra });

describe('Profile A operations', () => {
  it('lists articles newest first in the list envelope, without content or unlisted fields', async () => {
    const { status, headers, body } = await A('/v1/articles');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(body).sort()).toEqual(['data', 'page', 'requestId', 'snapshot']);
    expect(body.data).toHaveLength(20);
    expect(body.page.limit).toBe(20);
    expect(typeof body.page.nextCursor).toBe('string');
    expect(body.snapshot).toEqual({ id: ids.articles, generatedAt: '2026-11-22T11:00:00.000Z' });
    expect(body.requestId).toBe(headers.get('x-request-id'));
    expect(Object.keys(body.data[0]).sort()).toEqual([
      'attribution',
      'author',
      'category',
      'description',
      'image',
      'locale',
      'publishedAt',
      'rights',
      'slug',
      'title',
    ]);
    const times = body.data.map((a: { publishedAt: string }) => a.publishedAt);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('filters articles by locale and category', async () => {
    const zh = await A('/v1/articles?locale=zh-CN');
    expect(zh.body.data).toHaveLength(5);
    expect(zh.body.data.every((a: { locale: string }) => a.locale === 'zh-CN')).toBe(true);
    expect(zh.body.page.nextCursor).toBeNull();
    const markets = await A('/v1/articles?category=markets&locale=en-US&limit=100');
    expect(markets.body.data.length).toBe(10);
    expect(markets.body.data.every((a: { category: string }) => a.category === 'markets')).toBe(true);
  });

  it('walks every page of a list with cursors: no duplicates, no gaps, null cursor at the end', async () => {
    const seen: string[] = [];
    let url: string | null = '/v1/articles?limit=7';
    let pages = 0;
    while (url) {
      const { status, body } = await A(url);
      expect(status).toBe(200);
      seen.push(...body.data.map((a: { slug: string }) => a.slug));
      pages += 1;
      url = body.page.nextCursor ? `/v1/articles?limit=7&cursor=${encodeURIComponent(body.page.nextCursor)}` : null;
    }
    const all = await A('/v1/articles?limit=100');
    expect(pages).toBe(7);
    expect(seen).toHaveLength(45);
    expect(new Set(seen).size).toBe(45);
    expect(seen).toEqual(all.body.data.map((a: { slug: string }) => a.slug));
  });

  it('gets one article with its content and rights', async () => {
    const { status, body } = await A('/v1/articles/ko-kr-oil-prices-fall-4');
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ slug: 'ko-kr-oil-prices-fall-4', locale: 'ko-KR', rights: { reuse: 'with-attribution' } });
    expect(body.data.content).toContain('<p>');
    expect(body.snapshot).toEqual({ id: ids.articles, generatedAt: '2026-11-22T11:00:00.000Z' });
    expect(body.requestId).toMatch(/^req_/);
  });

  it('lists calendar events of a date range with coverageThrough, and filters importance and country exactly', async () => {
    const { status, body } = await A('/v1/economic-calendar?from=2026-11-01&to=2026-11-30&limit=100');
    expect(status).toBe(200);
    expect(body.snapshot).toMatchObject({ id: ids.calendar, coverageThrough: '2027-03-31' });
    expect(body.data).toHaveLength(60);
    for (const event of body.data) expect(event.scheduledAt >= '2026-11-01' && event.scheduledAt < '2026-12-01').toBe(true);
    const filtered = await A('/v1/economic-calendar?from=2026-11-01&to=2026-11-30&importance=high&country=JP&limit=100');
    expect(filtered.body.data.length).toBeGreaterThan(0);
    expect(filtered.body.data.every((e: { importance: string; country: string }) => e.importance === 'high' && e.country === 'JP')).toBe(
      true,
    );
  });

  it('accepts a 93-day calendar range counting both ends and refuses 94 days', async () => {
    const ok = await A('/v1/economic-calendar?from=2026-10-01&to=2027-01-01');
    expect(ok.status).toBe(200);
    const tooLong = await A('/v1/economic-calendar?from=2026-10-01&to=2027-01-02');
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({ code: 'invalid_request', docsUrl: `${DOCS}/errors#invalid_request` });
    expect(tooLong.body.error.message).toContain('94 days');
    const reversed = await A('/v1/economic-calendar?from=2026-11-02&to=2026-11-01');
    expect(reversed.body.error.code).toBe('invalid_request');
    const missing = await A('/v1/economic-calendar?from=2026-11-02');
    expect(missing.body.error.message).toBe('to is required');
    const notADate = await A('/v1/economic-calendar?from=2026-02-30&to=2026-03-01');
    expect(notADate.body.error.message).toContain('from must be a calendar date');
  });

  it('lists investors without positions and gets one with its positions', async () => {
    const list = await A('/v1/smart-money/investors');
    expect(list.body.data.map((i: { slug: string }) => i.slug)).toEqual([
      'berkshire-hathaway',
      'bridgewater-associates',
      'pershing-square',
    ]);
    expect(list.body.data[0].positions).toBeUndefined();
    const macro = await A('/v1/smart-money/investors?category=macro');
    expect(macro.body.data.map((i: { slug: string }) => i.slug)).toEqual(['bridgewater-associates']);
    const detail = await A('/v1/smart-money/investors/pershing-square');
    expect(detail.status).toBe(200);
    expect(detail.body.data.positions).toHaveLength(8);
    expect(detail.body.data.positions[0]).toEqual(expect.objectContaining({ issuerName: 'APPLE INC', kind: 'equity' }));
    expect(JSON.stringify(detail.body)).not.toMatch(/cusip/i);
  });

  it('pages consensus at most 10 rows, in rank order', async () => {
    const first = await A('/v1/smart-money/consensus');
    expect(first.body.data.map((r: { rank: number }) => r.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const second = await A(`/v1/smart-money/consensus?cursor=${first.body.page.nextCursor}`);
    expect(second.body.data.map((r: { rank: number }) => r.rank)).toEqual([11, 12, 13, 14, 15]);
    expect(second.body.page.nextCursor).toBeNull();
    const tooMany = await A('/v1/smart-money/consensus?limit=11');
    expect(tooMany.body.error).toMatchObject({ code: 'invalid_request', message: 'limit must be between 1 and 10' });
  });

  it('lists trades filtered by action and investor', async () => {
    const { body } = await A('/v1/smart-money/trades?action=sold&investorSlug=berkshire-hathaway');
    expect(body.data).toHaveLength(2);
    expect(
      body.data.every((t: { action: string; investorSlug: string }) => t.action === 'sold' && t.investorSlug === 'berkshire-hathaway'),
    ).toBe(true);
    const all = await A('/v1/smart-money/trades?limit=100');
    expect(all.body.data).toHaveLength(24);
  });
});

describe('Profile A request validation', () => {
  it.each([
    ['/v1/articles?limit=0', 'limit must be between 1 and 100'],
    ['/v1/articles?limit=101', 'limit must be between 1 and 100'],
    ['/v1/articles?limit=1.5', 'limit must be an integer'],
    ['/v1/articles?limit=abc', 'limit must be an integer'],
    ['/v1/articles?limit=1e1', 'limit must be an integer'],
    // An integer, only too long to read: out of range, not "not an integer".
    ['/v1/articles?limit=10000000000000000', 'limit must be between 1 and 100'],
    ['/v1/smart-money/consensus?limit=-10000000000000000', 'limit must be between 1 and 10'],
    ['/v1/articles?limit=1&limit=2', 'limit is given more than once'],
    ['/v1/articles?page=2', 'unknown parameter page'],
    ['/v1/smart-money/consensus?__proto__=1', 'unknown parameter __proto__'],
    ['/v1/articles?constructor=x', 'unknown parameter constructor'],
    ['/v1/articles?locale=fr-FR', 'locale must be one of en-US, ko-KR, ja-JP, zh-CN'],
    ['/v1/articles?category=', 'category must be 1 to 80 characters long'],
    [`/v1/articles?cursor=${'a'.repeat(2049)}`, 'cursor must be 1 to 2048 characters long'],
    ['/v1/economic-calendar?from=2026-11-01&to=2026-11-02&country=us', 'country must match ^[A-Z]{2}$'],
    ['/v1/economic-calendar?from=2026-11-01&to=2026-11-02&country=USA', 'country must be exactly 2 characters long'],
    ['/v1/economic-calendar?from=2026-11-01&to=2026-11-02&importance=urgent', 'importance must be one of low, medium, high'],
    ['/v1/smart-money/trades?action=bought', 'action must be one of new, added, trimmed, sold'],
    [`/v1/smart-money/trades?investorSlug=${'x'.repeat(161)}`, 'investorSlug must be 1 to 160 characters long'],
    ['/v1/articles/Not_A_Slug', 'slug must match ^[a-z0-9]+(?:-[a-z0-9]+)*$'],
    [`/v1/articles/${'a'.repeat(201)}`, 'slug must be 1 to 200 characters long'],
    [`/v1/smart-money/investors/${'a'.repeat(161)}`, 'slug must be 1 to 160 characters long'],
  ])('%s is 400 invalid_request: %s', async (url, message) => {
    const { status, body, headers } = await A(url);
    expect(status).toBe(400);
    expect(body).toEqual({
      error: { code: 'invalid_request', message, requestId: headers.get('x-request-id'), docsUrl: `${DOCS}/errors#invalid_request` },
    });
  });

  it('refuses a URL Fastify cannot route (bad percent-encoding, a 5000-character slug) in the same envelope, without echoing it', async () => {
    for (const [url, message] of [
      ['/v1/articles/%E0%A4%A', 'the URL is not valid percent-encoding'],
      [`/v1/articles/${'a'.repeat(5000)}`, 'a path parameter is too long'],
    ] as const) {
      const { status, body, headers } = await A(url);
      expect(status).toBe(400);
      expect(body).toEqual({
        error: { code: 'invalid_request', message, requestId: headers.get('x-request-id'), docsUrl: `${DOCS}/errors#invalid_request` },
      });
      expect(headers.get('x-ratelimit-limit')).toBe('60');
    }
    const b = await get(server.base, '/api/v1/articles/%E0%A4%A', bearer(key));
    expect(b.body).toEqual({ error: { code: 'invalid_params', message: 'the URL is not valid percent-encoding' } });
  });

  it('answers 404 not_found for an unknown article, investor or path', async () => {
    for (const url of ['/v1/articles/no-such-article', '/v1/smart-money/investors/no-such-investor', '/v1/nothing-here']) {
      const { status, body } = await A(url);
      expect(status).toBe(404);
      expect(body.error).toMatchObject({ code: 'not_found', docsUrl: `${DOCS}/errors#not_found` });
    }
  });
});

describe('Profile A cursors', () => {
  it('refuses a tampered, malformed, foreign-query or foreign-operation cursor with invalid_cursor', async () => {
    const first = await A('/v1/articles?limit=5');
    const cursor: string = first.body.page.nextCursor;
    const [payload, signature] = cursor.split('.') as [string, string];
    const forgedPayload = Buffer.from(
      JSON.stringify([1, ids.articles, 'listArticles', JSON.parse(Buffer.from(payload, 'base64url').toString())[3], 40]),
    ).toString('base64url');
    const cases = [`${forgedPayload}.${signature}`, `${payload}.${signature.slice(0, -2)}AA`, 'not-a-cursor'];
    for (const bad of cases) {
      const { status, body } = await A(`/v1/articles?limit=5&cursor=${encodeURIComponent(bad)}`);
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'invalid_cursor', docsUrl: `${DOCS}/errors#invalid_cursor` });
    }
    const otherQuery = await A(`/v1/articles?limit=5&locale=en-US&cursor=${cursor}`);
    expect(otherQuery.body.error).toMatchObject({ code: 'invalid_cursor', message: 'cursor was issued for other query parameters' });
    const otherOperation = await A(`/v1/smart-money/investors?cursor=${cursor}`);
    expect(otherOperation.body.error.code).toBe('invalid_cursor');
    // The limit is not bound: the same cursor with another page size continues at the same place.
    const otherLimit = await A(`/v1/articles?limit=10&cursor=${cursor}`);
    expect(otherLimit.status).toBe(200);
    expect(otherLimit.body.data[0].slug).toBe((await A('/v1/articles?limit=6')).body.data[5].slug);
  });
});

describe('Profile A keys and headers', () => {
  it('answers 401 invalid_api_key for a missing, wrong, X-API-Key-only or revoked key', async () => {
    const revokable = await newKey(root, ALL_SCOPES, 'member', 'to revoke');
    expect((await A('/v1/articles', revokable)).status).toBe(200);
    const record = (await readKeys(server.keysFile)).find((k) => k.name === 'to revoke');
    await revokeKey(server.keysFile, record!.id, NOW);
    const cases: Array<Record<string, string>> = [{}, bearer('pds_wrong'), { 'x-api-key': key }, bearer(revokable)];
    for (const headers of cases) {
      const { status, body, headers: h } = await get(server.base, '/v1/articles', headers);
      expect(status).toBe(401);
      expect(body.error).toMatchObject({ code: 'invalid_api_key', docsUrl: `${DOCS}/errors#invalid_api_key` });
      expect(body.error.requestId).toBe(h.get('x-request-id'));
      expect(h.get('x-ratelimit-limit')).toBe('60');
    }
  });

  it('answers 403 insufficient_scope for a key without the operation scope', async () => {
    expect((await A('/v1/articles', articlesOnlyKey)).status).toBe(200);
    const { status, body } = await A('/v1/smart-money/consensus', articlesOnlyKey);
    expect(status).toBe(403);
    expect(body.error).toMatchObject({ code: 'insufficient_scope', docsUrl: `${DOCS}/errors#insufficient_scope` });
    expect(body.error.message).toContain('smart-money:read');
  });

  it('sends request id, rate-limit, quota and ETag headers on a success, and the same limit headers on an error', async () => {
    const ok = await A('/v1/articles');
    const error = await A('/v1/articles?limit=0');
    for (const { headers } of [ok, error]) {
      expect(headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
      expect(headers.get('x-ratelimit-limit')).toBe('300');
      expect(Number(headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
      expect(Number(headers.get('x-ratelimit-reset')) % 60).toBe(0);
      expect(headers.get('x-quota-limit')).toBe('500000');
      expect(Number(headers.get('x-quota-remaining'))).toBeLessThanOrEqual(100_000);
      expect(headers.get('x-quota-reset')).toBe(String(Date.UTC(2026, 11, 1) / 1000));
    }
    expect(ok.headers.get('x-request-id')).not.toBe(error.headers.get('x-request-id'));
    expect(Number(error.headers.get('x-ratelimit-remaining'))).toBe(Number(ok.headers.get('x-ratelimit-remaining')) - 1);
    // Weak: Profile A bodies differ by requestId, so only their content is the same. fetch asks for
    // compressed answers, so the tag names the encoding (compression.test.ts).
    expect(ok.headers.get('etag')).toMatch(/^W\/"[A-Za-z0-9_-]{32}(-br|-gzip)?"$/);
  });

  it('answers 304 with no body to If-None-Match of the current ETag, and 200 again for another page', async () => {
    const first = await A('/v1/articles?limit=3');
    const etag = first.headers.get('etag') as string;
    const again = await A('/v1/articles?limit=3', key, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body).toBeNull();
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('x-request-id')).toMatch(/^req_/);
    const weak = await A('/v1/articles?limit=3', key, { 'if-none-match': `"other", ${etag.replace(/^W\//, '')}` });
    expect(weak.status).toBe(304);
    const other = await A('/v1/articles?limit=4', key, { 'if-none-match': etag });
    expect(other.status).toBe(200);
    const detail = await A('/v1/articles/ko-kr-oil-prices-fall-4');
    expect((await A('/v1/articles/ko-kr-oil-prices-fall-4', key, { 'if-none-match': detail.headers.get('etag') as string })).status).toBe(
      304,
    );
  });
});
