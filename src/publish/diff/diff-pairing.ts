import type { ResourceEntry } from '../../model/manifest.js';
import { changedFieldsOfLines, type LineSpan } from './changed-fields.js';
import { parseLine } from '../record-reader.js';

/**
 * How the lines a diff left over pair, key by key (diff-leftovers.ts keeps them): within a key,
 * identical lines first (each pairs with one identical line at most), then the k-th remaining old
 * line with the k-th remaining new one ("changed"); the rest are removed or added. Partitions are
 * independent (every line of a key is in one), so they may be settled on several threads and the
 * figures merged: the same verdicts whatever the split.
 */

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
  /** Over every changed pair: how many changed each top-level field, in the order of their first change by key. */
  changedFields: Record<string, number>;
}

/** Each side's label and parts of the resource, to name a line that is not JSON. */
export interface PairingSides {
  before: { label: string; parts: readonly ResourceEntry[] };
  after: { label: string; parts: readonly ResourceEntry[] };
}

/** The left-over lines of a partition: extents of the temporary files of one or more writers (diff-leftovers.ts). */
export interface PartitionLines {
  sources: { fd: number; extents: Extent[] }[];
  lines: number;
}

export interface Extent {
  position: number;
  bytes: number;
}

/** Reads an extent of the temporary file `fd` into `into` at `at`. */
export type ExtentReader = (fd: number, extent: Extent, into: Buffer, at: number) => void;

/** The verdicts of some partitions, to be merged (mergeVerdicts): plain data, for a message between threads. */
export interface PartialVerdicts {
  lines: number;
  moved: number;
  changed: number;
  removed: number;
  added: number;
  changedSample: { seq: number; key: string; fields: string[] }[];
  removedKeys: { seq: number; key: string }[];
  addedKeys: { seq: number; key: string }[];
  fieldCounts: [string, number][];
  firstChange: [string, FirstChange][];
}

/** Where a field first changed, in key order: the key (its bytes as latin1 text), the pair within the key, the field's place in it. */
interface FirstChange {
  key: string;
  pair: number;
  place: number;
}

/**
 * A line's header in the spill file: side (1 byte), then 4 bytes each: seq, part, line number, key
 * hash, key bytes, line bytes, span bytes. The key, the line and its spans (json-members.ts; an old
 * line's members, 0 bytes when not written) follow.
 */
export const SEQ = 1;
export const PART = 5;
export const NUMBER = 9;
export const HASH = 13;
export const KEY_BYTES = 17;
export const LINE_BYTES = 21;
export const SPAN_BYTES = 25;
export const HEADER_BYTES = 29;

export function writeU32(buffer: Buffer, at: number, value: number): void {
  buffer[at] = value;
  buffer[at + 1] = value >>> 8;
  buffer[at + 2] = value >>> 16;
  buffer[at + 3] = value >>> 24;
}

function readU32(buffer: Buffer, at: number): number {
  return (buffer[at]! | (buffer[at + 1]! << 8) | (buffer[at + 2]! << 16)) + buffer[at + 3]! * 0x1000000;
}

/** Settles the given partitions, one at a time (one partition's lines in memory at once). */
export function settlePartitions(
  partitions: readonly PartitionLines[],
  read: ExtentReader,
  limit: number,
  sides: PairingSides,
): PartialVerdicts {
  const fieldsOf = (old: LeftoverLine, now: LeftoverLine) =>
    changedFieldsOfLines(old, now, () => [parseLeftover(sides.before, old), parseLeftover(sides.after, now)]);
  const pairing = new Pairing(limit, fieldsOf);
  let lines = 0;
  // One set of buffers for every partition: fresh ones each time cost the kernel a page fault per page.
  const scratch = new Scratch();
  for (const partition of partitions) lines += groupByKey(readBack(partition, read, scratch), partition.lines, pairing, scratch);
  return pairing.partial(lines);
}

