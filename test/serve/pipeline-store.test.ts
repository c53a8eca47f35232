import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ALL_SCOPES, bearer, get, newKey, type RunningServer, startServer, TestClock } from './helpers/harness.js';

// Bundles made by the real pipeline: `pdsnap sample` sources, `pdsnap build` into a temp store.
const cli = path.resolve(fileURLToPath(import.meta.url), '../../../dist/src/cli/main.js');
const NOW = '2026-11-22T12:00:00.000Z';
const clock = new TestClock(new Date(NOW));
let server: RunningServer;
let key: string;

beforeAll(async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-serve-pipeline-'));
  await execa('node', [cli, 'sample', '--out', path.join(root, 'sources'), '--now', NOW]);
  await execa('node', [cli, 'build', '--sources', path.join(root, 'sources'), '--store', path.join(root, 'snapshots'), '--now', NOW, '--quiet']);
  key = await newKey(root, ALL_SCOPES, 'premium');
  server = await startServer(root, clock);
});
afterAll(() => server.close());
beforeEach(() => clock.advance(60_000));

const call = (url: string) => get(server.base, url, bearer(key));

describe('serving pipeline-built bundles', () => {
  it('answers every Profile A operation from the built snapshots', async () => {
    const articles = await call('/v1/articles?limit=100');
    expect(articles.status).toBe(200);
    expect(articles.body.data.length).toBeGreaterThan(0);
    expect(articles.body.data[0].content).toBeUndefined();
    const article = await call(`/v1/articles/${articles.body.data[0].slug}`);
    expect(article.body.data.content.length).toBeGreaterThan(0);
    const calendar = await call('/v1/economic-calendar?from=2026-11-01&to=2027-01-31&limit=100');
    expect(calendar.status).toBe(200);
    expect(calendar.body.data.length).toBeGreaterThan(0);
    expect(calendar.body.snapshot.coverageThrough).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const investors = await call('/v1/smart-money/investors?limit=100');
    expect(investors.body.data.length).toBeGreaterThan(0);
    const investor = await call(`/v1/smart-money/investors/${investors.body.data[0].slug}`);
    expect(investor.status).toBe(200);
    expect(Array.isArray(investor.body.data.positions)).toBe(true);
    const consensus = await call('/v1/smart-money/consensus');
    expect(consensus.body.data.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(JSON.stringify(consensus.body))).toBeLessThan(512 * 1024);
  });

  it('walks every trade with cursors without duplicates or gaps', async () => {
    const rows: string[] = [];
    let url: string | null = '/v1/smart-money/trades?limit=100';
    while (url) {
      const { status, body } = await call(url);
      expect(status).toBe(200);
      rows.push(...body.data.map((row: unknown) => JSON.stringify(row)));
      url = body.page.nextCursor ? `/v1/smart-money/trades?limit=100&cursor=${body.page.nextCursor}` : null;
    }
    // Each trade row is distinct (one investor, issuer, class and kind per row), so a set counts them.
    expect(new Set(rows).size).toBe(rows.length);
    expect(rows.length).toBeGreaterThan(100);
  });

  it('answers every Profile B operation from the built snapshots', async () => {
    const list = await call('/api/v1/articles?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.pagination.total).toBe(list.body.data.length);
    const first = list.body.data[0];
    const detail = await call(`/api/v1/articles/${first.slug}?region=${first.region}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data.rights).toBeUndefined();
    const calendar = await call('/api/v1/economic-calendar?futureDays=365&limit=100');
    expect(calendar.status).toBe(200);
    expect(calendar.body.data.every((e: { importance: number }) => [1, 2, 3].includes(e.importance))).toBe(true);
  });
});
