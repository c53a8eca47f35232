import { createReadStream, createWriteStream } from 'node:fs';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { digestingPassThrough } from '../lib/file-digest.js';
import { downloadCut, uploadCut } from '../lib/fault-point.js';
import type { BucketLocation } from './s3-location.js';

/** Objects above this size are uploaded in parts (a 64 MiB NDJSON part, a serving index). */
const MULTIPART_PART_BYTES = 16 * 1024 * 1024;

export interface ListedObject {
  key: string;
  size: number;
  lastModified: Date;
}

/** A request the bucket refused or that failed in transit, naming the object. */
class BucketError extends Error {
  override readonly name = 'BucketError';
  constructor(
    readonly url: string,
    readonly status: number | undefined,
    cause: unknown,
  ) {
    const error = cause as { name?: string; message?: string };
    const said = `${error.name ?? 'Error'}${status ? ` (HTTP ${status})` : ''}: ${error.message ?? String(cause)}`;
    super(`${url}: ${said}${bucketHint(status, said)}`);
  }
}

/** What to do about the answers an operator can fix; S3 often sends a 403 or 301 without a body. */
function bucketHint(status: number | undefined, said: string): string {
  if (status === 403) return ' (access denied: check the AWS credentials in use and that they may list and read the bucket)';
  if (status === 301) return ' (the bucket is in another region: set AWS_REGION to its region)';
  if (/Region is missing/i.test(said)) return ' (set AWS_REGION, or use a profile that names a region)';
  return '';
}

/**
 * The S3 client, from the SDK's standard chain: credentials from the environment, a profile, or an
 * instance or container role; the region from AWS_REGION or the profile. With AWS_ENDPOINT_URL,
 * path-style addressing, which MinIO, Ceph, R2 and s3rver expect.
 */