/** The verdicts of all partitions from those of each share. */
export function mergeVerdicts(partials: readonly PartialVerdicts[], limit: number): LeftoverVerdicts {
  const sum = (pick: (partial: PartialVerdicts) => number) => partials.reduce((total, partial) => total + pick(partial), 0);
  const first = <T extends { seq: number }>(pick: (partial: PartialVerdicts) => T[]) =>
    partials
      .flatMap(pick)
      .sort((a, b) => a.seq - b.seq)
      .slice(0, Math.max(0, limit));
  const fieldCounts = new Map<string, number>();
  const firstChange = new Map<string, FirstChange>();
  for (const partial of partials) {
    for (const [field, count] of partial.fieldCounts) fieldCounts.set(field, (fieldCounts.get(field) ?? 0) + count);
    for (const [field, change] of partial.firstChange) {
      const known = firstChange.get(field);
      if (known === undefined || compareFirstChange(change, known) < 0) firstChange.set(field, change);
    }
  }
  const changedFields: Record<string, number> = {};
  for (const [field] of [...firstChange.entries()].sort(([, a], [, b]) => compareFirstChange(a, b))) {
    changedFields[field] = fieldCounts.get(field)!;
  }
  return {
    moved: sum((p) => p.moved),
    changed: sum((p) => p.changed),
    removed: sum((p) => p.removed),
    added: sum((p) => p.added),
    changedSample: first((p) => p.changedSample).map(({ key, fields }) => ({ key: keyText(key), fields })),
    removedKeys: first((p) => p.removedKeys).map(({ key }) => keyText(key)),
    addedKeys: first((p) => p.addedKeys).map(({ key }) => keyText(key)),
    changedFields,
  };
}

function compareFirstChange(a: FirstChange, b: FirstChange): number {
  return a.key !== b.key ? (a.key < b.key ? -1 : 1) : a.pair !== b.pair ? a.pair - b.pair : a.place - b.place;
}

/** A key as it was written, from its bytes held as latin1 text. */
function keyText(latin1: string): string {
  return Buffer.from(latin1, 'latin1').toString('utf8');
}

/** A left-over line as it is read back: `buffer[start, end)`, from line `number` of the side's part `part`. */
interface LeftoverLine extends LineSpan {
  part: number;
  number: number;
}

interface Held extends LeftoverLine {
  seq: number;
}

/** One key's lines of both sides, each side in line order. The key is read from `buffer` only when needed. */
interface Group {
  buffer: Buffer;
  keyStart: number;
  keyEnd: number;
  before: Held[];
  after: Held[];
}

function parseLeftover(side: PairingSides['before'], line: LeftoverLine): unknown {
  return parseLine(side.label, side.parts[line.part]!, line.buffer.subarray(line.start, line.end), line.number);
}

/** A partition's lines, each writer's in the order it wrote them. */
function readBack(partition: PartitionLines, read: ExtentReader, scratch: Scratch): Buffer {
  let total = 0;
  for (const source of partition.sources) for (const extent of source.extents) total += extent.bytes;
  const buffer = scratch.bytes(total);
  let at = 0;
  for (const source of partition.sources) {
    for (const extent of source.extents) {
      read(source.fd, extent, buffer, at);
      at += extent.bytes;
    }
  }
  return buffer;
}

/**
 * Hands each key's lines of a partition to `pairing`, group by group; returns how many lines there
 * were. Lines are chained per key through typed arrays, so grouping allocates nothing per line;
 * keys are told apart by their hash and then by their bytes. A key of one line a side at most
 * (almost every key) is settled without a group.
 */
