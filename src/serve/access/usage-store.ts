import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_BUSY_TIMEOUT_MS, openSqlite, type SqliteDatabase, sqliteEnvironmentFailure } from '../../lib/sqlite.js';
import type { TierName, UsageCounts } from './limits.js';
import {
  type AdmissionLimits,
  type CountedAdmission,
  type MonthlyUsageRow,
  StateUnavailableError,
  type UsageLedger,
} from './state-store.js';

export const DEFAULT_USAGE_DB = 'data/usage.sqlite';

export type { MonthlyUsageRow } from './state-store.js';

const SCHEMA_VERSION = 2;

/**
 * How long `serve` lets a write wait for another process's lock. Servers sharing the database hold
 * it for one group commit, well under a millisecond; a lock held longer (a sqlite3 shell, a backup
 * tool) would otherwise stall every request, health checks included, for the whole wait.
 */
export const SERVE_BUSY_TIMEOUT_MS = 200;
/** After that wait failed (or the disk is full), `serve` answers 503 for this long before it asks SQLite again. */
export const SERVE_PAUSE_MS = 1000;
export const SERVE_USAGE_WAITS = { busyTimeoutMs: SERVE_BUSY_TIMEOUT_MS, pauseMs: SERVE_PAUSE_MS } as const;

/** The page size of a usage database created now. */
export const NEW_FILE_PAGE_BYTES = 1024;
/** How much the WAL holds before a commit checkpoints it into the database file. */
export const WAL_CHECKPOINT_BYTES = 10 * 1024 * 1024;

export interface UsageWaits {
  busyTimeoutMs?: number;
  pauseMs?: number;
  /** The clock of the pause; injected by tests. */
  monotonicMs?: () => number;
}

/**
 * The admission rule of limits.ts (decideAdmission) in SQL, over the row's values before the update:
 * a request that is not billed (@billed 0, refused for its scope) is judged by the window alone.
 */
const ADMITS = '((@billed = 0 OR requests < @hardCap) AND (window_start <> @windowStart OR window_requests < @perMinute))';

/**
 * Request counts in an embedded SQLite database (WAL), so quotas survive a restart and several
 * server processes on one host can share them. One row per key and month holds the month's
 * admitted and refused requests and the key's latest 60-second window (a window never straddles
 * two months: months start on a whole minute), so deciding and counting a request is one
 * prepared UPSERT: one statement, one implicit write transaction, no read-then-write gap.
 */
export class UsageStore implements UsageLedger {
  private readonly statements;
  private pending: PendingAdmission[] = [];
  private closed = false;
  /** After a commit failed for its surroundings: the failure, and until when it is answered without asking SQLite again. */
  private pause: { failure: StateUnavailableError; untilMs: number } | null = null;

  private constructor(
    private readonly db: SqliteDatabase,
    private readonly pauseMs: number,
    private readonly monotonicMs: () => number,
  ) {
    this.statements = {
      admit: db.prepare<
        [{ keyId: string; month: string; tier: TierName; windowStart: number; hardCap: number; perMinute: number; billed: 0 | 1 }],
        { requests: number; windowStart: number; windowRequests: number; admitted: number }
      >(
        `INSERT INTO monthly_usage (key_id, month, tier, requests, rejected, window_start, window_requests, last_admitted)
         VALUES (@keyId, @month, @tier, @billed, 0, @windowStart, 1, 1)
         ON CONFLICT (key_id, month) DO UPDATE SET
           requests = requests + @billed * ${ADMITS},
           rejected = rejected + 1 - ${ADMITS},
           window_requests = CASE WHEN NOT ${ADMITS} THEN window_requests
                                  WHEN window_start = @windowStart THEN window_requests + 1 ELSE 1 END,
           window_start = CASE WHEN ${ADMITS} THEN @windowStart ELSE window_start END,
           last_admitted = ${ADMITS},
           tier = excluded.tier
         RETURNING requests, window_start AS windowStart, window_requests AS windowRequests, last_admitted AS admitted`,
      ),
      counts: db.prepare<[number, string, string], { month: number; window: number }>(
        `SELECT requests AS month, CASE WHEN window_start = ? THEN window_requests ELSE 0 END AS window
         FROM monthly_usage WHERE key_id = ? AND month = ?`,
      ),
      release: db.prepare<[string, string]>(
        'UPDATE monthly_usage SET requests = requests - 1 WHERE key_id = ? AND month = ? AND requests > 0',
      ),
      monthRows: db.prepare<[string], MonthlyUsageRow>(
        'SELECT key_id AS keyId, tier, requests, rejected FROM monthly_usage WHERE month = ? ORDER BY key_id',
      ),
    };
  }

