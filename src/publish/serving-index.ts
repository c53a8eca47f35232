import { rmSync } from 'node:fs';
import path from 'node:path';
import { SERVING_INDEX_PATH, type ServingIndexEntry } from '../model/manifest.js';
import { Investor, type InvestorDetail } from '../model/smart-money.js';
import { syncAndDigestFileInChunks } from '../lib/chunk-digest.js';
import { openSqlite, type SqliteDatabase, type SqliteStatement } from '../lib/sqlite.js';
import { compileCanonical } from './compiled-canonical.js';
import { withPath } from '../lib/error-path.js';
import { failPoint } from '../lib/fault-point.js';

const investorSummaryJson = compileCanonical(Investor);

/**
 * The serving index of a Smart Money bundle: a read-only SQLite file that `serve` opens instead of
 * loading millions of records, so a server's memory does not grow with the data. One table per
 * list, each with a dense `ord` (or `rank`) in the order the API serves, so every page is keyset
 * reads from a position on: `WHERE <filter> AND ord >= ? ORDER BY ord LIMIT ?`, or for trades the
 * ord ranges of their runs (below). Records are stored as the same canonical JSON as the NDJSON
 * parts.
 *
 * `PRAGMA user_version` is the table layout, and the manifest names it:
 * - 1: trades carry their investor slug, with an index for each trades filter;
 * - 2: an investor's trades are one run of ords, and each (investor, action) one run inside it
 *   (the bundle's order is per investor, then per action), so `trade_runs` holds each run's first
 *   and last ord and an investor filter reads a range of the table itself; trades keep their
 *   action with an `(action, ord)` index for the action filter;
 * - 3 (written now): as 2, but the action filter reads that action's runs in order
 *   (`trade_runs_action`), so `trades` is its key and its record, with no index at all. Each trades
 *   index cost a share of the inserts on the thread that limits a full-size build
 *   (docs/performance.md).
 * `serve`, `validate` and `gate` read all three.
 */
const SERVING_INDEX_SCHEMA = 3;
const READABLE_SERVING_INDEX_SCHEMAS: readonly number[] = [1, 2, 3];

const TABLES = `
  CREATE TABLE investor_list (ord INTEGER PRIMARY KEY, slug TEXT NOT NULL, category TEXT NOT NULL, record TEXT NOT NULL);
  CREATE TABLE investor_detail (slug TEXT PRIMARY KEY, record TEXT NOT NULL);
  CREATE TABLE consensus (rank INTEGER PRIMARY KEY, record TEXT NOT NULL);
  CREATE TABLE trades (ord INTEGER PRIMARY KEY, record TEXT NOT NULL);
  CREATE TABLE trade_runs (investor_slug TEXT NOT NULL, action TEXT NOT NULL, first_ord INTEGER NOT NULL, last_ord INTEGER NOT NULL,
    PRIMARY KEY (investor_slug, action)) WITHOUT ROWID;
  CREATE TEMP TABLE investor_order (slug TEXT NOT NULL, total REAL NOT NULL, category TEXT NOT NULL, record TEXT NOT NULL);
`;

// Built after the rows are in, since investors are ordered only then. Runs are disjoint and come
// in ord order, so an action's runs in last_ord order are its trades in ord order.
const FINAL_INDEXES = `
  CREATE INDEX investor_list_category ON investor_list (category, ord);
  CREATE INDEX trade_runs_action ON trade_runs (action, last_ord, first_ord);
`;

/** The list order of investors: largest reported value total first, then slug (slugs are ASCII). */
const ORDER_INVESTORS = `
  INSERT INTO investor_list (ord, slug, category, record)
  SELECT row_number() OVER (ORDER BY total DESC, slug), slug, category, record FROM temp.investor_order
`;

/** What each table must hold for a bundle whose manifest lists these record counts. */
const SERVING_INDEX_COUNTS = {
  investors: ['investor_list', 'investor_detail'],
  consensus: ['consensus'],
  trades: ['trades'],
} as const;

/**
 * Writes the serving index while the bundle is staged: each record arrives with the canonical line
 * the parts writer made of it. Its journal is kept in memory and sync is off while building (a staged
 * file that a crash interrupts is thrown away with its staging folder; journal_mode OFF is refused
 * by the defensive mode both SQLite drivers open in); the finished file is fsynced once.
 */
export class ServingIndexWriter {
  private readonly file: string;
  private readonly db: SqliteDatabase;
  private readonly insertInvestor: SqliteStatement;
  private readonly insertDetail: SqliteStatement;
  private readonly insertConsensus: SqliteStatement;
  private readonly insertTrade: SqliteStatement;
  private readonly insertTradeRun: SqliteStatement;
  private trades = 0;
  /** The run of trades being written: one investor's trades of one action. */
  private run: { slug: string; action: string; first: number; last: number } | null = null;
  /** Investors whose trades are all written, and the actions of the current investor that are. */
  private readonly investorsDone = new Set<string>();
  private readonly actionsDone = new Set<string>();
  private open = true;

