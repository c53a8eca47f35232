import { hash } from 'node:crypto';
import { type ResourceEntry, resourceOfPath } from '../model/manifest.js';
import { recordKey } from '../model/record-keys.js';
import { canonicalJson } from './canonical-json.js';
import { DiffLeftovers, type DiffSideName } from './diff-leftovers.js';
import type { FileLocator } from './bundle-files.js';
import { type BundleLine, LineCursor } from './line-cursor.js';
import { parseLine } from './record-reader.js';

/**
 * The comparison engine: what changed, record by record, between two bundles. `diff` prints it;
 * drift (build, promote, validate, gate) judges its figures. One engine, so a check is never
 * written twice.
 *
 * A line's bytes are canonical JSON, so an unchanged record is byte-identical on both sides, and
 * two snapshots of a dataset list their records in the same order. So both sides are read once,
 * in step, and a line equal to its counterpart costs one byte comparison: no hash, no parse. Where
 * they disagree (a record added, removed or changed, a new investor's block of trades), lines are
 * hashed until the two sides meet again (`walk`). The lines left over wait in SQLite's private
 * temporary database and are paired as sets at the end (diff-leftovers.ts): identical lines that
 * moved, then records with the same key, which are "changed". Only left-over lines are parsed.
 * Memory holds a read buffer per side and at most DIVERGENCE_LIMIT lines or DIVERGENCE_BYTES,
 * whatever the size.
 * Parts with the same digest on both sides are not read at all (unless someone observes their
 * records).
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
  /** Counts lines that could not be paired in step (for tests of the walk itself). */
  stats?: { leftOver: number };
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
  const sides = {
    before: new SideLines(before, partsBefore, 'before', resource, observe, options.stats),
    after: new SideLines(after, partsAfter, 'after', resource, observe, options.stats),
  };
  const sameParts = partsBefore.length === partsAfter.length && partsBefore.every((p, i) => p.sha256 === partsAfter[i]!.sha256);
  const leftovers = new DiffLeftovers();
  try {
    if (sameParts) {
      diff.unchanged = diff.after;
      // Nothing to compare; the records are read only for whoever observes them.
      if (observe) {
        for (const side of [sides.before, sides.after]) {
          for (let line = await side.next(); line !== null; line = await side.next()) side.consume(line);
        }
      }
      return diff;
    }
    diff.unchanged = await walk(sides.before, sides.after, leftovers, Math.max(2, options.divergenceLimit ?? DIVERGENCE_LIMIT));
    const verdicts = leftovers.settle(options.limit, (old, now) =>
      changedFields(JSON.parse(old.toString('utf8')), JSON.parse(now.toString('utf8'))),
    );
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
      leftovers.close();
    } finally {
      await Promise.all([sides.before.close(), sides.after.close()]);
    }
  }
}

/**
 * Lines in a stretch where the two sides disagree, held to find where they agree again: past either
 * limit, all of them are left for the set pairing (diff-leftovers.ts) and `skipBlock` takes over. A
 * block of some 50,000 added or removed trades (about 300 bytes each) is found by the first search.
 */
const DIVERGENCE_LIMIT = 100_000;
const DIVERGENCE_BYTES = 32 * 1024 * 1024;

/**
 * Walks both sides in step. Equal lines are unchanged and cost one byte comparison. Where the
 * sides disagree, lines are read from both in turn and hashed until one side's line turns up on
 * the other: the lines before it on each side are left over, and the walk goes on in step from
 * there. When that search gives up, a block longer than it can hold may have been added or removed:
 * `skipBlock` looks for it. Returns the number of lines found unchanged in step.
 */
async function walk(old: SideLines, now: SideLines, leftovers: DiffLeftovers, divergenceLimit: number): Promise<number> {
  let unchanged = 0;
  for (;;) {
    const a = old.peek() ?? (await old.next());
    const b = now.peek() ?? (await now.next());
    if (a === null && b === null) return unchanged;
    if (a !== null && b !== null && a.bytes.equals(b.bytes)) {
      unchanged += 1;
      // The same bytes: parsed once for an observer of both sides.
      const record = old.consume(a);
      now.consume(b, record);
      continue;
    }
    if (!(await diverge(old, now, leftovers, divergenceLimit))) await skipBlock(old, now, leftovers, divergenceLimit);
  }
}