function groupByKey(buffer: Buffer, lines: number, pairing: Pairing, scratch: Scratch): number {
  const { starts, nextInGroup, groupFirst, groupLast } = scratch.lines(lines);
  nextInGroup.fill(-1, 0, lines);
  let groups = 0;
  // An open-addressing table from key to group (by hash, then bytes): a Map of millions of entries costs several times more.
  const mask = tableSize(lines) - 1;
  const { table, tableHash } = scratch.table(mask + 1);
  table.fill(-1, 0, mask + 1);
  let count = 0;
  for (let at = 0; at < buffer.length; count += 1) {
    if (count >= lines) throw new Error('diff: a temporary file of left-over lines holds more lines than were written to it');
    starts[count] = at;
    const hash = buffer[at + HASH]! | (buffer[at + HASH + 1]! << 8) | (buffer[at + HASH + 2]! << 16) | (buffer[at + HASH + 3]! << 24);
    const keyStart = at + HEADER_BYTES;
    const keyEnd = keyStart + readU32(buffer, at + KEY_BYTES);
    let slot = hash & mask;
    let group = -1;
    for (;;) {
      const candidate = table[slot]!;
      if (candidate === -1) break;
      if (tableHash[slot] === hash) {
        const other = starts[groupFirst[candidate]!]!;
        const otherKey = other + HEADER_BYTES;
        if (sameRange(buffer, keyStart, keyEnd, otherKey, otherKey + readU32(buffer, other + KEY_BYTES))) {
          group = candidate;
          break;
        }
      }
      slot = (slot + 1) & mask;
    }
    if (group === -1) {
      group = groups;
      groups += 1;
      groupFirst[group] = count;
      groupLast[group] = count;
      table[slot] = group;
      tableHash[slot] = hash;
    } else {
      nextInGroup[groupLast[group]!] = count;
      groupLast[group] = count;
    }
    at = keyEnd + readU32(buffer, at + LINE_BYTES) + readU32(buffer, at + SPAN_BYTES);
  }
  for (let group = 0; group < groups; group += 1) {
    const one = groupFirst[group]!;
    const two = nextInGroup[one]!;
    if (two === -1) {
      const at = starts[one]!;
      if (buffer[at] === 0) pairing.settleOne(buffer, at, -1);
      else pairing.settleOne(buffer, -1, at);
      continue;
    }
    if (nextInGroup[two] === -1 && buffer[starts[one]!] !== buffer[starts[two]!]) {
      const [before, after] = buffer[starts[one]!] === 0 ? [starts[one]!, starts[two]!] : [starts[two]!, starts[one]!];
      pairing.settleOne(buffer, before, after);
      continue;
    }
    const first = starts[one]!;
    const keyStart = first + HEADER_BYTES;
    const settled: Group = { buffer, keyStart, keyEnd: keyStart + readU32(buffer, first + KEY_BYTES), before: [], after: [] };
    for (let line = one; line !== -1; line = nextInGroup[line]!) {
      const at = starts[line]!;
      const held = heldAt(buffer, at);
      if (buffer[at] === 0) settled.before.push(held);
      else settled.after.push(held);
    }
    // Lines of a key written by two writers come in writer order; the pairing goes by line order.
    if (settled.before.length > 1) settled.before.sort(bySeq);
    if (settled.after.length > 1) settled.after.sort(bySeq);
    pairing.settle(settled);
  }
  return count;
}

/** Buffers that grow to the largest partition and are used again for the next. */
class Scratch {
  private buffer = Buffer.alloc(0);
  private perLine = {
    starts: new Int32Array(0),
    nextInGroup: new Int32Array(0),
    groupFirst: new Int32Array(0),
    groupLast: new Int32Array(0),
  };
  private slots = { table: new Int32Array(0), tableHash: new Int32Array(0) };

  bytes(length: number): Buffer {
    if (this.buffer.length < length) this.buffer = Buffer.allocUnsafeSlow(Math.max(length, 2 * this.buffer.length));
    return this.buffer.subarray(0, length);
  }

  lines(count: number): Scratch['perLine'] {
    if (this.perLine.starts.length < count) {
      const size = Math.max(count, 2 * this.perLine.starts.length);
      this.perLine = {
        starts: new Int32Array(size),
        nextInGroup: new Int32Array(size),
        groupFirst: new Int32Array(size),
        groupLast: new Int32Array(size),
      };
    }
    return this.perLine;
  }

