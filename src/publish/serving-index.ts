import { closeSync, fsyncSync, openSync, rmSync } from 'node:fs';
import path from 'node:path';
import { SERVING_INDEX_PATH, type ServingIndexEntry } from '../model/manifest.js';
import { Investor, type InvestorDetail } from '../model/smart-money.js';
import { digestFileInChunksSync } from '../lib/chunk-digest.js';
import { openSqlite, type SqliteDatabase, type SqliteStatement } from '../lib/sqlite.js';
import { compileCanonical } from './compiled-canonical.js';
import { failPoint } from './fault-point.js';

const investorSummaryJson = compileCanonical(Investor);

/**
 * The serving index of a Smart Money bundle: a read-only SQLite file that `serve` opens instead of
 * loading millions of records, so a server's memory does not grow with the data. One table per
 * list, each with a dense `ord` (or `rank`) in the order the API serves, and the indexes that each
 * filter needs, so every page is a keyset query: `WHERE <filter> AND ord >= ? ORDER BY ord LIMIT ?`.
 * Records are stored as the same canonical JSON as the NDJSON parts.
 */
export const SERVING_INDEX_SCHEMA = 1;

const TABLES = `
  CREATE TABLE investor_list (ord INTEGER PRIMARY KEY, slug TEXT NOT NULL, category TEXT NOT NULL, record TEXT NOT NULL);
  CREATE TABLE investor_detail (slug TEXT PRIMARY KEY, record TEXT NOT NULL);
  CREATE TABLE consensus (rank INTEGER PRIMARY KEY, record TEXT NOT NULL);
  CREATE TABLE trades (ord INTEGER PRIMARY KEY, action TEXT NOT NULL, investor_slug TEXT NOT NULL, record TEXT NOT NULL);
  CREATE TEMP TABLE investor_order (slug TEXT NOT NULL, total REAL NOT NULL, category TEXT NOT NULL, record TEXT NOT NULL);
`;

// The trades indexes exist before the first row: trades arrive investor by investor in slug order,
// each with a growing ord, so every insert appends near the end of each index. That costs more in
// all than sorting once afterwards, but on the writer thread it runs beside derivation, where
// there is time to spare, instead of after the last record (docs/performance.md).
const TRADES_INDEXES = `
  CREATE INDEX trades_action ON trades (action, ord);
  CREATE INDEX trades_investor ON trades (investor_slug, ord);
  CREATE INDEX trades_investor_action ON trades (investor_slug, action, ord);
`;

// Built after the rows are in, since investors are ordered only then.
const INVESTOR_INDEXES = `
  CREATE INDEX investor_list_category ON investor_list (category, ord);
`;

/** The list order of investors: largest reported value total first, then slug (slugs are ASCII). */
const ORDER_INVESTORS = `
  INSERT INTO investor_list (ord, slug, category, record)
  SELECT row_number() OVER (ORDER BY total DESC, slug), slug, category, record FROM temp.investor_order
`;

/** What each table must hold for a bundle whose manifest lists these record counts. */
export const SERVING_INDEX_COUNTS = {
  investors: ['investor_list', 'investor_detail'],
  consensus: ['consensus'],
  trades: ['trades'],
} as const;

/**
 * Writes the serving index while the bundle is staged: each record arrives with the canonical line
 * the parts writer made of it. Journal and sync are off while building (a staged file that a crash
 * interrupts is thrown away with its staging folder); the finished file is fsynced once.
 */
export class ServingIndexWriter {
  private readonly file: string;
  private readonly db: SqliteDatabase;
  private readonly insertInvestor: SqliteStatement;
  private readonly insertDetail: SqliteStatement;
  private readonly insertConsensus: SqliteStatement;
  private readonly insertTrade: SqliteStatement;
  private trades = 0;
  private open = true;

