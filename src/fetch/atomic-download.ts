import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { createHash, type Hash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { syncDir } from '../lib/atomic-file.js';
import type { FileDigest } from '../lib/file-digest.js';
import { AttemptFailed } from './fetch-errors.js';
import { overCap } from './retry-policy.js';

/**
 * A download lands in a temporary file beside its target and is renamed over it only once it is
 * whole: the body as long as `Content-Length` said, decoded to its end, and passing the check of its
 * kind (docs/sources-fetch.md, Every byte safe). Until then the last good copy stays where it is,
 * untouched; a failed attempt removes its temporary file. Temporary names start with a dot, so a
 * build that runs meanwhile (or after a crash) never reads one.
 */

/** Caps on one answer (docs/sources-fetch.md, Every byte safe to keep). */
export interface DownloadCaps {
  /** Bytes on the wire, before content decoding. */
  maxResponseBytes: number;
  /** Bytes written, after content decoding: what a gzip bomb would inflate. */
  maxDecodedBytes: number;
}

/** 1 GiB on the wire and 2 GiB decoded: a quarter's Form 13F data set ZIP (a few hundred MB) fits. */
export const DEFAULT_CAPS: DownloadCaps = { maxResponseBytes: 1024 ** 3, maxDecodedBytes: 2 * 1024 ** 3 };

/** The temporary file of a download of `target`: in the same folder (so the rename is atomic), hidden. */
export function temporaryPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.part`);
}

/** Temporary files a killed run left for `target` (any process; one fetch runs per sources folder at a time). */
export async function removeLeftovers(target: string): Promise<void> {
  const prefix = `.${path.basename(target)}.`;
  let names: string[];
  try {
    names = await readdir(path.dirname(target));
  } catch {
    return;
  }
  for (const name of names)
    if (name.startsWith(prefix) && name.endsWith('.part')) await rm(path.join(path.dirname(target), name), { force: true });
}

/**
 * Streams `body` into `temp` through the caps, decoding gzip when the answer says so, and checks
 * its length against `Content-Length`; the size and SHA-256 of what was written.
 */
export async function receiveBody(
  body: Readable,
  headers: Record<string, string | string[] | undefined>,
  temp: string,
  caps: DownloadCaps,
): Promise<FileDigest> {
  const encoding = headerValue(headers['content-encoding'])?.trim().toLowerCase() ?? 'identity';
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'x-gzip') {
    body.destroy();
    throw new AttemptFailed(`the answer is encoded as "${encoding}", which pdsnap did not ask for (it asks for gzip)`, false);
  }
  const declared = headerValue(headers['content-length']);
  const expected = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : null;
  if (expected !== null && expected > caps.maxResponseBytes) {
    body.destroy();
    throw overCap(`the answer (Content-Length ${expected})`, caps.maxResponseBytes);
  }
  const wire = new ByteMeter(caps.maxResponseBytes, 'the answer', false);
  const decoded = new ByteMeter(caps.maxDecodedBytes, 'the decoded body', true);
  await mkdir(path.dirname(temp), { recursive: true });
  // `flush`: the bytes are on disk before the rename that publishes them.
  const file = createWriteStream(temp, { flags: 'wx', flush: true });
  if (encoding === 'identity') await pipeline(body, wire, decoded, file);
  else await pipeline(body, wire, createGunzip(), decoded, file);
  if (expected !== null && wire.bytes !== expected) {
    throw new AttemptFailed(`the body ended after ${wire.bytes} of the ${expected} bytes its Content-Length announced (cut short)`, true);
  }
  return { bytes: decoded.bytes, sha256: decoded.sha256() };
}

/** Publishes a whole download: rename over the target, then make the rename durable. */
export async function commitDownload(temp: string, target: string): Promise<void> {
  await rename(temp, target);
  await syncDir(path.dirname(target));
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Counts (and hashes) what flows through, and ends the stream with a refusal once `cap` is passed. */
class ByteMeter extends Transform {
  bytes = 0;
  private readonly hash: Hash | null;

  constructor(
    private readonly cap: number,
    private readonly what: string,
    hashed: boolean,
  ) {
    super();
    this.hash = hashed ? createHash('sha256') : null;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.cap) {
      done(overCap(this.what, this.cap));
      return;
    }
    this.hash?.update(chunk);
    done(null, chunk);
  }

  sha256(): string {
    return this.hash!.digest('hex');
  }
}
