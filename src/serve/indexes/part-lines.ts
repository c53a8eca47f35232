import { NEWLINE } from '../../lib/json-bytes.js';
import { closeSync, openSync, readSync } from 'node:fs';
import { PART_PATH } from '../../model/manifest.js';
import type { SqliteDatabase, SqliteStatement } from '../../lib/sqlite.js';
import type { FileLocator, ListedFile } from '../../publish/bundle-files.js';

/** A bundle's NDJSON parts as the manifest lists them, and the bundle's way of locating its files (OpenedBundle). */
export interface BundlePartFiles {
  files: readonly ListedFile[];
  locate: FileLocator;
}

type Block = { first_ord: number; last_ord: number; part: number; start: number; bytes: number };

/** A line of a part: its position in its resource, and its bytes without the line break. */
export interface PartLine {
  ord: number;
  record: Buffer;
}

/**
 * Reads records from a bundle's NDJSON parts where a serving index of layout 4 says they are
 * (serving-index.ts): a run of consecutive lines is one read of its part, found through the blocks
 * of `line_blocks`, and an investor's line (or its list item: the line without its positions) one
 * or two reads. The parts were verified with the index before it was opened, and stay open for the
 * snapshot's life, so a read is one `pread` on a descriptor, never a path looked up again.
 */
export class PartLines {
  private readonly descriptors = new Map<string, number>();
  private readonly blocks: SqliteStatement<[string, string, number, number], Block>;

  constructor(db: SqliteDatabase, parts: BundlePartFiles) {
    // Each block of the page's first line, then every block up to its last line.
    this.blocks = db.prepare(`SELECT first_ord, last_ord, part, start, bytes FROM line_blocks
      WHERE resource = ? AND first_ord >= (SELECT max(first_ord) FROM line_blocks WHERE resource = ? AND first_ord <= ?) AND first_ord <= ?
      ORDER BY first_ord`);
    try {
      for (const file of parts.files) {
        const match = PART_PATH.exec(file.path);
        if (match) this.descriptors.set(`${match[1]}/${Number(match[2])}`, openSync(parts.locate(file), 'r'));
      }
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /** The lines of `resource` at ords `from` to `to`, at most `max` of them (ords start at 1). */
  byOrd(resource: string, from: number, to: number, max: number): PartLine[] {
    const first = Math.max(1, from);
    const last = Math.min(to, first + max - 1);
    if (last < first) return [];
    const lines: PartLine[] = [];
    const blocks = this.blocks.all(resource, resource, first, last).map(numbers);
    for (let i = 0; i < blocks.length; ) {
      // Blocks that follow each other in one part are read at once.
      let j = i + 1;
      while (j < blocks.length && blocks[j]!.part === blocks[i]!.part && blocks[j]!.start === blocks[j - 1]!.start + blocks[j - 1]!.bytes)
        j++;
      const start = blocks[i]!.start;
      const end = blocks[j - 1]!.start + blocks[j - 1]!.bytes;
      const bytes = this.read(resource, blocks[i]!.part, start, end - start);
      let ord = blocks[i]!.first_ord;
      for (let at = 0; at < bytes.length && ord <= last; ord++) {
        const lineEnd = bytes.indexOf(NEWLINE, at);
        if (lineEnd === -1) throw new Error(`${resource} part ${blocks[i]!.part}: bytes ${start}..${end - 1} do not end a line`);
        // A copy of its own: a page kept in the cache must not hold the whole read.
        if (ord >= first) lines.push({ ord, record: Buffer.from(bytes.subarray(at, lineEnd)) });
        at = lineEnd + 1;
      }
      i = j;
    }
    return lines;
  }

  /** One line (`bytes` long with its line break, from `start` of its part) without its line break, and without its bytes `cutStart` to `cutEnd`. */
  lineWithout(resource: string, place: { part: number; start: number; bytes: number }, cutStart: number, cutEnd: number): Buffer {
    const [part, start, bytes] = [Number(place.part), Number(place.start), Number(place.bytes) - 1];
    if (cutEnd <= cutStart) return this.read(resource, part, start, bytes);
    const line = Buffer.allocUnsafe(bytes - (cutEnd - cutStart));
    this.readInto(resource, part, start, line, 0, cutStart);
    this.readInto(resource, part, start + cutEnd, line, cutStart, bytes - cutEnd);
    return line;
  }

  close(): void {
    for (const fd of this.descriptors.values()) closeSync(fd);
    this.descriptors.clear();
  }

  private read(resource: string, part: number, start: number, bytes: number): Buffer {
    const buffer = Buffer.allocUnsafe(bytes);
    this.readInto(resource, part, start, buffer, 0, bytes);
    return buffer;
  }

  private readInto(resource: string, part: number, start: number, buffer: Buffer, offset: number, bytes: number): void {
    const fd = this.descriptors.get(`${resource}/${part}`);
    if (fd === undefined) throw new Error(`the serving index names ${resource} part ${part}, which the manifest does not list`);
    let filled = 0;
    while (filled < bytes) {
      const read = readSync(fd, buffer, offset + filled, bytes - filled, start + filled);
      if (read === 0)
        throw new Error(`${resource} part ${part} ends before byte ${start + bytes}, where the serving index says a record ends`);
      filled += read;
    }
  }
}

/** SQLite integers as numbers, whichever driver read them. */
function numbers(block: Block): Block {
  return {
    first_ord: Number(block.first_ord),
    last_ord: Number(block.last_ord),
    part: Number(block.part),
    start: Number(block.start),
    bytes: Number(block.bytes),
  };
}
