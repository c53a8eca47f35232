import { openSqlite, type SqliteDatabase, type SqliteStatement } from '../lib/sqlite.js';

export type DiffSideName = 'before' | 'after';

/** What the left-over lines turned out to be. Samples hold the first `limit`, in each side's line order. */
export interface LeftoverVerdicts {
  /** Identical lines that only moved: unchanged. */
  moved: number;
  changed: number;
  removed: number;
  added: number;
  changedSample: { key: string; fields: string[] }[];
  removedKeys: string[];
  addedKeys: string[];
  /** Over every changed pair: how many changed each top-level field. */
  changedFields: Record<string, number>;
}

/**
 * The lines a diff could not pair in step, kept in a temporary SQLite file (so a new quarter,
 * where every trade differs, costs disk, not memory), then paired in one sorted pass by key: within
 * a key, identical lines first (each pairs with one identical line at most), then the k-th
 * remaining old line with the k-th remaining new one ("changed"); the rest are removed or added.
 * One sort instead of a lookup per line: SQLite's sorter reads and writes its temporary files in
 * sequence. A key's lines are held together in memory; keys repeat only for look-alike records.
 */
export class DiffLeftovers {
  private db: SqliteDatabase | null = null;
  private insert: SqliteStatement<[number, number, string, Buffer]> | null = null;
  private readonly seq = { before: 0, after: 0 };
  private reading: SqliteStatement<[], LeftoverRow> | null = null;

  add(side: DiffSideName, key: string, line: Buffer): void {
    if (this.insert === null) this.open();
    this.seq[side] += 1;
    this.insert!.run(side === 'before' ? 0 : 1, this.seq[side], key, line);
  }

  /** Pairs what was added; `fieldsOf` names the fields in which a changed pair differs. Null when nothing was added. */
  settle(limit: number, fieldsOf: (before: Buffer, after: Buffer) => string[]): LeftoverVerdicts | null {
    const db = this.db;
    if (db === null) return null;
    db.exec('COMMIT');
    const verdicts: LeftoverVerdicts = {
      moved: 0,
      changed: 0,
      removed: 0,
      added: 0,
      changedSample: [],
      removedKeys: [],
      addedKeys: [],
      changedFields: {},
    };
    const samples = {
      changed: new FirstBySeq<{ key: string; fields: string[] }>(limit),
      removed: new FirstBySeq<string>(limit),
      added: new FirstBySeq<string>(limit),
    };
    // Held by the object while it iterates: node:sqlite before 22.15 could collect a statement that
    // only its iterator used and stop without an error. The row count checks that nothing was lost.
    this.reading = db.prepare<[], LeftoverRow>('SELECT side, seq, key, line FROM leftover ORDER BY key, side, seq');
    let read = 0;
    let group: { key: string; before: Held[]; after: Held[] } | null = null;
    const settleGroup = () => {
      if (group === null) return;
      const { before, after } = pairIdentical(group.before, group.after);
      verdicts.moved += group.before.length - before.length;
      const pairs = Math.min(before.length, after.length);
      for (let i = 0; i < pairs; i += 1) {
        const fields = fieldsOf(before[i]!.line, after[i]!.line);
        verdicts.changed += 1;
        for (const field of fields) verdicts.changedFields[field] = (verdicts.changedFields[field] ?? 0) + 1;
        samples.changed.offer(before[i]!.seq, { key: group.key, fields });
      }
      for (const held of before.slice(pairs)) samples.removed.offer(held.seq, group.key);
      for (const held of after.slice(pairs)) samples.added.offer(held.seq, group.key);
      verdicts.removed += before.length - pairs;
      verdicts.added += after.length - pairs;
    };
    for (const row of this.reading.iterate()) {
      read += 1;
      if (group === null || group.key !== row.key) {
        settleGroup();
        group = { key: row.key, before: [], after: [] };
      }
      const held = { seq: row.seq, line: asBuffer(row.line) };
      if (row.side === 0) group.before.push(held);
      else group.after.push(held);
    }
    settleGroup();
    const written = this.seq.before + this.seq.after;
    if (read !== written) throw new Error(`diff: ${written} left-over lines were written to a temporary database but ${read} read back`);
    verdicts.changedSample = samples.changed.values();
    verdicts.removedKeys = samples.removed.values();
    verdicts.addedKeys = samples.added.values();
    return verdicts;
  }

  close(): void {
    this.reading = null;
    this.db?.close();
    this.db = null;
  }

  /**
   * SQLite's private temporary database (an empty file name): created in the first writable of
   * SQLITE_TMPDIR, TMPDIR, /var/tmp, /usr/tmp, /tmp, and unlinked as soon as it is open, so a diff
   * that is killed leaves no file behind.
   */
  private open(): void {
    const db = openSqlite('');
    this.db = db;
    // MEMORY, not OFF: the drivers' defensive mode ignores journal_mode OFF.
    db.exec('PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA cache_size=-16000;');
    db.exec('CREATE TABLE leftover (side INTEGER NOT NULL, seq INTEGER NOT NULL, key TEXT NOT NULL, line BLOB NOT NULL)');
    this.insert = db.prepare('INSERT INTO leftover (side, seq, key, line) VALUES (?, ?, ?, ?)');
    db.exec('BEGIN');
  }
}

interface LeftoverRow {
  side: number;
  seq: number;
  key: string;
  line: Uint8Array;
}

interface Held {
  seq: number;
  line: Buffer;
}

/** Takes out the lines of one key that have an identical twin on the other side, one twin each. */
function pairIdentical(before: Held[], after: Held[]): { before: Held[]; after: Held[] } {
  // Almost every key has one line a side.
  if (before.length === 1 && after.length === 1)
    return before[0]!.line.equals(after[0]!.line) ? { before: [], after: [] } : { before, after };
  const twins = new Map<string, Held[]>();
  for (const held of after) {
    const text = held.line.toString('latin1');
    const list = twins.get(text);
    if (list) list.push(held);
    else twins.set(text, [held]);
  }
  // Each list of twins is used up from its front, in line order.
  const used = new Map<Held[], number>();
  const taken = new Set<Held>();
  const restBefore: Held[] = [];
  for (const held of before) {
    const list = twins.get(held.line.toString('latin1'));
    const next = list ? (used.get(list) ?? 0) : 0;
    if (list && next < list.length) {
      taken.add(list[next]!);
      used.set(list, next + 1);
    } else restBefore.push(held);
  }
  return { before: restBefore, after: after.filter((held) => !taken.has(held)) };
}

/** The `limit` values with the smallest line numbers, whatever order they are offered in. */
class FirstBySeq<T> {
  private readonly kept: { seq: number; value: T }[] = [];

  constructor(private readonly limit: number) {}

  offer(seq: number, value: T): void {
    if (this.limit <= 0) return;
    if (this.kept.length === this.limit && seq > this.kept[this.kept.length - 1]!.seq) return;
    let at = this.kept.length;
    while (at > 0 && this.kept[at - 1]!.seq > seq) at -= 1;
    this.kept.splice(at, 0, { seq, value });
    if (this.kept.length > this.limit) this.kept.pop();
  }

  values(): T[] {
    return this.kept.map((entry) => entry.value);
  }
}

/** A BLOB as a Buffer without copying it (node:sqlite gives a Uint8Array, better-sqlite3 a Buffer). */
function asBuffer(blob: Uint8Array): Buffer {
  return Buffer.isBuffer(blob) ? blob : Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
}
