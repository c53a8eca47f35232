import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { type Manifest, type ResourceEntry, resourceOfPath } from '../model/manifest.js';
import { BundleIntegrityError } from './snapshot-id.js';

/** A record line longer than this is not one pdsnap wrote: the part is refused, not buffered. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/**
 * Streams the records of one part, in order, hashing the bytes as they pass. Memory holds one read
 * chunk and one record at a time. The part's size, digest and record count are checked when it
 * ends: a caller that acts on records before then must drop what it did when this throws.
 * Only a missing file or a mismatch is corruption (BundleIntegrityError); any other read error
 * (EMFILE, EIO) is thrown as it is, so that the caller may try again later.
 */
export async function* readPartRecords(snapshotId: string, directory: string, entry: ResourceEntry): AsyncGenerator<unknown> {
  let number = 0;
  for await (const line of readPartLines(snapshotId, directory, entry)) {
    number += 1;
    yield parseLine(snapshotId, entry, line, number);
  }
}

/**
 * The raw lines of one part (without the line break), verified like readPartRecords. A line is a
 * view into the read buffer: valid until the next one is asked for. Readers that only compare
 * records (diff) hash the bytes and parse only what differs.
 */
export async function* readPartLines(snapshotId: string, directory: string, entry: ResourceEntry): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let bytes = 0;
  let records = 0;
  let carry: Buffer | null = null;
  const stream = createReadStream(path.join(directory, entry.path), { highWaterMark: 1 << 20 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
      let buffer: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
      let start = 0;
      for (let end = buffer.indexOf(10, start); end !== -1; end = buffer.indexOf(10, start)) {
        records += 1;
        yield buffer.subarray(start, end);
        start = end + 1;
      }
      buffer = buffer.subarray(start);
      if (buffer.length > MAX_RECORD_BYTES)
        throw new BundleIntegrityError(snapshotId, `${entry.path} has a line longer than ${MAX_RECORD_BYTES} bytes`);
      carry = buffer.length > 0 ? Buffer.from(buffer) : null;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BundleIntegrityError(snapshotId, `${entry.path} is missing`);
    throw error;
  } finally {
    stream.destroy();
  }
  if (bytes !== entry.bytes) throw new BundleIntegrityError(snapshotId, `${entry.path} has ${bytes} bytes; manifest says ${entry.bytes}`);
  if (hash.digest('hex') !== entry.sha256) throw new BundleIntegrityError(snapshotId, `${entry.path} does not match its sha256`);
  if (carry !== null) throw new BundleIntegrityError(snapshotId, `${entry.path} does not end with a line break`);
  if (records !== entry.records)
    throw new BundleIntegrityError(snapshotId, `${entry.path} holds ${records} records; manifest says ${entry.records}`);
}

/** Every record of a resource, part after part, in published order. */
export async function* readResourceRecords(manifest: Manifest, directory: string, resource: string): AsyncGenerator<unknown> {
  for (const entry of manifest.files) {
    if (resourceOfPath(entry.path) === resource) yield* readPartRecords(manifest.snapshotId, directory, entry);
  }
}

export function parseLine(snapshotId: string, entry: ResourceEntry, line: Buffer, number: number): unknown {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    throw new BundleIntegrityError(snapshotId, `${entry.path} line ${number} is not JSON`);
  }
}
