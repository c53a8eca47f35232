import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type Extent,
  HASH,
  HEADER_BYTES,
  KEY_BYTES,
  LINE_BYTES,
  NUMBER,
  PART,
  type PairingSides,
  type PartitionLines,
  SEQ,
  SPAN_BYTES,
  writeU32,
} from './diff-pairing.js';
import { keyHash, LineKeys } from './line-keys.js';
import { parseLine } from '../record-reader.js';

export type DiffSideName = 'before' | 'after';

/** What a writer of left-over lines leaves for pairing: its temporary file and, per partition, where its lines are. */
export interface WrittenLeftovers {
  /** The descriptor of the temporary file (readable from any thread of the process); -1 when none was needed. */
  fd: number;
  partitions: { extents: Extent[]; lines: number }[];
}

/**
 * How many partitions the left-over lines of a resource of `bytes` (both sides) are spread over:
 * about PARTITION_BYTES of lines each, what pairing holds in memory at a time (diff-pairing.ts).
 */
export function partitionsFor(bytes: number): number {
  return Math.max(1, Math.min(MAX_PARTITIONS, Math.ceil(bytes / PARTITION_BYTES)));
}

/**
 * Writes the lines a diff could not pair in step, with their record keys, until they are paired as
 * sets (diff-pairing.ts). Lines are spread over partitions by the hash of their key, so every line
 * of a key lands in the same partition; a partition fills a buffer of its own, and a full buffer
 * is appended to one temporary file. So a new quarter, where every trade differs, costs disk, not
 * memory. A diff has one writer, or one per worker thread (diff-threads.ts); each line's key is
 * worked out here, from its bytes where they tell (line-keys.ts), else from the parsed record.
 */
export class LeftoverWriter {
  private readonly partitions: Partition[];
  private readonly bufferBytes: number;
  private readonly keys: LineKeys;
  private scratch = Buffer.allocUnsafe(4096);
  private spill: SpillFile | null = null;

  constructor(
    resource: string,
    partitions: number,
    private readonly sides: PairingSides,
  ) {
    this.partitions = Array.from({ length: partitions }, () => ({ buffer: null, used: 0, lines: 0, extents: [] }));
    this.bufferBytes = Math.max(MIN_BUFFER_BYTES, Math.min(MAX_BUFFER_BYTES, Math.floor(BUFFER_BUDGET / partitions)));
    this.keys = new LineKeys(resource);
  }

  /** Adds line `number` of part `part` of a side, `chunk[start, end)`, the side's `seq`-th line left over. */
  add(side: DiffSideName, seq: number, chunk: Buffer, start: number, end: number, part: number, number: number): void {
    const room = this.keys.room(end - start);
    if (this.scratch.length < room) this.scratch = Buffer.allocUnsafe(Math.max(room, 2 * this.scratch.length));
    let key = this.scratch;
    let keyBytes = this.keys.write(chunk, start, end, key, 0);
    let hash = this.keys.hash;
    if (keyBytes === -1) {
      // Not JSON, or no object: parseLine names the line, recordKey the resource.
      const sideParts = this.sides[side];
      const record = parseLine(sideParts.label, sideParts.parts[part]!, chunk.subarray(start, end), number);
      key = Buffer.from(this.keys.ofRecord(record), 'utf8');
      keyBytes = key.length;
      hash = keyHash(key, 0, keyBytes);
    }
    const partition = this.partitions[(hash >>> 0) % this.partitions.length]!;
    // An old line's members, as the key's scan found them, go with it: pairing compares a changed
    // record's fields along them (changed-fields.ts) without scanning the line again.
    const members = side === 'before' ? this.keys.scannedMembers() : null;
    const spanBytes = members?.spanBytes(start, end) ?? 0;
    const bytes = HEADER_BYTES + keyBytes + (end - start) + spanBytes;
    if (partition.buffer !== null && partition.used + bytes > partition.buffer.length) this.flush(partition);
    if (partition.buffer === null || partition.buffer.length < bytes)
      partition.buffer = Buffer.allocUnsafe(Math.max(this.bufferBytes, bytes));
    const buffer = partition.buffer;
    const at = partition.used;
    buffer[at] = side === 'before' ? 0 : 1;
    writeU32(buffer, at + SEQ, seq);
    writeU32(buffer, at + PART, part);
    writeU32(buffer, at + NUMBER, number);
    writeU32(buffer, at + HASH, hash);
    writeU32(buffer, at + KEY_BYTES, keyBytes);
    writeU32(buffer, at + LINE_BYTES, end - start);
    writeU32(buffer, at + SPAN_BYTES, spanBytes);
    copyBytes(key, 0, keyBytes, buffer, at + HEADER_BYTES);
    copyBytes(chunk, start, end, buffer, at + HEADER_BYTES + keyBytes);
    if (spanBytes > 0) members!.writeSpans(buffer, at + HEADER_BYTES + keyBytes + (end - start), start);
    partition.used = at + bytes;
    partition.lines += 1;
    // A buffer made larger for one long line is not kept.
    if (buffer.length > this.bufferBytes) this.flush(partition);
  }

  /** Every line written to the file; what pairing needs to read them. The file stays open until dispose(). */
  finish(): WrittenLeftovers {
    for (const partition of this.partitions) {
      this.flush(partition);
      partition.buffer = null;
    }
    return {
      fd: this.spill?.fd ?? -1,
      partitions: this.partitions.map(({ extents, lines }) => ({ extents, lines })),
    };
  }

  dispose(): void {
    this.spill?.close();
    this.spill = null;
    for (const partition of this.partitions) partition.buffer = null;
  }

