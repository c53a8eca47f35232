import type { WrittenLeftovers } from './diff-leftovers.js';
import type { LineBatch, PartToRead } from './diff-lines.js';
import type { PairingSides, PartialVerdicts, PartitionLines } from './diff-pairing.js';
import { asBundleDamage, UnreadableBundleFileError } from '../bundle-file-damage.js';
import { BundleIntegrityError } from '../store-errors.js';

/** What the diff asks of a worker thread (diff-worker.ts); `task` tells its answers apart. */
export type DiffRequest =
  | { kind: 'read'; task: number; label: string; parts: PartToRead[]; credit: number }
  | { kind: 'credit'; task: number }
  | { kind: 'stop'; task: number }
  /** A batch's buffer, which the diff reads no more: read into it again. */
  | { kind: 'recycle'; task: number; buffer: ArrayBuffer }
  | { kind: 'open-leftovers'; task: number; resource: string; partitions: number; sides: PairingSides }
  | { kind: 'leftovers'; task: number; lines: Int32Array; data: Uint8Array }
  | { kind: 'finish-leftovers'; task: number }
  | { kind: 'dispose-leftovers'; task: number }
  | { kind: 'settle'; task: number; partitions: PartitionLines[]; limit: number; sides: PairingSides }
  /** Close every temporary file and stop every reading: the diff ends. */
  | { kind: 'shutdown'; task: number };

/** Left-over lines as a 'leftovers' request lists them: this many numbers a line (side, seq, part, number, start and end in `data`). */
export const LEFTOVER_FIELDS = 6;

export type DiffReply =
  | { kind: 'batch'; task: number; batch: LineBatch }
  | { kind: 'end'; task: number }
  /** The lines of a 'leftovers' request are written; its buffers come back to be used again. */
  | { kind: 'added'; task: number; lines: Int32Array; data: Uint8Array }
  | { kind: 'written'; task: number; written: WrittenLeftovers }
  | { kind: 'settled'; task: number; partial: PartialVerdicts }
  | { kind: 'shut'; task: number }
  | { kind: 'failed'; task: number; error: SentError };

/** An error as it crosses threads: bundle damage keeps its kind, anything else its message and code. */
export type SentError =
  | { kind: 'integrity'; snapshotId: string; reason: string }
  | { kind: 'unreadable'; snapshotId: string; file: string; code: string }
  | { kind: 'other'; message: string; code?: string };

export function sendError(error: unknown): SentError {
  if (error instanceof UnreadableBundleFileError)
    return { kind: 'unreadable', snapshotId: error.snapshotId, file: error.file, code: error.code };
  if (error instanceof BundleIntegrityError) return { kind: 'integrity', snapshotId: error.snapshotId, reason: error.reason };
  const { message, code } = error as NodeJS.ErrnoException;
  return { kind: 'other', message: String(message), ...(typeof code === 'string' ? { code } : {}) };
}

/** The error again, of the class it had where it was thrown. */
export function receivedError(sent: SentError): Error {
  switch (sent.kind) {
    case 'integrity':
      return new BundleIntegrityError(sent.snapshotId, sent.reason);
    case 'unreadable':
      return asBundleDamage(sent.snapshotId, sent.file, { code: sent.code }) as Error;
    case 'other':
      return Object.assign(new Error(sent.message), sent.code === undefined ? {} : { code: sent.code });
  }
}

/** A batch as it arrives: its lines came over as a plain Uint8Array. */
export function receivedBatch(batch: LineBatch): LineBatch {
  return { ...batch, data: asBuffer(batch.data) };
}

export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
