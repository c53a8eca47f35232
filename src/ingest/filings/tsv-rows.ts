import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { MAX_DATASET_LINE_BYTES, formatBytes } from '../source-limits.js';
import { firstInvalidUtf8 } from '../source-text.js';

/** One line of a TSV file: the header, or a data row with where it sits in the file. */
export type TsvLine =
  | {
      header: string[];
      line: number;
      /** Set when the header line cannot be used (too long, a NUL byte). */
      problem?: string;
    }
  | {
      /** For a line with a problem, the fields of what was kept of it (its first field names its filing). */
      fields: string[];
      /** 1-based data row (the header is not counted). */
      row: number;
      /** 1-based line in the file (the header is line 1). */
      line: number;
      /** Set when the row cannot be used: longer than MAX_DATASET_LINE_BYTES, or holding a NUL byte. */
      problem?: string;
    };

/** What the whole file looked like, reported once rather than per line. */
export interface TsvSummary {
  /** The first invalid UTF-8 sequence (decoded as U+FFFD) and how many lines had one. */
  invalidUtf8?: { byteOffset: number; line: number; lines: number };
}

/** Kept of an over-long line: enough for its first fields, never the line. */
const OVERLONG_PREFIX_BYTES = 1024;

/**
 * Streams a tab-separated file line by line to `onLine`, never holding more than one line, and
 * never more than MAX_DATASET_LINE_BYTES of it: a longer line (a 1 GiB line inflated from a small
 * ZIP) is skipped to its end and reported as a problem of that row, in bounded memory.
 *
 * The SEC's TSVs are not quoted and contain stray `"` characters inside issuer names, so a line is
 * a record and fields are split on tabs. Lines may end in LF, CRLF or a bare CR. A blank line is
 * skipped (and counted). A synchronous callback rather than an async iterator: at 3.5 million rows
 * the per-row promise of an iterator costs more than the splitting.
 */
export function forEachTsvLine(
  input: Readable,
  onLine: (line: TsvLine) => void,
  maxLineBytes = MAX_DATASET_LINE_BYTES,
): Promise<TsvSummary> {
  return new Promise((resolve, reject) => {
    const summary: TsvSummary = {};
    let line = 0;
    let row = 0;
    let lineStartOffset = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let overlong: Buffer | null = null;
    let skipLeadingLf = false;
    let failed = false;

    const emit = (bytes: Buffer | null, lineBytes: number): void => {
      line++;
      const offset = lineStartOffset;
      lineStartOffset += lineBytes;
      let problem: string | undefined;
      let content = bytes ?? overlong!;
      if (line === 1 && content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf) content = content.subarray(3);
      if (bytes === null) problem = `line ${line} is longer than ${formatBytes(maxLineBytes)} (at least ${lineBytes} bytes read)`;
      else if (content.includes(0)) problem = `line ${line} contains a NUL byte`;
      if (bytes !== null && !isUtf8(content)) {
        if (summary.invalidUtf8) summary.invalidUtf8.lines++;
        else summary.invalidUtf8 = { byteOffset: offset + firstInvalidUtf8(content), line, lines: 1 };
      }
      const text = content.toString('utf8');
      if (problem === undefined && text.trim() === '') return;
      const fields = text.split('\t');
      if (row === 0) onLine({ header: fields.map((name) => name.trim().toUpperCase()), line, ...(problem ? { problem } : {}) });
      else onLine({ fields, row, line, ...(problem ? { problem } : {}) });
      row++;
    };

    const fail = (error: unknown): void => {
      failed = true;
      input.destroy();
      reject(error);
    };

    input.on('data', (chunk: Buffer) => {
      if (failed) return;
      try {
        let start = 0;
        if (skipLeadingLf) {
          skipLeadingLf = false;
          if (chunk[0] === 0x0a) {
            start = 1;
            lineStartOffset++;
          }
        }
        let nextLf = chunk.indexOf(0x0a, start);
        let nextCr = chunk.indexOf(0x0d, start);
        while (start < chunk.length && !failed) {
          // Each search runs once per chunk position, not once per line: lines stay linear.
          if (nextLf !== -1 && nextLf < start) nextLf = chunk.indexOf(0x0a, start);
          if (nextCr !== -1 && nextCr < start) nextCr = chunk.indexOf(0x0d, start);
          const end = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
          const segment = chunk.subarray(start, end === -1 ? chunk.length : end);
          if (overlong) pendingBytes += segment.length;
          else if (pendingBytes + segment.length > maxLineBytes) {
            overlong = Buffer.concat([...pending, segment]).subarray(0, OVERLONG_PREFIX_BYTES);
            pending = [];
            pendingBytes += segment.length;
            if (row === 0) {
              // Without a header nothing after it can be read: stop here rather than inflate the rest.
              emit(null, pendingBytes);
              failed = true;
              input.destroy();
              resolve(summary);
              return;
            }
          } else {
            pending.push(segment);
            pendingBytes += segment.length;
          }
          if (end === -1) break;
          let breakLength = 1;
          if (chunk[end] === 0x0d) {
            if (end + 1 < chunk.length) breakLength = chunk[end + 1] === 0x0a ? 2 : 1;
            else skipLeadingLf = true; // the LF of a CRLF may open the next chunk
          }
          const bytes = overlong ? null : pending.length === 1 ? pending[0]! : Buffer.concat(pending);
          emit(bytes, pendingBytes + breakLength);
          pending = [];
          pendingBytes = 0;
          overlong = null;
          start = end + breakLength;
        }
      } catch (error) {
        fail(error);
      }
    });
    input.on('end', () => {
      if (failed) return;
      try {
        if (pendingBytes > 0) emit(overlong ? null : Buffer.concat(pending), pendingBytes);
        resolve(summary);
      } catch (error) {
        fail(error);
      }
    });
    input.on('error', (error) => {
      if (!failed) fail(error);
    });
  });
}

/** Column positions by name; throws naming the columns a file lacks. */
export function columnIndex(header: string[], required: readonly string[]): Map<string, number> {
  const missing = required.filter((name) => !header.includes(name));
  if (missing.length > 0) throw new Error(`header lacks column(s) ${missing.join(', ')}`);
  return new Map(header.map((name, index) => [name, index]));
}
