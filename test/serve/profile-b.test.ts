import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ALL_SCOPES, bearer, get, newKey, type RunningServer, startServer, TestClock } from './helpers/harness.js';
import { calendarEvents } from './helpers/records.js';
import { makeStore } from './helpers/test-store.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const clock = new TestClock(NOW);
let server: RunningServer;
let key: string;
let memberKey: string;
let smartMoneyOnly: string;

beforeAll(async () => {
  const { root } = await makeStore(NOW);
  key = await newKey(root, ALL_SCOPES, 'premium');
  memberKey = await newKey(root, ['articles:read', 'calendar:read'], 'member');
  smartMoneyOnly = await newKey(root, ['smart-money:read'], 'member');
  server = await startServer(root, clock);
});
afterAll(() => server.close());
beforeEach(() => clock.advance(60_000));

const B = (url: string, extra: Record<string, string> = bearer(key)) => get(server.base, url, extra);
const slugs = (body: { data: Array<{ slug: string }> }) => body.data.map((a) => a.slug);

describe('Profile B articles', () => {
  it('lists the us region by default with offset pagination and only the published fields', async () => {
    const { status, body } = await B('/api/v1/articles');
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['data', 'pagination']);
    expect(body.pagination).toEqual({ total: 25, limit: 20, offset: 0 });
    expect(Object.keys(body.data[0]).sort()).toEqual(['author', 'category', 'date', 'description', 'image', 'region', 'slug', 'title']);
    expect(body.data[0]).toMatchObject({ region: 'us', date: '2026-11-22', slug: 'en-us-fed-holds-rates-steady-1' });
    const rest = await B('/api/v1/articles?offset=20');
    expect(rest.body.data).toHaveLength(5);
    expect(rest.body.pagination).toEqual({ total: 25, limit: 20, offset: 20 });
    const beyond = await B('/api/v1/articles?offset=500');
    expect(beyond.body).toEqual({ data: [], pagination: { total: 25, limit: 20, offset: 500 } });
  });

  it('maps regions to locales (kr to ko-KR, jp to ja-JP) and never shows zh-CN', async () => {
    expect((await B('/api/v1/articles?region=kr')).body.pagination.total).toBe(8);
    const jp = await B('/api/v1/articles?region=jp&limit=100');
    expect(jp.body.data).toHaveLength(7);
    expect(jp.body.data.every((a: { region: string }) => a.region === 'jp')).toBe(true);
  });

  it('searches title and description case-insensitively, every term', async () => {
    const byTitle = await B('/api/v1/articles?q=OIL');
    expect(slugs(byTitle.body)).toEqual([
      'en-us-oil-prices-fall-4',
      'en-us-oil-prices-fall-9',
      'en-us-oil-prices-fall-14',
      'en-us-oil-prices-fall-19',
      'en-us-oil-prices-fall-24',
    ]);
    expect((await B('/api/v1/articles?q=inventories')).body.pagination.total).toBe(5);
    expect((await B('/api/v1/articles?q=oil%20supply')).body.pagination.total).toBe(5);
    expect((await B('/api/v1/articles?q=oil%20payrolls')).body.pagination.total).toBe(0);
  });

  it('matches q in another Unicode spelling (full-width letters) and refuses a q of only spaces', async () => {
    // ＯＩＬ is what a Japanese or Korean keyboard in full-width mode sends for OIL.
    expect((await B(`/api/v1/articles?q=${encodeURIComponent('ＯＩＬ')}`)).body.pagination.total).toBe(5);
    for (const blank of ['%20', '+', '%20%09%20']) {
      const { status, body } = await B(`/api/v1/articles?q=${blank}`);
      expect(status).toBe(400);
      expect(body.error).toEqual({ code: 'invalid_params', message: 'q must contain a search term, not only spaces' });
    }
  });

  it('filters by category and publication day, and sorts oldest first on date_asc', async () => {
    const economy = await B('/api/v1/articles?category=economy&limit=100');
    expect(economy.body.data).toHaveLength(10);
    const today = await B('/api/v1/articles?from=2026-11-22&to=2026-11-22');
    expect(today.body.data.every((a: { date: string }) => a.date === '2026-11-22')).toBe(true);
    expect(today.body.pagination.total).toBe(4);
    const since = await B('/api/v1/articles?from=2026-11-20&limit=100');
    expect(since.body.data.every((a: { date: string }) => a.date >= '2026-11-20')).toBe(true);
    const desc = await B('/api/v1/articles?limit=100');
    const asc = await B('/api/v1/articles?limit=100&sort=date_asc');
    expect(slugs(asc.body)).toEqual([...slugs(desc.body)].reverse());
    const reversed = await B('/api/v1/articles?from=2026-11-22&to=2026-11-21');
    expect(reversed.body.error.code).toBe('invalid_params');
  });

  it('gets an article of a region with its content; another region is 404 not_found', async () => {
    const { status, body } = await B('/api/v1/articles/ko-kr-oil-prices-fall-4?region=kr');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['data']);
    expect(Object.keys(body.data).sort()).toEqual([
      'author',
      'category',
      'content',
      'date',
      'description',
      'image',
      'region',
      'slug',
      'title',
    ]);
    expect(body.data.content).toContain('<p>');
    const wrongRegion = await B('/api/v1/articles/ko-kr-oil-prices-fall-4');
    expect(wrongRegion.status).toBe(404);
    expect(wrongRegion.body).toEqual({
      error: { code: 'not_found', message: 'No article with slug ko-kr-oil-prices-fall-4 in region us' },
    });
  });
});

