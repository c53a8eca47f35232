import { createHash, type Hash } from 'node:crypto';
import { close, closeSync, fsync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { DatasetName } from '../model/dataset.js';
import type { PlacedLines } from '../model/dataset-build.js';
import type { ResourceEntry, ServingIndexEntry } from '../model/manifest.js';
import { failPoint } from '../lib/fault-point.js';
import { NEWLINE } from '../lib/json-bytes.js';
import { hasServingIndex } from './manifest-check.js';
import type { PartBoundaries } from './part-boundaries.js';
import { ServingIndexWriter, type ServingLineFacts } from './serving-index.js';

/** Whole NDJSON lines of one resource, in order, to be appended to its parts. */
export interface LineChunk {
  resource: string;
  /** How many lines (records) `bytes` holds. */
  records: number;
  /** Valid during the call that hands the chunk over only: the writer's buffer is then reused. */
  bytes: Uint8Array;
  /** What the serving index needs of these lines beyond where they go (serving-index.ts). */
  facts?: ServingLineFacts;
}

/** What a staged bundle's files came to: the manifest's entries. */
export interface WrittenFiles {
  files: ResourceEntry[];
  servingIndex?: ServingIndexEntry;
}

interface OpenPart {
  number: number;
  file: string;
  fd: number;
  hash: Hash;
  /** Bytes written. */
  bytes: number;
  records: number;
}

/** `<resource>/00000.ndjson`: the part's path inside the bundle. */
function partPath(resource: string, part: number): string {
  return `${resource}/${String(part).padStart(5, '0')}.ndjson`;
}

/**
 * Writes a staged bundle's files from chunks of canonical NDJSON lines: each resource's lines go to
 * `<resource>/00000.ndjson`, `00001.ndjson`, ..., cut where PartBoundaries says (by the lines'
 * content, within a minimum and a maximum size; a record never spans two parts), each part hashed
 * as its bytes are appended, so a resource never exists in memory whole. A Smart Money bundle's
 * serving index is told where each line went (part, byte offset, length) with the facts the lines
 * came with; it holds no record of its own. It takes lines, not records: they may have been made on
 * another thread (a Smart Money derivation worker's), and are the same bytes either way, in the
 * same parts however they were cut into chunks.
 * Synchronous I/O on purpose: it has nothing else to do meanwhile.
 */
export class BundleFileWriter {
  /** Each resource's part being written; none between a part that ended and the next line. */
  private readonly open = new Map<string, OpenPart>();
  private readonly written = new Map<string, ResourceEntry[]>();
  private readonly index: ServingIndexWriter | null;
  /** Parts being forced to disk in the background, and the first failure to. */
  private readonly syncing: Promise<void>[] = [];
  private syncError: Error | null = null;
  /** The paths of the parts forced to disk: once flushed() resolves, commit need not force them again. */
  readonly synced = new Set<string>();

  /**
   * `mustSync` says whether a part of these bytes must be forced to disk: not when the store holds
   * its blob already (the copy is dropped at commit), nor when the copy is only uploaded elsewhere.
   * Every other part is, in the background as soon as it ends, so that the disk writes it while the
   * next parts are derived, not at commit.
   */
  constructor(
    private readonly directory: string,
    dataset: DatasetName,
    private readonly boundaries: PartBoundaries,
    private readonly mustSync: (sha256: string) => boolean = () => true,
  ) {
    this.index = hasServingIndex(dataset) ? new ServingIndexWriter(directory) : null;
  }

  /** Appends the lines; returns where they went (one run per part they went into). */
  write(chunk: LineChunk): PlacedLines[] {
    const { resource } = chunk;
    const bytes = Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.bytes.length);
    this.index?.facts(chunk.facts);
    let part = this.open.get(resource) ?? null;
    const placed: PlacedLines[] = [];
    /** Where the bytes not yet appended to `part` begin. */
    let pending = 0;
    /** Appends the pending bytes up to `to` to the part, noting where they went. */
    const flush = (into: OpenPart, to: number) => {
      if (to > pending) placed.push({ resource, part: into.number, start: into.bytes, bytes: to - pending });
      this.append(into, bytes, pending, to);
      pending = to;
    };
    let lines = 0;
    for (let start = 0; start < bytes.length; ) {
      const end = bytes.indexOf(NEWLINE, start);
      if (end === -1) throw new Error(`${resource}: a chunk of lines does not end with a line break`);
      const lineBytes = end + 1 - start;
      if (part !== null && this.boundaries.opensPart(part.bytes + (start - pending), lineBytes)) {
        // The line opens the next part; the lines before it end this one.
        flush(part, start);
        this.closePart(resource, part);
        part = null;
      }
      part ??= this.openPart(resource);
      const offset = part.bytes + (start - pending);
      this.index?.line(resource, part.number, offset, lineBytes);
      part.records += 1;
      lines += 1;
      if (this.boundaries.endsPart(offset + lineBytes, bytes, start, end)) {
        // The part ends with this line; the next part opens with the next line, if there is one.
        flush(part, end + 1);
        this.closePart(resource, part);
        part = null;
      }
      start = end + 1;
    }
    if (part !== null) flush(part, bytes.length);
    if (lines !== chunk.records) throw new Error(`${resource}: a chunk said ${chunk.records} lines and held ${lines}`);
    return placed;
  }

  /**
   * Ends every resource's last part (a resource without records gets one empty part), finishes the
   * serving index and returns the entries, resource by resource in the
   * order given.
   */
  finish(resources: readonly string[]): WrittenFiles {
    for (const resource of resources) {
      const part = this.open.get(resource) ?? (this.written.has(resource) ? undefined : this.openPart(resource));
      if (part) this.closePart(resource, part);
    }
    const files = resources.flatMap((resource) => this.written.get(resource) ?? []);
    const servingIndex = this.index?.finish();
    return servingIndex ? { files, servingIndex } : { files };
  }

  /** Closes what is open after a failure; the caller removes the staging folder. */
  abandon(): void {
    for (const part of this.open.values()) closeSync(part.fd);
    this.open.clear();
    this.index?.abandon();
  }

  private append(part: OpenPart, bytes: Buffer, from: number, to: number): void {
    if (to === from) return;
    const piece = bytes.subarray(from, to);
    part.hash.update(piece);
    part.bytes += piece.length;
    try {
      failPoint('part-write');
      let offset = 0;
      while (offset < piece.length) offset += writeSync(part.fd, piece, offset);
    } catch (error) {
      // Node names no file in the error of a write to an open descriptor (ENOSPC, EIO).
      throw Object.assign(new Error(`${part.file}: ${(error as Error).message}`), { code: (error as NodeJS.ErrnoException).code });
    }
  }

  /** The resource's next part: numbered after those it has written. */
  private openPart(resource: string): OpenPart {
    let written = this.written.get(resource);
    if (written === undefined) {
      mkdirSync(path.join(this.directory, resource));
      written = [];
      this.written.set(resource, written);
    }
    const number = written.length;
    const file = path.join(this.directory, partPath(resource, number));
    const part = { number, file, fd: openSync(file, 'wx'), hash: createHash('sha256'), bytes: 0, records: 0 };
    this.open.set(resource, part);
    return part;
  }

  private closePart(resource: string, part: OpenPart): void {
    const sha256 = part.hash.digest('hex');
    this.open.delete(resource);
    this.written.get(resource)!.push({ path: partPath(resource, part.number), bytes: part.bytes, sha256, records: part.records });
    if (!this.mustSync(sha256)) {
      closeSync(part.fd);
      return;
    }
    const { fd, file } = part;
    this.synced.add(partPath(resource, part.number));
    this.syncing.push(
      new Promise<void>((resolve) => {
        fsync(fd, (error) => {
          close(fd, () => {
            // Node names no file in the error of a descriptor's fsync (EIO, ENOSPC).
            if (error) this.syncError ??= Object.assign(new Error(`${file}: ${error.message}`), { code: error.code });
            resolve();
          });
        });
      }),
    );
  }

  /** Waits for the parts forced to disk in the background; throws the first failure to. */
  async flushed(): Promise<void> {
    await Promise.all(this.syncing);
    if (this.syncError) throw this.syncError;
  }
}
