import { FNV_OFFSET, FNV_PRIME } from '../../lib/fnv1a.js';
import { type ResourceEntry, resourceOfPath } from '../../model/manifest.js';
import type { FileLocator } from '../bundle-files.js';
import {
  type DiffSideName,
  InlineLeftovers,
  type LeftoverSink,
  partitionsFor,
  partitionsOf,
  readExtent,
  sharesOf,
} from './diff-leftovers.js';
import { type LineBatch, LineBatches, type PartToRead } from './diff-lines.js';
import { type LeftoverVerdicts, mergeVerdicts, type PairingSides, type PartialVerdicts, settlePartitions } from './diff-pairing.js';
import { type BatchSource, DiffThreads, diffThreadsWanted } from './diff-threads.js';
import { parseLine, readResourceRecords } from '../record-reader.js';

/**
 * The comparison engine: what changed, record by record, between two bundles. `diff` prints it;
 * drift (build, promote, validate, gate) judges its figures. One engine, so a check is never
 * written twice.
 *
 * A line's bytes are canonical JSON, so an unchanged record is byte-identical on both sides, and
 * two snapshots of a dataset list their records in the same order. So both sides are read once,
 * in step, and a line equal to its counterpart costs one byte comparison: no parse. Where they
 * disagree (a record added, removed or changed, a new investor's block of trades), lines are held
 * until the two sides meet again (`walk`). The lines left over are keyed and wait in a temporary
 * file, and are paired as sets at the end (diff-leftovers.ts, diff-pairing.ts): identical lines
 * that moved, then records with the same key, which are "changed". A line's key is read from its
 * bytes where they tell (line-keys.ts); a record is parsed only where they cannot. Memory holds a
 * few read buffers per side and at most DIVERGENCE_LIMIT lines or DIVERGENCE_BYTES, whatever the
 * size.
 *
 * Parts with the same digest on both sides hold the same lines: they count as unchanged and are
 * not read at all (unless someone observes their records). A large resource is read, its left-over
 * lines keyed and paired, on two worker threads (diff-threads.ts) while this thread walks.
 *
 * Counts are of lines as a multiset: before = unchanged + removed + changed, and after =
 * unchanged + added + changed, also when a line repeats. Which copy of a repeated line counts as
 * unchanged is not specified; the counts are the same whichever it is.
 */

/** One side of a comparison: a published bundle or a staged one (not yet in the store). */
export interface BundleSide {
  /** The snapshot id, or a label such as "candidate" for a staged bundle. */
  label: string;
  /** Where each file's bytes are (bundle-files.ts). */
  locate: FileLocator;
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
  /** Up to `limit` keys of each kind: removed and changed in the old side's order, added in the new side's. */
  addedKeys: string[];
  removedKeys: string[];
  changedRecords: ChangedSample[];
  /** Over every changed record: how many records changed each top-level field. */
  changedFields: Record<string, number>;
}

export interface DiffOptions {
  /** How many keys of each kind to name. */
  limit: number;
  /**
   * Every record of these resources, parsed, on both sides (for facts beyond the diff, such as
   * drift's watch). A line identical on both sides may be handed over as one object for both:
   * observers read records, never change them.
   */
  observe?: { resources: ReadonlySet<string>; record(side: 'before' | 'after', resource: string, record: unknown): void };
  /** Lines held while the sides disagree (DIVERGENCE_LIMIT, at least 2); tests set it small. */
  divergenceLimit?: number;
  /** Counts lines that could not be paired in step (for tests of the walk itself), and parts not read. */
  stats?: { leftOver: number; partsSkipped?: number };
}

