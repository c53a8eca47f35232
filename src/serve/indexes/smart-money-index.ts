import type { TradeAction } from '../../model/smart-money.js';
import { openSqlite, type SqliteDatabase, type SqliteStatement } from '../../lib/sqlite.js';
import { RECORDS_IN_PARTS_LAYOUT, servingIndexLayout } from '../../publish/serving-index.js';
import type { Page } from './page.js';
import { type BundlePartFiles, PartLines } from './part-lines.js';
import { SelectionCache } from './selection-cache.js';
import { StoredJson } from '../stored-json.js';

/** A row of a page: its position, and its record (JSON text, or its UTF-8 bytes). */
type Row = { ord: number; record: string | Buffer };
type Run = { first_ord: number | null; last_ord: number | null };
type RunOfAction = { first_ord: number; last_ord: number };
type InvestorPlace = { ord: number; part: number; start: number; bytes: number; positions_start: number; positions_end: number };

interface TradeRuns {
  investor: SqliteStatement<[string], Run>;
  investorAction: SqliteStatement<[string, string], Run>;
  /** From layout 3: the runs of one action that end at or after an ord, in ord order; null in layout 2. */
  action: SqliteStatement<[string, number, number], RunOfAction> | null;
}

/**
 * A Smart Money snapshot served from its bundle's serving index (a read-only SQLite file): a start
 * is an open, not a load, and memory holds SQLite's page cache, not the records. Every list is a
 * keyset query on a dense position (`ord`, or `rank` for consensus): a page asks for one row more
 * than its limit, and that row's position is where the next page starts.
 *
 * From layout 4 the index says where each record's bytes are in the bundle's NDJSON parts (verified
 * with it before it is opened, OpenedBundle.verifiedServingIndex), and a page is one read of its
 * part (PartLines); layouts 1 to 3 hold the records themselves.
 *
 * A page, once read, is kept for the snapshot's life (up to PAGE_CACHE_BYTES of records): the first
 * pages of each list are asked for far more than any other, and reading one again cost a query and
 * a UTF-8 copy of each record, about 23 µs of a consensus request's 87 under load.
 */
export class SmartMoneyIndex {
  private readonly statements = new Map<string, SqliteStatement<unknown[], Row>>();
  private readonly pages = new SelectionCache<Page | StoredJson | undefined>(PAGE_CACHE_BYTES, bytesHeld);
  private readonly detail: SqliteStatement<[string], { record: string }> | null;
  /** From layout 2: the ords of one investor's trades, and of one action of theirs; null in layout 1. */
  private readonly runs: TradeRuns | null;
  private readonly trade: SqliteStatement<[number, number, number], Row> | null;
  /** From layout 4: where each investor's line is. */
  private readonly investorPlaces: {
    list: SqliteStatement<[number, number], InvestorPlace>;
    byCategory: SqliteStatement<[string, number, number], InvestorPlace>;
    bySlug: SqliteStatement<[string], InvestorPlace>;
  } | null;

  private constructor(
    private readonly db: SqliteDatabase,
    /** From layout 4: the parts the records are read from. */
    private readonly lines: PartLines | null,
  ) {
    const layout = servingIndexLayout(db);
    if (lines === null) {
      this.detail = db.prepare('SELECT record FROM investor_detail WHERE slug = ?');
      this.trade = db.prepare('SELECT ord, record FROM trades WHERE ord >= ? AND ord <= ? ORDER BY ord LIMIT ?');
      this.investorPlaces = null;
    } else {
      this.detail = null;
      this.trade = null;
      const columns = 'ord, part, start, bytes, positions_start, positions_end';
      this.investorPlaces = {
        list: db.prepare(`SELECT ${columns} FROM investors WHERE ord >= ? ORDER BY ord LIMIT ?`),
        byCategory: db.prepare(`SELECT ${columns} FROM investors WHERE category = ? AND ord >= ? ORDER BY ord LIMIT ?`),
        bySlug: db.prepare(`SELECT ${columns} FROM investors WHERE slug = ?`),
      };
    }
    this.runs =
      layout === 1
        ? null
        : {
            investor: db.prepare('SELECT min(first_ord) AS first_ord, max(last_ord) AS last_ord FROM trade_runs WHERE investor_slug = ?'),
            investorAction: db.prepare('SELECT first_ord, last_ord FROM trade_runs WHERE investor_slug = ? AND action = ?'),
            action:
              layout === 2
                ? null
                : db.prepare('SELECT first_ord, last_ord FROM trade_runs WHERE action = ? AND last_ord >= ? ORDER BY last_ord LIMIT ?'),
          };
  }

