import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { ResourceEntry } from '../model/manifest.js';
import { canonicalJson } from './canonical-json.js';

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

const FLUSH_BYTES = 1 << 20;

/**
 * Writes records as one canonical JSON array, record by record, hashing as it goes: byte-identical
 * to canonicalJson(records) without ever building the whole string, so a full-size Smart Money
 * resource never has to fit in memory twice.
 */
export async function writeCanonicalArray(
  file: string,
  resource: string,
  records: Iterable<unknown>,
  check: RecordCheck,
): Promise<ResourceEntry> {
  const hash = createHash('sha256');
  const handle = await open(file, 'wx');
  let bytes = 0;
  let count = 0;
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const chunk = Buffer.from(pending.join(''), 'utf8');
    pending = [];
    pendingLength = 0;
    hash.update(chunk);
    bytes += chunk.length;
    await handle.write(chunk);
  };
  try {
    pending.push('[');
    for (const record of records) {
      const reason = check(record);
      if (reason) throw new InvalidRecordError(resource, count, reason);
      const text = (count > 0 ? ',' : '') + canonicalJson(record);
      pending.push(text);
      pendingLength += text.length;
      count += 1;
      if (pendingLength >= FLUSH_BYTES) await flush();
    }
    pending.push(']');
    await flush();
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { path: resource, bytes, sha256: hash.digest('hex'), records: count };
}