export async function diffBundles(
  before: BundleSide,
  after: BundleSide,
  resources: readonly string[],
  options: DiffOptions,
): Promise<ResourceDiff[]> {
  const diffs: ResourceDiff[] = [];
  let threads: DiffThreads | null = null;
  try {
    for (const resource of resources) {
      diffs.push(
        await diffResource(before, after, resource, options, (bytes) => {
          if (!diffThreadsWanted(bytes)) return null;
          threads ??= new DiffThreads();
          return threads;
        }),
      );
    }
    return diffs;
  } finally {
    await (threads as DiffThreads | null)?.close();
  }
}

async function diffResource(
  before: BundleSide,
  after: BundleSide,
  resource: string,
  options: DiffOptions,
  threadsFor: (bytes: number) => DiffThreads | null,
): Promise<ResourceDiff> {
  const partsBefore = before.files.filter((f) => resourceOfPath(f.path) === resource);
  const partsAfter = after.files.filter((f) => resourceOfPath(f.path) === resource);
  const diff: ResourceDiff = {
    resource,
    before: sum(partsBefore),
    after: sum(partsAfter),
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
  const sameParts = partsBefore.length === partsAfter.length && partsBefore.every((part, i) => part.sha256 === partsAfter[i]!.sha256);
  if (sameParts && observe) {
    // The same bytes on both sides (an unchanged rebuild): nothing to pair, and the records are read
    // once, each handed to the observer as both sides'.
    for await (const record of readResourceRecords({ snapshotId: before.label, files: partsBefore }, before.locate, resource)) {
      observe.record('before', resource, record);
      observe.record('after', resource, record);
    }
    diff.unchanged = diff.after;
    return diff;
  }
  const shared = observe ? { before: new Set<number>(), after: new Set<number>() } : sharedParts(partsBefore, partsAfter);
  const toRead = {
    before: partsToRead(before, partsBefore, shared.before),
    after: partsToRead(after, partsAfter, shared.after),
  };
  const unread = [...shared.before].reduce((total, part) => total + partsBefore[part]!.records, 0);
  if (options.stats) options.stats.partsSkipped = (options.stats.partsSkipped ?? 0) + shared.before.size + shared.after.size;
  if (toRead.before.length === 0 && toRead.after.length === 0) {
    diff.unchanged = unread;
    return diff;
  }
  const bytes = bytesOf(toRead.before) + bytesOf(toRead.after);
  const threads = threadsFor(bytes);
  const source = (index: 0 | 1, side: BundleSide, parts: PartToRead[]): BatchSource =>
    threads?.reader(index, side.label, parts) ?? new LineBatches(side.label, parts);
  const pairing: PairingSides = {
    before: { label: before.label, parts: partsBefore },
    after: { label: after.label, parts: partsAfter },
  };
  const partitions = partitionsFor(bytes);
  const leftovers = threads?.leftovers(resource, partitions, pairing) ?? new InlineLeftovers(resource, partitions, pairing);
  const sides = {
    before: new SideLines(before, partsBefore, 'before', source(0, before, toRead.before), leftovers, resource, observe, options.stats),
    after: new SideLines(after, partsAfter, 'after', source(1, after, toRead.after), leftovers, resource, observe, options.stats),
  };
  try {
    diff.unchanged = unread + (await walk(sides.before, sides.after, Math.max(2, options.divergenceLimit ?? DIVERGENCE_LIMIT)));
    const verdicts = await settle(leftovers, sides.before.leftOver + sides.after.leftOver, options.limit, pairing, threads);
    if (verdicts !== null) {
      diff.unchanged += verdicts.moved;
      diff.changed = verdicts.changed;
      diff.changedRecords = verdicts.changedSample;
      diff.changedFields = verdicts.changedFields;
      diff.removed = verdicts.removed;
      diff.removedKeys = verdicts.removedKeys;
      diff.added = verdicts.added;
      diff.addedKeys = verdicts.addedKeys;
    }
    return diff;
  } finally {
    try {
      await leftovers.dispose();
    } finally {
      await Promise.all([sides.before.close(), sides.after.close()]);
    }
  }
}

/** The verdicts on the lines left over (null when none were), paired here or on the threads. */
async function settle(
  leftovers: LeftoverSink,
  lines: number,
  limit: number,
  sides: PairingSides,
  threads: DiffThreads | null,
): Promise<LeftoverVerdicts | null> {
  const partitions = partitionsOf(await leftovers.finish());
  if (lines === 0) return null;
  const partials: PartialVerdicts[] = threads
    ? await threads.settle(sharesOf(partitions, threads.lanes), limit, sides)
    : [settlePartitions(partitions, readExtent, limit, sides)];
  const read = partials.reduce((sum, partial) => sum + partial.lines, 0);
  if (read !== lines) throw new Error(`diff: ${lines} left-over lines were written to temporary files but ${read} read back`);
  return mergeVerdicts(partials, limit);
}

/**
 * Parts whose SHA-256 is also a part's of the same resource on the other side, paired one to one:
 * they hold the same lines, so they need not be read. Removing the same lines from both sides
 * changes no count, and leaves every other line where it was in its side's order.
 */
function sharedParts(before: readonly ResourceEntry[], after: readonly ResourceEntry[]): { before: Set<number>; after: Set<number> } {
  const shared = { before: new Set<number>(), after: new Set<number>() };
  const afterByDigest = new Map<string, number[]>();
  after.forEach((part, index) => {
    const list = afterByDigest.get(part.sha256);
    if (list) list.push(index);
    else afterByDigest.set(part.sha256, [index]);
  });
  before.forEach((part, index) => {
    const twin = afterByDigest.get(part.sha256)?.shift();
    if (twin === undefined || after[twin]!.bytes !== part.bytes || after[twin]!.records !== part.records) return;
    shared.before.add(index);
    shared.after.add(twin);
  });
  return shared;
}

function partsToRead(side: BundleSide, parts: readonly ResourceEntry[], skipped: ReadonlySet<number>): PartToRead[] {
  return parts.flatMap((entry, part) => (skipped.has(part) ? [] : [{ entry, part, file: side.locate(entry) }]));
}

/**
 * Lines in a stretch where the two sides disagree, held to find where they agree again: past either
 * limit, all of them are left for the set pairing (diff-leftovers.ts) and `skipBlock` takes over. A
 * block of some 20,000 added or removed trades (about 380 bytes each) is found by the first search,
 * a longer one by skipBlock. The bytes are kept low because lines held are lines not yet handed to
 * the threads that write them: with 32 MiB, a new quarter's 20 KB investors were held 1,600 at a
 * time while those threads waited, and the diff took 100 MB more memory.
 */
const DIVERGENCE_LIMIT = 100_000;
const DIVERGENCE_BYTES = 8 * 1024 * 1024;

/**
 * Walks both sides in step. Equal lines are unchanged and cost one byte comparison. Where the
 * sides disagree, lines are read from both in turn and held until one side's line turns up on the
 * other: the lines before it on each side are left over, and the walk goes on in step from
 * there. When that search gives up, a block longer than it can hold may have been added or removed:
 * `skipBlock` looks for it. Returns the number of lines found unchanged in step.
 */
async function walk(old: SideLines, now: SideLines, divergenceLimit: number): Promise<number> {
  let unchanged = 0;
  for (;;) {
    const a = old.peek() ?? (await old.next());
    const b = now.peek() ?? (await now.next());
    if (a === null && b === null) return unchanged;
    if (a !== null && b !== null && a.equals(b)) {
      unchanged += 1;
      // The same bytes: parsed once for an observer of both sides.
      const record = old.consume(a);
      now.consume(b, record);
      continue;
    }
    if (!(await diverge(old, now, divergenceLimit))) await skipBlock(old, now, divergenceLimit);
  }
}

/** Searches from both sides in turn for a line of the other; true when they are in step again (or read to the end). */
async function diverge(old: SideLines, now: SideLines, limit: number): Promise<boolean> {
  const held = { old: new HeldLines(), now: new HeldLines() };
  let oldDone = false;
  let nowDone = false;
  while (
    !(oldDone && nowDone) &&
    held.old.lines.length + held.now.lines.length < limit &&
    held.old.bytes + held.now.bytes < DIVERGENCE_BYTES
  ) {
    for (const [side, other, mine, theirs] of [
      [old, now, 'old', 'now'],
      [now, old, 'now', 'old'],
    ] as const) {
      if (mine === 'old' ? oldDone : nowDone) continue;
      const line = side.peek() ?? (await side.next());
      if (line === null) {
        if (mine === 'old') oldDone = true;
        else nowDone = true;
        continue;
      }
      side.take();
      const hash = side.hashOf(line);
      const at = held[theirs].find(line, hash);
      if (at !== -1) {
        // In step again from this line and its twin: what came before them is left over.
        for (const h of held[mine].lines) side.leaveOver(h);
        for (const h of held[theirs].lines.slice(0, at)) other.leaveOver(h);
        side.unread([line]);
        other.unread(held[theirs].lines.slice(at));
        return true;
      }
      held[mine].add(line, hash);
    }
  }
  for (const h of held.old.lines) old.leaveOver(h);
  for (const h of held.now.lines) now.leaveOver(h);
  return oldDone && nowDone;
}

/**
 * After a search that gave up. Reading both sides in turn meets again only after a block shorter
 * than half the limit: past that, both sides moved on by the same number of lines and the offset
 * stays. So one side's next lines are held (half the limit) while the other side alone is read, a
 * stretch that doubles each turn, until one of its lines is among those held; then the sides swap.
 * A block of n added or removed lines costs a few times n lines left over at most; the twins of
 * lines left over by a wrong guess pair later as lines that moved.
 */
async function skipBlock(old: SideLines, now: SideLines, limit: number): Promise<void> {
  for (let stretch = limit, turn = 0; ; stretch *= 2, turn += 1) {
    // First as if lines were removed (the old side read alone), then as if added.
    const [hold, scan] = turn % 2 === 0 ? [now, old] : [old, now];
    const held = new HeldLines();
    while (held.lines.length < limit / 2 && held.bytes < DIVERGENCE_BYTES / 2) {
      const line = hold.peek() ?? (await hold.next());
      if (line === null) break;
      hold.take();
      held.add(line, hold.hashOf(line));
    }
    if (held.lines.length === 0) return;
    for (let n = 0; n < stretch; n += 1) {
      const line = scan.peek() ?? (await scan.next());
      if (line === null) break;
      const at = held.find(line, scan.hashOf(line));
      if (at !== -1) {
        // In step again: this line (still the scanned side's next) and its twin.
        for (const h of held.lines.slice(0, at)) hold.leaveOver(h);
        hold.unread(held.lines.slice(at));
        return;
      }
      scan.take();
      scan.leaveOver(line);
    }
    hold.unread(held.lines);
    if ((scan.peek() ?? (await scan.next())) === null) return;
  }
}

/**
 * Lines taken during a search, in order, found again by a hash of their bytes and then by the
 * bytes themselves (which decide). Lines of a hash are chained through an array of indexes, so a
 * line held costs no object of its own; where many lines share a hash (look-alike lines, or lines
 * written to collide), they are also found by their whole bytes, so that a search stays linear.
 */
class HeldLines {
  readonly lines: DiffLine[] = [];
  bytes = 0;
  /** The last held line of each hash (LastOfHash); before each line, the one of the same hash held before it (-1: none), and how many there are up to it. */
  private readonly last = new LastOfHash();
  private previous: Int32Array = new Int32Array(1024);
  private count: Int32Array = new Int32Array(1024);
  /** Per hash held many times: its lines by their bytes (the first of each). */
  private readonly byBytes = new Map<number, Map<string, number>>();
  /**
   * From FILTER_FROM lines held, one bit per hash modulo HASH_BITS, set for every hash held: a line
   * whose bit is clear is not held, known without a map lookup. A search where the sides never meet
   * (a new quarter) looks up millions of lines that are not held; a short one needs no filter.
   */
  private seen: Int32Array | null = null;

  add(line: DiffLine, hash: number): void {
    const index = this.lines.length;
    this.lines.push(line);
    if (this.seen !== null) markSeen(this.seen, hash);
    else if (index + 1 === FILTER_FROM) {
      const seen = new Int32Array(HASH_BITS / 32);
      for (let at = 0; at < index; at += 1) markSeen(seen, this.lines[at]!.hash);
      markSeen(seen, hash);
      this.seen = seen;
    }
    this.bytes += line.end - line.start;
    if (index >= this.previous.length) {
      this.previous = grown(this.previous);
      this.count = grown(this.count);
    }
    const before = this.last.swap(hash, index);
    this.previous[index] = before;
    this.count[index] = before === -1 ? 1 : this.count[before]! + 1;
    if (before === -1) return;
    const byBytes = this.byBytes.get(hash);
    if (byBytes !== undefined) {
      const text = line.text();
      if (!byBytes.has(text)) byBytes.set(text, index);
    } else if (this.count[index]! > MANY_OF_A_HASH) {
      const map = new Map<string, number>();
      // From the last line to the first: each text keeps its first line.
      for (let at = index; at !== -1; at = this.previous[at]!) map.set(this.lines[at]!.text(), at);
      this.byBytes.set(hash, map);
    }
  }

  /** Where the first held line with these bytes is; -1 when none. */
  find(line: DiffLine, hash: number): number {
    if (this.seen !== null && !isSeen(this.seen, hash)) return -1;
    const last = this.last.get(hash);
    if (last === -1) return -1;
    const byBytes = this.byBytes.get(hash);
    if (byBytes !== undefined) return byBytes.get(line.text()) ?? -1;
    let found = -1;
    for (let at = last; at !== -1; at = this.previous[at]!) if (this.lines[at]!.equals(line)) found = at;
    return found;
  }
}

/**
 * A map from a line hash (never negative) to a line index, as an open-addressing table of typed
 * arrays: a search sets one entry for each line it holds, and a Map of numbers costs several times
 * as much. Starts small, as most searches hold a few lines.
 */
class LastOfHash {
  private hashes = new Int32Array(64);
  /** Per slot, the line; -1: empty. */
  private lines = new Int32Array(64).fill(-1);
  private entries = 0;

  /** The line of `hash`; -1 when none. */
  get(hash: number): number {
    const mask = this.lines.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const line = this.lines[slot]!;
      if (line === -1 || this.hashes[slot] === hash) return line;
    }
  }

  /** Sets the line of `hash`; returns the one it had (-1: none). */
  swap(hash: number, line: number): number {
    const mask = this.lines.length - 1;
    let slot = hash & mask;
    for (; this.lines[slot] !== -1; slot = (slot + 1) & mask) {
      if (this.hashes[slot] === hash) {
        const before = this.lines[slot]!;
        this.lines[slot] = line;
        return before;
      }
    }
    this.hashes[slot] = hash;
    this.lines[slot] = line;
    this.entries += 1;
    if (2 * this.entries > this.lines.length) this.grow();
    return -1;
  }

  private grow(): void {
    const { hashes, lines } = this;
    this.hashes = new Int32Array(2 * hashes.length);
    this.lines = new Int32Array(2 * lines.length).fill(-1);
    const mask = this.lines.length - 1;
    for (let old = 0; old < lines.length; old += 1) {
      if (lines[old] === -1) continue;
      let slot = hashes[old]! & mask;
      while (this.lines[slot] !== -1) slot = (slot + 1) & mask;
      this.hashes[slot] = hashes[old]!;
      this.lines[slot] = lines[old]!;
    }
  }
}

