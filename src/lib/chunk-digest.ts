import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
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
const DEFAULT_CHUNK_BYTES = 16 * 1024 * 1024;

/** One pass that yields the whole-file digest and each chunk's (for a writer that has just written the file). */
export function digestFileInChunksSync(file: string, chunkBytes = DEFAULT_CHUNK_BYTES): ChunkedDigest {
  const whole = createHash('sha256');
  const chunkSha256: string[] = [];
  const bytes = readInChunks(file, 'r', chunkBytes, (chunk) => {
    whole.update(chunk);
    chunkSha256.push(createHash('sha256').update(chunk).digest('hex'));
  });
  return { bytes, sha256: whole.digest('hex'), chunks: { bytes: chunkBytes, sha256: chunkSha256 } };
}

/**
 * Reads a file start to end in pieces of `chunkBytes` (the last one shorter, none for an empty
 * file), after `beforeReading` on its descriptor; returns the bytes read.
 */
function readInChunks(
  file: string,
  flags: 'r' | 'r+',
  chunkBytes: number,
  visit: (chunk: Buffer) => void,
  beforeReading: (fd: number) => void = () => {},
): number {
  const buffer = Buffer.allocUnsafe(chunkBytes);
  const fd = openSync(file, flags);
  let bytes = 0;
  try {
    beforeReading(fd);
    for (;;) {
      const read = readFull(fd, buffer);
      if (read === 0) break;
      visit(buffer.subarray(0, read));
      bytes += read;
      if (read < chunkBytes) break;
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}

/** How long syncAndDigestFileInChunks waits for its helper before it hashes the chunks itself. */
const HELPER_WAIT_MS = 120_000;

/**
 * Forces a file that was just written to disk and digests it as digestFileInChunksSync does, on
 * two threads: a helper thread hashes the chunks while this one waits for the disk and then hashes
 * the whole file, so a full-size serving index (hundreds of MB, hashed twice) costs the time of
 * one pass after the flush rather than a flush and two passes one after the other. Synchronous, for
 * a writer with nothing else to do. When the helper fails or does not answer, the chunks are
 * hashed here: the same digests, later. A file of one chunk needs no helper (below).
 */
export function syncAndDigestFileInChunks(file: string, chunkBytes = DEFAULT_CHUNK_BYTES): ChunkedDigest {
  const size = statSync(file).size;
  const chunks = Math.ceil(size / chunkBytes);
  if (chunks <= 1) return syncAndDigestOneChunk(file, chunkBytes);
  const shared = new SharedArrayBuffer(4 + 32 * chunks);
  const status = new Int32Array(shared, 0, 1);
  let helper: Worker | null = null;
  try {
    const task: LaneTask = { file, chunkBytes, size, lane: 0, lanes: 1, shared };
    helper = new Worker(LANE_SOURCE, { eval: true, workerData: task });
    helper.unref();
  } catch {
    Atomics.store(status, 0, 2);
  }
  const whole = createHash('sha256');
  // Opened for writing: fsync needs it on some systems.
  const bytes = readInChunks(file, 'r+', chunkBytes, (chunk) => whole.update(chunk), fsyncSync);
  Atomics.wait(status, 0, 0, HELPER_WAIT_MS);
  if (Atomics.load(status, 0) !== 1 || bytes !== size) {
    void helper?.terminate();
    return digestFileInChunksSync(file, chunkBytes);
  }
  const digests = Buffer.from(shared, 4);
  const sha256 = Array.from({ length: chunks }, (_, index) => digests.toString('hex', index * 32, index * 32 + 32));
  return { bytes, sha256: whole.digest('hex'), chunks: { bytes: chunkBytes, sha256 } };
}

/**
 * A file of one chunk at most (every small bundle's index): that chunk's digest is the whole file's,
 * so one pass here, after the flush, and no helper thread, whose start would cost more than the hashing.
 */
function syncAndDigestOneChunk(file: string, chunkBytes: number): ChunkedDigest {
  const whole = createHash('sha256');
  const bytes = readInChunks(file, 'r+', chunkBytes, (chunk) => whole.update(chunk), fsyncSync);
  // It grew past one chunk since it was measured: as digestFileInChunksSync gives it.
  if (bytes > chunkBytes) return digestFileInChunksSync(file, chunkBytes);
  const sha256 = whole.digest('hex');
  return { bytes, sha256, chunks: { bytes: chunkBytes, sha256: bytes === 0 ? [] : [sha256] } };
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
 * Checks a file against its chunk digests on every core: worker threads take the chunks one after
 * another and hash each with their own reads, so the event loop stays free and the check takes the
 * time of one core's share. Returns null when every chunk matches, or what differs (the first chunk
 * that does not). Read errors (ENOENT included) are thrown, with their code.
 */
export async function findChunkMismatch(file: string, bytes: number, expected: ChunkDigests): Promise<string | null> {
  const { size } = await stat(file);
  if (size !== bytes) return `has ${size} bytes; manifest says ${bytes}`;
  const chunks = Math.ceil(size / expected.bytes);
  if (chunks !== expected.sha256.length) return `lists ${expected.sha256.length} chunk digests for ${chunks} chunks`;
  const pieces = expected.sha256.map((sha256, index) => ({
    file,
    start: index * expected.bytes,
    bytes: Math.min(expected.bytes, size - index * expected.bytes),
    sha256,
  }));
  const first = await findPieceMismatch(pieces);
  if (first === null) return null;
  const piece = pieces[first]!;
  return `does not match its sha256 in bytes ${piece.start} to ${piece.start + piece.bytes - 1}`;
}

/** A byte range of a file and the SHA-256 it must have. */
export interface DigestedPiece {
  file: string;
  start: number;
  bytes: number;
  sha256: string;
}

/**
 * Checks byte ranges of files (a file's chunks, whole files, or both) against their digests on every
 * core, as findChunkMismatch does for one file: each lane takes the next piece not yet taken, so
 * pieces of different sizes still share the cores evenly. Returns the index of the first piece that
 * differs (or is shorter than listed), or null. Read errors (ENOENT included) are thrown, with their code.
 */
export async function findPieceMismatch(pieces: readonly DigestedPiece[]): Promise<number | null> {
  if (pieces.length === 0) return null;
  const lanes = Math.min(pieces.length, availableParallelism(), MAX_LANES);
  const next = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  const found = await Promise.all(Array.from({ length: lanes }, () => runLane({ pieces, next })));
  const first = Math.min(...found.map((index) => index ?? Number.POSITIVE_INFINITY));
  return Number.isFinite(first) ? first : null;
}

const MAX_LANES = 4;

/** What a lane reads at a time: a 64 MiB part is hashed in pieces of this, so a lane holds one such buffer. */
const LANE_READ_BYTES = 16 * 1024 * 1024;

type LaneTask =
  /**
   * Verify: the pieces to check, and a shared counter of the next one to take; the lane posts the
   * first (lowest) index it found to differ, or null, or the read error.
   */
  | { pieces: readonly DigestedPiece[]; next: SharedArrayBuffer }
  /**
   * Digest: hash chunks lane, lane + lanes, ... of a file. `shared` holds 4 bytes of status (0
   * running, 1 done, 2 failed), then 32 bytes per chunk; the lane writes its chunks' digests there
   * and then the status, and notifies.
   */
  | { file: string; chunkBytes: number; size: number; lane: number; lanes: number; shared: SharedArrayBuffer };

/**
 * One lane's work, as plain JavaScript so that the same worker runs from the compiled CLI and from
 * the TypeScript sources under test (the two kinds of LaneTask above).
 */
const LANE_SOURCE = `
const { createHash } = require('node:crypto');
const { openSync, readSync, closeSync } = require('node:fs');
const { parentPort, workerData: task } = require('node:worker_threads');
const READ_BYTES = ${LANE_READ_BYTES};
function readFull(fd, buffer, length, position) {
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, buffer, filled, length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return filled;
}
if (task.pieces) {
  try {
    const next = new Int32Array(task.next);
    const fds = new Map();
    let buffer = null;
    let mismatch = null;
    try {
      for (let index = Atomics.add(next, 0, 1); index < task.pieces.length; index = Atomics.add(next, 0, 1)) {
        const piece = task.pieces[index];
        let fd = fds.get(piece.file);
        if (fd === undefined) {
          fd = openSync(piece.file, 'r');
          fds.set(piece.file, fd);
        }
        buffer ??= Buffer.allocUnsafe(Math.max(1, Math.min(READ_BYTES, task.pieces.reduce((most, p) => Math.max(most, p.bytes), 0))));
        const hash = createHash('sha256');
        let done = 0;
        while (done < piece.bytes) {
          const length = Math.min(READ_BYTES, piece.bytes - done);
          const filled = readFull(fd, buffer, length, piece.start + done);
          hash.update(buffer.subarray(0, filled));
          done += filled;
          if (filled < length) break;
        }
        if (done !== piece.bytes || hash.digest('hex') !== piece.sha256) {
          mismatch = mismatch === null ? index : Math.min(mismatch, index);
        }
      }
    } finally {
      for (const fd of fds.values()) closeSync(fd);
    }
    parentPort.postMessage({ mismatch });
  } catch (error) {
    parentPort.postMessage({ error: { message: error.message, code: error.code } });
  }
} else {
  const status = new Int32Array(task.shared, 0, 1);
  const digests = new Uint8Array(task.shared, 4);
  try {
    const fd = openSync(task.file, 'r');
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(task.chunkBytes, task.size)));
    try {
      for (let index = task.lane; index * task.chunkBytes < task.size; index += task.lanes) {
        const start = index * task.chunkBytes;
        const length = Math.min(task.chunkBytes, task.size - start);
        if (readFull(fd, buffer, length, start) !== length) throw new Error('the file is shorter than when the digest began');
        digests.set(createHash('sha256').update(buffer.subarray(0, length)).digest(), index * 32);
      }
    } finally {
      closeSync(fd);
    }
    Atomics.store(status, 0, 1);
    Atomics.notify(status, 0);
  } catch (error) {
    Atomics.store(status, 0, 2);
    Atomics.notify(status, 0);
  }
}
`;

function runLane(task: LaneTask): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LANE_SOURCE, { eval: true, workerData: task });
    worker.once('message', (answer: { mismatch?: number | null; error?: { message: string; code?: string } }) => {
      if (answer.error) reject(Object.assign(new Error(answer.error.message), { code: answer.error.code }));
      else resolve(answer.mismatch ?? null);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`chunk digest worker exited with code ${code}`)));
  });
}
