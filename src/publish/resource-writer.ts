import { wholeNumberFromEnv } from '../lib/env-number.js';
import { recordSchemaFault } from '../lib/fault-point.js';
import type { ContentCheck } from '../model/content-rules.js';
import type { DatasetName } from '../model/dataset.js';
import type { CheckedBatch } from '../model/dataset-build.js';
import { recordChecker } from '../model/schema-check.js';
import type { LineChunk } from './bundle-file-writer.js';
import { canonicalJson } from './canonical-json.js';
import type { CanonicalSerializer } from './compiled-canonical.js';
import type { ServingFactsCollector } from './serving-index.js';

/** Parts end once they reach this size: small enough to hash, copy and upload one at a time. */
const DEFAULT_PART_BYTES = 64 * 1024 * 1024;

/** PDSNAP_PART_BYTES overrides the part size (tests force tiny parts with it). */
export function partBytes(env: NodeJS.ProcessEnv = process.env): number {
  return wholeNumberFromEnv(env, 'PDSNAP_PART_BYTES', 'a whole number of bytes, at least 1', (value) => value >= 1) ?? DEFAULT_PART_BYTES;
}

/** Lines are handed over in chunks of about this many bytes, or of a part's size when parts are smaller. */
const CHUNK_BYTES = 1 << 20;
/** The encoding buffer: two chunks, or one line's worth while a longer line is encoded. */
const BUFFER_BYTES = 2 * CHUNK_BYTES;

/** A record that fails its schema: the build's program error, never published. */
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

/**
 * The checks every record of a staged bundle passes before it becomes a line: its schema (a record
 * that fails it fails the build, InvalidRecordError) and the content rules (security identifiers,
 * slugs, consensus page size), whose findings the build reports. They see the record that is
 * serialized next, so they judge exactly what is published.
 */
export class RecordChecks {
  private readonly checkers = new Map<string, (record: unknown) => string | null>();
  /** Records of each resource checked so far, here or in batches absorbed: the next one's number. */
  private readonly records = new Map<string, number>();
  private readonly schemaFault = recordSchemaFault();

  constructor(
    private readonly dataset: DatasetName,
    readonly content: ContentCheck,
  ) {}

  inspect(resource: string, record: unknown): void {
    let check = this.checkers.get(resource);
    if (check === undefined) {
      check = recordChecker(this.dataset, resource);
      this.checkers.set(resource, check);
    }
    const index = this.records.get(resource) ?? 0;
    const reason = this.schemaFault ?? check(record);
    if (reason !== null) throw new InvalidRecordError(resource, index, reason);
    this.records.set(resource, index + 1);
    this.content.inspect(resource, record);
  }

  /**
   * Takes in a batch that another thread checked with checks of its own (the same rules): its
   * findings and records are numbered on from here, and a record of it that failed its schema
   * fails here, with its number in the bundle.
   */
  absorb(batch: CheckedBatch): void {
    if (batch.invalid) {
      const { resource, index, reason } = batch.invalid;
      throw new InvalidRecordError(resource, (this.records.get(resource) ?? 0) + index, reason);
    }
    this.content.absorb(batch.content);
    for (const lines of batch.lines) this.records.set(lines.resource, (this.records.get(lines.resource) ?? 0) + lines.records);
  }
}

/**
 * Turns one resource's records into canonical NDJSON lines, handed over in chunks of about 1 MB:
 * each record is checked (RecordChecks), serialized, and encoded into one reusable buffer as it
 * comes, so no string waits for a chunk to fill (a young string that survives costs every garbage
 * collection until it dies). With a serving index, what it needs of each record goes with the
 * chunk. The chunks go to a BundleFileWriter, here or on a thread of its own, which splits them
 * into parts and writes and hashes them.
 */
export class NdjsonLineWriter {
  private buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  /** Bytes of pending lines at the start of the buffer. */
  private used = 0;
  private pendingRecords = 0;
  private readonly chunkBytes: number;

  constructor(
    private readonly resource: string,
    private readonly output: { write(chunk: LineChunk): void },
    private readonly checks: RecordChecks,
    /** The resource's compiled serializer; canonicalJson's bytes either way. */
    private readonly serialize: CanonicalSerializer = canonicalJson,
    private readonly facts: ServingFactsCollector | null = null,
    maxPartBytes: number = partBytes(),
  ) {
    this.chunkBytes = Math.min(CHUNK_BYTES, maxPartBytes);
  }

  /** Takes one record. */
  write(record: unknown): void {
    this.checks.inspect(this.resource, record);
    const json = this.serialize(record);
    // Room for the line at its longest: three UTF-8 bytes per UTF-16 code unit, and the newline.
    const longest = 3 * json.length + 1;
    if (this.used + longest > this.buffer.length) {
      this.flush();
      if (longest > this.buffer.length) this.buffer = Buffer.allocUnsafe(longest);
    }
    const start = this.used;
    const bytes = this.buffer.write(json, start, 'utf8') + 1;
    this.buffer[start + bytes - 1] = 0x0a;
    this.used = start + bytes;
    this.pendingRecords += 1;
    this.facts?.add(record, json, bytes);
    if (this.used >= this.chunkBytes) this.flush();
    // A line longer than the buffer grew it (to three bytes per character of that line): once it
    // is handed over, the rest of the resource goes back to the usual size instead of holding it.
    if (this.used === 0 && this.buffer.length > BUFFER_BYTES) this.buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  }

  /** Bytes the writer holds to encode lines into (for tests of its memory). */
  get capacity(): number {
    return this.buffer.length;
  }

  /** Hands over the lines still pending. */
  end(): void {
    this.flush();
  }

  private flush(): void {
    if (this.pendingRecords === 0) return;
    const bytes = this.buffer.subarray(0, this.used);
    this.used = 0;
    const records = this.pendingRecords;
    this.pendingRecords = 0;
    const chunk: LineChunk = { resource: this.resource, records, bytes };
    if (this.facts) chunk.facts = this.facts.take();
    this.output.write(chunk);
  }
}
