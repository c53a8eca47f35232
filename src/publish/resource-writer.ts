import { wholeNumberFromEnv } from '../lib/env-number.js';
import { createHash, type Hash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { ResourceEntry } from '../model/manifest.js';
import { canonicalJson } from './canonical-json.js';
import type { CanonicalSerializer } from './compiled-canonical.js';
import { failPoint } from './fault-point.js';

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

/** Parts end once they reach this size: small enough to hash, copy and upload one at a time. */
export const DEFAULT_PART_BYTES = 64 * 1024 * 1024;

/** PDSNAP_PART_BYTES overrides the part size (tests force tiny parts with it). */
export function partBytes(env: NodeJS.ProcessEnv = process.env): number {
  return wholeNumberFromEnv(env, 'PDSNAP_PART_BYTES', 'a whole number of bytes, at least 1', (value) => value >= 1) ?? DEFAULT_PART_BYTES;
}

const FLUSH_BYTES = 1 << 20;

/**
 * Writes one resource as NDJSON parts, `<resource>/00000.ndjson`, `00001.ndjson`, ...: one
 * canonical JSON record per line, a new part once a part reaches the part size (a record never
 * spans two parts). Each part is hashed as it is written, so the whole resource never exists in
 * memory. Synchronous I/O on purpose: derivation pushes records from plain loops, and a build has
 * nothing else to do meanwhile.
 */
export class NdjsonPartsWriter {
  private readonly folder: string;
  private readonly entries: ResourceEntry[] = [];
  private fd = -1;
  private hash: Hash = createHash('sha256');
  private pending: string[] = [];
  private pendingBytes = 0;
  private partBytesWritten = 0;
  private partRecords = 0;
  private count = 0;

  constructor(
    bundleDirectory: string,
    private readonly resource: string,
    private readonly check: RecordCheck,
    private readonly maxPartBytes: number = partBytes(),
    /** The resource's compiled serializer; canonicalJson's bytes either way. */
    private readonly serialize: CanonicalSerializer = canonicalJson,
  ) {
    this.folder = path.join(bundleDirectory, resource);
    mkdirSync(this.folder);
    this.openPart();
  }

  /** Checks and writes one record; returns its canonical JSON (for the serving index). */
  write(record: unknown): string {
    const reason = this.check(record);
    if (reason) throw new InvalidRecordError(this.resource, this.count, reason);
    const json = this.serialize(record);
    const line = `${json}\n`;
    const bytes = Buffer.byteLength(line);
    if (this.partRecords > 0 && this.partBytesWritten + this.pendingBytes + bytes > this.maxPartBytes) {
      this.closePart();
      this.openPart();
    }
    this.pending.push(line);
    this.pendingBytes += bytes;
    this.partRecords += 1;
    this.count += 1;
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
    return json;
  }

  /** Ends the last part, forces every part to disk and returns their manifest entries. */
  finish(): ResourceEntry[] {
    this.closePart();
    return this.entries;
  }

  /** Closes the open part after a failure; the caller removes the folder. */
  abandon(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  private openPart(): void {
    const name = String(this.entries.length).padStart(5, '0');
    this.fd = openSync(path.join(this.folder, `${name}.ndjson`), 'wx');
    this.hash = createHash('sha256');
    this.partBytesWritten = 0;
    this.partRecords = 0;
  }

  private closePart(): void {
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = -1;
    const name = String(this.entries.length).padStart(5, '0');
    this.entries.push({
      path: `${this.resource}/${name}.ndjson`,
      bytes: this.partBytesWritten,
      sha256: this.hash.digest('hex'),
      records: this.partRecords,
    });
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const chunk = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingBytes = 0;
    this.hash.update(chunk);
    this.partBytesWritten += chunk.length;
    try {
      failPoint('part-write');
      let offset = 0;
      while (offset < chunk.length) offset += writeSync(this.fd, chunk, offset);
    } catch (error) {
      // Node names no file in the error of a write to an open descriptor (ENOSPC, EIO).
      const file = path.join(this.folder, `${String(this.entries.length).padStart(5, '0')}.ndjson`);
      throw Object.assign(new Error(`${file}: ${(error as Error).message}`), { code: (error as NodeJS.ErrnoException).code });
    }
  }
}
