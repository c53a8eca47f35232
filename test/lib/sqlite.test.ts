import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqlite, sqliteDriver, sqliteEnvironmentFailure } from '../../src/lib/sqlite.js';
import { tempDir } from '../helpers/cli.js';
import { holdSqliteLock } from '../helpers/sqlite-lock.js';

const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
const hasBuiltinSqlite = major > 22 || (major === 22 && minor >= 13);

describe('openSqlite', () => {
  it('uses node:sqlite wherever Node.js has it, and better-sqlite3 only where it does not', () => {
    expect(sqliteDriver()).toBe(hasBuiltinSqlite ? 'node:sqlite' : 'better-sqlite3');
  });

  it('prepares, writes in an immediate transaction, reads back rows, and rolls back a failed transaction', async () => {
    const dir = await tempDir('sqlite');
    try {
      const db = openSqlite(path.join(dir, 'a.sqlite'));
      db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER NOT NULL)');
      const insert = db.prepare<[string, number]>('INSERT INTO t (k, n) VALUES (?, ?)');
      db.immediateTransaction(() => {
        insert.run('a', 1);
        insert.run('b', 2);
      });
      expect(() =>
        db.immediateTransaction(() => {
          insert.run('c', 3);
          insert.run('a', 9); // primary key clash: the whole transaction goes
        }),
      ).toThrow();
      // The transaction's statements are prepared once: after a rollback the next one commits.
      db.immediateTransaction(() => insert.run('d', 4));
      const rows = db.prepare<[], { k: string; n: number }>('SELECT k, n FROM t ORDER BY k').all();
      expect(rows.map((row) => ({ ...row }))).toEqual([
        { k: 'a', n: 1 },
        { k: 'b', n: 2 },
        { k: 'd', n: 4 },
      ]);
      expect([...db.prepare<[number], { k: string }>('SELECT k FROM t WHERE n > ? ORDER BY k').iterate(1)].map((r) => r.k)).toEqual([
        'b',
        'd',
      ]);
      expect(db.prepare<[string], { n: number }>('SELECT n FROM t WHERE k = ?').get('zz')).toBeUndefined();
      db.close();
      db.close(); // closing twice is harmless

      const readonly = openSqlite(path.join(dir, 'a.sqlite'), { readonly: true });
      expect(() => readonly.exec("INSERT INTO t (k, n) VALUES ('x', 1)")).toThrow();
      readonly.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("waits up to 5 s for another process's lock, with either driver, before any busy timeout is set", async () => {
    // better-sqlite3 connections start with a 5 s busy timeout, node:sqlite ones with none: without
    // the same wait on both, a reader failed at once with 'database is locked' on Node.js 22 and 24 only.
    const dir = await tempDir('sqlite-busy');
    const file = path.join(dir, 'locked.sqlite');
    try {
      const setup = openSqlite(file);
      setup.exec('CREATE TABLE t (n INTEGER NOT NULL); INSERT INTO t VALUES (1)');
      setup.close();
      const holder = await holdSqliteLock(file, ['BEGIN EXCLUSIVE', 'INSERT INTO t VALUES (2)'], 'COMMIT', 500);
      try {
        for (const options of [{ readonly: true }, {}]) {
          const db = openSqlite(file, options);
          try {
            expect(db.prepare<[], { timeout: number }>('PRAGMA busy_timeout').get()?.timeout).toBe(5000);
            // Blocks until the other process commits, then sees its row.
            expect(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM t').get()?.n).toBe(2);
          } finally {
            db.close();
          }
        }
      } finally {
        holder.kill();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to open a missing file read-only instead of creating it', async () => {
    const dir = await tempDir('sqlite');
    try {
      expect(() => openSqlite(path.join(dir, 'missing.sqlite'), { readonly: true })).toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('tells a full database from a program error, with either driver', async () => {
    const dir = await tempDir('sqlite-full');
    try {
      const db = openSqlite(path.join(dir, 'full.sqlite'));
      db.exec('CREATE TABLE t (v TEXT)');
      db.exec('PRAGMA max_page_count = 3');
      let full: unknown;
      try {
        db.exec(
          'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10) INSERT INTO t SELECT hex(randomblob(3000)) FROM c',
        );
      } catch (error) {
        full = error;
      }
      expect(sqliteEnvironmentFailure(full)).toBe('SQLITE_FULL');
      let syntax: unknown;
      try {
        db.exec('SELEC 1');
      } catch (error) {
        syntax = error;
      }
      expect(syntax).toBeInstanceOf(Error);
      expect(sqliteEnvironmentFailure(syntax)).toBeUndefined();
      db.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