describe('Profile B economic calendar', () => {
  it('lists the region country from the start of today through futureDays (default 90), earliest first', async () => {
    const { status, body } = await B('/api/v1/economic-calendar?limit=100');
    expect(status).toBe(200);
    const expected = calendarEvents('2026-10-01', 182, '2026-11-21T12:00:00.000Z').filter(
      (e) => e.country === 'US' && e.scheduledAt >= '2026-11-22T00:00:00.000Z' && e.scheduledAt < '2027-02-21T00:00:00.000Z',
    );
    expect(body.pagination).toEqual({ total: expected.length, limit: 100, offset: 0 });
    expect(body.data.map((e: { scheduledAt: string }) => e.scheduledAt)).toEqual(expected.map((e) => e.scheduledAt));
    expect(Object.keys(body.data[0]).sort()).toEqual([
      'actualValue',
      'category',
      'country',
      'eventName',
      'forecastValue',
      'importance',
      'previousValue',
      'scheduledAt',
    ]);
    expect(body.data[0]).toMatchObject({ country: 'United States', scheduledAt: '2026-11-22T12:30:00.000Z' });
    expect([1, 2, 3]).toContain(body.data[0].importance);
  });

  it('filters a minimum importance, other regions, and futureDays 0 (today only)', async () => {
    const high = await B('/api/v1/economic-calendar?importance=3&limit=100');
    expect(high.body.data.length).toBeGreaterThan(0);
    expect(high.body.data.every((e: { importance: number }) => e.importance === 3)).toBe(true);
    const medium = await B('/api/v1/economic-calendar?importance=2&limit=100');
    expect(medium.body.data.every((e: { importance: number }) => e.importance >= 2)).toBe(true);
    expect(medium.body.pagination.total).toBeGreaterThan(high.body.pagination.total);
    const kr = await B('/api/v1/economic-calendar?region=kr&limit=1');
    expect(kr.body.data[0].country).toBe('South Korea');
    const today = await B('/api/v1/economic-calendar?futureDays=0');
    expect(today.body.data.map((e: { scheduledAt: string }) => e.scheduledAt)).toEqual(['2026-11-22T12:30:00.000Z']);
    const year = await B('/api/v1/economic-calendar?futureDays=365&limit=1');
    expect(year.body.pagination.total).toBeGreaterThan((await B('/api/v1/economic-calendar?limit=1')).body.pagination.total);
  });
});

