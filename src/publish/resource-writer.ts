import { NEWLINE } from '../lib/json-bytes.js';
import { recordSchemaFault } from '../lib/fault-point.js';
import type { ContentCheck } from '../model/content-rules.js';
import type { DatasetName } from '../model/dataset.js';
import type { CheckedBatch } from '../model/dataset-build.js';
import { recordChecker } from '../model/schema-check.js';
import type { LineChunk } from './bundle-file-writer.js';
import { canonicalJson } from './canonical-json.js';
import { partBytes } from './part-boundaries.js';
import type { CanonicalSerializer } from './compiled-canonical.js';
import type { ByteOut, CanonicalEncoder } from './compiled-canonical-bytes.js';
import type { ServingFactsCollector } from './serving-index.js';

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
 * Encoding buffers of writers released on this thread, for the next writers: a Smart Money
 * derivation thread makes two writers a batch and hundreds of batches a build, and 2 MB buffers
 * allocated afresh each time cost it its time in page faults and garbage collection.
 */
const spareBuffers: Buffer[] = [];
const SPARE_BUFFERS_KEPT = 4;

/**
 * Turns one resource's records into canonical NDJSON lines, handed over in chunks of about 1 MB:
 * each record is checked (RecordChecks) and written as UTF-8 bytes straight into one reusable
 * buffer by the resource's compiled encoder (compiled-canonical-bytes.ts), or, for a record of a
 * shape it does not know, as canonicalJson's string, so no string of a record is made on the usual
 * path. With a serving index, what it needs of each line goes with the chunk. The chunks go to a
 * BundleFileWriter, which splits them into parts and writes and hashes them, or to a batch that
 * another thread posts (a Smart Money derivation worker's).
 */
export class NdjsonLineWriter implements ByteOut {
  buffer = spareBuffers.pop() ?? Buffer.allocUnsafe(BUFFER_BYTES);
  /** Where the next byte goes: the end of the complete lines, or of the line being written. */
  at = 0;
  /** Where the line being written starts: complete lines before it wait to be handed over. */
  private lineStart = 0;
  private pendingRecords = 0;
  private readonly chunkBytes: number;

  constructor(
    private readonly resource: string,
    private readonly output: { write(chunk: LineChunk): void },
    private readonly checks: RecordChecks,
    /** The resource's compiled serializer; canonicalJson's bytes either way. */
    private readonly serialize: CanonicalSerializer = canonicalJson,
    /** The resource's compiled byte encoder: the same bytes, without a string; null: the serializer alone. */
    private readonly encode: CanonicalEncoder | null = null,
    private readonly facts: ServingFactsCollector | null = null,
    maxPartBytes: number = partBytes(),
  ) {
    this.chunkBytes = Math.min(CHUNK_BYTES, maxPartBytes);
  }

  /** Takes one record. */
  write(record: unknown): void {
    this.checks.inspect(this.resource, record);
    this.lineStart = this.at;
    if (this.encode === null || !this.encode(record, this)) {
      // A shape the encoder does not know: canonicalJson's string, from the line's start.
      this.at = this.lineStart;
      const json = this.serialize(record);
      // Room for the line at its longest: three UTF-8 bytes per UTF-16 code unit.
      this.reserve(3 * json.length);
      this.at += this.buffer.write(json, this.at, 'utf8');
    }
    this.reserve(1);
    this.buffer[this.at++] = NEWLINE;
    this.pendingRecords += 1;
    this.facts?.add(record, this.buffer.subarray(this.lineStart, this.at));
    if (this.at >= this.chunkBytes) this.flush();
    // A line longer than the buffer grew it: once it is handed over, the rest of the resource goes
    // back to the usual size instead of holding it.
    if (this.at === 0 && this.buffer.length > BUFFER_BYTES) this.buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  }

  /**
   * Room for `bytes` more at `at`: when the buffer is full, the complete lines are handed over and
   * the line being written moves to the front, into a larger buffer if it alone needs one.
   */
  reserve(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const begun = this.at - this.lineStart;
    if (this.lineStart > 0) this.handOver(this.lineStart);
    const target = begun + bytes > this.buffer.length ? Buffer.allocUnsafe(Math.max(begun + bytes, 2 * this.buffer.length)) : this.buffer;
    this.buffer.copy(target, 0, this.lineStart, this.at);
    this.buffer = target;
    this.lineStart = 0;
    this.at = begun;
  }

  /** Bytes the writer holds to encode lines into (for tests of its memory). */
  get capacity(): number {
    return this.buffer.length;
  }

  /** Hands over the lines still pending. */
  end(): void {
    this.flush();
  }

  /** Ends the writer for good: its buffer goes to the next writer made on this thread. Not used after. */
  release(): void {
    this.flush();
    if (this.buffer.length === BUFFER_BYTES && spareBuffers.length < SPARE_BUFFERS_KEPT) spareBuffers.push(this.buffer);
    this.buffer = Buffer.alloc(0);
  }

  private flush(): void {
    this.handOver(this.at);
    this.at = 0;
    this.lineStart = 0;
  }

  /** Hands over the complete lines in `buffer[0, end)`. */
  private handOver(end: number): void {
    if (this.pendingRecords === 0) return;
    const records = this.pendingRecords;
    this.pendingRecords = 0;
    const chunk: LineChunk = { resource: this.resource, records, bytes: this.buffer.subarray(0, end) };
    if (this.facts) chunk.facts = this.facts.take();
    this.output.write(chunk);
  }
}
