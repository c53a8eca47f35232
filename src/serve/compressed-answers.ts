import { brotliCompressSync, constants, crc32, gzipSync } from 'node:zlib';
import type { Encoding } from './etag.js';
import { SelectionCache } from './indexes/selection-cache.js';

/**
 * Brotli quality for answers, which are compressed on their first request (and on every request
 * of an answer the cache no longer holds). Quality 2 took a third of quality 4's time on a 39 KB
 * page of 100 trades (0.37 against 1.35 ms) for 9% more bytes (4,250 against 3,881), and less time
 * than gzip's fastest level (docs/performance.md, Compression).
 */
export const BROTLI_QUALITY = 2;

/** What the cache holds at most: compressed bytes of every kind together. */
export const COMPRESSED_CACHE_BYTES = 32 * 1024 * 1024;

interface Compressed {
  /** CRC-32 of the bytes it was made from, to check that a body with the same tag is the same. */
  crc: number;
  /** A whole stream when the body had no variable tail; else one flushed, not ended (see below). */
  bytes: Buffer;
}

/**
 * Compressed answers, kept per ETag, encoding and length, so that a page costs its compression once
 * (until the cache, bounded by COMPRESSED_CACHE_BYTES, starts over), not on every request.
 *
 * Profile A bodies end with their request id (`…,"requestId":"req_…"}`), which differs on every
 * request while everything before it is the same for one tag. So the part before the id is what is
 * compressed and kept, as a stream flushed to a byte boundary but not ended, and each answer ends
 * it with its own tail stored as it is: an uncompressed meta-block and an empty last one for brotli
 * (RFC 7932 section 9.2), a final stored block and the trailer (CRC-32 and length of the whole
 * body) for gzip (RFC 1951 section 3.2.4, RFC 1952). The tail is a few dozen bytes, so storing it
 * raw costs nothing worth compressing; any decoder reads the result as one stream.
 *
 * A tag names its content (304s rely on it already); the CRC-32 of the kept part is checked all the
 * same, since it costs microseconds where a compression costs a fraction of a millisecond.
 */
export class CompressedAnswers {
  private readonly cache: SelectionCache<Compressed>;

  constructor(maxBytes = COMPRESSED_CACHE_BYTES) {
    this.cache = new SelectionCache<Compressed>(maxBytes, (entry) => entry.bytes.length);
  }

  /**
   * `body` under `encoding`. `tailFrom`: where the part that differs from request to request
   * starts (body.length when none does). `onlyIfKept`: answer only from the cache, null on a miss
   * (a HEAD request never pays for a compression).
   */
  encode(body: Buffer, encoding: Encoding, etag: string, tailFrom: number, onlyIfKept = false): Buffer | null {
    const kept = body.subarray(0, tailFrom);
    const tail = body.subarray(tailFrom);
    const crc = crc32(kept);
    const key = `${encoding} ${tailFrom} ${etag}`;
    const fresh = (): Compressed => ({ crc, bytes: tail.length === 0 ? compressWhole(kept, encoding) : compressFlushed(kept, encoding) });
    let entry = this.cache.peek(key);
    if (entry === undefined) {
      if (onlyIfKept) return null;
      entry = this.cache.get(key, fresh);
    } else if (entry.crc !== crc) {
      // Another body under the same tag (a tag that does not name its content): compressed as it is, not kept.
      if (onlyIfKept) return null;
      entry = fresh();
    }
    if (tail.length === 0) return entry.bytes;
    return Buffer.concat([entry.bytes, endOfStream(encoding, tail, crc32(tail, crc), body.length)]);
  }
}

function compressWhole(body: Buffer, encoding: Encoding): Buffer {
  return encoding === 'br' ? brotliCompressSync(body, BROTLI_OPTIONS) : gzipSync(body);
}

/** The stream of `body`, flushed to a byte boundary and not ended, so that more can follow. */
function compressFlushed(body: Buffer, encoding: Encoding): Buffer {
  return encoding === 'br'
    ? brotliCompressSync(body, { ...BROTLI_OPTIONS, finishFlush: constants.BROTLI_OPERATION_FLUSH })
    : gzipSync(body, { finishFlush: constants.Z_SYNC_FLUSH });
}

const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } };

/** The last bytes of a flushed stream: `tail` stored as it is, then the end (and for gzip the trailer). */
export function endOfStream(encoding: Encoding, tail: Buffer, wholeCrc: number, wholeLength: number): Buffer {
  const parts: Buffer[] = [];
  if (encoding === 'br') {
    // Meta-blocks of at most 65,536 bytes: ISLAST 0, MNIBBLES 0 (four nibbles), MLEN - 1 in 16 bits,
    // ISUNCOMPRESSED 1, zero bits to the byte boundary; then the bytes. Then ISLAST 1, ISLASTEMPTY 1.
    for (let at = 0; at < tail.length; at += 65_536) {
      const chunk = tail.subarray(at, at + 65_536);
      const header = ((chunk.length - 1) << 3) | (1 << 19);
      parts.push(Buffer.from([header & 0xff, (header >> 8) & 0xff, header >> 16]), chunk);
    }
    parts.push(Buffer.from([0b11]));
  } else {
    // Stored blocks of at most 65,535 bytes: BFINAL (the last), BTYPE 00, zero bits to the byte
    // boundary, LEN and its complement NLEN; then the bytes. Then CRC-32 and ISIZE of the whole body.
    let at = 0;
    do {
      const chunk = tail.subarray(at, at + 65_535);
      at += 65_535;
      const header = Buffer.alloc(5);
      header[0] = at >= tail.length ? 1 : 0;
      header.writeUInt16LE(chunk.length, 1);
      header.writeUInt16LE(chunk.length ^ 0xffff, 3);
      parts.push(header, chunk);
    } while (at < tail.length);
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(wholeCrc >>> 0, 0);
    trailer.writeUInt32LE(wholeLength >>> 0, 4);
    parts.push(trailer);
  }
  return Buffer.concat(parts);
}
