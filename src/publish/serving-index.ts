import { rmSync } from 'node:fs';
import path from 'node:path';
import { SERVING_INDEX_PATH, type ServingIndexEntry } from '../model/manifest.js';
import { Investor, type InvestorDetail, type TradeRow } from '../model/smart-money.js';
import { syncAndDigestFileInChunks } from '../lib/chunk-digest.js';
import { openSqlite, type SqliteDatabase, type SqliteStatement } from '../lib/sqlite.js';
import { compileCanonical } from './compiled-canonical.js';
import { withPath } from '../lib/error-path.js';
import { failPoint } from '../lib/fault-point.js';
import { countLineBreaks, NEWLINE } from '../lib/json-bytes.js';

const investorSummaryJson = compileCanonical(Investor);

/**
 * The serving index of a Smart Money bundle: a read-only SQLite file that `serve` opens instead of
 * loading millions of records, so a server's memory does not grow with the data. Every list has a
 * dense `ord` (or `rank`) in the order the API serves, so every page is keyset reads from a
 * position on: `WHERE <filter> AND ord >= ? ORDER BY ord LIMIT ?`, or for trades the ord ranges of
 * their runs (below).
 *
 * `PRAGMA user_version` is the table layout, and the manifest names it:
 * - 1: trades carry their investor slug, with an index for each trades filter;
 * - 2: an investor's trades are one run of ords, and each (investor, action) one run inside it
 *   (the bundle's order is per investor, then per action), so `trade_runs` holds each run's first
 *   and last ord and an investor filter reads a range of the table itself; trades keep their
 *   action with an `(action, ord)` index for the action filter;
 * - 3: as 2, but the action filter reads that action's runs in order (`trade_runs_action`), so
 *   `trades` is its key and its record, with no index at all.
 * - 4 (written now): the records are stored once, in the NDJSON parts. The index says where each
 *   one's bytes are: part, byte offset and length of an investor's line (and the span of its
 *   positions, which a list item leaves out), and for consensus and trades, whose ords follow the
 *   parts' order, the place of each block of consecutive lines (`line_blocks`). Layouts 1 to 3
 *   held every record a second time: about as many bytes as the parts, written, hashed and kept
 *   in every snapshot (docs/serving.md).
 * `serve`, `validate` and `gate` read all four.
 */
const SERVING_INDEX_SCHEMA = 4;
const READABLE_SERVING_INDEX_SCHEMAS: readonly number[] = [1, 2, 3, 4];

/** The layout from which records live in the parts only. */
export const RECORDS_IN_PARTS_LAYOUT = 4;

/**
 * Lines per block of `line_blocks`: a page of trades (at most 100, plus the next one) reads at
 * most three blocks, about 30 KB beyond the page, in one read of its part; the table holds one row
 * per 64 trades (20,000 rows for a full quarter) instead of one per trade.
 */
export const LINES_PER_BLOCK: Readonly<Record<BlockResource, number>> = { consensus: 16, trades: 64 };
export type BlockResource = 'consensus' | 'trades';

const TABLES = `
  CREATE TABLE investors (ord INTEGER PRIMARY KEY, slug TEXT NOT NULL UNIQUE, category TEXT NOT NULL,
    part INTEGER NOT NULL, start INTEGER NOT NULL, bytes INTEGER NOT NULL, positions_start INTEGER NOT NULL, positions_end INTEGER NOT NULL);
  CREATE TABLE line_blocks (resource TEXT NOT NULL, first_ord INTEGER NOT NULL, last_ord INTEGER NOT NULL,
    part INTEGER NOT NULL, start INTEGER NOT NULL, bytes INTEGER NOT NULL, PRIMARY KEY (resource, first_ord)) WITHOUT ROWID;
  CREATE TABLE trade_runs (investor_slug TEXT NOT NULL, action TEXT NOT NULL, first_ord INTEGER NOT NULL, last_ord INTEGER NOT NULL,
    PRIMARY KEY (investor_slug, action)) WITHOUT ROWID;
  CREATE TEMP TABLE investor_order (slug TEXT NOT NULL, total REAL NOT NULL, category TEXT NOT NULL,
    part INTEGER NOT NULL, start INTEGER NOT NULL, bytes INTEGER NOT NULL, positions_start INTEGER NOT NULL, positions_end INTEGER NOT NULL);
`;

// Built after the rows are in, since investors are ordered only then. Runs are disjoint and come
// in ord order, so an action's runs in last_ord order are its trades in ord order.
const FINAL_INDEXES = `
  CREATE INDEX investors_category ON investors (category, ord);
  CREATE INDEX trade_runs_action ON trade_runs (action, last_ord, first_ord);
`;

