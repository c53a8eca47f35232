import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeyedFileCache, NO_CACHE } from '../../src/lib/keyed-file-cache.js';
import { tempDir } from '../helpers/cli.js';

const key = (n: number) => String(n).repeat(64).slice(0, 64);

describe('KeyedFileCache', () => {
  it('gives back what was put under a kind and a key, and nothing for another key', async () => {
    const cache = new KeyedFileCache(await tempDir('cache'), 1024 * 1024);
    await cache.put('intake', key(1), Buffer.from('the payload'));
    expect((await cache.get('intake', key(1)))?.toString()).toBe('the payload');
    expect(await cache.get('intake', key(2))).toBeNull();
    expect(await cache.get('other', key(1))).toBeNull();
  });

  it('never trusts an entry without its digest: a changed or cut one is a miss, and is removed', async () => {
    const dir = await tempDir('cache');
    const cache = new KeyedFileCache(dir, 1024 * 1024);
    for (const [n, damage] of [
      [1, (bytes: Buffer) => Buffer.concat([bytes.subarray(0, -1), Buffer.from('X')])],
      [2, (bytes: Buffer) => bytes.subarray(0, bytes.length - 3)],
      [3, () => Buffer.from('not an entry')],
    ] as const) {
      await cache.put('intake', key(n), Buffer.from('the payload'));
      const file = path.join(dir, 'intake', key(n));
      await writeFile(file, damage(await readFile(file)));
      expect(await cache.get('intake', key(n)), `damage ${n}`).toBeNull();
      expect(await readdir(path.join(dir, 'intake'))).not.toContain(key(n));
    }
  });

  it('stays within its bound by dropping the entries used least recently', async () => {
    const dir = await tempDir('cache');
    const payload = Buffer.alloc(400);
    // Each entry is 440 bytes with its header: two fit in 1,000, three do not.
    const cache = new KeyedFileCache(dir, 1000);
    await cache.put('intake', key(1), payload);
    await cache.put('intake', key(2), payload);
    // Entry 1 was used after entry 2 (the use time is the file's modification time).
    await utimes(path.join(dir, 'intake', key(2)), new Date(1_000_000), new Date(1_000_000));
    expect(await cache.get('intake', key(1))).not.toBeNull();
    await cache.put('intake', key(3), payload);
    expect((await readdir(path.join(dir, 'intake'))).sort()).toEqual([key(1), key(3)].sort());
  });

  it('refuses a key that is not a digest, so that no entry lands outside its folder', async () => {
    const cache = new KeyedFileCache(await tempDir('cache'), 1024);
    await expect(cache.put('intake', '../../escape', Buffer.from('x'))).rejects.toThrow(/not a kind and a SHA-256 key/);
  });

  it('keeps nothing when the cache is off', async () => {
    await NO_CACHE.put('intake', key(1), Buffer.from('x'));
    expect(await NO_CACHE.get('intake', key(1))).toBeNull();
  });
});