function grown(array: Int32Array): Int32Array {
  const larger = new Int32Array(2 * array.length);
  larger.set(array);
  return larger;
}

const MANY_OF_A_HASH = 16;
/** Bits of HeldLines' filter: 128 KiB, a few percent of them set by the most lines a search holds. */
const HASH_BITS = 1 << 20;
const FILTER_FROM = 4096;

function markSeen(seen: Int32Array, hash: number): void {
  seen[(hash >>> 5) & (HASH_BITS / 32 - 1)]! |= 1 << (hash & 31);
}

function isSeen(seen: Int32Array, hash: number): boolean {
  return (seen[(hash >>> 5) & (HASH_BITS / 32 - 1)]! & (1 << (hash & 31))) !== 0;
}

/** A batch in use: how many of its lines are still to be consumed or left over, and whether the side has read past it. */
class BatchUse {
  open: number;
  passed = false;

  constructor(readonly batch: LineBatch) {
    this.open = batch.ends.length;
  }
}

/** One line of a side, from a batch: its bytes, and where it stands. */
class DiffLine {
  readonly chunk: Buffer;
  readonly start: number;
  readonly end: number;
  readonly part: number;
  readonly number: number;
  /** A hash of the bytes, once a search has worked it out; -1 before (a hash is never negative). */
  hash = -1;