/** The list order of investors: largest reported value total first, then slug (slugs are ASCII). */
const ORDER_INVESTORS = `
  INSERT INTO investors (ord, slug, category, part, start, bytes, positions_start, positions_end)
  SELECT row_number() OVER (ORDER BY total DESC, slug), slug, category, part, start, bytes, positions_start, positions_end
  FROM temp.investor_order
`;

/** What each table of layouts 1 to 3 must hold for a bundle whose manifest lists these record counts. */
const RECORD_TABLES = {
  investors: ['investor_list', 'investor_detail'],
  consensus: ['consensus'],
  trades: ['trades'],
} as const;

// ---------------------------------------------------------------------------------------------
// What the index needs of each line, from the records that became them

/** An investor line: its list keys, and where its positions are inside it (bytes from the line's start). */
export interface InvestorLineFacts {
  slug: string;
  category: string;
  total: number;
  positionsStart: number;
  positionsEnd: number;
}

/** Consecutive trade lines of one investor and action. */
export interface TradeRunFacts {
  slug: string;
  action: string;
  lines: number;
}

/** What a chunk of lines tells the serving index beyond where the lines are; none for consensus. */
export type ServingLineFacts = { investors: InvestorLineFacts[] } | { runs: TradeRunFacts[] };

/**
 * Collects, record by record as the lines are made, what the serving index needs of them: the
 * index is written from these and from where the writer puts each line, never by reading the lines
 * again. Null for a resource that needs nothing (consensus: its ords are its lines' order).
 */
export interface ServingFactsCollector {
  /** One record and its line (canonical JSON and line break, as written; valid during the call only). */
  add(record: unknown, line: Buffer): void;
  /** The facts of the records added since the last take. */
  take(): ServingLineFacts;
}

export function servingFactsCollector(resource: string): ServingFactsCollector | null {
  if (resource === 'investors') return new InvestorFactsCollector();
  if (resource === 'trades') return new TradeRunCollector();
  return null;
}

/**
 * In canonical JSON an investor's keys are sorted: `…"positionCount":n,"positions":[…],
 * "positionsShown":n,…`. No earlier value holds an object or an unescaped quote, so the first
 * `"positions":[` is the key, and the `,"positionsShown":` after it is where its array ends.
 */
const POSITIONS_KEY = Buffer.from('"positions":[');
const AFTER_POSITIONS = Buffer.from(',"positionsShown":');
/** The end of the positions array and the key after it, as a span's last two bytes and what follows them. */
const POSITIONS_END = Buffer.from('],"positionsShown":');

class InvestorFactsCollector implements ServingFactsCollector {
  private rows: InvestorLineFacts[] = [];

  add(record: unknown, line: Buffer): void {
    const detail = record as InvestorDetail;
    const start = line.indexOf(POSITIONS_KEY);
    const end = start === -1 ? -1 : line.indexOf(AFTER_POSITIONS, start);
    const { positions: _positions, ...summary } = detail;
    // The list item is the line without `"positions":[…],`: the bytes serve would send must be the
    // canonical JSON of the summary, or the build stops here (a program error, never published).
    const item = end === -1 ? null : Buffer.concat([line.subarray(0, start), line.subarray(end + 1, line.length - 1)]);
    if (item === null || !item.equals(Buffer.from(investorSummaryJson(summary)))) {
      throw new Error(`investor ${detail.slug}: its canonical JSON does not have its positions where the serving index expects them`);
    }
    this.rows.push({
      slug: detail.slug,
      category: detail.category,
      total: detail.reportedValueTotal,
      positionsStart: start,
      positionsEnd: end + 1,
    });
  }

  take(): ServingLineFacts {
    const investors = this.rows;
    this.rows = [];
    return { investors };
  }
}

class TradeRunCollector implements ServingFactsCollector {
  private runs: TradeRunFacts[] = [];
  private last: TradeRunFacts | null = null;

  add(record: unknown): void {
    const { investorSlug, action } = record as TradeRow;
    const last = this.last;
    if (last !== null && last.slug === investorSlug && last.action === action) last.lines += 1;
    else {
      this.last = { slug: investorSlug, action, lines: 1 };
      this.runs.push(this.last);
    }
  }

  take(): ServingLineFacts {
    const runs = this.runs;
    this.runs = [];
    this.last = null;
    return { runs };
  }
}

// ---------------------------------------------------------------------------------------------
// Writing

interface OpenBlock {
  first: number;
  last: number;
  part: number;
  start: number;
  bytes: number;
}

