import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Size and SHA-256 of a file: what a manifest lists for every file of a bundle. */
export interface FileDigest {
  bytes: number;
  sha256: string;
}

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Streams a file through SHA-256 (never holding it whole); the event loop turns between chunks. */
export async function digestFile(file: string): Promise<FileDigest> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}
