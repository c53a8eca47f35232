import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { REPO_ROOT } from './cli.js';

/**
 * Another process that runs `statements` on the file, says so, and ends them with `end` after `ms`.
 * It opens SQLite the way pdsnap does on its Node.js (src/lib/sqlite.ts): node:sqlite where there is
 * one, better-sqlite3 on Node.js 20 (which aborts Node.js 24 when its objects are collected).
 */
export async function holdSqliteLock(file: string, statements: string[], end: string, ms: number): Promise<ChildProcess> {
  const script = `
    let db;
    try { db = new (require('node:sqlite').DatabaseSync)(process.argv[1]); } catch { db = new (require('better-sqlite3'))(process.argv[1]); }
    for (const sql of JSON.parse(process.argv[2])) db.exec(sql);
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec(process.argv[3]); db.close(); }, Number(process.argv[4]));`;
  const holder = spawn(process.execPath, ['-e', script, file, JSON.stringify(statements), end, String(ms)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(holder.stdout!, 'data');
  return holder;
}
