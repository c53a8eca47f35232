import { createHash, type Hash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { DatasetName } from '../model/dataset.js';
import type { ResourceEntry, ServingIndexEntry } from '../model/manifest.js';
import { ContentCheck, type ContentCheckState } from '../model/content-rules.js';
import { recordChecker } from '../model/schema-check.js';
import { failPoint, recordSchemaFault } from '../lib/fault-point.js';
import { hasServingIndex } from './manifest-check.js';
import { ServingIndexWriter } from './serving-index.js';

/** Whole NDJSON lines of one resource, to be appended to one of its parts. */
export interface PartChunk {
  resource: string;
  /** The part's number in its resource (0, 1, ...): a chunk of the next number ends the part before. */
  part: number;
  /** How many lines (records) `bytes` holds. */
  records: number;
  /** Valid during the call that hands the chunk over only: the writer's buffer is then reused. */
  bytes: Uint8Array;
}

/** What a staged bundle's files came to: the manifest's entries, and what the content rules found. */
export interface WrittenFiles {
  files: ResourceEntry[];
  servingIndex?: ServingIndexEntry;
  content: ContentCheckState;
}

interface OpenPart {
  number: number;
  file: string;
  fd: number;
  hash: Hash;
  bytes: number;
  records: number;
}

/** A record that fails its schema: the build's program error, never published. */
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

/** `<resource>/00000.ndjson`: the part's path inside the bundle. */
function partPath(resource: string, part: number): string {
  return `${resource}/${String(part).padStart(5, '0')}.ndjson`;
}

/**
 * Writes a staged bundle's files from chunks of canonical NDJSON lines: each part file is hashed as
 * its bytes are appended, so a resource never exists in memory whole. Each line is parsed again:
 * the record's schema and the content rules (security identifiers, slugs, consensus page size)
 * see each record as it is published, as `validate` will read it, and a Smart Money bundle's
 * serving index is filled from the same lines. A record that fails its schema fails the build
 * (InvalidRecordError); the staging folder with its part is then removed. It takes the lines, not
 * the records, so that it can run on a thread of its own (bundle-file-thread.ts) as well as on the
 * deriving one; both give the same files and findings, since each table receives its rows in the
 * order of its resource's lines.
 * Synchronous I/O on purpose: it has nothing else to do meanwhile.
 */
export class BundleFileWriter {
  private readonly open = new Map<string, OpenPart>();
  private readonly written = new Map<string, ResourceEntry[]>();
  private readonly index: ServingIndexWriter | null;
  private readonly content: ContentCheck;
  private readonly checks = new Map<string, { check: (record: unknown) => string | null; records: number }>();
  private readonly schemaFault = recordSchemaFault();

  constructor(
    private readonly directory: string,
    private readonly dataset: DatasetName,
  ) {
    this.content = new ContentCheck(dataset);
    this.index = hasServingIndex(dataset) ? new ServingIndexWriter(directory) : null;
  }

  write(chunk: PartChunk): void {
    let part = this.open.get(chunk.resource);
    if (part && part.number !== chunk.part) {
      this.closePart(chunk.resource, part);
      part = undefined;
    }
    part ??= this.openPart(chunk.resource, chunk.part);
    part.hash.update(chunk.bytes);
    part.bytes += chunk.bytes.length;
    part.records += chunk.records;
    try {
      failPoint('part-write');
      let offset = 0;
      while (offset < chunk.bytes.length) offset += writeSync(part.fd, chunk.bytes, offset);
    } catch (error) {
      // Node names no file in the error of a write to an open descriptor (ENOSPC, EIO).
      throw Object.assign(new Error(`${part.file}: ${(error as Error).message}`), { code: (error as NodeJS.ErrnoException).code });
    }
    const text = Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.bytes.length).toString('utf8');
    const schema = this.schemaCheck(chunk.resource);
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; start = end + 1, end = text.indexOf('\n', start)) {
      const line = text.slice(start, end);
      const record: unknown = JSON.parse(line);
      const reason = this.schemaFault ?? schema.check(record);
      if (reason !== null) throw new InvalidRecordError(chunk.resource, schema.records, reason);
      schema.records += 1;
      this.content.inspect(chunk.resource, record);
      this.index?.add(chunk.resource, record, line);
    }
  }

  /**
   * Ends every resource's last part (a resource without records gets one empty part), forces each
   * part to disk, finishes the serving index and returns the entries, resource by resource in the
   * order given.
   */
  finish(resources: readonly string[]): WrittenFiles {
    for (const resource of resources) {
      const part = this.open.get(resource) ?? (this.written.has(resource) ? undefined : this.openPart(resource, 0));
      if (part) this.closePart(resource, part);
    }
    const files = resources.flatMap((resource) => this.written.get(resource) ?? []);
    const servingIndex = this.index?.finish();
    const content = this.content.state();
    return servingIndex ? { files, servingIndex, content } : { files, content };
  }

  /** Closes what is open after a failure; the caller removes the staging folder. */
  abandon(): void {
    for (const part of this.open.values()) closeSync(part.fd);
    this.open.clear();
    this.index?.abandon();
  }

  private schemaCheck(resource: string): { check: (record: unknown) => string | null; records: number } {
    let schema = this.checks.get(resource);
    if (schema === undefined) {
      schema = { check: recordChecker(this.dataset, resource), records: 0 };
      this.checks.set(resource, schema);
    }
    return schema;
  }

  private openPart(resource: string, number: number): OpenPart {
    if (!this.written.has(resource)) {
      mkdirSync(path.join(this.directory, resource));
      this.written.set(resource, []);
    }
    const file = path.join(this.directory, partPath(resource, number));
    const part = { number, file, fd: openSync(file, 'wx'), hash: createHash('sha256'), bytes: 0, records: 0 };
    this.open.set(resource, part);
    return part;
  }

  private closePart(resource: string, part: OpenPart): void {
    fsyncSync(part.fd);
    closeSync(part.fd);
    this.open.delete(resource);
    this.written.get(resource)!.push({
      path: partPath(resource, part.number),
      bytes: part.bytes,
      sha256: part.hash.digest('hex'),
      records: part.records,
    });
  }
}
