import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bundleFilePath, bundleParts } from '../helpers/bundle-file.js';
import { blobPath } from '../../src/publish/bundle-files.js';
import { runCli } from '../helpers/cli.js';
import { openSqlite } from '../../src/lib/sqlite.js';
import { checkServingIndex } from '../../src/publish/serving-index.js';
import { SmartMoneyIndex } from '../../src/serve/indexes/smart-money-index.js';
import { StoredJson } from '../../src/serve/stored-json.js';
import { ALL_SCOPES, bearer, get, newKey, type RunningServer, startServer, TestClock } from './helpers/harness.js';
import { writeLayout3Index } from '../helpers/layout3-index.js';

// Bundles made by the real pipeline: `pdsnap sample` sources, `pdsnap build` into a temp store.
const NOW = '2026-11-22T12:00:00.000Z';
const clock = new TestClock(new Date(NOW));
let server: RunningServer;
let key: string;
let store: string;

beforeAll(async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-serve-pipeline-'));
  expect((await runCli(['sample', '--out', path.join(root, 'sources'), '--now', NOW])).exitCode).toBe(0);
  store = path.join(root, 'snapshots');
  const built = await runCli(['build', '--sources', path.join(root, 'sources'), '--store', store, '--now', NOW, '--quiet']);
  expect(built.exitCode, built.stderr).toBe(0);
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

  it('pages every Smart Money list and filter from the serving index exactly as the bundle holds the records', async () => {
    const [id] = await readdir(path.join(store, 'bundles/smart-money'));
    const bundle = path.join(store, 'bundles/smart-money', id!);
    const manifest = JSON.parse(await readFile(path.join(bundle, 'manifest.json'), 'utf8'));
    expect(manifest.servingIndex).toMatchObject({ path: 'serving-index.sqlite', schema: 4 });
    const records = async (resource: string) => {
      const lines: string[] = [];
      for (const file of manifest.files.filter((f: { path: string }) => f.path.startsWith(`${resource}/`))) {
        lines.push(...(await readFile(await bundleFilePath(store, id!, file.path), 'utf8')).split('\n').filter(Boolean));
      }
      return lines.map((line) => JSON.parse(line));
    };
    const walk = async (first: string) => {
      const rows: unknown[] = [];
      for (let url: string | null = first; url; ) {
        clock.advance(250); // stays under the premium tier's 300 requests a minute
        const { status, body } = await call(url);
        expect(status, JSON.stringify(body)).toBe(200);
        rows.push(...body.data);
        url = body.page.nextCursor ? `${first}&cursor=${body.page.nextCursor}` : null;
      }
      return rows;
    };
    const trades = await records('trades');
    const slugs = [...new Set(trades.map((t) => t.investorSlug as string))].slice(0, 3);
    expect(await walk('/v1/smart-money/trades?limit=7')).toEqual(trades);
    for (const action of ['new', 'added', 'trimmed', 'sold']) {
      expect(await walk(`/v1/smart-money/trades?limit=7&action=${action}`)).toEqual(trades.filter((t) => t.action === action));
      for (const slug of slugs) {
        const both = trades.filter((t) => t.action === action && t.investorSlug === slug);
        expect(await walk(`/v1/smart-money/trades?limit=3&action=${action}&investorSlug=${slug}`)).toEqual(both);
      }
    }
    for (const slug of slugs)
      expect(await walk(`/v1/smart-money/trades?limit=5&investorSlug=${slug}`)).toEqual(trades.filter((t) => t.investorSlug === slug));

    // Investors: largest reported value total first, then slug; list items without positions.
    const investors = (await records('investors'))
      .sort((a, b) => b.reportedValueTotal - a.reportedValueTotal || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
      .map(({ positions: _positions, ...summary }) => summary);
    expect(await walk('/v1/smart-money/investors?limit=4')).toEqual(investors);
    for (const category of new Set(investors.map((i) => i.category as string))) {
      expect(await walk(`/v1/smart-money/investors?limit=2&category=${category}`)).toEqual(
        investors.filter((i) => i.category === category),
      );
    }
    const consensus = (await records('consensus')).sort((a, b) => a.rank - b.rank);
    expect(await walk('/v1/smart-money/consensus?limit=3')).toEqual(consensus);
  });

  it('reads serving indexes of the earlier layouts 1 to 3 (records inside the index) page for page like layout 4', async () => {
    const [id] = await readdir(path.join(store, 'bundles/smart-money'));
    const bundle = path.join(store, 'bundles/smart-money', id!);
    const manifest = JSON.parse(await readFile(path.join(bundle, 'manifest.json'), 'utf8'));
    const counts = Object.fromEntries(
      ['investors', 'consensus', 'trades'].map((resource) => [
        resource,
        manifest.files
          .filter((f: { path: string }) => f.path.startsWith(`${resource}/`))
          .reduce((sum: number, f: { records: number }) => sum + f.records, 0),
      ]),
    );
    const current = await bundleFilePath(store, id!, 'serving-index.sqlite');
    expect(manifest.servingIndex.schema).toBe(4);
    const parts = await bundleParts(store, id!);
    const folder = await mkdtemp(path.join(tmpdir(), 'pdsnap-layout-'));
    const third = path.join(folder, 'layout-3.sqlite');
    await writeLayout3Index(third, parts);
    expect(checkServingIndex(third, 3, counts)).toBeNull();
    // The earlier layouts, made from layout 3 by SQL: each trade's action (and, in layout 1, its
    // investor) comes from the run that holds it.
    const earlier = async (layout: 1 | 2) => {
      const file = path.join(folder, `layout-${layout}.sqlite`);
      await copyFile(third, file);
      const db = openSqlite(file);
      db.exec(`
        ALTER TABLE trades RENAME TO trades_3;
        CREATE TABLE trades (ord INTEGER PRIMARY KEY, action TEXT NOT NULL, investor_slug TEXT NOT NULL, record TEXT NOT NULL);
        INSERT INTO trades SELECT t.ord, r.action, r.investor_slug, t.record FROM trades_3 t JOIN trade_runs r ON t.ord BETWEEN r.first_ord AND r.last_ord;
        DROP TABLE trades_3;
        DROP INDEX trade_runs_action;
        CREATE INDEX trades_action ON trades (action, ord);
        PRAGMA user_version = ${layout};`);
      if (layout === 1) {
        db.exec(`
          DROP TABLE trade_runs;
          CREATE INDEX trades_investor ON trades (investor_slug, ord);
          CREATE INDEX trades_investor_action ON trades (investor_slug, action, ord);`);
      } else {
        db.exec(`
          ALTER TABLE trades DROP COLUMN investor_slug;`);
      }
      db.close();
      expect(checkServingIndex(file, layout, counts)).toBeNull();
      return file;
    };
    const [older, previous] = [await earlier(1), await earlier(2)];
    expect(checkServingIndex(older, 4, counts)).toBe('has table layout 1; the manifest lists layout 4');

    const text = (page: { data: readonly unknown[] }) => page.data.map((row) => (row as StoredJson).utf8.toString());
    const walk = (index: SmartMoneyIndex, filter: Parameters<SmartMoneyIndex['trades']>[0]) => {
      const rows: string[] = [];
      for (let position: number | null = 0; position !== null; ) {
        const page = index.trades(filter, position, 4);
        rows.push(...text(page));
        position = page.next;
      }
      return rows;
    };
    const indexes = [
      SmartMoneyIndex.open(older),
      SmartMoneyIndex.open(previous),
      SmartMoneyIndex.open(third),
      SmartMoneyIndex.open(current, parts),
    ];
    const [one, two, three, four] = indexes as [SmartMoneyIndex, SmartMoneyIndex, SmartMoneyIndex, SmartMoneyIndex];
    const same = (filter: Parameters<SmartMoneyIndex['trades']>[0]) => {
      const expected = walk(one, filter);
      expect(walk(two, filter)).toEqual(expected);
      expect(walk(three, filter)).toEqual(expected);
      expect(walk(four, filter)).toEqual(expected);
      return expected;
    };
    try {
      const all = same({});
      const slugs = [...new Set(all.map((row) => JSON.parse(row).investorSlug as string)), 'no-such-investor'];
      expect(slugs.length).toBeGreaterThan(3);
      const actions = ['new', 'added', 'trimmed', 'sold'] as const;
      let compared = 0;
      for (const action of actions) {
        const expected = same({ action });
        expect(expected).toEqual(all.filter((row) => JSON.parse(row).action === action));
        compared += expected.length;
      }
      expect(compared).toBe(all.length);
      compared = 0;
      for (const investorSlug of slugs) {
        same({ investorSlug });
        for (const action of actions) compared += same({ investorSlug, action }).length;
      }
      expect(compared).toBe(all.length);
      // A page that starts inside a run, as a cursor does, starts at that ord.
      const slug = slugs[0]!;
      for (const index of [three, four])
        expect(text(index.trades({ investorSlug: slug }, 3, 2))).toEqual(text(one.trades({ investorSlug: slug }, 3, 2)));
      for (const action of actions) {
        for (const position of [2, 5, 9]) {
          for (const index of [three, four]) {
            expect(text(index.trades({ action }, position, 3))).toEqual(text(one.trades({ action }, position, 3)));
            expect(index.trades({ action }, position, 3).next).toBe(one.trades({ action }, position, 3).next);
          }
        }
      }
      // Investors, their details and consensus, every page and filter: the same bytes from both kinds of layout.
      const pages = (read: (position: number) => { data: readonly unknown[]; next: number | null }) => {
        const rows: string[] = [];
        for (let position: number | null = 0; position !== null; ) {
          const page = read(position);
          rows.push(...text(page));
          position = page.next;
        }
        return rows;
      };
      const investors = pages((position) => three.investors({}, position, 3));
      expect(investors.length).toBe(counts.investors);
      expect(pages((position) => four.investors({}, position, 3))).toEqual(investors);
      for (const category of new Set(investors.map((row) => JSON.parse(row).category as string))) {
        expect(pages((position) => four.investors({ category }, position, 2))).toEqual(
          pages((position) => three.investors({ category }, position, 2)),
        );
      }
      for (const row of investors) {
        const slugOf = JSON.parse(row).slug as string;
        expect(four.investor(slugOf)?.utf8.toString()).toBe(three.investor(slugOf)?.utf8.toString());
      }
      expect(four.investor('no-such-investor')).toBeUndefined();
      expect(pages((position) => four.consensus(position, 3))).toEqual(pages((position) => three.consensus(position, 3)));
    } finally {
      for (const index of indexes) index.close();
    }

    // Runs that no longer cover every trade exactly once are named by validate and gate.
    const gap = path.join(folder, 'gap.sqlite');
    await copyFile(current, gap);
    const damaged = openSqlite(gap);
    damaged.exec('UPDATE trade_runs SET last_ord = last_ord - 1 WHERE first_ord = 1');
    damaged.close();
    expect(checkServingIndex(gap, 4, counts)).toMatch(/^trade run \([^)]+\) covers ords \d+\.\.\d+ where ord \d+ comes next$/);
  });

  it('holds no record in the serving index: only keys, filter columns, order and where each record is in the parts', async () => {
    const [id] = await readdir(path.join(store, 'bundles/smart-money'));
    const file = await bundleFilePath(store, id!, 'serving-index.sqlite');
    // Not a field name of any record anywhere in the file, pages left free included.
    const bytes = await readFile(file);
    for (const field of ['"issuerName"', '"positions"', '"topHolders"', '"reportedValueTotal"', 'issuerName']) {
      expect(bytes.includes(field), field).toBe(false);
    }
    const db = openSqlite(file, { readonly: true });
    try {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>;
      expect(tables.map((t) => t.name).sort()).toEqual(['investors', 'line_blocks', 'trade_runs']);
      for (const { name } of tables) {
        for (const row of db.prepare(`SELECT * FROM ${name}`).all() as Array<Record<string, unknown>>) {
          for (const value of Object.values(row)) {
            // Slugs, categories, actions and resource names; everything else a number.
            if (typeof value === 'string') expect(value).toMatch(/^[a-z0-9-]{1,160}$/);
            else expect(typeof value === 'number' || typeof value === 'bigint').toBe(true);
          }
        }
      }
    } finally {
      db.close();
    }
  });

  it('serves and validates a bundle built with serving index layout 3 (records inside the index) as before', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-layout-3-'));
    await cp(store, path.join(root, 'snapshots'), { recursive: true });
    const [id] = await readdir(path.join(root, 'snapshots/bundles/smart-money'));
    const copy = path.join(root, 'snapshots');
    const manifestFile = path.join(copy, 'bundles/smart-money', id!, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    // The index takes no part in the snapshot id: the same bundle as built before layout 4, its
    // index in the blob its digest names.
    const written = path.join(root, 'layout-3.sqlite');
    manifest.servingIndex = await writeLayout3Index(written, await bundleParts(copy, id!));
    await mkdir(path.dirname(blobPath(copy, manifest.servingIndex.sha256)), { recursive: true });
    await rename(written, blobPath(copy, manifest.servingIndex.sha256));
    await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    const validate = await runCli([
      'validate',
      '--datasets',
      'smart-money',
      '--store',
      path.join(root, 'snapshots'),
      '--now',
      NOW,
      '--json',
    ]);
    expect(validate.exitCode, String(validate.stdout)).toBe(0);

    const old = await startServer(root, clock);
    try {
      const oldKey = await newKey(root, ALL_SCOPES, 'premium');
      const both = async (url: string) => {
        clock.advance(250);
        const [a, b] = [await get(old.base, url, bearer(oldKey)), await call(url)];
        expect(a.status).toBe(200);
        expect(a.body.snapshot.id).toBe(id);
        expect(a.body.data).toEqual(b.body.data);
        return a.body;
      };
      const list = await both('/v1/smart-money/investors?limit=5');
      await both(`/v1/smart-money/investors/${list.data[0].slug}`);
      await both('/v1/smart-money/consensus?limit=4');
      await both('/v1/smart-money/trades?limit=50&action=sold');
      await both(`/v1/smart-money/trades?limit=50&investorSlug=${list.data[1].slug}`);
    } finally {
      await old.close();
    }
  });

  it('reads a Smart Money page once per snapshot and answers it again from memory, the same as read anew', async () => {
    const [id] = await readdir(path.join(store, 'bundles/smart-money'));
    const file = await bundleFilePath(store, id!, 'serving-index.sqlite');
    const parts = await bundleParts(store, id!);
    const [served, fresh] = [SmartMoneyIndex.open(file, parts), SmartMoneyIndex.open(file, parts)];
    try {
      const text = (page: { data: readonly unknown[] }) => page.data.map((row) => (row as StoredJson).utf8.toString());
      const slug = JSON.parse(text(served.investors({}, 0, 1))[0]!).slug as string;
      const asks: Array<(index: SmartMoneyIndex) => { data: readonly unknown[]; next: number | null } | StoredJson | undefined> = [
        (index) => index.consensus(0, 10),
        (index) => index.consensus(3, 2),
        (index) => index.investors({}, 0, 5),
        (index) => index.trades({}, 0, 7),
        (index) => index.trades({ action: 'new' }, 0, 7),
        (index) => index.trades({ investorSlug: slug }, 1, 3),
        (index) => index.investor(slug),
        (index) => index.investor('no-such-investor'),
      ];
      for (const ask of asks) {
        const first = ask(served);
        // The same object: read once. Every ask differs from the others, so none was answered with another's.
        expect(ask(served)).toBe(first);
        const anew = ask(fresh);
        if (first === undefined || first instanceof StoredJson) {
          expect(first?.utf8.toString()).toBe((anew as StoredJson | undefined)?.utf8.toString());
        } else {
          const again = anew as { data: readonly unknown[]; next: number | null };
          expect([text(first), first.next]).toEqual([text(again), again.next]);
        }
      }
      expect(new Set(asks.map((ask) => ask(served))).size).toBe(asks.length);
    } finally {
      served.close();
      fresh.close();
    }
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