export function s3Client(env: NodeJS.ProcessEnv = process.env): S3Client {
  // pdsnap supports Node.js 20 on purpose; the SDK's notice about it would be in every command's output.
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const endpoint = env.AWS_ENDPOINT_URL;
  return new S3Client({
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    // pdsnap checks every object's SHA-256 itself; the SDK's newer default checksums are refused by
    // some S3-compatible servers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** The few object operations the bucket store needs, each error naming the object. */
export class BucketObjects {
  constructor(
    readonly client: S3Client,
    readonly location: BucketLocation,
  ) {}

  url(key: string): string {
    return `s3://${this.location.bucket}/${key}`;
  }

  /** True when the bucket exists and can be reached; false when it does not exist. */
  async bucketExists(): Promise<boolean> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.location.bucket }));
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw new BucketError(`s3://${this.location.bucket}`, statusOf(error), error);
    }
  }

  /** An object's text and ETag; null when it does not exist; 'unchanged' when it still has `etag`. */
  async getText(key: string, etag?: string): Promise<{ text: string; etag: string } | null | 'unchanged'> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.location.bucket, Key: key, ...(etag ? { IfNoneMatch: etag } : {}) }),
      );
      return { text: await answer.Body!.transformToString('utf8'), etag: answer.ETag ?? '' };
    } catch (error) {
      const status = statusOf(error);
      if (status === 304) return 'unchanged';
      if (status === 404) return null;
      throw new BucketError(this.url(key), status, error);
    }
  }

  /** `bytes` bytes of an object from `start` (a ranged GET); null when it does not exist or ends before. */
  async getRange(key: string, start: number, bytes: number): Promise<Uint8Array | null> {
    if (bytes === 0) return new Uint8Array(0);
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.location.bucket, Key: key, Range: `bytes=${start}-${start + bytes - 1}` }),
      );
      const body = await answer.Body!.transformToByteArray();
      return body.length === bytes ? body : null;
    } catch (error) {
      const status = statusOf(error);
      if (status === 404 || status === 416) return null;
      throw new BucketError(this.url(key), status, error);
    }
  }

  /**
   * Writes a small object. With `onlyIfAbsent`, asks the server to refuse an existing key
   * (If-None-Match: *); servers that ignore it overwrite, so callers never depend on it.
   * Returns false when the server refused because the key exists.
   */
  async putText(key: string, text: string, options: { onlyIfAbsent?: boolean } = {}): Promise<boolean> {
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.location.bucket,
          Key: key,
          Body: text,
          ContentType: 'application/json',
          ...(options.onlyIfAbsent ? { IfNoneMatch: '*' } : {}),
        }),
      );
      return true;
    } catch (error) {
      const status = statusOf(error);
      if (options.onlyIfAbsent && status === 412) return false;
      throw new BucketError(this.url(key), status, error);
    }
  }

  /**
   * Streams a local file into an object (in parts when large), recording its SHA-256 as metadata.
   * A connection cut off on the way (no HTTP status: "aborted", a reset) is tried again from the
   * start, twice at most: the SDK cannot retry a body that is a stream, and one dropped connection
   * must not fail a publish. A status from the bucket (403, 404, 5xx after the SDK's own retries)
   * fails it at once.
   */
  async uploadFile(key: string, file: string, sha256: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const cut = uploadCut(attempt);
        const body = cut === null ? createReadStream(file) : createReadStream(file).pipe(failingStream(cut));
        const upload = new Upload({
          client: this.client,
          params: { Bucket: this.location.bucket, Key: key, Body: body, Metadata: { sha256 } },
          partSize: MULTIPART_PART_BYTES,
          queueSize: 2,
          // An interrupted multipart upload is aborted, so it leaves no parts behind to pay for.
          leavePartsOnError: false,
        });
        await upload.done();
        return;
      } catch (error) {
        const status = statusOf(error);
        if (status !== undefined || attempt >= UPLOAD_ATTEMPTS || isLocalFileError(error))
          throw new BucketError(this.url(key), status, error);
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      }
    }
  }

  /** Size and recorded SHA-256 of an object; null when it does not exist. */
  async head(key: string): Promise<{ size: number; sha256: string | undefined } | null> {
    try {
      const answer = await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: key }));
      return { size: answer.ContentLength ?? 0, sha256: answer.Metadata?.sha256 };
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw new BucketError(this.url(key), statusOf(error), error);
    }
  }

  /**
   * Streams an object through SHA-256 (into `file` when given), so that its bytes are checked
   * without holding them. Null when it does not exist.
   */
  async digest(key: string, file?: string): Promise<{ bytes: number; sha256: string } | null> {
    // Tests cut downloads into the cache only: the partial file left must never count as a bundle.
    const digesting = digestingPassThrough(file ? downloadCut : undefined);
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: key }));
      const body = answer.Body as Readable;
      if (file) await pipeline(body, digesting.stream, createWriteStream(file, { flags: 'wx' }));
      else await pipeline(body, digesting.stream, new Transform({ transform: (_c, _e, done) => done() }));
    } catch (error) {
      if (statusOf(error) === 404) return null;
      // A local file error (EEXIST, ENOSPC) carries the path it failed on: name the file. A stream
      // cut off (ECONNRESET, "aborted") has a code too, but it is the object's download that failed.
      if (file !== undefined && error instanceof Error && 'path' in error && typeof (error as NodeJS.ErrnoException).code === 'string') {
        throw Object.assign(new Error(`${file}: ${error.message}`), { code: (error as NodeJS.ErrnoException).code });
      }
      throw new BucketError(this.url(key), statusOf(error), error);
    }
    return digesting.digest();
  }

  /**
   * True when no object's key starts with the prefix but folder markers (the empty `<name>/` objects
   * a console's "create folder" leaves, which outlive the files deleted from them). One page of at
   * most 100 keys, whatever the prefix holds: a page of markers only, with more to come, is not
   * called empty.
   */
  async noneUnder(prefix: string): Promise<boolean> {
    try {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: prefix, MaxKeys: 100 }));
      const content = (page.Contents ?? []).some((o) => !(o.Key?.endsWith('/') && (o.Size ?? 0) === 0));
      return !content && page.IsTruncated !== true;
    } catch (error) {
      throw new BucketError(this.url(prefix), statusOf(error), error);
    }
  }

  /** Every object under a prefix (and, with a delimiter, the next level's common prefixes). */
  async list(prefix: string, delimiter?: string): Promise<{ objects: ListedObject[]; prefixes: string[] }> {
    const objects: ListedObject[] = [];
    const prefixes: string[] = [];
    let token: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new ListObjectsV2Command({
            Bucket: this.location.bucket,
            Prefix: prefix,
            ...(delimiter ? { Delimiter: delimiter } : {}),
            ...(token ? { ContinuationToken: token } : {}),
          }),
        );
        for (const o of page.Contents ?? []) objects.push({ key: o.Key!, size: o.Size ?? 0, lastModified: o.LastModified ?? new Date(0) });
        for (const p of page.CommonPrefixes ?? []) prefixes.push(p.Prefix!);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (error) {
      throw new BucketError(this.url(prefix), statusOf(error), error);
    }
    return { objects, prefixes };
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: key }));
    } catch (error) {
      throw new BucketError(this.url(key), statusOf(error), error);
    }
  }
}

/** A stream that fails with `error` at its first bytes (the upload fault point). */
function failingStream(error: Error): Transform {
  return new Transform({ transform: (_chunk, _encoding, done) => done(error) });
}

/** Tries of an upload whose connection was cut off (uploadFile). */
const UPLOAD_ATTEMPTS = 3;

/** An error reading the local file (ENOENT, EIO): trying the upload again would not help. */
function isLocalFileError(error: unknown): boolean {
  return error instanceof Error && 'path' in error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}
