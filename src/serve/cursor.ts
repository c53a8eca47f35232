import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { CursorProblem } from './api-error.js';
import { compareText } from '../lib/text-order.js';

/** What a Profile A cursor binds: one snapshot, one operation, one set of filters, one position. */
export interface CursorBinding {
  snapshotId: string;
  operationId: string;
  /** queryFingerprint of the filter parameters (everything but cursor and limit). */
  queryHash: string;
}

const VERSION = 1;
const SIGNATURE_BYTES = 16; // 128 bits of HMAC-SHA256 is far beyond what guessing can reach
const TOKEN = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;

/**
 * Opaque, URL-safe cursors: base64url(JSON [version, snapshotId, operationId, queryHash, position])
 * + "." + base64url(truncated HMAC-SHA256). The signature makes them tamper-evident; the binding
 * makes a cursor of another snapshot, operation or query fail instead of paging wrongly. The
 * position is where the next page starts in the snapshot's order (an offset into an in-memory
 * selection, or the key of a serving-index row), stable because a snapshot never changes.
 */
export class CursorCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    if (secret.length < 32) throw new Error('the cursor secret must be at least 32 characters');
    this.key = Buffer.from(secret, 'utf8');
  }

  encode(binding: CursorBinding, position: number): string {
    const payload = Buffer.from(JSON.stringify([VERSION, binding.snapshotId, binding.operationId, binding.queryHash, position])).toString(
      'base64url',
    );
    return `${payload}.${this.sign(payload).toString('base64url')}`;
  }

  /** The position a cursor points at; throws CursorProblem with a client-safe reason otherwise. */
  decode(token: string, expected: CursorBinding): number {
    const match = TOKEN.exec(token);
    if (!match) throw new CursorProblem('cursor is malformed');
    const [, payload, signature] = match as unknown as [string, string, string];
    // The signature's text, not its decoded bytes: base64url's last character carries bits that
    // decoding ignores, so sixteen spellings would otherwise pass for one signature.
    const given = Buffer.from(signature, 'latin1');
    const wanted = Buffer.from(this.sign(payload).toString('base64url'), 'latin1');
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw new CursorProblem('cursor is malformed or was altered');
    let fields: unknown;
    try {
      fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw new CursorProblem('cursor is malformed');
    }
    if (!Array.isArray(fields) || fields.length !== 5 || fields[0] !== VERSION) throw new CursorProblem('cursor is malformed');
    const [, snapshotId, operationId, queryHash, position] = fields as [number, unknown, unknown, unknown, unknown];
    if (typeof position !== 'number' || !Number.isSafeInteger(position) || position < 0) throw new CursorProblem('cursor is malformed');
    if (snapshotId !== expected.snapshotId) {
      throw new CursorProblem('cursor belongs to another snapshot; start again without a cursor');
    }
    if (operationId !== expected.operationId) throw new CursorProblem('cursor belongs to another operation');
    if (queryHash !== expected.queryHash) throw new CursorProblem('cursor was issued for other query parameters');
    return position;
  }

  private sign(payload: string): Buffer {
    return createHmac('sha256', this.key).update(`pdsnap-cursor\n${payload}`).digest().subarray(0, SIGNATURE_BYTES);
  }
}

/** A stable digest of filter parameters, independent of their order in the URL. */
export function queryFingerprint(filters: Record<string, unknown>): string {
  const entries = Object.entries(filters)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => compareText(a, b));
  return hash('sha256', JSON.stringify(entries), 'base64url').slice(0, 22);
}
