/**
 * Line handling for source text whose lines end in LF, CRLF or a bare CR (old Mac files, some
 * EDGAR dissemination files): the three count as one line break each, everywhere in ingest.
 */

const LINE_BREAK = /\r\n|\r|\n/;

export function splitLines(text: string): string[] {
  return text.split(LINE_BREAK);
}

/**
 * 1-based line of an offset. Asked in increasing order of offsets (documents of a submission,
 * one after the other), the whole text is scanned once: counting from the start for every offset
 * is what made a submission with 100,000 documents take minutes. The positions of the next LF and
 * the next CR are kept between calls, so a text without any CR is not searched for one again and
 * again to its end.
 */
export class LineCounter {
  private offset = 0;
  private line = 1;
  private nextLf = -2; // -2: not searched yet; -1: none left
  private nextCr = -2;

  constructor(private readonly text: string) {}

  lineAt(offset: number): number {
    if (offset < this.offset) {
      this.offset = 0;
      this.line = 1;
      this.nextLf = this.nextCr = -2;
    }
    for (;;) {
      if (this.nextLf !== -1 && this.nextLf < this.offset) this.nextLf = this.text.indexOf('\n', this.offset);
      if (this.nextCr !== -1 && this.nextCr < this.offset) this.nextCr = this.text.indexOf('\r', this.offset);
      const next = this.nextLf === -1 ? this.nextCr : this.nextCr === -1 ? this.nextLf : Math.min(this.nextLf, this.nextCr);
      if (next === -1 || next >= offset) break;
      // CRLF is one break; a bare CR or LF is one too.
      this.offset = next === this.nextCr && this.text.charCodeAt(next + 1) === 10 ? next + 2 : next + 1;
      this.line++;
    }
    this.offset = Math.max(this.offset, offset);
    return this.line;
  }
}
