import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { FileDigest } from './file-digest.js';

/**
 * A large file's digest in fixed-size chunks as well as whole. One SHA-256 over a whole file is
 * sequential: a 3 GB file takes seconds on one core. A list of chunk digests can be checked on
 * every core at once, off the event loop, so a server that must verify a file before it serves it
 * is ready in a fraction of that time. The whole-file digest stays for every other reader.
 */
export interface ChunkDigests {
  /** Every chunk is this long but the last, which may be shorter. */
  bytes: number;
  sha256: string[];
}

export interface ChunkedDigest extends FileDigest {
  chunks: ChunkDigests;
}

/** 16 MiB: a few dozen chunks per GB to share among cores, and a small buffer per lane. */
export const DEFAULT_CHUNK_BYTES = 16 * 1024 * 1024;

/** One pass that yields the whole-file digest and each chunk's (for a writer that has just written the file). */
export function digestFileInChunksSync(file: string, chunkBytes = DEFAULT_CHUNK_BYTES): ChunkedDigest {
  const whole = createHash('sha256');
  const chunkSha256: string[] = [];
  const buffer = Buffer.allocUnsafe(chunkBytes);
  const fd = openSync(file, 'r');
  let bytes = 0;
  try {
    for (;;) {
      const read = readFull(fd, buffer);
      if (read === 0) break;
      const chunk = buffer.subarray(0, read);
      whole.update(chunk);
      chunkSha256.push(createHash('sha256').update(chunk).digest('hex'));
      bytes += read;
      if (read < chunkBytes) break;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, sha256: whole.digest('hex'), chunks: { bytes: chunkBytes, sha256: chunkSha256 } };
}

function readFull(fd: number, buffer: Buffer): number {
  let filled = 0;
  while (filled < buffer.length) {
    const read = readSync(fd, buffer, filled, buffer.length - filled, null);
    if (read === 0) break;
    filled += read;
  }
  return filled;
}

/**
 * Checks a file against its chunk digests with several chunks in flight: reads and SHA-256 (Web
 * Crypto) both run on libuv's thread pool, so the event loop stays free and every core hashes.
 * Returns null when every chunk matches, or what differs. Read errors (ENOENT included) are thrown.
 */
export async function findChunkMismatch(file: string, bytes: number, expected: ChunkDigests): Promise<string | null> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size !== bytes) return `has ${size} bytes; manifest says ${bytes}`;
    const chunks = Math.ceil(size / expected.bytes);
    if (chunks !== expected.sha256.length) return `lists ${expected.sha256.length} chunk digests for ${chunks} chunks`;
    let next = 0;
    let mismatch: string | null = null;
    const lane = async (): Promise<void> => {
      const buffer = Buffer.allocUnsafe(Math.min(expected.bytes, size));
      while (mismatch === null && next < chunks) {
        const index = next++;
        const start = index * expected.bytes;
        const length = Math.min(expected.bytes, size - start);
        let filled = 0;
        while (filled < length) {
          const { bytesRead } = await handle.read(buffer, filled, length - filled, start + filled);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        if (filled !== length) {
          mismatch = `ended at byte ${start + filled} while being read; manifest says ${bytes}`;
          return;
        }
        const digest = Buffer.from(await crypto.subtle.digest('SHA-256', buffer.subarray(0, length))).toString('hex');
        if (digest !== expected.sha256[index]) mismatch ??= `does not match its sha256 in bytes ${start} to ${start + length - 1}`;
      }
    };
    await Promise.all(Array.from({ length: Math.min(chunks, hashingLanes()) }, lane));
    return mismatch;
  } finally {
    await handle.close();
  }
}

/** One lane per core, within libuv's default pool of four threads (reads share it). */
function hashingLanes(): number {
  return Math.max(2, Math.min(availableParallelism(), 4));
}