/**
 * Writes the serving index while the bundle is staged, from where each line went (part, byte
 * offset, length) and the facts of the records that made them. Its journal is kept in memory and
 * sync is off while building (a staged file that a crash interrupts is thrown away with its staging
 * folder; journal_mode OFF is refused by the defensive mode both SQLite drivers open in); the
 * finished file is fsynced once.
 */
export class ServingIndexWriter {
  private readonly file: string;
  private readonly db: SqliteDatabase;
  private readonly insertInvestor: SqliteStatement;
  private readonly insertBlock: SqliteStatement;
  private readonly insertTradeRun: SqliteStatement;
  private readonly ords: Record<BlockResource, number> = { consensus: 0, trades: 0 };
  private readonly blocks: Record<BlockResource, OpenBlock | null> = { consensus: null, trades: null };
  /** Facts handed over and not yet matched with their lines. */
  private investorFacts: InvestorLineFacts[] = [];
  private nextInvestor = 0;
  private tradeRuns: TradeRunFacts[] = [];
  private nextRun = 0;
  /** Lines of the current trade run still to come. */
  private runLeft = 0;
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
    this.db.exec(`PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;
      PRAGMA user_version = ${SERVING_INDEX_SCHEMA};`);
    this.db.exec(TABLES);
    this.db.exec('BEGIN');
    this.insertInvestor = this.db.prepare(
      'INSERT INTO temp.investor_order (slug, total, category, part, start, bytes, positions_start, positions_end) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.insertBlock = this.db.prepare(
      'INSERT INTO line_blocks (resource, first_ord, last_ord, part, start, bytes) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.insertTradeRun = this.db.prepare('INSERT INTO trade_runs (investor_slug, action, first_ord, last_ord) VALUES (?, ?, ?, ?)');
  }

  /** The facts of the lines of `resource` about to be placed (line by line) with `line`. */
  facts(facts: ServingLineFacts | undefined): void {
    if (facts === undefined) return;
    if ('investors' in facts) {
      if (this.nextInvestor === this.investorFacts.length) {
        this.investorFacts = facts.investors;
        this.nextInvestor = 0;
      } else this.investorFacts.push(...facts.investors);
    } else {
      if (this.nextRun === this.tradeRuns.length) {
        this.tradeRuns = facts.runs;
        this.nextRun = 0;
      } else this.tradeRuns.push(...facts.runs);
    }
  }

  /** One line of `resource`, in its order: in part `part`, `bytes` long (with its newline) from byte `start`. */
  line(resource: string, part: number, start: number, bytes: number): void {
    try {
      if (resource === 'investors') this.investorLine(part, start, bytes);
      else if (resource === 'trades' || resource === 'consensus') {
        const ord = ++this.ords[resource];
        if (resource === 'trades') this.tradeLine(ord);
        this.blockLine(resource, ord, part, start, bytes);
      } else throw new Error(`the serving index has no table for ${resource}`);
    } catch (error) {
      throw withPath(error, this.file);
    }
  }

  private investorLine(part: number, start: number, bytes: number): void {
    const facts = this.investorFacts[this.nextInvestor++];
    if (facts === undefined) throw new Error('an investor line came without its facts');
    this.insertInvestor.run(facts.slug, facts.total, facts.category, part, start, bytes, facts.positionsStart, facts.positionsEnd);
  }

  /** Consecutive lines of one part, at most LINES_PER_BLOCK of them, are one block. */
  private blockLine(resource: BlockResource, ord: number, part: number, start: number, bytes: number): void {
    const block = this.blocks[resource];
    if (block !== null && block.part === part && block.last - block.first + 1 < LINES_PER_BLOCK[resource]) {
      block.last = ord;
      block.bytes += bytes;
      return;
    }
    if (block !== null) this.writeBlock(resource, block);
    this.blocks[resource] = { first: ord, last: ord, part, start, bytes };
  }

  private writeBlock(resource: BlockResource, block: OpenBlock): void {
    this.insertBlock.run(resource, block.first, block.last, block.part, block.start, block.bytes);
  }

  private tradeLine(ord: number): void {
    if (this.runLeft === 0) {
      const facts = this.tradeRuns[this.nextRun++];
      if (facts === undefined || facts.lines < 1) throw new Error('a trade line came without its facts');
      this.startRun(facts.slug, facts.action, ord);
      this.runLeft = facts.lines;
    }
    this.runLeft -= 1;
    this.run!.last = ord;
  }

