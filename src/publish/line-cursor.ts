import { createHash, type Hash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import type { ResourceEntry } from '../model/manifest.js';
import { asBundleDamage } from './bundle-file-damage.js';
import type { FileLocator } from './bundle-files.js';
import { BundleIntegrityError } from './store-errors.js';

/** A record line longer than this is not one pdsnap wrote: the part is refused, not buffered. */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

const READ_BYTES = 1 << 20;

/** One record line of a part (without its line break) and where it stands, for messages. */
export interface BundleLine {
  bytes: Buffer;
  entry: ResourceEntry;
  /** 1-based line number within the part. */
  number: number;
}

/**
 * The record lines of one or more parts, in order, read a megabyte at a time and handed out
 * without an await per line: `peek()` answers from the lines already split, and only when those
 * run out does the caller `await load()`. Each part is checked when it ends (size, SHA-256, record
 * count, final line break), so a caller that acted on lines before then must drop what it did when
 * load() throws. A line's bytes are a view into a buffer read for it alone, valid as long as the
 * caller keeps it. A mismatch or a missing part is corruption (BundleIntegrityError), a part in the
 * way of reading is named as one (bundle-file-damage.ts); any other read error (EMFILE, EIO) is
 * thrown as it is, so that the caller may try again later.
 */
export class LineCursor {
  private lines: BundleLine[] = [];
  private at = 0;
  private part = -1;
  private file: FileHandle | null = null;
  private hash: Hash | null = null;
  private bytes = 0;
  private records = 0;
  private carry: Buffer | null = null;
  private ended = false;

  constructor(
    private readonly label: string,
    private readonly locate: FileLocator,
    private readonly parts: readonly ResourceEntry[],
  ) {}

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
    try {
      while (this.at >= this.lines.length && !this.ended) await this.readMore();
    } catch (error) {
      await this.close();
      throw this.part < this.parts.length ? asBundleDamage(this.label, this.parts[this.part]!.path, error) : error;
    }
    return this.peek() ?? null;
  }

  async close(): Promise<void> {
    const file = this.file;
    this.file = null;
    await file?.close();
  }

  private async readMore(): Promise<void> {
    if (this.file === null) {
      this.part += 1;
      if (this.part >= this.parts.length) {
        this.ended = true;
        return;
      }
      this.hash = createHash('sha256');
      this.bytes = 0;
      this.records = 0;
      this.carry = null;
      this.file = await open(this.locate(this.parts[this.part]!), 'r');
    }
    const entry = this.parts[this.part]!;
    // A buffer of its own for every read: the lines handed out are views into it.
    const chunk = Buffer.allocUnsafe(READ_BYTES);
    const { bytesRead } = await this.file.read(chunk, 0, READ_BYTES, null);
    if (bytesRead === 0) {
      await this.close();
      this.verifyPart(entry);
      return;
    }
    const read = chunk.subarray(0, bytesRead);
    this.hash!.update(read);
    this.bytes += bytesRead;
    const buffer = this.carry ? Buffer.concat([this.carry, read]) : read;
    this.lines = [];
    this.at = 0;
    let start = 0;
    for (let end = buffer.indexOf(10, start); end !== -1; end = buffer.indexOf(10, start)) {
      this.records += 1;
      this.lines.push({ bytes: buffer.subarray(start, end), entry, number: this.records });
      start = end + 1;
    }
    const rest = buffer.length - start;
    if (rest > MAX_RECORD_BYTES)
      throw new BundleIntegrityError(this.label, `${entry.path} has a line longer than ${MAX_RECORD_BYTES} bytes`);
    this.carry = rest > 0 ? Buffer.from(buffer.subarray(start)) : null;
  }

  private verifyPart(entry: ResourceEntry): void {
    if (this.bytes !== entry.bytes) {
      throw new BundleIntegrityError(this.label, `${entry.path} has ${this.bytes} bytes; manifest says ${entry.bytes}`);
    }
    if (this.hash!.digest('hex') !== entry.sha256) throw new BundleIntegrityError(this.label, `${entry.path} does not match its sha256`);
    if (this.carry !== null) throw new BundleIntegrityError(this.label, `${entry.path} does not end with a line break`);
    if (this.records !== entry.records) {
      throw new BundleIntegrityError(this.label, `${entry.path} holds ${this.records} records; manifest says ${entry.records}`);
    }
  }
}