describe('Profile B errors and headers', () => {
  it.each([
    ['/api/v1/articles?limit=0', 'limit must be between 1 and 100'],
    ['/api/v1/articles?limit=2.5', 'limit must be an integer'],
    ['/api/v1/articles?offset=-1', 'offset must be at least 0'],
    ['/api/v1/articles?offset=10000000000000000', 'offset must be between 0 and 999999999999999'],
    ['/api/v1/articles?sort=popular', 'sort must be one of date_desc, date_asc'],
    ['/api/v1/articles?from=22-11-2026', 'from must be a calendar date written YYYY-MM-DD'],
    ['/api/v1/articles?q=a&q=b', 'q is given more than once'],
    ['/api/v1/articles?locale=en-US', 'unknown parameter locale'],
    ['/api/v1/economic-calendar?futureDays=366', 'futureDays must be between 0 and 365'],
    ['/api/v1/economic-calendar?importance=4', 'importance must be between 1 and 3'],
    ['/api/v1/economic-calendar?importance=high', 'importance must be an integer'],
  ])('%s is 400 invalid_params: %s', async (url, message) => {
    const { status, body } = await B(url);
    expect(status).toBe(400);
    expect(body).toEqual({ error: { code: 'invalid_params', message } });
  });

  it('answers 400 invalid_region for a region outside us, kr, jp', async () => {
    for (const url of ['/api/v1/articles?region=cn', '/api/v1/economic-calendar?region=eu', '/api/v1/articles/x?region=zh']) {
      const { status, body } = await B(url);
      expect(status).toBe(400);
      expect(body).toEqual({ error: { code: 'invalid_region', message: 'region must be us, kr or jp' } });
    }
  });

  it('refuses a key without the dataset scope with 403 insufficient_scope in the Profile B envelope', async () => {
    const refused = await B('/api/v1/articles', { 'x-api-key': smartMoneyOnly });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: { code: 'insufficient_scope', message: expect.stringContaining('articles:read') } });
    expect((await B('/api/v1/economic-calendar', { 'x-api-key': smartMoneyOnly })).status).toBe(403);
  });

  it('answers a repeated region with invalid_params naming it, not invalid_region', async () => {
    const { status, body } = await B('/api/v1/articles?region=us&region=kr');
    expect(status).toBe(400);
    expect(body).toEqual({ error: { code: 'invalid_params', message: 'region is given more than once' } });
  });

  it('accepts Bearer or X-API-Key; missing is 401 unauthorized, wrong is 401 invalid_key', async () => {
    expect((await B('/api/v1/articles', { 'x-api-key': key })).status).toBe(200);
    expect((await B('/api/v1/articles', { 'x-api-key': memberKey })).status).toBe(200);
    const missing = await B('/api/v1/articles', {});
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('unauthorized');
    expect(Object.keys(missing.body.error).sort()).toEqual(['code', 'message']);
    const wrong = await B('/api/v1/articles', { 'x-api-key': 'pds_nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_key');
  });

  it('sends the Profile B quota headers on a success and on an error', async () => {
    const ok = await B('/api/v1/articles', bearer(memberKey));
    const error = await B('/api/v1/articles?limit=0', bearer(memberKey));
    for (const { headers } of [ok, error]) {
      expect(headers.get('x-request-id')).toMatch(/^req_/);
      expect(headers.get('x-ratelimit-limit')).toBe('60');
      expect(headers.get('x-quota-tier')).toBe('free');
      expect(headers.get('x-quota-included')).toBe('10000');
      expect(headers.get('x-quota-limit')).toBeNull();
    }
    expect(Number(error.headers.get('x-quota-used'))).toBe(Number(ok.headers.get('x-quota-used')) + 1);
    expect(Number(error.headers.get('x-quota-remaining'))).toBe(10_000 - Number(error.headers.get('x-quota-used')));
    const premium = await B('/api/v1/articles');
    expect(premium.headers.get('x-quota-tier')).toBe('premium');
  });

  it('answers 404 not_found in the Profile B envelope for an unknown path, and 304 to a matching ETag', async () => {
    const unknown = await B('/api/v1/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: 'not_found', message: 'No operation GET /api/v1/nothing' } });
    const first = await B('/api/v1/economic-calendar?region=jp');
    const again = await B('/api/v1/economic-calendar?region=jp', { ...bearer(key), 'if-none-match': first.headers.get('etag') as string });
    expect(again.status).toBe(304);
    // The window moves with the UTC day, so tomorrow the same URL is another representation.
    clock.advance(86_400_000);
    const tomorrow = await B('/api/v1/economic-calendar?region=jp', {
      ...bearer(key),
      'if-none-match': first.headers.get('etag') as string,
    });
    expect(tomorrow.status).toBe(200);
    clock.advance(-86_400_000);
  });
});
