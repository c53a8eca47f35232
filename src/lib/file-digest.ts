import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform } from 'node:stream';

/** Size and SHA-256 of a file: what a manifest lists for every file of a bundle. */
export interface FileDigest {
  bytes: number;
  sha256: string;
}

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Streams a file through SHA-256 (never holding it whole); the event loop turns between chunks. */
export function digestFile(file: string): Promise<FileDigest> {
  return digestStream(createReadStream(file, { highWaterMark: 1 << 20 }));
}

/** Size and SHA-256 of everything a stream yields, read to its end. */
export async function digestStream(stream: AsyncIterable<Buffer>): Promise<FileDigest> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * A pass-through stream that hashes and counts what flows through it, for a copy checked on the
 * way; `digest()` once the pipeline has ended. `fault`, asked after each chunk is counted, may end
 * the copy with an error.
 */
export function digestingPassThrough(fault: () => Error | null = () => null): { stream: Transform; digest(): FileDigest } {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(fault(), chunk);
    },
  });
  return { stream, digest: () => ({ bytes, sha256: hash.digest('hex') }) };
}