  constructor(
    readonly use: BatchUse,
    index: number,
    part: number,
    number: number,
  ) {
    const batch = use.batch;
    this.chunk = batch.data;
    this.start = index === 0 ? 0 : batch.ends[index - 1]! + 1;
    this.end = batch.ends[index]!;
    this.part = part;
    this.number = number;
  }

  get bytes(): Buffer {
    return this.chunk.subarray(this.start, this.end);
  }

  /** Whether two lines hold the same bytes. */
  equals(other: DiffLine): boolean {
    return (
      this.end - this.start === other.end - other.start &&
      this.chunk.compare(other.chunk, other.start, other.end, this.start, this.end) === 0
    );
  }

  /** The bytes as latin1 text, to find a line by its bytes in a map. */
  text(): string {
    return this.chunk.toString('latin1', this.start, this.end);
  }
}

/**
 * A hash of a line's bytes for finding it again: FNV-1a over its length and up to HASHED_BYTES at
 * its start, middle and end, so that a 20 KB line costs no more than a short one. Lines that
 * share a hash are told apart by their bytes (HeldLines).
 */
function lineHash(line: DiffLine): number {
  const { chunk, start, end } = line;
  let hash = Math.imul(FNV_OFFSET ^ (end - start), FNV_PRIME);
  if (end - start <= 3 * HASHED_BYTES) {
    for (let i = start; i < end; i += 1) hash = Math.imul(hash ^ chunk[i]!, FNV_PRIME);
    return hash & 0x7fffffff;
  }
  const middle = start + ((end - start - HASHED_BYTES) >> 1);
  for (let i = 0; i < HASHED_BYTES; i += 1) {
    hash = Math.imul(hash ^ chunk[start + i]!, FNV_PRIME);
    hash = Math.imul(hash ^ chunk[middle + i]!, FNV_PRIME);
    hash = Math.imul(hash ^ chunk[end - HASHED_BYTES + i]!, FNV_PRIME);
  }
  return hash & 0x7fffffff;
}

