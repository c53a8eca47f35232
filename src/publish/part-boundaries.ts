import { wholeNumberFromEnv } from '../lib/env-number.js';
import { murmurHash3 } from '../lib/murmur-hash3.js';

/** No part passes this size (unless one line alone does): small enough to hash, copy and upload one at a time. */
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** A part ends by its content only once it holds this much, so that parts are not tiny. */
const DEFAULT_MIN_BYTES = 512 * 1024;
/** The bytes a part holds past its minimum before a line ends it, on average. */
const DEFAULT_AVERAGE_BYTES = 1024 * 1024;

/** PDSNAP_PART_BYTES overrides the largest part size (tests force tiny parts with it). */
export function partBytes(env: NodeJS.ProcessEnv = process.env): number {
  return wholeNumberFromEnv(env, 'PDSNAP_PART_BYTES', 'a whole number of bytes, at least 1', (value) => value >= 1) ?? DEFAULT_MAX_BYTES;
}

/** The defaults, with the largest part size PDSNAP_PART_BYTES asks for (partBytes). */
export function partBoundaries(maxBytes: number = partBytes()): PartBoundaries {
  return new PartBoundaries({ minBytes: DEFAULT_MIN_BYTES, averageBytes: DEFAULT_AVERAGE_BYTES, maxBytes });
}

/** The bytes of a line's end that decide whether it ends a part. */
const SAMPLE_BYTES = 64;

/**
 * Where a resource's lines are cut into parts: by their content, as FastCDC and restic cut files
 * into chunks, but between lines, so a record never spans two parts. A part ends after a line once
 * it holds at least `minBytes` and that line's hash (lineHash) falls below `2^32 * lineBytes /
 * averageBytes`: each byte is as likely as any other to end a part, so parts come to about
 * `minBytes + averageBytes` whether the lines are 370 bytes or 22 KB. Because the decision depends
 * on the line's own bytes and the size of its part only, one record inserted, changed or removed
 * changes the part it lands in, and at times the next one or two, until a part ends at the same
 * line as before: from there on the parts are the same bytes, the same blobs. Cut by size, every
 * later part would have shifted.
 * A line that would make its part pass `maxBytes` opens the next part first, as before.
 */
export class PartBoundaries {
  readonly minBytes: number;
  readonly averageBytes: number;
  readonly maxBytes: number;
  /** A line's hash below this times its length ends its part. */
  private readonly thresholdPerByte: number;

  constructor(sizes: { minBytes: number; averageBytes: number; maxBytes: number }) {
    const { averageBytes, maxBytes } = sizes;
    for (const [name, value] of Object.entries(sizes)) {
      if (!Number.isInteger(value) || value < (name === 'minBytes' ? 0 : 1))
        throw new Error(`part ${name} must be a whole number of bytes, got ${value}`);
    }
    // Forced tiny parts (PDSNAP_PART_BYTES) keep the rules consistent: a part may end once full.
    this.minBytes = Math.min(sizes.minBytes, maxBytes);
    this.averageBytes = averageBytes;
    this.maxBytes = maxBytes;
    this.thresholdPerByte = 2 ** 32 / averageBytes;
  }

  /** Whether a line of `lineBytes` must open a new part, its part holding `partBytes` (and a line at least) already. */
  opensPart(partBytes: number, lineBytes: number): boolean {
    return partBytes > 0 && partBytes + lineBytes > this.maxBytes;
  }

  /**
   * Whether the line `bytes[start, end]` (`end` is its line break) ends its part, which holds
   * `partBytes` with it.
   */
  endsPart(partBytes: number, bytes: Uint8Array, start: number, end: number): boolean {
    if (partBytes < this.minBytes) return false;
    return lineHash(bytes, start, end) < (end + 1 - start) * this.thresholdPerByte;
  }
}

/**
 * An unsigned 32-bit hash of the line `bytes[start, end)` (without its line break): MurmurHash3 of
 * its last SAMPLE_BYTES bytes, seeded with its length. A function of the line's bytes alone, so
 * that a bundle is the same however its lines arrived. A bounded sample, so a 22 KB investor costs
 * what a 370-byte trade does (this runs on the writer thread for every line); its end, since lines
 * of a resource share long prefixes (their first keys, an investor's name on each of its trades)
 * while their ends differ (a slug, share counts, a date). Murmur3 rather than the FNV-1a used
 * elsewhere: the threshold compares the high bits, which its final mix makes depend on every byte.
 */
export function lineHash(bytes: Uint8Array, start: number, end: number): number {
  return murmurHash3(bytes, Math.max(start, end - SAMPLE_BYTES), end, end - start);
}
