import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { countLineBreaks, NEWLINE } from '../lib/json-bytes.js';
import type { ResourceEntry } from '../model/manifest.js';
import { asBundleDamage } from './bundle-file-damage.js';
import { BundleIntegrityError } from './store-errors.js';

/** A record line longer than this is not one pdsnap wrote: the part is refused, not buffered. */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

const READ_BYTES = 1 << 20;
const ALLOCATION_STEP = 64 * 1024;

/**
 * One record line of a part (without its line break): `chunk[start, end)`, and where it stands,
 * for messages. The bytes are a view made when asked for: a view per line costs more than
 * finding the line, and comparing two lines needs none.
 */
class BundleLine {
  constructor(
    readonly chunk: Buffer,
    readonly start: number,
    readonly end: number,
    readonly entry: ResourceEntry,
    /** 1-based line number within the part. */
    readonly number: number,
  ) {}

  get bytes(): Buffer {
    return this.chunk.subarray(this.start, this.end);
  }
}

/** The lines of one part within a chunk: from line `firstLine` of the chunk, `lines` of them. */
export interface ChunkSegment {
  /** The index of the part among the reader's parts. */
  part: number;
  entry: ResourceEntry;
  /** The 1-based number of the segment's first line within its part. */
  firstNumber: number;
  /** The index of the segment's first line among the chunk's lines. */
  firstLine: number;
  lines: number;
}

/** Whole record lines, as read: `lines` lines, each ending with a line break, from one part or more (in order). */
export interface LineChunk {
  data: Buffer;
  segments: ChunkSegment[];
  lines: number;
}

/**
 * The parts of a resource, in order, as chunks of whole lines, a megabyte at a time: a chunk runs
 * on into the next part when one ends, so that parts of a megabyte or two (parts are cut by
 * content) give chunks as large as parts of 64 MiB do. Each part is checked when it ends (size,
 * SHA-256, record count, final line break), so a caller that acted on lines before then must drop
 * what it did when next() throws. A chunk's buffer is its own (the end of a line cut by a read is
 * copied out), so it may be kept or handed to another thread. A mismatch or a missing part is
 * corruption (BundleIntegrityError), a part in the way of reading is named as one
 * (bundle-file-damage.ts); any other read error (EMFILE, EIO) is thrown as it is, so that the
 * caller may try again later.
 */
export class PartChunks {
  private part = -1;
  private file: PartFile | null = null;
  private hash: Hash | null = null;
  private bytes = 0;
  private records = 0;
  private carry: Buffer | null = null;
  private ended = false;

  /**
   * `fileOf` names the file that holds a part; `allocate` makes the buffer of each chunk; `reads`
   * says how files are read: through the thread pool, or blocking (on a thread that has nothing
   * else to wait for, where a trip through the pool only adds a wait and a thread to the machine's).
   */
  constructor(
    private readonly label: string,
    private readonly parts: readonly ResourceEntry[],
    private readonly fileOf: (entry: ResourceEntry) => string,
    private readonly allocate: (bytes: number) => Buffer = Buffer.allocUnsafe,
    private readonly reads: 'pooled' | 'blocking' = 'pooled',
  ) {}

  /** The next chunk; null once every part is read and verified. */
  async next(): Promise<LineChunk | null> {
    try {
      for (;;) {
        if (this.ended) return null;
        const chunk = await this.fill();
        if (chunk !== null) return chunk;
      }
    } catch (error) {
      await this.close();
      throw this.part >= 0 && this.part < this.parts.length ? asBundleDamage(this.label, this.parts[this.part]!.path, error) : error;
    }
  }

  async close(): Promise<void> {
    const file = this.file;
    this.file = null;
    await file?.close();
  }

  /**
   * Fills a buffer: the end of the last chunk's last line first, then reads of the open part and
   * of the parts after it, until the buffer is full or every part is read. Null when it holds no
   * whole line yet.
   */
  private async fill(): Promise<LineChunk | null> {
    // The end of the last read's last line first, then what the reads bring.
    const carried = this.carry?.length ?? 0;
    // Sizes in steps of 64 KiB, so that a buffer used before fits the next chunk.
    const buffer = this.allocate(Math.ceil((carried + READ_BYTES) / ALLOCATION_STEP) * ALLOCATION_STEP);
    this.carry?.copy(buffer, 0);
    this.carry = null;
    let filled = carried;
    const segments: ChunkSegment[] = [];
    // Where the open part's bytes in this buffer start.
    let partStart = 0;
    let lines = 0;
    while (filled < buffer.length) {
      if (this.file === null) {
        if (!(await this.openNext())) break;
        partStart = filled;
      }
      const bytesRead = await this.file!.read(buffer, filled, buffer.length - filled);
      if (bytesRead === 0) {
        // The part ended: its bytes here are whole lines, or it did not end with a line break.
        if (filled > partStart && buffer[filled - 1] !== NEWLINE) {
          throw new BundleIntegrityError(this.label, `${this.parts[this.part]!.path} does not end with a line break`);
        }
        lines += this.segment(segments, buffer, partStart, filled, lines);
        await this.close();
        this.verifyPart(this.parts[this.part]!);
        continue;
      }
      this.hash!.update(buffer.subarray(filled, filled + bytesRead));
      this.bytes += bytesRead;
      filled += bytesRead;
    }
    if (this.file !== null) {
      // The open part goes on in the next chunk: its last line here may be cut.
      const wholeLines = buffer.lastIndexOf(NEWLINE, filled - 1) + 1;
      const whole = Math.max(partStart, wholeLines);
      const rest = filled - whole;
      if (rest > MAX_RECORD_BYTES)
        throw new BundleIntegrityError(this.label, `${this.parts[this.part]!.path} has a line longer than ${MAX_RECORD_BYTES} bytes`);
      this.carry = rest > 0 ? Buffer.from(buffer.subarray(whole, filled)) : null;
      lines += this.segment(segments, buffer, partStart, whole, lines);
      filled = whole;
    }
    if (lines === 0) return null;
    return { data: buffer.subarray(0, filled), segments, lines };
  }