const HASHED_BYTES = 32;

/** One side's lines: the batches, lines given back after a search, and what happens to a line used up. */
class SideLines {
  private batch: BatchUse | null = null;
  /** The next line of the batch, and the batch's segment (the part) it is in. */
  private at = 0;
  private segment = 0;
  private ended = false;
  /** Lines read ahead and given back, the next one last. */
  private readonly back: DiffLine[] = [];
  private peeked: DiffLine | null = null;
  /** How many lines were left over. */
  leftOver = 0;

  constructor(
    private readonly side: BundleSide,
    private readonly parts: readonly ResourceEntry[],
    private readonly name: DiffSideName,
    private readonly source: BatchSource,
    private readonly leftovers: LeftoverSink,
    private readonly resource: string,
    private readonly observe: DiffOptions['observe'],
    private readonly stats: DiffOptions['stats'],
  ) {}

  /** The next line without reading; undefined when it must be read (`next()`). */
  peek(): DiffLine | null | undefined {
    if (this.back.length > 0) return this.back[this.back.length - 1]!;
    if (this.peeked !== null) return this.peeked;
    if (this.batch !== null && this.at < this.batch.batch.ends.length) {
      const segments = this.batch.batch.segments;
      while (this.segment + 1 < segments.length && segments[this.segment + 1]!.firstLine <= this.at) this.segment += 1;
      const { part, firstNumber, firstLine } = segments[this.segment]!;
      this.peeked = new DiffLine(this.batch, this.at, part, firstNumber + (this.at - firstLine));
      return this.peeked;
    }
    return this.ended ? null : undefined;
  }