  constructor(bundleDirectory: string) {
    this.file = path.join(bundleDirectory, SERVING_INDEX_PATH);
    try {
      failPoint('index-open');
      this.db = openSqlite(this.file);
    } catch (error) {
      throw withPath(error, this.file);
    }
    // 16 KiB pages, not SQLite's 4 KiB: an investor's detail (tens of KB) spans fewer overflow pages,
    // and a page of trades fewer leaves; the inserts took 15-20 % less time in a 1x bundle.
    this.db.exec(`PRAGMA page_size = 16384; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;
      PRAGMA cache_size = -16384; PRAGMA user_version = ${SERVING_INDEX_SCHEMA};`);
    this.db.exec(TABLES);
    this.db.exec('BEGIN');
    this.insertInvestor = this.db.prepare('INSERT INTO temp.investor_order (slug, total, category, record) VALUES (?, ?, ?, ?)');
    this.insertDetail = this.db.prepare('INSERT INTO investor_detail (slug, record) VALUES (?, ?)');
    this.insertConsensus = this.db.prepare('INSERT INTO consensus (rank, record) VALUES (?, ?)');
    this.insertTrade = this.db.prepare('INSERT INTO trades (ord, record) VALUES (?, ?)');
    this.insertTradeRun = this.db.prepare('INSERT INTO trade_runs (investor_slug, action, first_ord, last_ord) VALUES (?, ?, ?, ?)');
  }

  /** One record of `resource`, already schema-checked, with its canonical JSON. */
  add(resource: string, record: unknown, json: string): void {
    try {
      this.write(resource, record, json);
    } catch (error) {
      throw withPath(error, this.file);
    }
  }

  private write(resource: string, record: unknown, json: string): void {
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
        this.extendRun(r.investorSlug as string, r.action as string);
        this.insertTrade.run(this.trades, json);
        return;
      default:
        throw new Error(`the serving index has no table for ${resource}`);
    }
  }

  /**
   * Puts the trade at ord `this.trades` into its run. A trade of an investor or action whose run
   * has ended is a program error: the ranges would then hide rows from the investor's pages.
   */
  private extendRun(slug: string, action: string): void {
    const run = this.run;
    if (run !== null && run.slug === slug && run.action === action) {
      run.last = this.trades;
      return;
    }
    if (run !== null) {
      this.insertTradeRun.run(run.slug, run.action, run.first, run.last);
      if (run.slug !== slug) {
        this.investorsDone.add(run.slug);
        this.actionsDone.clear();
      } else this.actionsDone.add(run.action);
    }
    if (this.investorsDone.has(slug) || this.actionsDone.has(action)) {
      throw new Error(
        `trade ${this.trades} (${slug}, ${action}) comes apart from that investor's earlier trades: ` +
          'trades must come grouped by investor, then by action',
      );
    }
    this.run = { slug, action, first: this.trades, last: this.trades };
  }

  /** Orders and indexes the tables, closes the file, forces it to disk and returns its manifest entry. */
  finish(): ServingIndexEntry {
    try {
      failPoint('index-finish');
      const run = this.run;
      if (run !== null) this.insertTradeRun.run(run.slug, run.action, run.first, run.last);
      this.db.exec(ORDER_INVESTORS);
      this.db.exec('DROP TABLE temp.investor_order');
      this.db.exec(FINAL_INDEXES);
      this.db.exec('COMMIT');
    } catch (error) {
      throw withPath(error, this.file);
    }
    this.close();
    const { bytes, sha256, chunks } = syncAndDigestFileInChunks(this.file);
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
 * Checks a serving index file against its manifest: its table layout is the one the manifest names
 * and one this pdsnap reads, and, given the manifest's record counts, every table holds exactly
 * that many rows (a scan of every table, for validate and gate) and, from layout 2, the trade runs
 * cover ords 1..n once each. Returns a reason, or null when it agrees.
 */
export function checkServingIndex(
  file: string,
  schema: number,
  recordsPerResource: Readonly<Record<string, number>> | null,
): string | null {
  let db: SqliteDatabase;
  try {
    db = openSqlite(file, { readonly: true });
  } catch (error) {
    return `cannot be opened as SQLite: ${(error as Error).message}`;
  }
  try {
    const version = servingIndexLayout(db);
    if (version !== schema) return `has table layout ${version}; the manifest lists layout ${schema}`;
    if (!READABLE_SERVING_INDEX_SCHEMAS.includes(version)) {
      return `has table layout ${version}; this pdsnap reads layouts ${READABLE_SERVING_INDEX_SCHEMAS.slice(0, -1).join(', ')} and ${READABLE_SERVING_INDEX_SCHEMAS.at(-1)}`;
    }
    if (recordsPerResource === null) return null;
    for (const [resource, tables] of Object.entries(SERVING_INDEX_COUNTS)) {
      const expected = recordsPerResource[resource] ?? 0;
      for (const table of tables) {
        const { n } = db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number };
        if (Number(n) !== expected) return `table ${table} holds ${n} rows; the manifest lists ${expected} ${resource} records`;
      }
    }
    return version === 1 ? null : tradeRunsGap(db, recordsPerResource.trades ?? 0);
  } catch (error) {
    return `cannot be read as a serving index: ${(error as Error).message}`;
  } finally {
    db.close();
  }
}

/** The table layout of an open serving index (`PRAGMA user_version`). */
export function servingIndexLayout(db: SqliteDatabase): number {
  return Number((db.prepare('PRAGMA user_version').get() as { user_version: number | bigint }).user_version);
}

/** Where the trade runs (layouts 2 and 3) fail to tile ords 1..trades exactly, or null. */
function tradeRunsGap(db: SqliteDatabase, trades: number): string | null {
  let next = 1;
  const runs = db.prepare('SELECT investor_slug, action, first_ord, last_ord FROM trade_runs ORDER BY first_ord');
  for (const run of runs.iterate() as Iterable<{ investor_slug: string; action: string; first_ord: number; last_ord: number }>) {
    const first = Number(run.first_ord);
    const last = Number(run.last_ord);
    if (first !== next || last < first) {
      return `trade run (${run.investor_slug}, ${run.action}) covers ords ${first}..${last} where ord ${next} comes next`;
    }
    next = last + 1;
  }
  return next - 1 === trades ? null : `trade runs cover ords 1..${next - 1}; the manifest lists ${trades} trades records`;
}
