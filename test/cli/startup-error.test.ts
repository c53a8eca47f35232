import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.js';
import { startupError } from '../../src/cli/startup-error.js';
import { openSqlite } from '../../src/lib/sqlite.js';
import { parseKeyFile } from '../../src/serve/access/key-record.js';
import { loadOrCreateCursorSecret } from '../../src/serve/cursor-secret.js';
import { tempDir } from '../helpers/cli.js';

async function caught(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('a failure of serve start-up', () => {
  it('is a usage error, with context, when the operator can fix it', async () => {
    const dir = await tempDir('startup');
    const missing = path.join(dir, 'missing');
    const exposed = path.join(dir, 'cursor-secret');
    await writeFile(exposed, `${'f'.repeat(64)}\n`);
    await chmod(exposed, 0o644);
    const notADatabase = path.join(dir, 'usage.sqlite');
    await writeFile(notADatabase, 'these are the notes of somebody, not a database\n'.repeat(100));
    const cases: Array<[unknown, string]> = [
      [await caught(() => readFile(missing)), `ENOENT: no such file or directory, open '${missing}'`],
      [await caught(() => openSqlite(notADatabase).exec('SELECT * FROM sqlite_master')), 'file is not a database'],
      [
        await caught(() => parseKeyFile('{', 'keys.json')),
        `keys.json: not valid JSON (${((await caught(() => JSON.parse('{'))) as Error).message})`,
      ],
      [
        await caught(() => loadOrCreateCursorSecret(exposed)),
        `${exposed} is readable by group or others (mode 644): run chmod 600 ${exposed}`,
      ],
    ];
    for (const [error, message] of cases) {
      const result = startupError(error, 'cannot start the server');
      expect(result).toBeInstanceOf(UsageError);
      expect((result as UsageError).message).toBe(`cannot start the server: ${message}`);
    }
  });

  it('is returned unchanged, stack and all, when it is a bug of pdsnap', async () => {
    const app = Fastify();
    app.get('/twice', async () => 'a');
    const duplicate = await caught(() => app.get('/twice', async () => 'b'));
    const typeError = await caught(() => (undefined as unknown as { x: () => void }).x());
    // A statement SQLite refuses: on Node.js 20 its code is SQLITE_ERROR, on 22 and 24 ERR_SQLITE_ERROR.
    const badStatement = await caught(() => openSqlite(':memory:').exec('SELEC 1'));
    for (const error of [duplicate, typeError, badStatement]) {
      expect(error).toBeInstanceOf(Error);
      expect(startupError(error, 'cannot start the server')).toBe(error);
      expect((error as Error).stack).toContain('startup-error.test.ts');
    }
    expect((duplicate as NodeJS.ErrnoException).code).toBe('FST_ERR_DUPLICATED_ROUTE');
    await app.close();
  });
});