  private flush(partition: Partition): void {
    if (partition.buffer === null || partition.used === 0) return;
    this.spill ??= new SpillFile();
    partition.extents.push(this.spill.append(partition.buffer.subarray(0, partition.used)));
    partition.used = 0;
    if (partition.buffer.length > this.bufferBytes) partition.buffer = null;
  }
}

const PARTITION_BYTES = 8 * 1024 * 1024;
const MAX_PARTITIONS = 4096;
/** Write buffers of all partitions together, each between the two bounds below. */
const BUFFER_BUDGET = 4 * 1024 * 1024;
const MIN_BUFFER_BYTES = 64 * 1024;
const MAX_BUFFER_BYTES = 1024 * 1024;

interface Partition {
  buffer: Buffer | null;
  used: number;
  lines: number;
  extents: Extent[];
}

/** Short copies in a loop: Buffer#copy costs more to call than a short key takes to copy. */
function copyBytes(from: Buffer, start: number, end: number, to: Buffer, at: number): void {
  if (end - start > 128) {
    from.copy(to, at, start, end);
    return;
  }
  for (let i = start; i < end; i += 1) to[at++] = from[i]!;
}

/** Reads an extent of a file by its descriptor (any thread of the process may). */
export function readExtent(fd: number, extent: Extent, into: Buffer, at: number): void {
  for (let done = 0; done < extent.bytes; ) {
    const read = readSync(fd, into, at + done, extent.bytes - done, extent.position + done);
    if (read === 0) throw new Error('diff: a temporary file of left-over lines is shorter than what was written to it');
    done += read;
  }
}

/**
 * One temporary file that partitions append their full buffers to. It is unlinked as soon as it
 * is open, before a byte is written, so a diff that is killed leaves no file behind; it lives in
 * the system's temporary folder (TMPDIR).
 */
class SpillFile {
  readonly fd: number;
  private size = 0;
  private closed = false;

  constructor() {
    const file = path.join(tmpdir(), `pdsnap-diff-${process.pid}-${randomBytes(6).toString('hex')}`);
    this.fd = openSync(file, 'wx+', 0o600);
    try {
      unlinkSync(file);
    } catch (error) {
      this.close();
      throw error;
    }
  }

  append(bytes: Buffer): Extent {
    const extent = { position: this.size, bytes: bytes.length };
    for (let written = 0; written < bytes.length; ) {
      written += writeSync(this.fd, bytes, written, bytes.length - written, this.size + written);
    }
    this.size += bytes.length;
    return extent;
  }

  close(): void {
    if (!this.closed) closeSync(this.fd);
    this.closed = true;
  }
}

/** Where the diff puts a line it left over: a writer on its own thread, or writers on worker threads (diff-threads.ts). */
export interface LeftoverSink {
  /** The side's `seq`-th line left over: line `number` of the side's part `part`, `chunk[start, end)`. */
  add(side: DiffSideName, seq: number, chunk: Buffer, start: number, end: number, part: number, number: number): void;
  /** The diff reads `chunk` no more: whatever is to be written of it must be taken now. */
  release(chunk: Buffer): void;
  /** Resolves when the writers have caught up enough to take more (memory stays bounded). */
  drain(): Promise<void>;
  /** Every line written; what pairing needs to read them. */
  finish(): Promise<WrittenLeftovers[]>;
  /** Closes the temporary files (after pairing). */
  dispose(): Promise<void>;
}

/** A LeftoverWriter on the diff's own thread. */
export class InlineLeftovers implements LeftoverSink {
  private readonly writer: LeftoverWriter;

  constructor(resource: string, partitions: number, sides: PairingSides) {
    this.writer = new LeftoverWriter(resource, partitions, sides);
  }

  add(side: DiffSideName, seq: number, chunk: Buffer, start: number, end: number, part: number, number: number): void {
    this.writer.add(side, seq, chunk, start, end, part, number);
  }

  release(): void {}

  async drain(): Promise<void> {}

  async finish(): Promise<WrittenLeftovers[]> {
    return [this.writer.finish()];
  }

  async dispose(): Promise<void> {
    this.writer.dispose();
  }
}

/** Each partition's lines across all writers. */
export function partitionsOf(written: readonly WrittenLeftovers[]): PartitionLines[] {
  const count = written[0]?.partitions.length ?? 0;
  return Array.from({ length: count }, (_, index) => ({
    sources: written.filter((w) => w.partitions[index]!.lines > 0).map((w) => ({ fd: w.fd, extents: w.partitions[index]!.extents })),
    lines: written.reduce((sum, w) => sum + w.partitions[index]!.lines, 0),
  })).filter((partition) => partition.lines > 0);
}

/** Partitions dealt to `count` threads, largest first to the one with the fewest bytes. */
export function sharesOf(partitions: readonly PartitionLines[], count: number): PartitionLines[][] {
  const shares = Array.from({ length: count }, () => ({ bytes: 0, partitions: [] as PartitionLines[] }));
  const bytesOf = (partition: PartitionLines) =>
    partition.sources.reduce((sum, source) => sum + source.extents.reduce((total, extent) => total + extent.bytes, 0), 0);
  for (const partition of [...partitions].sort((a, b) => bytesOf(b) - bytesOf(a))) {
    const share = shares.reduce((least, candidate) => (candidate.bytes < least.bytes ? candidate : least));
    share.bytes += bytesOf(partition);
    share.partitions.push(partition);
  }
  return shares.map((share) => share.partitions).filter((share) => share.length > 0);
}