/** Searches from both sides in turn for a line of the other; true when they are in step again (or read to the end). */
async function diverge(old: SideLines, now: SideLines, leftovers: DiffLeftovers, limit: number): Promise<boolean> {
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
      const digest = lineDigest(line);
      const at = held[theirs].find(line, digest);
      if (at !== -1) {
        // In step again from this line and its twin: what came before them is left over.
        for (const h of held[mine].lines) side.leaveOver(h, leftovers);
        for (const h of held[theirs].lines.slice(0, at)) other.leaveOver(h, leftovers);
        side.unread([line]);
        other.unread(held[theirs].lines.slice(at));
        return true;
      }
      held[mine].add(line, digest);
    }
  }
  for (const h of held.old.lines) old.leaveOver(h, leftovers);
  for (const h of held.now.lines) now.leaveOver(h, leftovers);
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
async function skipBlock(old: SideLines, now: SideLines, leftovers: DiffLeftovers, limit: number): Promise<void> {
  for (let stretch = limit, turn = 0; ; stretch *= 2, turn += 1) {
    // First as if lines were removed (the old side read alone), then as if added.
    const [hold, scan] = turn % 2 === 0 ? [now, old] : [old, now];
    const held = new HeldLines();
    while (held.lines.length < limit / 2 && held.bytes < DIVERGENCE_BYTES / 2) {
      const line = hold.peek() ?? (await hold.next());
      if (line === null) break;
      hold.take();
      held.add(line, lineDigest(line));
    }
    if (held.lines.length === 0) return;
    for (let n = 0; n < stretch; n += 1) {
      const line = scan.peek() ?? (await scan.next());
      if (line === null) break;
      const at = held.find(line, lineDigest(line));
      if (at !== -1) {
        // In step again: this line (still the scanned side's next) and its twin.
        for (const h of held.lines.slice(0, at)) hold.leaveOver(h, leftovers);
        hold.unread(held.lines.slice(at));
        return;
      }
      scan.take();
      scan.leaveOver(line, leftovers);
    }
    hold.unread(held.lines);
    if ((scan.peek() ?? (await scan.next())) === null) return;
  }
}

function lineDigest(line: BundleLine): string {
  return hash('sha256', line.bytes, 'binary');
}

/** Lines taken during a search, in order, found again by digest (the bytes decide). */
class HeldLines {
  readonly lines: BundleLine[] = [];
  bytes = 0;
  private readonly first = new Map<string, number>();

  add(line: BundleLine, digest: string): void {
    if (!this.first.has(digest)) this.first.set(digest, this.lines.length);
    this.lines.push(line);
    this.bytes += line.bytes.length;
  }

  /** Where the first held line with these bytes is; -1 when none. */
  find(line: BundleLine, digest: string): number {
    const at = this.first.get(digest);
    return at !== undefined && this.lines[at]!.bytes.equals(line.bytes) ? at : -1;
  }
}

/** One side's lines: the cursor, lines given back after a search, and what happens to a line used up. */
class SideLines {
  private readonly cursor: LineCursor;
  /** Lines read ahead and given back, the next one last. */
  private readonly back: BundleLine[] = [];

  constructor(
    private readonly side: BundleSide,
    parts: readonly ResourceEntry[],
    private readonly name: DiffSideName,
    private readonly resource: string,
    private readonly observe: DiffOptions['observe'],
    private readonly stats: DiffOptions['stats'],
  ) {
    this.cursor = new LineCursor(side.label, side.locate, parts);
  }

  /** The next line without reading; undefined when it must be read (`next()`). */
  peek(): BundleLine | null | undefined {
    return this.back.length > 0 ? this.back[this.back.length - 1]! : this.cursor.peek();
  }

  async next(): Promise<BundleLine | null> {
    return this.peek() ?? (await this.cursor.load());
  }

  take(): void {
    if (this.back.length > 0) this.back.pop();
    else this.cursor.take();
  }

  unread(lines: readonly BundleLine[]): void {
    for (let i = lines.length - 1; i >= 0; i -= 1) this.back.push(lines[i]!);
  }

  /** The line was paired in step: it is unchanged. Returns the record handed to the observer, if any. */
  consume(line: BundleLine, parsed?: unknown): unknown {
    this.take();
    if (!this.observe) return undefined;
    const record = parsed ?? this.record(line);
    this.observe.record(this.name, this.resource, record);
    return record;
  }

  /** The line was taken during a search and found no twin in step. */
  leaveOver(line: BundleLine, leftovers: DiffLeftovers): void {
    const record = this.record(line);
    if (this.observe) this.observe.record(this.name, this.resource, record);
    if (this.stats) this.stats.leftOver += 1;
    leftovers.add(this.name, recordKey(this.resource, record), line.bytes);
  }

  close(): Promise<void> {
    return this.cursor.close();
  }

  /** Parsed when needed and not kept: a search may hold many lines. */
  private record(line: BundleLine): unknown {
    return parseLine(this.side.label, line.entry, line.bytes, line.number);
  }
}

/** Top-level fields whose values differ (compared as canonical JSON), sorted. */
function changedFields(before: unknown, after: unknown): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const fields: string[] = [];
  for (const name of Object.keys(a)) if (!Object.hasOwn(b, name) || !sameValue(a[name], b[name])) fields.push(name);
  for (const name of Object.keys(b)) if (!Object.hasOwn(a, name)) fields.push(name);
  return fields.sort();
}

/** Numbers, strings and the like compare as they are; only objects and arrays need their canonical JSON. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return canonicalJson(a) === canonicalJson(b);
}

function sum(parts: readonly ResourceEntry[]): number {
  return parts.reduce((total, part) => total + part.records, 0);
}
