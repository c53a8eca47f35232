import { wholeNumberFromEnv } from '../lib/env-number.js';
import type { BundleFileOutput } from './bundle-file-output.js';
import { canonicalJson } from './canonical-json.js';
import type { CanonicalSerializer } from './compiled-canonical.js';

/** Parts end once they reach this size: small enough to hash, copy and upload one at a time. */
const DEFAULT_PART_BYTES = 64 * 1024 * 1024;

/** PDSNAP_PART_BYTES overrides the part size (tests force tiny parts with it). */
export function partBytes(env: NodeJS.ProcessEnv = process.env): number {
  return wholeNumberFromEnv(env, 'PDSNAP_PART_BYTES', 'a whole number of bytes, at least 1', (value) => value >= 1) ?? DEFAULT_PART_BYTES;
}

/** Lines are handed over in chunks of about this many bytes. */
const CHUNK_BYTES = 1 << 20;
/** The encoding buffer: two chunks, or one line's worth while a longer line is encoded. */
const BUFFER_BYTES = 2 * CHUNK_BYTES;

/**
 * Turns one resource's records into canonical NDJSON chunks for its parts, `<resource>/00000.ndjson`,
 * `00001.ndjson`, ...: one record per line, a new part once a part would pass the part size (a
 * record never spans two parts). Each line is encoded into one reusable
 * buffer as it comes: no string waits for a chunk to fill (a young string that survives costs every
 * garbage collection until it dies). The chunks go to a BundleFileOutput, which writes and hashes
 * them, here or on a thread of its own, and checks each line there against the record's schema.
 */
export class NdjsonPartsWriter {
  private buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  /** Bytes of pending lines at the start of the buffer. */
  private used = 0;
  private pendingRecords = 0;
  private part = 0;
  /** Bytes of the open part handed over. */
  private partBytes = 0;
  /** Records of the open part, handed over or pending. */
  private partRecords = 0;

  constructor(
    private readonly resource: string,
    private readonly output: Pick<BundleFileOutput, 'write'>,
    private readonly maxPartBytes: number = partBytes(),
    /** The resource's compiled serializer; canonicalJson's bytes either way. */
    private readonly serialize: CanonicalSerializer = canonicalJson,
  ) {}

  /** Takes one record. */
  write(record: unknown): void {
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
    if (this.partRecords > 0 && this.partBytes + this.used > this.maxPartBytes) {
      // The line opens the next part; the lines before it end this one.
      this.used = start;
      this.flush();
      this.buffer.copyWithin(0, start, start + bytes);
      this.used = bytes;
      this.part += 1;
      this.partBytes = 0;
      this.partRecords = 0;
    }
    this.pendingRecords += 1;
    this.partRecords += 1;
    if (this.used >= CHUNK_BYTES) this.flush();
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
    this.partBytes += this.used;
    this.used = 0;
    const records = this.pendingRecords;
    this.pendingRecords = 0;
    this.output.write({ resource: this.resource, part: this.part, records, bytes });
  }
}
