import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite, type SqliteDatabase } from '../../../src/lib/sqlite.js';
import { StateUnavailableError } from '../../../src/serve/access/state-store.js';
import { NEW_FILE_PAGE_BYTES, SERVE_USAGE_WAITS, UsageStore, WAL_CHECKPOINT_BYTES } from '../../../src/serve/access/usage-store.js';
import { holdSqliteLock } from '../../helpers/sqlite-lock.js';

let dir: string;
let file: string;
const member = { hardCapPerMonth: 20_000, requestsPerMinute: 60 };
const windowOf = (iso: string) => Math.floor(Date.parse(iso) / 60_000) * 60;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-usage-'));
  file = path.join(dir, 'usage.sqlite');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('usage database', () => {
  it('upgrades a version 1 database in place, keeping month counts and the current window', async () => {
    // Version 1 as earlier releases wrote it: windows in a table of their own.
    const v1 = openSqlite(file);
    v1.exec(`
      CREATE TABLE monthly_usage (key_id TEXT NOT NULL, month TEXT NOT NULL, tier TEXT NOT NULL,
        requests INTEGER NOT NULL, rejected INTEGER NOT NULL, PRIMARY KEY (key_id, month)) WITHOUT ROWID;
      CREATE TABLE window_usage (key_id TEXT NOT NULL, window_start INTEGER NOT NULL, requests INTEGER NOT NULL,
        PRIMARY KEY (key_id, window_start)) WITHOUT ROWID;
      INSERT INTO monthly_usage VALUES ('key_aaaaaaaaaaaa', '2026-11', 'member', 500, 3), ('key_aaaaaaaaaaaa', '2026-10', 'premium', 42, 0);
      INSERT INTO window_usage VALUES ('key_aaaaaaaaaaaa', ${windowOf('2026-11-22T10:14:00Z')}, 60), ('key_aaaaaaaaaaaa', ${windowOf('2026-11-22T10:15:00Z')}, 59);
      PRAGMA user_version = 1;`);
    v1.close();

    const store = UsageStore.open(file);
    try {
      const now = windowOf('2026-11-22T10:15:30Z');
      expect(await store.counts('key_aaaaaaaaaaaa', '2026-11', now)).toEqual({ month: 500, window: 59 });
      expect(await store.monthlyUsage('2026-10')).toEqual([{ keyId: 'key_aaaaaaaaaaaa', tier: 'premium', requests: 42, rejected: 0 }]);
      // The 60th of the window is admitted, the 61st refused: the upgrade started no fresh minute.
      expect((await store.admit('key_aaaaaaaaaaaa', 'member', '2026-11', now, member)).admitted).toBe(true);
      expect(await store.admit('key_aaaaaaaaaaaa', 'member', '2026-11', now, member)).toEqual({
        admitted: false,
        before: { month: 501, window: 60 },
      });
    } finally {
      store.close();
    }
  });

  it('creates a file of 1 KiB pages, keeps the page size of an existing one, and checkpoints the WAL at about 10 MiB of either', async () => {
    // The checkpoint threshold is a setting of the store's own connection, not of the file.
    const checkpointPages = (store: UsageStore) =>
      (store as unknown as { db: SqliteDatabase }).db.prepare<[], { wal_autocheckpoint: number }>('PRAGMA wal_autocheckpoint').get()
        ?.wal_autocheckpoint;
    const pageSize = (at: string) => {
      const reader = openSqlite(at);
      try {
        return reader.prepare<[], { page_size: number }>('PRAGMA page_size').get()?.page_size;
      } finally {
        reader.close();
      }
    };

    const store = UsageStore.open(file);
    try {
      expect((await store.admit('key_aaaaaaaaaaaa', 'member', '2026-11', windowOf('2026-11-22T10:15:30Z'), member)).admitted).toBe(true);
      expect(checkpointPages(store)).toBe(WAL_CHECKPOINT_BYTES / NEW_FILE_PAGE_BYTES);
    } finally {
      store.close();
    }
    expect(pageSize(file)).toBe(NEW_FILE_PAGE_BYTES);

    const older = path.join(dir, 'older.sqlite');
    const made = openSqlite(older);
    made.exec('PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; CREATE TABLE t (x)');
    made.close();
    const reopened = UsageStore.open(older);
    try {
      expect((await reopened.admit('key_aaaaaaaaaaaa', 'member', '2026-11', windowOf('2026-11-22T10:15:30Z'), member)).admitted).toBe(true);
      expect(checkpointPages(reopened)).toBe(WAL_CHECKPOINT_BYTES / 4096);
    } finally {
      reopened.close();
    }
    expect(pageSize(older)).toBe(4096);
  });

  it('refuses a database of a newer schema than it knows, naming the file', () => {
    const newer = openSqlite(file);
    newer.exec('PRAGMA user_version = 9');
    newer.close();
    expect(() => UsageStore.open(file)).toThrow(`${file}: usage database schema 9 is newer than this pdsnap understands (2)`);
  });

  it("a server's short wait is for requests: opening (and migrating) waits out another process's lock as before", async () => {
    // Another process (a server migrating the new file, a sqlite3 shell) holds the write lock for 700 ms.
    const holder = await holdSqliteLock(file, ['PRAGMA journal_mode = WAL', 'BEGIN IMMEDIATE'], 'ROLLBACK', 700);
    try {
      const store = UsageStore.open(file, SERVE_USAGE_WAITS);
      const other = openSqlite(file);
      try {
        expect((await store.admit('key_aaaaaaaaaaaa', 'member', '2026-11', windowOf('2026-11-22T10:15:30Z'), member)).admitted).toBe(true);
        // Open, a request waits the server's 200 ms, not the 5 s the opening waited.
        other.exec('BEGIN IMMEDIATE');
        const started = performance.now();
        const refused = await store
          .admit('key_aaaaaaaaaaaa', 'member', '2026-11', windowOf('2026-11-22T10:15:30Z'), member)
          .catch((e) => e);
        expect(refused).toBeInstanceOf(StateUnavailableError);
        expect(performance.now() - started).toBeLessThan(2000);
        other.exec('ROLLBACK');
      } finally {
        other.close();
        store.close();
      }
    } finally {
      holder.kill();
    }
  });

  // Two servers starting at once: the other one created the file a moment before and is still in its
  // first transaction (no WAL yet), or writes its first rows in rollback-journal mode. Switching to
  // WAL needs the file to itself, and against a writer's lock SQLite answers "database is locked" at
  // once instead of waiting: six servers creating one file together lost up to one open in ten.
  it.each([
    ['creates its first table', ['BEGIN EXCLUSIVE', 'CREATE TABLE first (x)']],
    ['writes in rollback-journal mode', ['CREATE TABLE first (x)', 'BEGIN IMMEDIATE', 'INSERT INTO first VALUES (1)']],
  ])('opens a new file in WAL mode once another process that %s lets go of it', async (_what, statements) => {
    const holder = await holdSqliteLock(file, statements, 'COMMIT', 500);
    try {
      const store = UsageStore.open(file, SERVE_USAGE_WAITS);
      try {
        expect((await store.admit('key_aaaaaaaaaaaa', 'member', '2026-11', windowOf('2026-11-22T10:15:30Z'), member)).admitted).toBe(true);
      } finally {
        store.close();
      }
      const check = openSqlite(file);
      try {
        expect(check.prepare<[], { journal_mode: string }>('PRAGMA journal_mode').get()?.journal_mode).toBe('wal');
      } finally {
        check.close();
      }
    } finally {
      holder.kill();
    }
  });

  it('after a lock held too long, refuses at once for the pause instead of waiting again, then counts again', async () => {
    let clock = 0;
    const store = UsageStore.open(file, { busyTimeoutMs: 50, pauseMs: 1000, monotonicMs: () => clock });
    const other = openSqlite(file);
    const admit = () => store.admit('key_aaaaaaaaaaaa', 'member', '2026-11', windowOf('2026-11-22T10:15:30Z'), member);
    try {
      other.exec('BEGIN IMMEDIATE');
      const refused = await admit().catch((e: Error) => e);
      expect((refused as Error).message).toBe(`usage database ${file}: database is locked (SQLITE_BUSY)`);
      other.exec('ROLLBACK');
      // The lock is gone, but within the pause SQLite is not asked: the same refusal, and nothing counted.
      clock = 999;
      expect(await admit().catch((e: Error) => e)).toBe(refused);
      expect(await store.counts('key_aaaaaaaaaaaa', '2026-11', windowOf('2026-11-22T10:15:30Z'))).toEqual({ month: 0, window: 0 });
      clock = 1000;
      expect((await admit()).admitted).toBe(true);
      expect(await store.counts('key_aaaaaaaaaaaa', '2026-11', windowOf('2026-11-22T10:15:30Z'))).toEqual({ month: 1, window: 1 });
    } finally {
      other.close();
      store.close();
    }
  });

  it('fails closed with StateUnavailableError, naming the file, when another process holds the write lock too long', async () => {
    const store = UsageStore.open(file, { busyTimeoutMs: 50 });
    const other = openSqlite(file);
    try {
      other.exec('BEGIN IMMEDIATE');
      const refused = await store
        .admit('key_aaaaaaaaaaaa', 'member', '2026-11', windowOf('2026-11-22T10:15:30Z'), member)
        .catch((e: Error) => e);
      expect(refused).toBeInstanceOf(StateUnavailableError);
      expect((refused as Error).message).toBe(`usage database ${file}: database is locked (SQLITE_BUSY)`);
      other.exec('ROLLBACK');
      // Once the lock is gone, the next request is counted as before: nothing to restart.
      expect((await store.admit('key_aaaaaaaaaaaa', 'member', '2026-11', windowOf('2026-11-22T10:15:30Z'), member)).admitted).toBe(true);
    } finally {
      other.close();
      store.close();
    }
  });
});
