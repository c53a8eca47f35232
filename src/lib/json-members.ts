import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-bytes.js';

/**
 * The members of a JSON object held as UTF-8 bytes, found without parsing it: where each name and
 * each value starts and ends, and what kind of value it is. One pass of plain byte comparisons, a
 * few times cheaper than JSON.parse on a short line and more on a long one, and nothing to
 * collect afterwards. It assumes valid JSON (the bytes of a published part, verified against its
 * digest) and reads it exactly; what it does not expect (white space between tokens, a truncated
 * line) makes `scan` answer false, and the caller parses instead.
 */
export class JsonMembers {
  /** Per member: name start, name end (inside the quotes), value start, value end, flags. */
  private spans = new Int32Array(5 * 16);
  count = 0;

  /** Finds the members of the object `buffer[start, end)`; false when it is not an object this can read. */
  scan(buffer: Uint8Array, start: number, end: number): boolean {
    this.count = 0;
    let i = start;
    if (buffer[i] !== OPEN_OBJECT) return false;
    i += 1;
    if (buffer[i] === CLOSE_OBJECT) return i + 1 === end;
    for (;;) {
      if (buffer[i] !== QUOTE) return false;
      const nameStart = i + 1;
      let flags = 0;
      // Every byte is OR-ed into `high`: one test at the end tells whether any was not ASCII.
      let high = 0;
      for (i = nameStart; i < end; i += 1) {
        const c = buffer[i]!;
        if (c === QUOTE) break;
        high |= c;
        if (c === BACKSLASH) {
          flags |= NAME_ESCAPED;
          i += 1;
        }
      }
      if (i >= end) return false;
      if (high >= 0x80) flags |= NAME_NOT_ASCII;
      const nameEnd = i;
      if (buffer[i + 1] !== COLON) return false;
      const valueStart = i + 2;
      const first = buffer[valueStart];
      let valueEnd: number;
      if (first === QUOTE) {
        // A string, read here for its flags as well as its end.
        flags |= STRING;
        high = 0;
        for (i = valueStart + 1; i < end; i += 1) {
          const c = buffer[i]!;
          if (c === QUOTE) break;
          high |= c;
          if (c === BACKSLASH) {
            flags |= VALUE_ESCAPED;
            i += 1;
          }
        }
        if (i >= end) return false;
        if (high >= 0x80) flags |= VALUE_NOT_ASCII;
        valueEnd = i + 1;
      } else {
        valueEnd = valueEndAt(buffer, valueStart, end);
        if (valueEnd < 0) return false;
        flags |= first === OPEN_OBJECT ? OBJECT : first === OPEN_ARRAY ? ARRAY : PRIMITIVE;
      }
      const at = this.count * 5;
      if (at + 5 > this.spans.length) this.grow();
      const spans = this.spans;
      spans[at] = nameStart;
      spans[at + 1] = nameEnd;
      spans[at + 2] = valueStart;
      spans[at + 3] = valueEnd;
      spans[at + 4] = flags;
      this.count += 1;
      i = valueEnd;
      if (buffer[i] === COMMA) i += 1;
      else return buffer[i] === CLOSE_OBJECT && i + 1 === end;
    }
  }

  nameStart(member: number): number {
    return this.spans[member * 5]!;
  }

  nameEnd(member: number): number {
    return this.spans[member * 5 + 1]!;
  }

  valueStart(member: number): number {
    return this.spans[member * 5 + 2]!;
  }

  valueEnd(member: number): number {
    return this.spans[member * 5 + 3]!;
  }

  flags(member: number): number {
    return this.spans[member * 5 + 4]!;
  }

  private grow(): void {
    const larger = new Int32Array(this.spans.length * 2);
    larger.set(this.spans);
    this.spans = larger;
  }
}

/** The name holds an escape (so its bytes are not its text). */
export const NAME_ESCAPED = 1;
/** The name holds a byte of a multi-byte character. */
export const NAME_NOT_ASCII = 2;
/** The value is a string that holds an escape. */
export const VALUE_ESCAPED = 4;
/** The value is a string that holds a byte of a multi-byte character. */
export const VALUE_NOT_ASCII = 8;
/** The kind of value, in bits 4 to 6. */
export const KIND = 0x70;
export const STRING = 0x10;
export const OBJECT = 0x20;
export const ARRAY = 0x30;
/** A number, true, false or null. */
export const PRIMITIVE = 0x40;

/** Where the value that starts at `at` ends (exclusive); -1 when it does not end before `end`. */
export function valueEndAt(buffer: Uint8Array, at: number, end: number): number {
  const c = buffer[at];
  if (c === undefined || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) return -1;
  if (c === QUOTE) return stringEndAt(buffer, at, end);
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0;
    for (let i = at; i < end; i += 1) {
      const d = buffer[i]!;
      if (d === QUOTE) {
        i = stringEndAt(buffer, i, end) - 1;
        if (i < 0) return -1;
      } else if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth += 1;
      else if (d === CLOSE_OBJECT || d === CLOSE_ARRAY) {
        depth -= 1;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // A number or a literal runs to the next comma or closing bracket; white space is not expected.
  let i = at;
  while (i < end) {
    const d = buffer[i]!;
    if (d === COMMA || d === CLOSE_OBJECT || d === CLOSE_ARRAY) break;
    // White space, a quote or a colon (and control characters): not a number or a literal.
    if (d <= QUOTE || d === COLON) return -1;
    i += 1;
  }
  return i === at || i === end ? -1 : i;
}

/** Where the string whose opening quote is at `at` ends (after its closing quote); -1 when it does not end before `end`. */
function stringEndAt(buffer: Uint8Array, at: number, end: number): number {
  for (let i = at + 1; i < end; ) {
    const c = buffer[i]!;
    if (c === QUOTE) return i + 1;
    i += c === BACKSLASH ? 2 : 1;
  }
  return -1;
}

/** The kind of the value `buffer[start, end)`, and for a string whether it holds escapes or multi-byte characters. */
export function valueFlags(buffer: Uint8Array, start: number, end: number): number {
  const c = buffer[start];
  if (c === OPEN_OBJECT) return OBJECT;
  if (c === OPEN_ARRAY) return ARRAY;
  if (c !== QUOTE) return PRIMITIVE;
  let flags = STRING;
  for (let i = start + 1; i < end - 1; i += 1) {
    const d = buffer[i]!;
    if (d === BACKSLASH) flags |= VALUE_ESCAPED;
    else if (d >= 0x80) flags |= VALUE_NOT_ASCII;
  }
  return flags;
}