  async next(): Promise<DiffLine | null> {
    for (;;) {
      const line = this.peek();
      if (line !== undefined) return line;
      // A new batch: first let the writers of left-over lines catch up, so that memory stays bounded.
      await this.leftovers.drain();
      if (this.batch !== null) {
        this.batch.passed = true;
        this.releaseIfDone(this.batch);
      }
      const batch = await this.source.next();
      this.batch = batch === null ? null : new BatchUse(batch);
      this.at = 0;
      this.segment = 0;
      if (batch === null) this.ended = true;
    }
  }

  take(): void {
    if (this.back.length > 0) this.back.pop();
    else {
      this.peeked = null;
      this.at += 1;
    }
  }

  unread(lines: readonly DiffLine[]): void {
    for (let i = lines.length - 1; i >= 0; i -= 1) this.back.push(lines[i]!);
  }

  /** The line was paired in step: it is unchanged. Returns the record handed to the observer, if any. */
  consume(line: DiffLine, parsed?: unknown): unknown {
    this.take();
    if (!this.observe) {
      this.done(line);
      return undefined;
    }
    const record = parsed ?? this.record(line);
    this.observe.record(this.name, this.resource, record);
    this.done(line);
    return record;
  }

  /** The line was taken during a search and found no twin in step. */
  leaveOver(line: DiffLine): void {
    if (this.observe) this.observe.record(this.name, this.resource, this.record(line));
    if (this.stats) this.stats.leftOver += 1;
    this.leftOver += 1;
    this.leftovers.add(this.name, this.leftOver, line.chunk, line.start, line.end, line.part, line.number);
    this.done(line);
  }