  /**
   * Opens a serving index that its bundle verified (OpenedBundle.verifiedServingIndex). From layout
   * 4 it reads the records from the bundle's parts, which `parts` locates; earlier layouts need none.
   */
  static open(file: string, parts?: BundlePartFiles): SmartMoneyIndex {
    const db = openSqlite(file, { readonly: true });
    try {
      // A modest page cache: pages are read on demand, and the OS caches the file anyway.
      db.exec('PRAGMA cache_size = -8192');
      let lines: PartLines | null = null;
      if (servingIndexLayout(db) >= RECORDS_IN_PARTS_LAYOUT) {
        if (parts === undefined) throw new Error(`${file} points into the bundle's parts, and none were given`);
        lines = new PartLines(db, parts);
      }
      return new SmartMoneyIndex(db, lines);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  investors(filter: { category?: string }, position: number, limit: number): Page {
    return this.cached(['investors', filter.category, position, limit], () => this.readInvestors(filter, position, limit));
  }

  private readInvestors(filter: { category?: string }, position: number, limit: number): Page {
    if (this.investorPlaces !== null) {
      const places =
        filter.category === undefined
          ? this.investorPlaces.list.all(position, limit + 1)
          : this.investorPlaces.byCategory.all(filter.category, position, limit + 1);
      // A list item is the record without its positions: the line with that span left out.
      return pageOf(
        places.map((place) => ({
          ord: Number(place.ord),
          record: this.lines!.lineWithout('investors', place, Number(place.positions_start), Number(place.positions_end)),
        })),
        limit,
      );
    }
    return filter.category === undefined
      ? this.page('SELECT ord, record FROM investor_list WHERE ord >= ? ORDER BY ord LIMIT ?', [position, limit])
      : this.page('SELECT ord, record FROM investor_list WHERE category = ? AND ord >= ? ORDER BY ord LIMIT ?', [
          filter.category,
          position,
          limit,
        ]);
  }

  /** One investor's detail record, as stored (an InvestorDetail's JSON). */
  investor(slug: string): StoredJson | undefined {
    return this.cached(['investor', slug], () => {
      if (this.investorPlaces !== null) {
        const place = this.investorPlaces.bySlug.get(slug);
        return place ? new StoredJson(this.lines!.lineWithout('investors', place, 0, 0)) : undefined;
      }
      const row = this.detail!.get(slug);
      return row ? new StoredJson(row.record) : undefined;
    });
  }

  consensus(position: number, limit: number): Page {
    return this.cached(['consensus', position, limit], () =>
      this.lines !== null
        ? pageOf(this.lines.byOrd('consensus', position, Number.MAX_SAFE_INTEGER, limit + 1), limit)
        : this.page('SELECT rank AS ord, record FROM consensus WHERE rank >= ? ORDER BY rank LIMIT ?', [position, limit]),
    );
  }

  /** Trades in the bundle's order (which the pipeline makes deterministic), optionally of one action and one investor. */
  trades(filter: { action?: TradeAction; investorSlug?: string }, position: number, limit: number): Page {
    return this.cached(['trades', filter.action, filter.investorSlug, position, limit], () => this.readTrades(filter, position, limit));
  }

  private readTrades(filter: { action?: TradeAction; investorSlug?: string }, position: number, limit: number): Page {
    if (filter.investorSlug !== undefined && this.runs !== null) {
      // From layout 2: the investor's trades (of the action) are one run of ords: a range of the table.
      const run =
        filter.action === undefined
          ? this.runs.investor.get(filter.investorSlug)
          : this.runs.investorAction.get(filter.investorSlug, filter.action);
      if (run?.first_ord == null || run.last_ord == null) return { data: [], next: null };
      return this.rangePage([{ first_ord: Number(run.first_ord), last_ord: Number(run.last_ord) }], position, limit);
    }
    if (filter.action !== undefined && this.runs?.action) {
      // From layout 3: the action's runs from the one holding `position` on. Each run holds at least
      // one trade, so limit + 1 runs always hold the page and the row after it.
      return this.rangePage(this.runs.action.all(filter.action, position, limit + 1), position, limit);
    }
    if (this.lines !== null) return pageOf(this.lines.byOrd('trades', position, Number.MAX_SAFE_INTEGER, limit + 1), limit);
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.investorSlug !== undefined) {
      where.push('investor_slug = ?');
      params.push(filter.investorSlug);
    }
    if (filter.action !== undefined) {
      where.push('action = ?');
      params.push(filter.action);
    }
    where.push('ord >= ?');
    return this.page(`SELECT ord, record FROM trades WHERE ${where.join(' AND ')} ORDER BY ord LIMIT ?`, [...params, position, limit]);
  }

  close(): void {
    this.lines?.close();
    this.db.close();
  }

  /** What a public method answers for these arguments, read once per snapshot. */
  private cached<T extends Page | StoredJson | undefined>(args: readonly unknown[], read: () => T): T {
    return this.pages.get(JSON.stringify(args), read) as T;
  }

  private page(sql: string, params: unknown[]): Page {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare<unknown[], Row>(sql);
      this.statements.set(sql, statement);
    }
    const limit = params[params.length - 1] as number;
    // One row more than asked: its position is the next page's start.
    return pageOf(statement.all(...params.slice(0, -1), limit + 1), limit);
  }

  /** A page of the trades in some runs of ords (in ord order), from `position` on. */
  private rangePage(runs: readonly RunOfAction[], position: number, limit: number): Page {
    const rows: Row[] = [];
    for (const run of runs) {
      if (rows.length > limit) break;
      const [from, to, wanted] = [Math.max(position, Number(run.first_ord)), Number(run.last_ord), limit + 1 - rows.length];
      rows.push(...(this.lines !== null ? this.lines.byOrd('trades', from, to, wanted) : this.trade!.all(from, to, wanted)));
    }
    return pageOf(rows, limit);
  }
}

/** The records a cached answer holds: 16 MiB of them per served snapshot (the previous one's go with it). */
const PAGE_CACHE_BYTES = 16 * 1024 * 1024;

/** About what a cached answer holds: its records' bytes, and a little for the entry itself. */
function bytesHeld(value: Page | StoredJson | undefined): number {
  const ENTRY_BYTES = 128;
  if (value === undefined) return ENTRY_BYTES;
  if (value instanceof StoredJson) return ENTRY_BYTES + value.utf8.length;
  let bytes = ENTRY_BYTES;
  for (const record of value.data) bytes += record instanceof StoredJson ? record.utf8.length : ENTRY_BYTES;
  return bytes;
}

/** The first `limit` of `limit + 1` rows asked for, and the position of the one after them. */
function pageOf(rows: readonly Row[], limit: number): Page {
  const data = rows.slice(0, limit).map((row) => new StoredJson(row.record));
  return { data, next: rows.length > limit ? Number(rows[limit]!.ord) : null };
}
