import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { openSqlite, type SqliteDatabase } from '../../lib/sqlite.js';
import type { TierName, UsageCounts } from './limits.js';
import { WINDOW_SECONDS } from './utc-windows.js';

export const DEFAULT_USAGE_DB = 'data/usage.sqlite';

/** One key's month: admitted (counted, billable) and refused (429, recorded but not billed) requests. */
export interface MonthlyUsageRow {
  keyId: string;
  /** Tier of the key's latest request this month, the tier its overage is billed at. */
  tier: TierName;
  requests: number;
  rejected: number;
}

const SCHEMA_VERSION = 1;

/**
 * Request counts in an embedded SQLite database (WAL), so quotas survive a restart and several
 * server processes on one host can share them. The store knows no clock: callers pass the month
 * (YYYY-MM, UTC) and the window start (Unix seconds) they computed from their injected `now`.
 */
export class UsageStore {
  private readonly statements;

  private constructor(private readonly db: SqliteDatabase) {
    this.statements = {
      month: db.prepare<[string, string], { requests: number }>(
        'SELECT requests FROM monthly_usage WHERE key_id = ? AND month = ?',
      ),
      window: db.prepare<[string, number], { requests: number }>(
        'SELECT requests FROM window_usage WHERE key_id = ? AND window_start = ?',
      ),
      addAdmittedToMonth: db.prepare<[string, string, string]>(
        `INSERT INTO monthly_usage (key_id, month, tier, requests, rejected) VALUES (?, ?, ?, 1, 0)
         ON CONFLICT (key_id, month) DO UPDATE SET requests = requests + 1, tier = excluded.tier`,
      ),
      addRejectedToMonth: db.prepare<[string, string, string]>(
        `INSERT INTO monthly_usage (key_id, month, tier, requests, rejected) VALUES (?, ?, ?, 0, 1)
         ON CONFLICT (key_id, month) DO UPDATE SET rejected = rejected + 1, tier = excluded.tier`,
      ),
      releaseFromMonth: db.prepare<[string, string]>(
        'UPDATE monthly_usage SET requests = requests - 1 WHERE key_id = ? AND month = ? AND requests > 0',
      ),
      addToWindow: db.prepare<[string, number], { requests: number }>(
        `INSERT INTO window_usage (key_id, window_start, requests) VALUES (?, ?, 1)
         ON CONFLICT (key_id, window_start) DO UPDATE SET requests = requests + 1 RETURNING requests`,
      ),
      pruneWindows: db.prepare<[string, number]>('DELETE FROM window_usage WHERE key_id = ? AND window_start < ?'),
      monthRows: db.prepare<[string], { keyId: string; tier: TierName; requests: number; rejected: number }>(
        'SELECT key_id AS keyId, tier, requests, rejected FROM monthly_usage WHERE month = ? ORDER BY key_id',
      ),
    };
  }

  static open(file: string): UsageStore {
    mkdirSync(path.dirname(file), { recursive: true });
    const db = openSqlite(file);
    db.exec('PRAGMA journal_mode = WAL');
    // NORMAL in WAL mode survives a crash of the process; only an OS crash can lose the last commits.
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA busy_timeout = 5000');
    migrate(db);
    return new UsageStore(db);
  }

  /** Runs `work` as one write transaction, taken before the reads so that no other process counts in between. */
  inTransaction<T>(work: () => T): T {
    return this.db.immediateTransaction(work);
  }

  counts(keyId: string, month: string, windowStart: number): UsageCounts {
    return {
      month: this.statements.month.get(keyId, month)?.requests ?? 0,
      window: this.statements.window.get(keyId, windowStart)?.requests ?? 0,
    };
  }

  recordAdmitted(keyId: string, tier: TierName, month: string, windowStart: number): void {
    this.statements.addAdmittedToMonth.run(keyId, month, tier);
    const inWindow = this.statements.addToWindow.get(keyId, windowStart);
    // The first request of a window is the moment to drop the key's older windows, so the table stays small.
    if (inWindow?.requests === 1) this.statements.pruneWindows.run(keyId, windowStart - WINDOW_SECONDS);
  }

  releaseAdmitted(keyId: string, month: string): void {
    this.statements.releaseFromMonth.run(keyId, month);
  }

  recordRejected(keyId: string, tier: TierName, month: string): void {
    this.statements.addRejectedToMonth.run(keyId, month, tier);
  }

  monthlyUsage(month: string): MonthlyUsageRow[] {
    // Spread: node:sqlite returns rows with a null prototype.
    return this.statements.monthRows.all(month).map((row) => ({ ...row }));
  }

  close(): void {
    this.db.close();
  }
}

function migrate(db: SqliteDatabase): void {
  const version = db.prepare<[], { user_version: number }>('PRAGMA user_version').get()?.user_version ?? 0;
  if (version === SCHEMA_VERSION) return;
  if (version !== 0) throw new Error(`${db.file}: usage database schema ${version} is newer than this pdsnap understands (${SCHEMA_VERSION})`);
  db.exec(`
    CREATE TABLE IF NOT EXISTS monthly_usage (
      key_id TEXT NOT NULL, month TEXT NOT NULL, tier TEXT NOT NULL,
      requests INTEGER NOT NULL, rejected INTEGER NOT NULL,
      PRIMARY KEY (key_id, month)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS window_usage (
      key_id TEXT NOT NULL, window_start INTEGER NOT NULL, requests INTEGER NOT NULL,
      PRIMARY KEY (key_id, window_start)
    ) WITHOUT ROWID;
    PRAGMA user_version = ${SCHEMA_VERSION};
  `);
}
