import { hash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ResourceEntry, resourceOfPath } from '../model/manifest.js';
import { recordKey } from '../model/record-keys.js';
import { canonicalJson } from './canonical-json.js';
import { openSqlite, type SqliteDatabase, type SqliteStatement } from '../lib/sqlite.js';
import { parseLine, readPartLines } from './record-reader.js';

/**
 * The comparison engine: what changed, record by record, between two bundles. `diff` prints it;
 * drift (build, promote, validate, gate) judges its figures. One engine, so a check is never
 * written twice.
 *
 * Bounded memory, whatever the size: a line's bytes are canonical JSON, so an unchanged record is
 * byte-identical on both sides. Each side's line digests (SHA-256, 64 bits kept: 16 bytes a record in
 * an open-addressing table) tell the unchanged lines without parsing them; only lines missing from
 * the other side are parsed and keyed. The new side's differing lines wait in a temporary SQLite
 * file, not in memory, and the old side's are matched against them by key in a second pass, which
 * takes each old line's digest from the first (kept in order, 8 more bytes a record) instead of
 * hashing it again. Parts with the same digest on both sides are not read at all. SHA-256, not a
 * faster-looking MD5: on CPUs with SHA extensions it is twice as fast, and it is the better hash.
 */

/** One side of a comparison: a published bundle or a staged one (not yet in the store). */
export interface BundleSide {
  /** The snapshot id, or a label such as "candidate" for a staged bundle. */
  label: string;
  directory: string;
  files: readonly ResourceEntry[];
}

export interface ChangedSample {
  key: string;
  fields: string[];
}

export interface ResourceDiff {
  resource: string;
  before: number;
  after: number;
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
  /** Up to `limit` keys of each kind, in the order met. */
  addedKeys: string[];
  removedKeys: string[];
  changedRecords: ChangedSample[];
  /** Over every changed record: how many records changed each top-level field. */
  changedFields: Record<string, number>;
}

export interface DiffOptions {
  /** How many keys of each kind to name. */
  limit: number;
  /** Every record of these resources, parsed, on both sides (for facts beyond the diff, such as drift's watch). */
  observe?: { resources: ReadonlySet<string>; record(side: 'before' | 'after', resource: string, record: unknown): void };
}

export async function diffBundles(
  before: BundleSide,
  after: BundleSide,
  resources: readonly string[],
  options: DiffOptions,
): Promise<ResourceDiff[]> {
  const diffs: ResourceDiff[] = [];
  for (const resource of resources) diffs.push(await diffResource(before, after, resource, options));
  return diffs;
}

async function diffResource(before: BundleSide, after: BundleSide, resource: string, options: DiffOptions): Promise<ResourceDiff> {
  const partsBefore = before.files.filter((f) => resourceOfPath(f.path) === resource);
  const partsAfter = after.files.filter((f) => resourceOfPath(f.path) === resource);
  const countBefore = sum(partsBefore);
  const countAfter = sum(partsAfter);
  const diff: ResourceDiff = {
    resource,
    before: countBefore,
    after: countAfter,
    added: 0,
    removed: 0,
    changed: 0,
    unchanged: 0,
    addedKeys: [],
    removedKeys: [],
    changedRecords: [],
    changedFields: {},
  };
  const observe = options.observe?.resources.has(resource) ? options.observe : undefined;
  const sameParts = partsBefore.length === partsAfter.length && partsBefore.every((p, i) => p.sha256 === partsAfter[i]!.sha256);
  if (sameParts) {
    diff.unchanged = countAfter;
    if (observe) {
      for await (const { record } of parsedLines(before, partsBefore)) observe.record('before', resource, record);
      for await (const { record } of parsedLines(after, partsAfter)) observe.record('after', resource, record);
    }
    return diff;
  }

  const digestsBefore = new DigestSet(countBefore);
  // The old side is read twice; its line digests are kept in order so the second pass hashes nothing.
  const orderBefore = new Uint32Array(2 * countBefore);
  let lineBefore = 0;
  for await (const { line, entry, number } of numberedLines(before, partsBefore)) {
    const digest = hash('sha256', line, 'buffer');
    digestsBefore.add(digest);
    orderBefore[2 * lineBefore] = digest.readUInt32LE(0);
    orderBefore[2 * lineBefore + 1] = digest.readUInt32LE(4);
    lineBefore += 1;
    if (observe) observe.record('before', resource, parseLine(before.label, entry, line, number));
  }
  const digestsAfter = new DigestSet(countAfter);
  const pending = new PendingRecords();
  try {
    for await (const { line, entry, number } of numberedLines(after, partsAfter)) {
      const digest = hash('sha256', line, 'buffer');
      digestsAfter.add(digest);
      let record: unknown;
      if (observe) {
        record = parseLine(after.label, entry, line, number);
        observe.record('after', resource, record);
      }
      if (digestsBefore.has(digest)) {
        diff.unchanged += 1;
        continue;
      }
      record ??= parseLine(after.label, entry, line, number);
      await pending.add(recordKey(resource, record), line);
    }
    pending.index();
    lineBefore = 0;
    for await (const { line, entry, number } of numberedLines(before, partsBefore)) {
      const at = 2 * lineBefore++;
      if (digestsAfter.hasPair(orderBefore[at]!, orderBefore[at + 1]!)) continue;
      const record = parseLine(before.label, entry, line, number);
      const key = recordKey(resource, record);
      const match = pending.take(key);
      if (match === null) {
        diff.removed += 1;
        if (diff.removedKeys.length < options.limit) diff.removedKeys.push(key);
        continue;
      }
      diff.changed += 1;
      const fields = changedFields(record, JSON.parse(match));
      for (const field of fields) diff.changedFields[field] = (diff.changedFields[field] ?? 0) + 1;
      if (diff.changedRecords.length < options.limit) diff.changedRecords.push({ key, fields });
    }
    for (const key of pending.untaken()) {
      diff.added += 1;
      if (diff.addedKeys.length < options.limit) diff.addedKeys.push(key);
    }
  } finally {
    await pending.close();
  }
  return diff;
}

