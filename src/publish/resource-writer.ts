import { createHash, type Hash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import type { ResourceEntry } from '../model/manifest.js';
import { canonicalJson } from './canonical-json.js';

/** Checks one record before it is written; returns a reason, or null when the record is valid. */
export type RecordCheck = (record: unknown) => string | null;

export class InvalidRecordError extends Error {
  override readonly name = 'InvalidRecordError';
  constructor(
    readonly resource: string,
    readonly index: number,
    readonly reason: string,
  ) {
    super(`${resource} record ${index}: ${reason}`);
  }
}

const FLUSH_CHARS = 1 << 20;

/**
 * Writes records as one canonical JSON array, record by record, hashing as it goes. The bytes are
 * identical to canonicalJson(records), but the whole array never exists in memory, so a full-size
 * Smart Money resource can be written while it is being derived. Synchronous I/O on purpose:
 * derivation pushes records from plain loops, and a build has nothing else to do meanwhile.
 */
export class CanonicalArrayWriter {
  private readonly fd: number;
  private readonly hash: Hash = createHash('sha256');
  private pending: string[] = ['['];
  private pendingChars = 1;
  private bytes = 0;
  private count = 0;

  constructor(
    file: string,
    private readonly resource: string,
    private readonly check: RecordCheck,
  ) {
    this.fd = openSync(file, 'wx');
  }

  write(record: unknown): void {
    const reason = this.check(record);
    if (reason) throw new InvalidRecordError(this.resource, this.count, reason);
    const text = (this.count > 0 ? ',' : '') + canonicalJson(record);
    this.pending.push(text);
    this.pendingChars += text.length;
    this.count += 1;
    if (this.pendingChars >= FLUSH_CHARS) this.flush();
  }

  /** Ends the array, forces it to disk and returns its manifest entry. */
  finish(): ResourceEntry {
    this.pending.push(']');
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    return { path: this.resource, bytes: this.bytes, sha256: this.hash.digest('hex'), records: this.count };
  }

  /** Closes the file after a failure; the caller removes it. */
  abandon(): void {
    closeSync(this.fd);
  }

  private flush(): void {
    const chunk = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingChars = 0;
    this.hash.update(chunk);
    this.bytes += chunk.length;
    let offset = 0;
    while (offset < chunk.length) offset += writeSync(this.fd, chunk, offset);
  }
}
