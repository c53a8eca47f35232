import { isUtf8 } from 'node:buffer';
import { formatBytes } from '../../lib/byte-size.js';
import { MAX_DATASET_LINE_BYTES } from '../source-limits.js';
import { firstInvalidUtf8 } from '../source-text.js';

/**
 * One line of a tab-separated file as bytes: `bytes[start, end)`, without its line break and
 * (on line 1) without a UTF-8 byte order mark. The object is reused from line to line; a caller
 * that keeps anything of it copies it.
 */
export interface TsvLineView {
  bytes: Buffer;
  start: number;
  end: number;
  /** 1-based line in the file. */
  line: number;
  /** 0 for the header, then 1-based data rows (blank lines are not counted). */
  row: number;
  /** Set when the line cannot be used: longer than the limit (bytes then hold its first KiB), or holding a NUL byte. */
  problem: string | undefined;
  /** Bytes of the file read through this line's break: how far the scan is. */
  through: number;
}

/** What the whole file looked like, reported once rather than per line. */
export interface TsvSummary {
  /** The first invalid UTF-8 sequence (decoded as U+FFFD) and how many lines had one. */
  invalidUtf8?: { byteOffset: number; line: number; lines: number };
}

/** Kept of an over-long line: enough for its first fields, never the line. */
const OVERLONG_PREFIX_BYTES = 1024;

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Streams a tab-separated file line by line to `onLine` as byte ranges of the chunks read, never
 * decoding a line and never holding more than one line, and never more than `maxLineBytes` of it:
 * a longer line (a 1 GiB line inflated from a small ZIP) is skipped to its end and reported as a
 * problem of that row, in bounded memory.
 *
 * The SEC's TSVs are not quoted and contain stray `"` characters inside issuer names, so a line is
 * a record. Lines may end in LF, CRLF or a bare CR. A blank line (nothing but whitespace) is
 * skipped and counted. UTF-8 validity and NUL bytes are checked once per chunk, and line by line
 * only in a chunk that has either. A synchronous callback per line rather than an async iterator:
 * at millions of rows the per-row promise of an iterator costs more than the scanning.
 *
 * `input` yields the file's bytes in chunks; a chunk need only stay as it is until the next one is
 * asked for (a reader may read into the same buffer again): the piece of a line that a chunk ends
 * with is copied. Stopping early (an over-long header) ends the iteration, which closes the input.
 */
export async function scanTsvLines(
  input: AsyncIterable<Buffer>,
  onLine: (line: TsvLineView) => void,
  maxLineBytes = MAX_DATASET_LINE_BYTES,
): Promise<TsvSummary> {
  const summary: TsvSummary = {};
  const view: TsvLineView = { bytes: Buffer.alloc(0), start: 0, end: 0, line: 0, row: 0, problem: undefined, through: 0 };
  let line = 0;
  let row = 0;
  let lineStartOffset = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overlong: Buffer | null = null;
  let skipLeadingLf = false;

  /** `clean`: the bytes are known to be valid UTF-8 without NUL (their whole chunk was). */
  const emit = (bytes: Buffer, start: number, end: number, isOverlong: boolean, lineBytes: number, clean: boolean): void => {
    line++;
    const offset = lineStartOffset;
    lineStartOffset += lineBytes;
    if (line === 1 && end - start >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf) start += 3;
    let problem: string | undefined;
    if (isOverlong) problem = `line ${line} is longer than ${formatBytes(maxLineBytes)} (at least ${lineBytes} bytes read)`;
    else if (!clean) {
      const content = bytes.subarray(start, end);
      if (content.includes(0)) problem = `line ${line} contains a NUL byte`;
      if (!isUtf8(content)) {
        if (summary.invalidUtf8) summary.invalidUtf8.lines++;
        else summary.invalidUtf8 = { byteOffset: offset + firstInvalidUtf8(content), line, lines: 1 };
      }
    }
    if (problem === undefined && isBlank(bytes, start, end)) return;
    view.bytes = bytes;
    view.start = start;
    view.end = end;
    view.line = line;
    view.row = row;
    view.problem = problem;
    view.through = lineStartOffset;
    onLine(view);
    row++;
  };

  for await (const chunk of input) {
    const chunkClean = isUtf8(chunk) && !chunk.includes(0);
    let start = 0;
    if (skipLeadingLf) {
      skipLeadingLf = false;
      if (chunk[0] === LF) {
        start = 1;
        lineStartOffset++;
      }
    }
    let nextLf = chunk.indexOf(LF, start);
    let nextCr = chunk.indexOf(CR, start);
    while (start < chunk.length) {
      // Each search runs once per chunk position, not once per line: lines stay linear.
      if (nextLf !== -1 && nextLf < start) nextLf = chunk.indexOf(LF, start);
      if (nextCr !== -1 && nextCr < start) nextCr = chunk.indexOf(CR, start);
      const end = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
      const segmentEnd = end === -1 ? chunk.length : end;
      const segmentBytes = segmentEnd - start;
      const whole = pending.length === 0 && overlong === null; // the line lies in this chunk so far
      if (overlong) pendingBytes += segmentBytes;
      else if (pendingBytes + segmentBytes > maxLineBytes) {
        overlong = Buffer.concat([...pending, chunk.subarray(start, segmentEnd)]).subarray(0, OVERLONG_PREFIX_BYTES);
        pending = [];
        pendingBytes += segmentBytes;
        if (row === 0) {
          // Without a header nothing after it can be read: stop here rather than inflate the rest.
          emit(overlong, 0, overlong.length, true, pendingBytes, false);
          return summary;
        }
      } else if (end === -1 || !whole) {
        // A copy: the chunk's buffer may be read into again before the line ends.
        pending.push(Buffer.from(chunk.subarray(start, segmentEnd)));
        pendingBytes += segmentBytes;
      }
      if (end === -1) break;
      let breakLength = 1;
      if (chunk[end] === CR) {
        if (end + 1 < chunk.length) breakLength = chunk[end + 1] === LF ? 2 : 1;
        else skipLeadingLf = true; // the LF of a CRLF may open the next chunk
      }
      if (overlong) emit(overlong, 0, overlong.length, true, pendingBytes + breakLength, false);
      else if (whole) emit(chunk, start, end, false, segmentBytes + breakLength, chunkClean);
      else {
        const joined = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
        emit(joined, 0, joined.length, false, pendingBytes + breakLength, false);
      }
      pending = [];
      pendingBytes = 0;
      overlong = null;
      start = end + breakLength;
    }
  }
  if (pendingBytes > 0) {
    if (overlong) emit(overlong, 0, overlong.length, true, pendingBytes, false);
    else {
      const joined = Buffer.concat(pending);
      emit(joined, 0, joined.length, false, pendingBytes, false);
    }
  }
  return summary;
}

/** Nothing but whitespace, as String.prototype.trim sees it (non-ASCII bytes are decoded to decide). */
function isBlank(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    if (byte === 0x20 || (byte >= TAB && byte <= CR)) continue;
    if (byte < 0x80) return false;
    return bytes.toString('utf8', start, end).trim() === '';
  }
  return true;
}

/**
 * Positions of the tabs of `bytes[start, end)` into `tabs` (as many as fit); returns how many
 * fields the line has. Field i runs from (i === 0 ? start : tabs[i - 1] + 1) to (tabs[i] ?? end).
 */
export function splitTabs(bytes: Buffer, start: number, end: number, tabs: Int32Array): number {
  let count = 0;
  for (let i = start; i < end; i++) {
    if (bytes[i] !== TAB) continue;
    if (count < tabs.length) tabs[count] = i;
    count++;
  }
  return count + 1;
}