  table(size: number): Scratch['slots'] {
    if (this.slots.table.length < size) this.slots = { table: new Int32Array(size), tableHash: new Int32Array(size) };
    return this.slots;
  }
}

/** A power of two at least twice `entries`. */
function tableSize(entries: number): number {
  let size = 16;
  while (size < 2 * entries) size *= 2;
  return size;
}

/** Whether `buffer[aStart, aEnd)` and `buffer[bStart, bEnd)` hold the same bytes. */
function sameRange(buffer: Buffer, aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let i = 0; i < aEnd - aStart; i += 1) if (buffer[aStart + i] !== buffer[bStart + i]) return false;
  return true;
}

/** The line of the record that starts at `at`. */
function heldAt(buffer: Buffer, at: number): Held {
  const start = at + HEADER_BYTES + readU32(buffer, at + KEY_BYTES);
  return {
    seq: readU32(buffer, at + SEQ),
    buffer,
    start,
    end: start + readU32(buffer, at + LINE_BYTES),
    spanBytes: readU32(buffer, at + SPAN_BYTES),
    part: readU32(buffer, at + PART),
    number: readU32(buffer, at + NUMBER),
  };
}

function bySeq(a: Held, b: Held): number {
  return a.seq - b.seq;
}

/** The verdicts, group by group. */
class Pairing {
  private readonly counts = { moved: 0, changed: 0, removed: 0, added: 0 };
  private readonly fieldCounts = new Map<string, number>();
  private readonly firstChange = new Map<string, FirstChange>();
  /** The greatest key in firstChange, as bytes: a later key moves no field's first change that it holds. */
  private greatestFirst: Buffer | null = null;
  private readonly samples: {
    changed: FirstBySeq<{ key: string; fields: string[] }>;
    removed: FirstBySeq<string>;
    added: FirstBySeq<string>;
  };

  constructor(
    limit: number,
    private readonly fieldsOf: (before: LeftoverLine, after: LeftoverLine) => string[],
  ) {
    this.samples = { changed: new FirstBySeq(limit), removed: new FirstBySeq(limit), added: new FirstBySeq(limit) };
  }

  /** A key of at most one line a side, given by where their records start in `buffer` (-1: none). */
  settleOne(buffer: Buffer, before: number, after: number): void {
    const record = before === -1 ? after : before;
    const keyStart = record + HEADER_BYTES;
    const keyEnd = keyStart + readU32(buffer, record + KEY_BYTES);
    if (before !== -1 && after !== -1) {
      const old = heldAt(buffer, before);
      const now = heldAt(buffer, after);
      if (sameBytes(old, now)) this.counts.moved += 1;
      else this.settleChanged({ buffer, keyStart, keyEnd, before: [old], after: [now] }, [old], [now], 1);
      return;
    }
    const seq = readU32(buffer, record + SEQ);
    if (before !== -1) {
      this.counts.removed += 1;
      if (this.samples.removed.wants(seq)) this.samples.removed.offer(seq, buffer.toString('latin1', keyStart, keyEnd));
    } else {
      this.counts.added += 1;
      if (this.samples.added.wants(seq)) this.samples.added.offer(seq, buffer.toString('latin1', keyStart, keyEnd));
    }
  }

  settle(group: Group): void {
    const { before, after } = pairIdentical(group.before, group.after);
    this.counts.moved += group.before.length - before.length;
    const pairs = Math.min(before.length, after.length);
    if (pairs > 0) this.settleChanged(group, before, after, pairs);
    for (let i = pairs; i < before.length; i += 1) {
      if (this.samples.removed.wants(before[i]!.seq)) this.samples.removed.offer(before[i]!.seq, keyOf(group));
    }
    for (let i = pairs; i < after.length; i += 1) {
      if (this.samples.added.wants(after[i]!.seq)) this.samples.added.offer(after[i]!.seq, keyOf(group));
    }
    this.counts.removed += before.length - pairs;
    this.counts.added += after.length - pairs;
  }

