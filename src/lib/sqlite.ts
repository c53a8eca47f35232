import { createRequire } from 'node:module';

/**
 * The one way pdsnap opens SQLite, on every Node.js it supports.
 *
 * - Node.js with a built-in `node:sqlite` (22.13 and later): that module. It needs no native addon,
 *   so nothing can abort the process when a statement is garbage-collected.
 * - Node.js 20: better-sqlite3 12, an optional dependency. Its raw `node::ObjectWrap` destructors
 *   abort Node.js 24.19+ ("Assertion failed: (env) != nullptr"), and better-sqlite3 13, which fixes
 *   that, crashes on Node.js 20; so the addon is only ever loaded where `node:sqlite` is missing.
 *
 * Callers see the small common surface below and nothing driver-specific; a new connection of either
 * waits up to 5 s for another process's lock (`PRAGMA busy_timeout` changes that).
 */
export interface SqliteRunResult {
  changes: number | bigint;
}

export interface SqliteStatement<Params extends unknown[] = unknown[], Row = unknown> {
  run(...params: Params): SqliteRunResult;
  get(...params: Params): Row | undefined;
  all(...params: Params): Row[];
  iterate(...params: Params): IterableIterator<Row>;
}

export interface SqliteDatabase {
  /** The file it was opened from, for messages. */
  readonly file: string;
  prepare<Params extends unknown[] = unknown[], Row = unknown>(sql: string): SqliteStatement<Params, Row>;
  exec(sql: string): void;
  /** Runs `work` in one `BEGIN IMMEDIATE` transaction: the write lock is taken before any read. */
  immediateTransaction<T>(work: () => T): T;
  close(): void;
}

export interface OpenSqliteOptions {
  /** Open an existing file for reading only; a missing file is an error, never created. */
  readonly?: boolean;
}

export type SqliteDriver = 'node:sqlite' | 'better-sqlite3';

interface NativeStatement {
  run(...params: unknown[]): SqliteRunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
}
interface NativeDatabase {
  prepare(sql: string): NativeStatement;
  exec(sql: string): void;
  close(): void;
}
type Opener = (file: string, options: OpenSqliteOptions) => NativeDatabase;

let opener: { driver: SqliteDriver; open: Opener } | undefined;

/** How long a new connection waits for another process's lock, on either driver (better-sqlite3's default). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

function loadNodeSqlite(): Opener | undefined {
  // Node 22 announces node:sqlite as experimental on load; that warning is not news to a user of pdsnap.
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes('SQLite')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  let builtin: { DatabaseSync: new (file: string, options?: { readOnly?: boolean }) => NativeDatabase } | undefined;
  try {
    builtin = process.getBuiltinModule?.('node:sqlite') as typeof builtin;
  } finally {
    process.emitWarning = emitWarning;
  }
  if (builtin === undefined) return undefined;
  const { DatabaseSync } = builtin;
  return (file, options) => {
    const db = new DatabaseSync(file, { readOnly: options.readonly === true });
    // better-sqlite3's default, which node:sqlite lacks: without it, any statement that meets
    // another process's lock fails at once with 'database is locked'. (The DatabaseSync `timeout`
    // option would do the same, but Node.js 22.13 to 22.15 do not have it.)
    try {
      db.exec(`PRAGMA busy_timeout = ${DEFAULT_BUSY_TIMEOUT_MS}`);
    } catch (error) {
      db.close();
      throw error;
    }
    return db;
  };
}

function loadBetterSqlite(): Opener {
  const require = createRequire(import.meta.url);
  let Database: new (file: string, options?: { readonly?: boolean; fileMustExist?: boolean }) => NativeDatabase;
  try {
    Database = require('better-sqlite3') as typeof Database;
  } catch (error) {
    throw new Error(
      `SQLite is not available: this Node.js (${process.version}) has no node:sqlite and the optional ` +
        `better-sqlite3 package could not be loaded (${(error as Error).message.split('\n')[0]}). ` +
        'Use Node.js 22.13 or later, or reinstall with npm ci.',
    );
  }
  return (file, options) => new Database(file, { readonly: options.readonly === true, fileMustExist: options.readonly === true });
}

function resolveOpener(): { driver: SqliteDriver; open: Opener } {
  if (opener === undefined) {
    const builtin = loadNodeSqlite();
    opener = builtin ? { driver: 'node:sqlite', open: builtin } : { driver: 'better-sqlite3', open: loadBetterSqlite() };
  }
  return opener;
}

/** Which driver this process uses (for logs and the test that both drivers behave alike). */
export function sqliteDriver(): SqliteDriver {
  return resolveOpener().driver;
}

/**
 * SQLite's primary result codes that say the database's surroundings failed, not the statement:
 * a full disk, an I/O error, a lock held too long, a file made read-only, missing or damaged.
 */
const ENVIRONMENT_CODES: Readonly<Record<number, string>> = {
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  26: 'SQLITE_NOTADB',
};

/**
 * The primary code (`SQLITE_FULL`, ...) when `error` is such a failure of the database's
 * surroundings, from either driver (better-sqlite3 names the code, node:sqlite numbers it);
 * undefined for anything else, a program error among them.
 */
export function sqliteEnvironmentFailure(error: unknown): string | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof errcode === 'number') return ENVIRONMENT_CODES[errcode & 0xff];
  if (typeof code !== 'string') return undefined;
  return Object.values(ENVIRONMENT_CODES).find((name) => code === name || code.startsWith(`${name}_`));
}

export function openSqlite(file: string, options: OpenSqliteOptions = {}): SqliteDatabase {
  const native = resolveOpener().open(file, options);
  let open = true;
  // Prepared once, on first use: the usage store opens a transaction per batch of requests.
  let control: { begin: NativeStatement; commit: NativeStatement; rollback: NativeStatement } | undefined;
  return {
    file,
    prepare: <Params extends unknown[], Row>(sql: string) => native.prepare(sql) as unknown as SqliteStatement<Params, Row>,
    exec: (sql) => native.exec(sql),
    immediateTransaction<T>(work: () => T): T {
      control ??= { begin: native.prepare('BEGIN IMMEDIATE'), commit: native.prepare('COMMIT'), rollback: native.prepare('ROLLBACK') };
      control.begin.run();
      try {
        const result = work();
        control.commit.run();
        return result;
      } catch (error) {
        // A failed COMMIT leaves the transaction open; after some errors (a full disk, I/O) SQLite
        // has already rolled it back itself, and ROLLBACK then fails: the first error is the one to report.
        try {
          control.rollback.run();
        } catch {}
        throw error;
      }
    },
    close() {
      if (!open) return;
      open = false;
      native.close();
    },
  };
}
