/**
 * Line handling for source text whose lines end in LF, CRLF or a bare CR (old Mac files, some
 * EDGAR dissemination files): the three count as one line break each, everywhere in ingest.
 */

export const LINE_BREAK = /\r\n|\r|\n/;

export function splitLines(text: string): string[] {
  return text.split(LINE_BREAK);
}

/**
 * 1-based line of an offset. Asked in increasing order of offsets (documents of a submission,
 * one after the other), the whole text is scanned once: counting from the start for every offset
 * is what made a submission with 100,000 documents take minutes.
 */
export class LineCounter {
  private offset = 0;
  private line = 1;

  constructor(private readonly text: string) {}

  lineAt(offset: number): number {
    if (offset < this.offset) {
      this.offset = 0;
      this.line = 1;
    }
    this.line += countBreaks(this.text, this.offset, offset);
    this.offset = offset;
    return this.line;
  }
}

/** Line breaks in text[from, to): each LF, and each CR not followed by an LF. */
function countBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let index = text.indexOf('\n', from); index !== -1 && index < to; index = text.indexOf('\n', index + 1)) count++;
  for (let index = text.indexOf('\r', from); index !== -1 && index < to; index = text.indexOf('\r', index + 1)) {
    // A CR just before `to` whose LF lies at `to` still ends its line.
    if (text.charCodeAt(index + 1) !== 10) count++;
  }
  return count;
}

/** 1-based line and column of an offset (column in UTF-16 code units, as editors count). */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const line = new LineCounter(text).lineAt(offset);
  const lastBreak = Math.max(text.lastIndexOf('\n', offset - 1), text.lastIndexOf('\r', offset - 1));
  return { line, column: offset - lastBreak };
}