  /**
   * Opens the run of the trade at `ord`. A trade of an investor or action whose run has ended is a
   * program error: the ranges would then hide rows from the investor's pages.
   */
  private startRun(slug: string, action: string, ord: number): void {
    const run = this.run;
    if (run !== null) {
      if (run.slug === slug && run.action === action) return;
      this.insertTradeRun.run(run.slug, run.action, run.first, run.last);
      if (run.slug !== slug) {
        this.investorsDone.add(run.slug);
        this.actionsDone.clear();
      } else this.actionsDone.add(run.action);
    }
    if (this.investorsDone.has(slug) || this.actionsDone.has(action)) {
      throw new Error(
        `trade ${ord} (${slug}, ${action}) comes apart from that investor's earlier trades: ` +
          'trades must come grouped by investor, then by action',
      );
    }
    this.run = { slug, action, first: ord, last: ord };
  }

  /** Orders and indexes the tables, closes the file, forces it to disk and returns its manifest entry. */
  finish(): ServingIndexEntry {
    try {
      failPoint('index-finish');
      if (this.nextInvestor !== this.investorFacts.length || this.runLeft !== 0 || this.nextRun !== this.tradeRuns.length) {
        throw new Error('the facts handed over do not match the lines written');
      }
      const run = this.run;
      if (run !== null) this.insertTradeRun.run(run.slug, run.action, run.first, run.last);
      for (const resource of ['consensus', 'trades'] as const) {
        const block = this.blocks[resource];
        if (block !== null) this.writeBlock(resource, block);
      }
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

// ---------------------------------------------------------------------------------------------
// Checking

/** One NDJSON part of the bundle, as `checkServingIndex` reads it for layout 4: its number in its resource and its bytes. */
export interface IndexedPart {
  resource: string;
  part: number;
  /** The whole file, or a reader of its bytes from `start`, `bytes` long. */
  read(start: number, bytes: number): Buffer;
  size: number;
}

/**
 * Checks a serving index file against its manifest: its table layout is the one the manifest names
 * and one this pdsnap reads, and, given the manifest's record counts, that it serves exactly those
 * records (for validate and gate):
 * - layouts 1 to 3: every table holds that many rows and, from layout 2, the trade runs cover ords
 *   1..n once each;
 * - layout 4: the same for the investors and the runs, and, given the parts, every place the index
 *   names is a whole line of its part: the blocks of each resource tile its lines in order, and each
 *   investor's line holds that investor with its positions where the index says.
 * Returns a reason, or null when it agrees.
 */
export function checkServingIndex(
  file: string,
  schema: number,
  recordsPerResource: Readonly<Record<string, number>> | null,
  parts: readonly IndexedPart[] = [],
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
    if (version >= RECORDS_IN_PARTS_LAYOUT) {
      return (
        investorRowsProblem(db, recordsPerResource.investors ?? 0, parts) ??
        blocksProblem(db, 'consensus', recordsPerResource.consensus ?? 0, parts) ??
        blocksProblem(db, 'trades', recordsPerResource.trades ?? 0, parts) ??
        tradeRunsGap(db, recordsPerResource.trades ?? 0)
      );
    }
    for (const [resource, tables] of Object.entries(RECORD_TABLES)) {
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

function partOf(parts: readonly IndexedPart[], resource: string, part: number): IndexedPart | undefined {
  return parts.find((p) => p.resource === resource && p.part === part);
}

/** A place that is one whole line of its part: it starts a line and ends with the only newline in it. */
function wholeLineProblem(part: IndexedPart, start: number, bytes: number): string | null {
  if (start < 0 || bytes < 1 || start + bytes > part.size) return `bytes ${start}..${start + bytes - 1} lie outside the part`;
  if (start > 0 && part.read(start - 1, 1)[0] !== NEWLINE) return `byte ${start} does not start a line`;
  const line = part.read(start, bytes);
  if (line.indexOf(NEWLINE) !== bytes - 1) return `bytes ${start}..${start + bytes - 1} are not one line`;
  return null;
}

/**
 * Layout 4's investors: one row per investor record, list ords 1..n, and each row's place a whole
 * line of its part holding the investor of that slug and category, whose list item is the line
 * without the positions span.
 */
function investorRowsProblem(db: SqliteDatabase, investors: number, parts: readonly IndexedPart[]): string | null {
  const { n, last } = db.prepare('SELECT count(*) AS n, max(ord) AS last FROM investors').get() as { n: number; last: number | null };
  if (Number(n) !== investors) return `table investors holds ${n} rows; the manifest lists ${investors} investors records`;
  if (investors > 0 && Number(last) !== investors) return `investors' list ords end at ${last}, not ${investors}`;
  if (parts.length === 0) return null;
  const rows = db.prepare(
    'SELECT ord, slug, category, part, start, bytes, positions_start, positions_end FROM investors ORDER BY part, start',
  );
  let expectedPart = 0;
  let expectedStart = 0;
  for (const row of rows.iterate() as Iterable<Record<string, number | string>>) {
    const [part, start, bytes] = [Number(row.part), Number(row.start), Number(row.bytes)];
    const where = `investor ${row.slug} (part ${part}, bytes ${start}..${start + bytes - 1})`;
    // Every line of every part, in order: each investor record is named once.
    if (part !== expectedPart || start !== expectedStart) {
      const file = partOf(parts, 'investors', expectedPart);
      if (!(file && start === 0 && part === expectedPart + 1 && expectedStart === file.size)) {
        return `${where} is not the line after part ${expectedPart} byte ${expectedStart - 1}`;
      }
      expectedPart = part;
    }
    const file = partOf(parts, 'investors', part);
    if (!file) return `${where} names a part the manifest does not list`;
    const problem = wholeLineProblem(file, start, bytes);
    if (problem) return `${where}: ${problem}`;
    const [positionsStart, positionsEnd] = [Number(row.positions_start), Number(row.positions_end)];
    const line = file.read(start, bytes);
    // The span must be the positions member: the key at its start and the key after it at its end
    // (in canonical JSON neither can appear elsewhere unescaped), so the rest of the line, the list
    // item, is parsed and compared alone, not the positions (most of the line).
    const spanned =
      positionsStart > 0 &&
      positionsEnd < bytes &&
      line.subarray(positionsStart, positionsStart + POSITIONS_KEY.length).equals(POSITIONS_KEY) &&
      line.subarray(positionsEnd - 2, positionsEnd - 2 + AFTER_POSITIONS.length + 1).equals(POSITIONS_END);
    if (!spanned) return `${where}: its positions are not at bytes ${positionsStart}..${positionsEnd - 1} of the line`;
    const item = Buffer.concat([line.subarray(0, positionsStart), line.subarray(positionsEnd, bytes - 1)]);
    let summary: Investor;
    try {
      summary = JSON.parse(item.toString('utf8')) as Investor;
    } catch {
      return `${where}: the line without its positions is not JSON`;
    }
    if (!item.equals(Buffer.from(investorSummaryJson(summary))))
      return `${where}: the line without its positions is not an investor's list item`;
    if (summary.slug !== row.slug || summary.category !== row.category) return `${where} holds investor ${summary.slug}`;
    expectedStart = start + bytes;
  }
  return null;
}

/**
 * Layout 4's blocks of one resource: ords 1..n in order, each block consecutive lines of one part
 * right after the block before (or at the start of the next part), and the last one ending its part.
 */
function blocksProblem(db: SqliteDatabase, resource: BlockResource, records: number, parts: readonly IndexedPart[]): string | null {
  const blocks = db.prepare('SELECT first_ord, last_ord, part, start, bytes FROM line_blocks WHERE resource = ? ORDER BY first_ord');
  let nextOrd = 1;
  let part = 0;
  let nextStart = 0;
  for (const row of blocks.iterate(resource) as Iterable<Record<string, number>>) {
    const [first, last, blockPart, start, bytes] = [row.first_ord, row.last_ord, row.part, row.start, row.bytes].map(Number) as [
      number,
      number,
      number,
      number,
      number,
    ];
    const where = `${resource} block of ords ${first}..${last}`;
    if (first !== nextOrd || last < first) return `${where} comes where ord ${nextOrd} comes next`;
    if (blockPart !== part || start !== nextStart) {
      const file = partOf(parts, resource, part);
      const partEnded = parts.length === 0 || (file !== undefined && nextStart === file.size);
      if (!(blockPart === part + 1 && start === 0 && partEnded)) return `${where} does not follow the block before it in part ${part}`;
      part = blockPart;
    }
    const file = partOf(parts, resource, blockPart);
    if (parts.length > 0) {
      if (!file) return `${where} names part ${blockPart}, which the manifest does not list`;
      if (start + bytes > file.size) return `${where} runs past the end of part ${blockPart}`;
      const block = file.read(start, bytes);
      const lines = countLineBreaks(block);
      if (lines !== last - first + 1 || block[bytes - 1] !== NEWLINE) return `${where} does not hold ${last - first + 1} whole lines`;
    }
    nextOrd = last + 1;
    nextStart = start + bytes;
  }
  if (nextOrd - 1 !== records) return `${resource} blocks cover ords 1..${nextOrd - 1}; the manifest lists ${records} ${resource} records`;
  return null;
}

/** Where the trade runs (layouts 2 to 4) fail to tile ords 1..trades exactly, or null. */
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
