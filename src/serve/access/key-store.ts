import { readFile } from 'node:fs/promises';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { replaceFileAtomically } from '../../publish/atomic-file.js';
import { withFileLock } from '../../publish/file-lock.js';
import { type KeyRecord, type Scope, parseKeyFile, serializeKeyFile } from './key-record.js';
import { generateKeySecret, keyIdOfSecret, secretMatches } from './key-secret.js';
import type { TierName } from './limits.js';

export const DEFAULT_KEYS_FILE = 'data/keys.json';

/**
 * The keys a running server trusts. Lookups are synchronous (they run in a request hook) and
 * re-read the file whenever its identity changes (inode, size, mtime or ctime: every write replaces the
 * file by rename, so a new inode), which is how `pdsnap keys revoke` reaches a running server
 * on its next request. A missing file means no keys.
 */
export class KeyStore {
  private byId = new Map<string, KeyRecord>();
  private signature: string | null = null;

  /** Throws KeyFileError when the file exists but is unusable, so a server refuses to start on it. */
  constructor(
    readonly file: string,
    private readonly onReloadError: (error: Error) => void = () => {},
  ) {
    this.refresh(true);
  }

  /** The record whose secret the presented key is (revoked or not), or null. */
  find(presented: string): KeyRecord | null {
    const id = keyIdOfSecret(presented);
    if (id === null) return null;
    this.refresh(false);
    const record = this.byId.get(id);
    return record && secretMatches(presented, record.secretSha256) ? record : null;
  }

  list(): KeyRecord[] {
    this.refresh(false);
    return [...this.byId.values()];
  }

  private refresh(initial: boolean): void {
    // Nanosecond times, because a freed inode number can be reused by the next rename within a millisecond.
    const stat = statSync(this.file, { bigint: true, throwIfNoEntry: false });
    const signature = stat ? `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}` : 'missing';
    if (signature === this.signature) return;
    try {
      const records = stat ? parseKeyFile(readFileSync(this.file, 'utf8'), this.file) : [];
      this.byId = new Map(records.map((r) => [r.id, r]));
    } catch (error) {
      if (initial) throw error;
      // Keep serving with the last good keys (atomic writes make this a hand-edit accident);
      // remembering the signature avoids re-parsing the same broken file on every request.
      this.onReloadError(error as Error);
    }
    this.signature = signature;
  }
}

export class KeyNotFoundError extends Error {
  override readonly name = 'KeyNotFoundError';
}

export interface NewKeyInput {
  name: string;
  scopes: Scope[];
  tier: TierName;
}

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
    const record: KeyRecord = {
      id: generated.id,
      name: input.name,
      scopes: [...new Set(input.scopes)],
      tier: input.tier,
      createdAt: now.toISOString(),
      revokedAt: null,
      secretSha256: generated.secretSha256,
    };
    await replaceFileAtomically(file, serializeKeyFile([...keys, record]));
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
    await replaceFileAtomically(file, serializeKeyFile(keys));
    return { record, alreadyRevoked: false };
  });
}

/** Serializes read-modify-write cycles of concurrent `keys` commands on one file. */
async function withKeyFileLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  return withFileLock(`${file}.lock`, { waitMs: 5_000 }, work);
}