  /**
   * `busyTimeoutMs`: how long a write waits for another process's lock before the request fails
   * closed (503); 5 s by default (a command can wait). Opening and migrating wait at least 5 s. SQLite waits inside the call, so a server
   * waits with its whole event loop: `serve` opens it with SERVE_BUSY_TIMEOUT_MS and SERVE_PAUSE_MS.
   * `pauseMs`: after a commit fails for its surroundings (a lock held too long, a full disk), the
   * admissions of that long are refused with the same failure at once, without waiting again.
   */
  static open(
    file: string,
    { busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS, pauseMs = 0, monotonicMs = () => performance.now() }: UsageWaits = {},
  ): UsageStore {
    mkdirSync(path.dirname(file), { recursive: true });
    const db = openSqlite(file);
    try {
      // Opening waits openSqlite's 5 s for a lock, as a command does: nothing is answered yet, and a
      // second server starting while the first creates or migrates the file (or a sqlite3 shell holds
      // it) must not fail to start after 200 ms. Only then do requests get their own wait.
      //
      // A new file gets small pages (an existing one keeps its own: the pragma does nothing once the
      // file has content). Each admission changes one row, and a commit writes each changed page
      // whole to the WAL and checksums it: with 1 KiB pages instead of 4 KiB a request cost about 3 µs
      // less of SQLite's 17 µs in the server under load.
      db.exec(`PRAGMA page_size = ${NEW_FILE_PAGE_BYTES}`);
      enterWal(db, DEFAULT_BUSY_TIMEOUT_MS);
      // NORMAL in WAL mode survives a crash of the process; only an OS crash can lose the last commits.
      db.exec('PRAGMA synchronous = NORMAL');
      // A checkpoint (two fsyncs, and a copy of every changed page into the file) runs inside the
      // commit that fills the WAL. At SQLite's default of 1,000 pages that was every 70 ms under load,
      // copying the same few hot pages again each time; at about 10 MiB a page changed a thousand times
      // is copied once. The WAL file stays at about that size (it is reused, not truncated).
      const pageBytes = db.prepare<[], { page_size: number }>('PRAGMA page_size').get()?.page_size ?? NEW_FILE_PAGE_BYTES;
      db.exec(`PRAGMA wal_autocheckpoint = ${Math.floor(WAL_CHECKPOINT_BYTES / pageBytes)}`);
      migrate(db);
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    } catch (error) {
      db.close();
      throw error;
    }
    return new UsageStore(db, pauseMs, monotonicMs);
  }

  admitNow(keyId: string, tier: TierName, month: string, windowStart: number, limits: AdmissionLimits, billed = true): CountedAdmission {
    const row = this.statements.admit.get({
      keyId,
      month,
      tier,
      windowStart,
      hardCap: limits.hardCapPerMonth,
      perMinute: limits.requestsPerMinute,
      billed: billed ? 1 : 0,
    });
    if (!row) throw new Error('usage UPSERT returned no row');
    const admitted = row.admitted === 1;
    const windowAfter = row.windowStart === windowStart ? row.windowRequests : 0;
    return {
      admitted,
      before: admitted ? { month: row.requests - (billed ? 1 : 0), window: windowAfter - 1 } : { month: row.requests, window: windowAfter },
    };
  }

  /**
   * Group commit: the admissions asked for while the event loop handles one batch of I/O are
   * decided and counted in one write transaction, committed before any of them is answered. Each
   * request still sees every count before it (they run one after the other inside the transaction,
   * and the transaction holds the database's write lock against other processes); only the commit,
   * the expensive part, is shared. Nothing is answered from memory and nothing is lost on a crash
   * that a per-request commit would have kept.
   */
  admit(
    keyId: string,
    tier: TierName,
    month: string,
    windowStart: number,
    limits: AdmissionLimits,
    _authorizedOn?: unknown,
    billed = true,
  ): Promise<CountedAdmission> {
    return new Promise((resolve, reject) => {
      this.pending.push({ args: [keyId, tier, month, windowStart, limits, billed], resolve, reject });
      if (this.pending.length === 1) setImmediate(this.commitPending);
    });
  }

  private readonly commitPending = (): void => {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    if (this.pause !== null && this.monotonicMs() < this.pause.untilMs) {
      for (const admission of batch) admission.reject(this.pause.failure);
      return;
    }
    this.pause = null;
    let results: CountedAdmission[];
    try {
      results = this.db.immediateTransaction(() => batch.map(({ args }) => this.admitNow(...args)));
    } catch (error) {
      const failure = this.unavailable(error);
      if (failure instanceof StateUnavailableError && this.pauseMs > 0)
        this.pause = { failure, untilMs: this.monotonicMs() + this.pauseMs };
      for (const admission of batch) admission.reject(failure);
      return;
    }
    for (const [index, admission] of batch.entries()) admission.resolve(results[index]!);
  };