  /**
   * A line consumed or left over. Once every line of a batch is, and the side has read past it,
   * nothing reads its buffer again: it goes back to the thread that read it, to be read into again
   * (fresh buffers for each read, freed whenever the garbage collector gets to them, kept about a
   * hundred megabytes more in use).
   */
  private done(line: DiffLine): void {
    line.use.open -= 1;
    this.releaseIfDone(line.use);
  }

  private releaseIfDone(use: BatchUse): void {
    if (use.open !== 0 || !use.passed) return;
    this.leftovers.release(use.batch.data);
    this.source.recycle(use.batch);
  }

  /** The line's hash for a search, worked out once. */
  hashOf(line: DiffLine): number {
    if (line.hash === -1) line.hash = lineHash(line);
    return line.hash;
  }

  close(): Promise<void> {
    return this.source.close();
  }

  /** Parsed when needed and not kept: a search may hold many lines. */
  private record(line: DiffLine): unknown {
    return parseLine(this.side.label, this.parts[line.part]!, line.bytes, line.number);
  }
}

function sum(parts: readonly ResourceEntry[]): number {
  return parts.reduce((total, part) => total + part.records, 0);
}

function bytesOf(parts: readonly PartToRead[]): number {
  return parts.reduce((total, part) => total + part.entry.bytes, 0);
}
