import { readFile, rm } from 'node:fs/promises';
import { digestFileInChunksSync } from '../../src/lib/chunk-digest.js';
import { openSqlite } from '../../src/lib/sqlite.js';
import { compileCanonical } from '../../src/publish/compiled-canonical.js';
import { Investor, type InvestorDetail, type TradeRow } from '../../src/model/smart-money.js';
import type { BundlePartFiles } from '../../src/serve/indexes/part-lines.js';

const investorSummaryJson = compileCanonical(Investor);

/**
 * A serving index of layout 3, the last one that held every record itself (what `build` wrote
 * before records were stored once, in the parts), written from a bundle's parts: the same tables,
 * rows and indexes, so that tests can show that bundles built then are still served and validated.
 * Returns the manifest's serving index entry for it.
 */
export async function writeLayout3Index(
  file: string,
  parts: BundlePartFiles,
): Promise<{ path: 'serving-index.sqlite'; bytes: number; sha256: string; schema: 3; chunks: { bytes: number; sha256: string[] } }> {
  const lines = async (resource: string) => {
    const all: string[] = [];
    for (const part of parts.files.filter((f) => f.path.startsWith(`${resource}/`))) {
      all.push(...(await readFile(parts.locate(part), 'utf8')).split('\n').filter(Boolean));
    }
    return all;
  };
  await rm(file, { force: true });
  const db = openSqlite(file);
  try {
    db.exec(`PRAGMA page_size = 16384; PRAGMA user_version = 3;
      CREATE TABLE investor_list (ord INTEGER PRIMARY KEY, slug TEXT NOT NULL, category TEXT NOT NULL, record TEXT NOT NULL);
      CREATE TABLE investor_detail (slug TEXT PRIMARY KEY, record TEXT NOT NULL);
      CREATE TABLE consensus (rank INTEGER PRIMARY KEY, record TEXT NOT NULL);
      CREATE TABLE trades (ord INTEGER PRIMARY KEY, record TEXT NOT NULL);
      CREATE TABLE trade_runs (investor_slug TEXT NOT NULL, action TEXT NOT NULL, first_ord INTEGER NOT NULL, last_ord INTEGER NOT NULL,
        PRIMARY KEY (investor_slug, action)) WITHOUT ROWID;
      BEGIN;`);
    const investors = (await lines('investors')).map((line) => ({ line, record: JSON.parse(line) as InvestorDetail }));
    const listed = [...investors].sort(
      (a, b) =>
        b.record.reportedValueTotal - a.record.reportedValueTotal ||
        (a.record.slug < b.record.slug ? -1 : a.record.slug > b.record.slug ? 1 : 0),
    );
    const list = db.prepare('INSERT INTO investor_list (ord, slug, category, record) VALUES (?, ?, ?, ?)');
    listed.forEach(({ record }, index) => {
      const { positions: _positions, ...summary } = record;
      list.run(index + 1, record.slug, record.category, investorSummaryJson(summary));
    });
    const detail = db.prepare('INSERT INTO investor_detail (slug, record) VALUES (?, ?)');
    for (const { line, record } of investors) detail.run(record.slug, line);
    const consensus = db.prepare('INSERT INTO consensus (rank, record) VALUES (?, ?)');
    for (const line of await lines('consensus')) consensus.run((JSON.parse(line) as { rank: number }).rank, line);
    const trade = db.prepare('INSERT INTO trades (ord, record) VALUES (?, ?)');
    const run = db.prepare('INSERT INTO trade_runs (investor_slug, action, first_ord, last_ord) VALUES (?, ?, ?, ?)');
    let open: { slug: string; action: string; first: number; last: number } | null = null;
    for (const [index, line] of (await lines('trades')).entries()) {
      const ord = index + 1;
      const { investorSlug, action } = JSON.parse(line) as TradeRow;
      trade.run(ord, line);
      if (open && open.slug === investorSlug && open.action === action) open.last = ord;
      else {
        if (open) run.run(open.slug, open.action, open.first, open.last);
        open = { slug: investorSlug, action, first: ord, last: ord };
      }
    }
    if (open) run.run(open.slug, open.action, open.first, open.last);
    db.exec(`CREATE INDEX investor_list_category ON investor_list (category, ord);
      CREATE INDEX trade_runs_action ON trade_runs (action, last_ord, first_ord);
      COMMIT;`);
  } finally {
    db.close();
  }
  const { bytes, sha256, chunks } = digestFileInChunksSync(file);
  return { path: 'serving-index.sqlite', bytes, sha256, schema: 3, chunks };
}
