import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The bytes every entry starts with: a file that lacks them is not an entry of this cache. */
const MAGIC = Buffer.from('PDSNAPC1');
const HEADER_BYTES = MAGIC.length + 32;

/** What a build may keep of what it derived, by kind and key; nothing when the cache is off. */
export interface KeyedCache {
  /** The payload stored under the key, its digest checked; null when there is none (or it was damaged). */
  get(kind: string, key: string): Promise<Buffer | null>;
  /** Keeps the payload; then trims the cache to its bound, unless `trim: false` (many puts, one trim() after). */
  put(kind: string, key: string, payload: Buffer, options?: { trim?: boolean }): Promise<void>;
  trim(): Promise<void>;
}

/** --no-cache: every lookup misses and nothing is kept. */
export const NO_CACHE: KeyedCache = {
  get: async () => null,
  put: async () => {},
  trim: async () => {},
};

/**
 * A cache of derived results on disk: `<dir>/<kind>/<key>`, each file the payload behind a header
 * holding its SHA-256, so that an entry is never trusted without its digest (a damaged or cut one
 * is removed and counts as a miss). Written to a temp name and renamed, so a crash leaves no half
 * entry. Bounded: after each put, the least recently used entries go until the whole fits in
 * `maxBytes`. Deleting the folder at any time is safe: the next build derives again.
 */
export class KeyedFileCache implements KeyedCache {
  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {}

  private file(kind: string, key: string): string {
    if (!/^[a-z0-9-]+$/.test(kind) || !/^[0-9a-f]{64}$/.test(key))
      throw new Error(`cache entry ${kind}/${key}: not a kind and a SHA-256 key`);
    return path.join(this.dir, kind, key);
  }

  async get(kind: string, key: string): Promise<Buffer | null> {
    const file = this.file(kind, key);
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch {
      return null;
    }
    const payload = bytes.subarray(HEADER_BYTES);
    const intact =
      bytes.length >= HEADER_BYTES &&
      bytes.subarray(0, MAGIC.length).equals(MAGIC) &&
      createHash('sha256').update(payload).digest().equals(bytes.subarray(MAGIC.length, HEADER_BYTES));
    if (!intact) {
      await rm(file, { force: true });
      return null;
    }
    // The modification time is the entry's last use, for trim().
    const at = new Date();
    await utimes(file, at, at).catch(() => undefined);
    return payload;
  }

  async put(kind: string, key: string, payload: Buffer, options: { trim?: boolean } = {}): Promise<void> {
    const file = this.file(kind, key);
    await mkdir(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temp, Buffer.concat([MAGIC, createHash('sha256').update(payload).digest(), payload]));
      await rename(temp, file);
    } catch (error) {
      // A full disk or a read-only cache costs the next build its time, never this build its result.
      await rm(temp, { force: true }).catch(() => undefined);
      if (!isSpaceOrPermission(error)) throw error;
      return;
    }
    if (options.trim !== false) await this.trim();
  }

  /** Removes the least recently used entries until the cache fits in maxBytes. */
  async trim(): Promise<void> {
    const entries: Array<{ file: string; bytes: number; usedMs: number }> = [];
    for (const kind of await readdir(this.dir).catch(() => [] as string[])) {
      for (const name of await readdir(path.join(this.dir, kind)).catch(() => [] as string[])) {
        const file = path.join(this.dir, kind, name);
        const info = await stat(file).catch(() => null);
        if (info?.isFile()) entries.push({ file, bytes: info.size, usedMs: info.mtimeMs });
      }
    }
    let total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
    for (const entry of entries.sort((a, b) => a.usedMs - b.usedMs)) {
      if (total <= this.maxBytes) break;
      await rm(entry.file, { force: true });
      total -= entry.bytes;
    }
  }
}

function isSpaceOrPermission(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'EACCES' || code === 'EPERM' || code === 'EROFS';
}