  async counts(keyId: string, month: string, windowStart: number): Promise<UsageCounts> {
    let row;
    try {
      row = this.statements.counts.get(windowStart, keyId, month);
    } catch (error) {
      throw this.unavailable(error);
    }
    return row ? { month: row.month, window: row.window } : { month: 0, window: 0 };
  }

  async release(keyId: string, month: string): Promise<void> {
    try {
      this.statements.release.run(keyId, month);
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  /**
   * A database whose surroundings failed (a full disk, I/O, a lock held too long, a damaged file)
   * cannot count: requests fail closed with 503, as when Redis is down, and the log names the file
   * once in a while instead of a program error's stack on every request. Anything else stays as it is.
   */
  private unavailable(error: unknown): unknown {
    const code = sqliteEnvironmentFailure(error);
    if (code === undefined) return error;
    return new StateUnavailableError(`usage database ${this.db.file}: ${(error as Error).message} (${code})`);
  }

  monthlyUsageNow(month: string): MonthlyUsageRow[] {
    // Spread: node:sqlite returns rows with a null prototype.
    return this.statements.monthRows.all(month).map((row) => ({ ...row }));
  }

  async monthlyUsage(month: string): Promise<MonthlyUsageRow[]> {
    return this.monthlyUsageNow(month);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.commitPending();
    this.db.close();
  }
}

/**
 * `journal_mode = WAL`, waiting out other processes that open the same new file at the same moment.
 * Switching the journal mode needs the file to itself, and while another connection holds a write
 * lock SQLite answers SQLITE_BUSY at once, without the busy timeout (waiting could deadlock): six
 * processes creating one file together lost up to one open in ten to "database is locked".
 */
function enterWal(db: SqliteDatabase, waitMs: number): void {
  const deadline = performance.now() + waitMs;
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      if (sqliteEnvironmentFailure(error) !== 'SQLITE_BUSY' || performance.now() > deadline) throw error;
      // Opening is synchronous (a server has not started answering yet): a short blocking sleep.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.random() * 20);
    }
  }
}

interface PendingAdmission {
  args: [keyId: string, tier: TierName, month: string, windowStart: number, limits: AdmissionLimits, billed: boolean];
  resolve: (admission: CountedAdmission) => void;
  reject: (error: unknown) => void;
}

const CREATE_V2 = `
  CREATE TABLE IF NOT EXISTS monthly_usage (
    key_id TEXT NOT NULL, month TEXT NOT NULL, tier TEXT NOT NULL,
    requests INTEGER NOT NULL, rejected INTEGER NOT NULL,
    window_start INTEGER NOT NULL DEFAULT 0, window_requests INTEGER NOT NULL DEFAULT 0,
    last_admitted INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (key_id, month)
  ) WITHOUT ROWID;`;

/**
 * Version 1 kept windows in a table of their own (one row per key and window, two writes per
 * request); version 2 folds the latest window into the month's row. The upgrade carries each
 * key's latest window of the month over, so a restart onto the new version starts no fresh minute.
 */
const UPGRADE_1_TO_2 = `
  ALTER TABLE monthly_usage ADD COLUMN window_start INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE monthly_usage ADD COLUMN window_requests INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE monthly_usage ADD COLUMN last_admitted INTEGER NOT NULL DEFAULT 0;
  UPDATE monthly_usage SET (window_start, window_requests) = (
    SELECT w.window_start, w.requests FROM window_usage w
    WHERE w.key_id = monthly_usage.key_id AND strftime('%Y-%m', w.window_start, 'unixepoch') = monthly_usage.month
    ORDER BY w.window_start DESC LIMIT 1)
  WHERE EXISTS (
    SELECT 1 FROM window_usage w
    WHERE w.key_id = monthly_usage.key_id AND strftime('%Y-%m', w.window_start, 'unixepoch') = monthly_usage.month);
  DROP TABLE window_usage;`;

function migrate(db: SqliteDatabase): void {
  const versionOf = () => db.prepare<[], { user_version: number }>('PRAGMA user_version').get()?.user_version ?? 0;
  if (versionOf() === SCHEMA_VERSION) return;
  // Immediate, and the version read again inside: two servers starting at once migrate once.
  db.immediateTransaction(() => {
    const version = versionOf();
    if (version === SCHEMA_VERSION) return;
    if (version > SCHEMA_VERSION || version < 0) {
      throw new Error(`${db.file}: usage database schema ${version} is newer than this pdsnap understands (${SCHEMA_VERSION})`);
    }
    db.exec(version === 0 ? CREATE_V2 : UPGRADE_1_TO_2);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  });
}