  constructor(bundleDirectory: string) {
    this.file = path.join(bundleDirectory, SERVING_INDEX_PATH);
    try {
      failPoint('index-open');
      this.db = openSqlite(this.file);
    } catch (error) {
      throw Object.assign(new Error(`${this.file}: ${(error as Error).message}`), { code: (error as NodeJS.ErrnoException).code });
    }
    this.db.exec(`PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -16384;
      PRAGMA user_version = ${SERVING_INDEX_SCHEMA};`);
    this.db.exec(TABLES);
    this.db.exec('BEGIN');
    this.db.exec(TRADES_INDEXES);
    this.insertInvestor = this.db.prepare('INSERT INTO temp.investor_order (slug, total, category, record) VALUES (?, ?, ?, ?)');
    this.insertDetail = this.db.prepare('INSERT INTO investor_detail (slug, record) VALUES (?, ?)');
    this.insertConsensus = this.db.prepare('INSERT INTO consensus (rank, record) VALUES (?, ?)');
    this.insertTrade = this.db.prepare('INSERT INTO trades (ord, action, investor_slug, record) VALUES (?, ?, ?, ?)');
  }

  /** One record of `resource`, already schema-checked, with its canonical JSON. */
  add(resource: string, record: unknown, json: string): void {
    const r = record as Record<string, unknown>;
    switch (resource) {
      case 'investors': {
        const { positions: _positions, ...summary } = record as InvestorDetail;
        this.insertInvestor.run(r.slug, r.reportedValueTotal, r.category, investorSummaryJson(summary));
        this.insertDetail.run(r.slug, json);
        return;
      }
      case 'consensus':
        this.insertConsensus.run(r.rank, json);
        return;
      case 'trades':
        this.trades += 1;
        this.insertTrade.run(this.trades, r.action, r.investorSlug, json);
        return;
      default:
        throw new Error(`the serving index has no table for ${resource}`);
    }
  }

  /** Orders and indexes the tables, closes the file, forces it to disk and returns its manifest entry. */
  finish(): ServingIndexEntry {
    this.db.exec(ORDER_INVESTORS);
    this.db.exec('DROP TABLE temp.investor_order');
    this.db.exec(INVESTOR_INDEXES);
    this.db.exec('COMMIT');
    this.close();
    const fd = openSync(this.file, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const { bytes, sha256, chunks } = digestFileInChunksSync(this.file);
    return { path: SERVING_INDEX_PATH, bytes, sha256, schema: SERVING_INDEX_SCHEMA, chunks };
  }

  /** Closes and removes the file after a failure. */
  abandon(): void {
    this.close();
    rmSync(this.file, { force: true });
  }

  private close(): void {
    if (!this.open) return;
    this.open = false;
    this.db.close();
  }
}

/**
 * Checks a serving index file against its manifest: its table layout, and, given the manifest's
 * record counts, that every table holds exactly that many rows (a scan of every table, for
 * validate and gate). Returns a reason, or null when it agrees.
 */
export function checkServingIndex(file: string, recordsPerResource: Readonly<Record<string, number>> | null): string | null {
  let db: SqliteDatabase;
  try {
    db = openSqlite(file, { readonly: true });
  } catch (error) {
    return `cannot be opened as SQLite: ${(error as Error).message}`;
  }
  try {
    const version = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
    if (version !== SERVING_INDEX_SCHEMA) return `has table layout ${version}; this pdsnap reads ${SERVING_INDEX_SCHEMA}`;
    if (recordsPerResource === null) return null;
    for (const [resource, tables] of Object.entries(SERVING_INDEX_COUNTS)) {
      const expected = recordsPerResource[resource] ?? 0;
      for (const table of tables) {
        const { n } = db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number };
        if (Number(n) !== expected) return `table ${table} holds ${n} rows; the manifest lists ${expected} ${resource} records`;
      }
    }
    return null;
  } catch (error) {
    return `cannot be read as a serving index: ${(error as Error).message}`;
  } finally {
    db.close();
  }
}