  partial(lines: number): PartialVerdicts {
    return {
      lines,
      ...this.counts,
      changedSample: this.samples.changed.entries().map(({ seq, value }) => ({ seq, key: value.key, fields: value.fields })),
      removedKeys: this.samples.removed.entries().map(({ seq, value }) => ({ seq, key: value })),
      addedKeys: this.samples.added.entries().map(({ seq, value }) => ({ seq, key: value })),
      fieldCounts: [...this.fieldCounts.entries()],
      firstChange: [...this.firstChange.entries()],
    };
  }

  private settleChanged(group: Group, before: Held[], after: Held[], pairs: number): void {
    // Whether this key comes before a key of firstChange: only then can it move a field's first change.
    const early =
      this.greatestFirst === null ||
      group.buffer.compare(this.greatestFirst, 0, this.greatestFirst.length, group.keyStart, group.keyEnd) < 0;
    let key: string | null = null;
    for (let i = 0; i < pairs; i += 1) {
      const fields = this.fieldsOf(before[i]!, after[i]!);
      this.counts.changed += 1;
      for (let place = 0; place < fields.length; place += 1) {
        const field = fields[place]!;
        this.fieldCounts.set(field, (this.fieldCounts.get(field) ?? 0) + 1);
        const first = this.firstChange.get(field);
        if (first !== undefined && !early) continue;
        key ??= keyOf(group);
        if (first === undefined || key < first.key) this.noteFirstChange(field, { key, pair: i, place });
      }
      if (this.samples.changed.wants(before[i]!.seq)) {
        key ??= keyOf(group);
        this.samples.changed.offer(before[i]!.seq, { key, fields });
      }
    }
  }

  private noteFirstChange(field: string, first: FirstChange): void {
    this.firstChange.set(field, first);
    let greatest = '';
    for (const { key } of this.firstChange.values()) if (key > greatest) greatest = key;
    this.greatestFirst = Buffer.from(greatest, 'latin1');
  }
}

/** A group's key bytes as latin1 text: comparing two of them compares their bytes. */
function keyOf(group: Group): string {
  return group.buffer.toString('latin1', group.keyStart, group.keyEnd);
}

function sameBytes(a: LeftoverLine, b: LeftoverLine): boolean {
  return a.end - a.start === b.end - b.start && a.buffer.compare(b.buffer, b.start, b.end, a.start, a.end) === 0;
}

/** Takes out the lines of one key that have an identical twin on the other side, one twin each. */
function pairIdentical(before: Held[], after: Held[]): { before: Held[]; after: Held[] } {
  // Almost every key has one line a side, or one side only.
  if (before.length === 0 || after.length === 0) return { before, after };
  if (before.length === 1 && after.length === 1) return sameBytes(before[0]!, after[0]!) ? { before: [], after: [] } : { before, after };
  const text = (held: Held) => held.buffer.toString('latin1', held.start, held.end);
  const twins = new Map<string, Held[]>();
  for (const held of after) {
    const list = twins.get(text(held));
    if (list) list.push(held);
    else twins.set(text(held), [held]);
  }
  // Each list of twins is used up from its front, in line order.
  const used = new Map<Held[], number>();
  const taken = new Set<Held>();
  const restBefore: Held[] = [];
  for (const held of before) {
    const list = twins.get(text(held));
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

  /** Whether a value of this line number would be kept (so that it is worth making). */
  wants(seq: number): boolean {
    return this.limit > 0 && (this.kept.length < this.limit || seq < this.kept[this.kept.length - 1]!.seq);
  }

  offer(seq: number, value: T): void {
    if (!this.wants(seq)) return;
    let at = this.kept.length;
    while (at > 0 && this.kept[at - 1]!.seq > seq) at -= 1;
    this.kept.splice(at, 0, { seq, value });
    if (this.kept.length > this.limit) this.kept.pop();
  }

  entries(): { seq: number; value: T }[] {
    return this.kept;
  }
}