  /** Opens the next part; false when there is none (every part is read). */
  private async openNext(): Promise<boolean> {
    this.part += 1;
    if (this.part >= this.parts.length) {
      this.ended = true;
      return false;
    }
    this.hash = createHash('sha256');
    this.bytes = 0;
    this.records = 0;
    this.file = await openPart(this.fileOf(this.parts[this.part]!), this.reads);
    return true;
  }

  /** Adds the open part's whole lines `buffer[start, end)` as a segment (none when there are none); returns how many. */
  private segment(segments: ChunkSegment[], buffer: Buffer, start: number, end: number, firstLine: number): number {
    const lines = countLineBreaks(buffer.subarray(start, end));
    if (lines === 0) return 0;
    segments.push({ part: this.part, entry: this.parts[this.part]!, firstNumber: this.records + 1, firstLine, lines });
    this.records += lines;
    return lines;
  }

  private verifyPart(entry: ResourceEntry): void {
    if (this.bytes !== entry.bytes) {
      throw new BundleIntegrityError(this.label, `${entry.path} has ${this.bytes} bytes; manifest says ${entry.bytes}`);
    }
    if (this.hash!.digest('hex') !== entry.sha256) throw new BundleIntegrityError(this.label, `${entry.path} does not match its sha256`);
    if (this.records !== entry.records) {
      throw new BundleIntegrityError(this.label, `${entry.path} holds ${this.records} records; manifest says ${entry.records}`);
    }
  }
}

/** A part's file, open for reading from its start. */
interface PartFile {
  read(buffer: Buffer, at: number, length: number): Promise<number> | number;
  close(): Promise<void> | void;
}

async function openPart(file: string, reads: 'pooled' | 'blocking'): Promise<PartFile> {
  if (reads === 'blocking') {
    const fd = openSync(file, 'r');
    return { read: (buffer, at, length) => readSync(fd, buffer, at, length, null), close: () => closeSync(fd) };
  }
  const handle = await open(file, 'r');
  return { read: async (buffer, at, length) => (await handle.read(buffer, at, length, null)).bytesRead, close: () => handle.close() };
}

/**
 * The record lines of one or more parts, in order (PartChunks, with its checks), handed out
 * without an await per line: `peek()` answers from the lines already split, and only when those
 * run out does the caller `await load()`. A caller that acted on lines before a part ends must
 * drop what it did when load() throws.
 */
export class LineCursor {
  private readonly chunks: PartChunks;
  private lines: BundleLine[] = [];
  private at = 0;
  private ended = false;

  /** `fileOf` names the file that holds a part. */
  constructor(label: string, parts: readonly ResourceEntry[], fileOf: (entry: ResourceEntry) => string) {
    this.chunks = new PartChunks(label, parts, fileOf);
  }

  /** The next line; null after the last one; undefined when it must be read first (`load()`). */
  peek(): BundleLine | null | undefined {
    if (this.at < this.lines.length) return this.lines[this.at];
    return this.ended ? null : undefined;
  }

  /** Moves past the line peek() gave. */
  take(): void {
    this.at += 1;
  }

  /** Reads until a line is ready or every part is read and verified; then peek() is never undefined. */
  async load(): Promise<BundleLine | null> {
    while (this.at >= this.lines.length && !this.ended) {
      const chunk = await this.chunks.next();
      this.lines = [];
      this.at = 0;
      if (chunk === null) this.ended = true;
      else {
        const { data } = chunk;
        let start = 0;
        for (const { entry, firstNumber, lines } of chunk.segments) {
          for (let number = firstNumber; number < firstNumber + lines; number += 1) {
            const end = data.indexOf(NEWLINE, start);
            this.lines.push(new BundleLine(data, start, end, entry, number));
            start = end + 1;
          }
        }
      }
    }
    return this.peek() ?? null;
  }

  close(): Promise<void> {
    return this.chunks.close();
  }
}
