import { readFile } from 'node:fs/promises';
import { type FSWatcher, readFileSync, statSync, watch } from 'node:fs';
import path from 'node:path';
import { replaceFileAtomically } from '../../lib/atomic-file.js';
import { withFileLock } from '../../lib/file-lock.js';
import { type KeyRecord, newKeyRecord, parseKeyFile, serializeKeyFile } from './key-record.js';
import { generateKeySecret, keyIdOfSecret, secretMatches } from './key-secret.js';
import { type KeyDirectory, KeyNotFoundError, type NewKeyInput } from './state-store.js';

export const DEFAULT_KEYS_FILE = 'data/keys.json';

/** How old the file-backed key cache may get when no change notification arrives (see KeyStore). */
export const DEFAULT_KEY_FILE_MAX_AGE_MS = 1000;

/**
 * The keys a running server trusts, from the keys file. Lookups answer from memory: the file is
 * looked at again (a stat, and a parse when its identity changed: inode, size, mtime or ctime;
 * every write replaces it by rename, so a new inode) when `fs.watch` on its folder reported a
 * change, or when the last look is older than `maxAgeMs`, the fallback for file systems that
 * deliver no notifications (some network and container volumes). So `pdsnap keys revoke` reaches a
 * running server at once where notifications work, and within `maxAgeMs` everywhere. `maxAgeMs` 0
 * looks at the file on every lookup. A missing file means no keys.
 */
export class KeyStore implements KeyDirectory {
  private byId = new Map<string, KeyRecord>();
  private signature: string | null = null;
  private checkedAt = 0;
  private changed = false;
  private watcher: FSWatcher | null = null;

  /** Throws KeyFileError when the file exists but is unusable, so a server refuses to start on it. */
  constructor(
    readonly file: string,
    private readonly onReloadError: (error: Error) => void = () => {},
    private readonly maxAgeMs = 0,
  ) {
    this.refresh(true);
    if (maxAgeMs > 0) this.watch();
  }

  /** The record whose secret the presented key is (revoked or not), or null. */
  find(presented: string): KeyRecord | null {
    const id = keyIdOfSecret(presented);
    if (id === null) return null;
    const record = this.recordById(id);
    return secretMatches(presented, record?.secretSha256) && record ? record : null;
  }

  recordById(id: string): KeyRecord | null {
    this.refreshIfDue();
    return this.byId.get(id) ?? null;
  }

  async keyById(id: string, fresh = false): Promise<KeyRecord | null> {
    if (fresh) this.refresh(false);
    return this.recordById(id);
  }

  async list(): Promise<KeyRecord[]> {
    return readKeys(this.file);
  }

  create(input: NewKeyInput, now: Date): Promise<{ record: KeyRecord; secret: string }> {
    return createKey(this.file, input, now);
  }

  revoke(id: string, now: Date): Promise<{ record: KeyRecord; alreadyRevoked: boolean }> {
    return revokeKey(this.file, id, now);
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
  }

  private watch(): void {
    const name = path.basename(this.file);
    try {
      // The folder, not the file: a rename over the file would leave a watch on the old inode.
      this.watcher = watch(path.dirname(this.file), { persistent: false }, (_event, changed) => {
        if (changed === null || changed === name) this.changed = true;
      });
      this.watcher.on('error', () => this.close());
    } catch {
      // No folder yet, or no notifications here: the maxAgeMs look-again still holds.
      this.watcher = null;
    }
  }

  private refreshIfDue(): void {
    const at = performance.now();
    if (!this.changed && at - this.checkedAt < this.maxAgeMs) return;
    this.refresh(false);
  }

  private refresh(initial: boolean): void {
    this.changed = false;
    this.checkedAt = performance.now();
    // Nanosecond times, because a freed inode number can be reused by the next rename within a millisecond.
    const stat = statSync(this.file, { bigint: true, throwIfNoEntry: false });
    const signature = stat ? `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}` : 'missing';
    if (signature === this.signature) return;
    try {
      const records = stat ? parseKeyFile(readFileSync(this.file, 'utf8'), this.file) : [];
      this.byId = new Map(records.map((r) => [r.id, r]));
      // Fail closed, but not in silence: every key is now refused, and the log says why.
      if (!stat && !initial && this.signature !== null) {
        this.onReloadError(new Error(`${this.file} is gone: no key is valid until it is back (every request answers 401)`));
      }
    } catch (error) {
      if (initial) throw error;
      // Keep serving with the last good keys (atomic writes make this a hand-edit accident);
      // remembering the signature avoids re-parsing the same broken file on every request.
      this.onReloadError(error as Error);
    }
    this.signature = signature;
  }
}

export { KeyNotFoundError };
export type { NewKeyInput };

/** Reads the keys file; a missing file has no keys. */
export async function readKeys(file: string): Promise<KeyRecord[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return parseKeyFile(text, file);
}

/** Adds a key and returns its secret, which exists nowhere else: the caller shows it once. */
export async function createKey(file: string, input: NewKeyInput, now: Date): Promise<{ record: KeyRecord; secret: string }> {
  return withKeyFileLock(file, async () => {
    const keys = await readKeys(file);
    let generated = generateKeySecret();
    // 48-bit ids collide only by astronomical bad luck, but a duplicate would shadow a key.
    while (keys.some((k) => k.id === generated.id)) generated = generateKeySecret();
    const record = newKeyRecord(input, generated, now);
    await replaceFileAtomically(file, serializeKeyFile([...keys, record]), { mode: 0o600 });
    return { record, secret: generated.secret };
  });
}

/** Marks a key revoked (kept in the file for the usage report); revoking twice keeps the first date. */
export async function revokeKey(file: string, id: string, now: Date): Promise<{ record: KeyRecord; alreadyRevoked: boolean }> {
  return withKeyFileLock(file, async () => {
    const keys = await readKeys(file);
    const index = keys.findIndex((k) => k.id === id);
    const existing = keys[index];
    if (!existing) throw new KeyNotFoundError(`no key with id ${id} in ${file}`);
    if (existing.revokedAt !== null) return { record: existing, alreadyRevoked: true };
    const record = { ...existing, revokedAt: now.toISOString() };
    keys[index] = record;
    await replaceFileAtomically(file, serializeKeyFile(keys), { mode: 0o600 });
    return { record, alreadyRevoked: false };
  });
}

/** Serializes read-modify-write cycles of concurrent `keys` commands on one file. */
async function withKeyFileLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  return withFileLock(`${file}.lock`, { waitMs: 5_000 }, work);
}