/** Top-level fields whose values differ (compared as canonical JSON), sorted. */
export function changedFields(before: unknown, after: unknown): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return names.filter((name) => !(name in a && name in b && canonicalJson(a[name]) === canonicalJson(b[name])));
}

function sum(parts: readonly ResourceEntry[]): number {
  return parts.reduce((total, part) => total + part.records, 0);
}

async function* numberedLines(
  side: BundleSide,
  parts: readonly ResourceEntry[],
): AsyncGenerator<{ line: Buffer; entry: ResourceEntry; number: number }> {
  for (const entry of parts) {
    let number = 0;
    for await (const line of readPartLines(side.label, side.directory, entry)) yield { line, entry, number: ++number };
  }
}

async function* parsedLines(side: BundleSide, parts: readonly ResourceEntry[]): AsyncGenerator<{ record: unknown }> {
  for await (const { line, entry, number } of numberedLines(side, parts)) yield { record: parseLine(side.label, entry, line, number) };
}

/**
 * A set of 64-bit digests in two typed arrays (open addressing, linear probing), sized from the
 * manifest's record count: 16 bytes a record, no object per record.
 */
class DigestSet {
  private readonly high: Uint32Array;
  private readonly low: Uint32Array;
  private readonly used: Uint8Array;
  private readonly mask: number;

  constructor(expected: number) {
    let capacity = 16;
    while (capacity < expected * 2) capacity *= 2;
    this.high = new Uint32Array(capacity);
    this.low = new Uint32Array(capacity);
    this.used = new Uint8Array(capacity);
    this.mask = capacity - 1;
  }

  add(digest: Buffer): void {
    const high = digest.readUInt32LE(0);
    const low = digest.readUInt32LE(4);
    let slot = low & this.mask;
    while (this.used[slot] === 1) {
      if (this.high[slot] === high && this.low[slot] === low) return;
      slot = (slot + 1) & this.mask;
    }
    this.used[slot] = 1;
    this.high[slot] = high;
    this.low[slot] = low;
  }

  has(digest: Buffer): boolean {
    return this.hasPair(digest.readUInt32LE(0), digest.readUInt32LE(4));
  }

  /** has() for a digest's first and second 32-bit words (little-endian), as kept in order lists. */
  hasPair(high: number, low: number): boolean {
    for (let slot = low & this.mask; this.used[slot] === 1; slot = (slot + 1) & this.mask) {
      if (this.high[slot] === high && this.low[slot] === low) return true;
    }
    return false;
  }
}

/**
 * The new side's records that differ from every old line, by key, in a temporary SQLite file (so
 * a new quarter, where most trades differ, costs disk, not memory). A key may repeat (two
 * positions with the same names): each old record takes one of them.
 */
class PendingRecords {
  private db: SqliteDatabase | null = null;
  private folder: string | null = null;
  private inTransaction = false;
  private insert: SqliteStatement<[string, string]> | null = null;
  private find: SqliteStatement<[string], { rowid: number; line: string }> | null = null;
  private mark: SqliteStatement<[number]> | null = null;

  async add(key: string, line: Buffer): Promise<void> {
    if (this.db === null) {
      this.folder = await mkdtemp(path.join(tmpdir(), 'pdsnap-diff-'));
      this.db = openSqlite(path.join(this.folder, 'pending.sqlite'));
      this.db.exec('PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-16000;');
      this.db.exec('CREATE TABLE pending (key TEXT NOT NULL, line TEXT NOT NULL, taken INTEGER NOT NULL DEFAULT 0)');
      this.insert = this.db.prepare('INSERT INTO pending (key, line) VALUES (?, ?)');
      this.db.exec('BEGIN');
      this.inTransaction = true;
    }
    this.insert!.run(key, line.toString('utf8'));
  }

  index(): void {
    if (this.db === null) return;
    this.db.exec('COMMIT');
    this.inTransaction = false;
    this.db.exec('CREATE INDEX pending_key ON pending (key)');
    this.find = this.db.prepare('SELECT rowid, line FROM pending WHERE key = ? AND taken = 0 LIMIT 1');
    this.mark = this.db.prepare('UPDATE pending SET taken = 1 WHERE rowid = ?');
  }

  /** The line of one untaken record with this key, now taken; null when there is none. */
  take(key: string): string | null {
    if (this.find === null || this.mark === null) return null;
    const row = this.find.get(key);
    if (row === undefined) return null;
    this.mark.run(row.rowid);
    return row.line;
  }

  *untaken(): Generator<string> {
    if (this.db === null) return;
    for (const row of this.db.prepare<[], { key: string }>('SELECT key FROM pending WHERE taken = 0 ORDER BY rowid').iterate())
      yield row.key;
  }

  async close(): Promise<void> {
    if (this.db !== null) {
      if (this.inTransaction) this.db.exec('ROLLBACK');
      this.db.close();
    }
    if (this.folder !== null) await rm(this.folder, { recursive: true, force: true });
  }
}
