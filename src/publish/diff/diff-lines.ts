import type { ResourceEntry } from '../../model/manifest.js';
import { NEWLINE } from '../../lib/json-bytes.js';
import { PartChunks } from '../line-cursor.js';

/** One part of a side to read, and the file that holds it. */
export interface PartToRead {
  entry: ResourceEntry;
  /** The index of the part among the side's parts of the resource. */
  part: number;
  file: string;
}

/** The lines of one part within a batch: from line `firstLine` of the batch on. */
export interface BatchSegment {
  /** The index of the part among the side's parts of the resource. */
  part: number;
  /** The 1-based number of the segment's first line within its part. */
  firstNumber: number;
  /** The index of the segment's first line among the batch's lines. */
  firstLine: number;
}

/** A chunk of one side's record lines and where each ends, in buffers that may be handed to another thread. */
export interface LineBatch {
  /** Whole lines, each ending with a line break. */
  data: Buffer;
  /** The parts the lines are of, in order (a batch runs on into the next part when one ends). */
  segments: BatchSegment[];
  /** Where each line ends (its line break). */
  ends: Int32Array;
}

/**
 * One side's lines of a resource as batches: the parts read and verified in order (PartChunks).
 * The same work whether it runs on the diff's thread or on a worker thread (diff-threads.ts),
 * which reads one side while another reads the other and hands each batch over (its buffers are
 * its own).
 */
export class LineBatches {
  private readonly chunks: PartChunks;

  /**
   * `allocate` makes the buffer of each read (from buffers the diff is done with, on a thread);
   * a worker thread reads blocking (PartChunks).
   */
  constructor(
    label: string,
    private readonly parts: readonly PartToRead[],
    allocate?: (bytes: number) => Buffer,
    reads: 'pooled' | 'blocking' = 'pooled',
  ) {
    const files = new Map(parts.map((part) => [part.entry, part.file]));
    this.chunks = new PartChunks(
      label,
      parts.map((part) => part.entry),
      (entry) => files.get(entry)!,
      allocate,
      reads,
    );
  }

  recycle(): void {}

  /** The next batch; null once every part is read and verified (a part's damage is thrown when it ends). */
  async next(): Promise<LineBatch | null> {
    const chunk = await this.chunks.next();
    if (chunk === null) return null;
    const { data, lines } = chunk;
    const ends = new Int32Array(lines);
    for (let i = 0, at = data.indexOf(NEWLINE); i < lines; i += 1, at = data.indexOf(NEWLINE, at + 1)) ends[i] = at;
    const segments = chunk.segments.map(({ part, firstNumber, firstLine }) => ({ part: this.parts[part]!.part, firstNumber, firstLine }));
    return { data, segments, ends };
  }

  close(): Promise<void> {
    return this.chunks.close();
  }
}
