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
      i = stringEnd(buffer, nameStart, end);
      if (i < 0) return false;
      let flags = (stringBytes & ESCAPED) !== 0 ? NAME_ESCAPED : 0;
      if ((stringBytes & NOT_ASCII) !== 0) flags |= NAME_NOT_ASCII;
      const nameEnd = i;
      if (buffer[i + 1] !== COLON) return false;
      const valueStart = i + 2;
      const first = buffer[valueStart];
      let valueEnd: number;
      if (first === QUOTE) {
        // A string, read here for its flags as well as its end.
        flags |= STRING;
        i = stringEnd(buffer, valueStart + 1, end);
        if (i < 0) return false;
        if ((stringBytes & ESCAPED) !== 0) flags |= VALUE_ESCAPED;
        if ((stringBytes & NOT_ASCII) !== 0) flags |= VALUE_NOT_ASCII;
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

  /**
   * How many bytes `writeSpans` takes for the object last scanned, which began at `start` and ends
   * at `end`; 0 when the members are not written that way (none, or a line of 64 KiB or more).
   */
  spanBytes(start: number, end: number): number {
    return end - start <= MAX_SPANNED_LINE ? this.count * BYTES_PER_MEMBER : 0;
  }

  /**
   * Writes the members last scanned (of an object that began at `start`) into `out` at `at`, as
   * offsets from `start`: per member where its name and its value end, and its flags. `read` gives
   * them back without scanning the object again (the rest follows from how scan reads: a name
   * starts 2 bytes after the value before it ends, a value 2 bytes after its name ends).
   */
  writeSpans(out: Uint8Array, at: number, start: number): void {
    for (let m = 0, to = at; m < this.count; m += 1, to += BYTES_PER_MEMBER) {
      const nameEnd = this.nameEnd(m) - start;
      const valueEnd = this.valueEnd(m) - start;
      out[to] = nameEnd;
      out[to + 1] = nameEnd >>> 8;
      out[to + 2] = valueEnd;
      out[to + 3] = valueEnd >>> 8;
      out[to + 4] = this.flags(m);
    }
  }

  /** The members of the object at `start`, from `bytes` of what writeSpans wrote at `at` (for the same bytes). */
  read(spans: Uint8Array, at: number, bytes: number, start: number): void {
    this.count = 0;
    let valueEnd = start;
    for (let from = at; from < at + bytes; from += BYTES_PER_MEMBER) {
      const index = this.count * 5;
      if (index + 5 > this.spans.length) this.grow();
      const nameStart = this.count === 0 ? start + 2 : valueEnd + 2;
      const nameEnd = start + (spans[from]! | (spans[from + 1]! << 8));
      valueEnd = start + (spans[from + 2]! | (spans[from + 3]! << 8));
      this.spans[index] = nameStart;
      this.spans[index + 1] = nameEnd;
      this.spans[index + 2] = nameEnd + 2;
      this.spans[index + 3] = valueEnd;
      this.spans[index + 4] = spans[from + 4]!;
      this.count += 1;
    }
  }

  private grow(): void {
    const larger = new Int32Array(this.spans.length * 2);
    larger.set(this.spans);
    this.spans = larger;
  }
}

/** What writeSpans takes per member: two offsets of 2 bytes and the flags. */
const BYTES_PER_MEMBER = 5;
/** The longest object whose offsets fit 2 bytes. */
const MAX_SPANNED_LINE = 0xffff;

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

/**
 * Per byte, what a string, a nested value or a number makes of it (0: read on). Reading with a
 * table costs one load and one test a byte, where a chain of comparisons costs three or four: the
 * scans here read every byte of every record a diff keys or compares.
 */
const IN_STRING = byteTable([QUOTE, BACKSLASH, ...range(0x80, 0x100)]);
const IN_NESTED = byteTable([QUOTE, OPEN_OBJECT, OPEN_ARRAY, CLOSE_OBJECT, CLOSE_ARRAY]);
/**
 * A number or a literal ends at a comma or a closing bracket; white space, a quote or a colon (and
 * control characters) is not in one.
 */
const IN_NUMBER = byteTable([...range(0, QUOTE + 1), COMMA, COLON, CLOSE_OBJECT, CLOSE_ARRAY]);
/** What stringEnd saw in the string it read last (one thread reads at a time): bits ESCAPED and NOT_ASCII. */
let stringBytes = 0;
const ESCAPED = 1;
const NOT_ASCII = 2;

function byteTable(bytes: readonly number[]): Uint8Array {
  const table = new Uint8Array(256);
  for (const byte of bytes) table[byte] = 1;
  return table;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

/**
 * Where the string whose content starts at `from` has its closing quote; -1 when it does not end
 * before `end`. Sets stringBytes.
 */
function stringEnd(buffer: Uint8Array, from: number, end: number): number {
  let seen = 0;
  for (let i = from; i < end; i += 1) {
    if (IN_STRING[buffer[i]!] === 0) continue;
    const c = buffer[i]!;
    if (c === QUOTE) {
      stringBytes = seen;
      return i;
    }
    if (c === BACKSLASH) {
      seen |= ESCAPED;
      i += 1;
    } else seen |= NOT_ASCII;
  }
  return -1;
}

/** Where the value that starts at `at` ends (exclusive); -1 when it does not end before `end`. */
export function valueEndAt(buffer: Uint8Array, at: number, end: number): number {
  const c = buffer[at];
  if (c === undefined) return -1;
  if (c === QUOTE) {
    const quote = stringEnd(buffer, at + 1, end);
    return quote < 0 ? -1 : quote + 1;
  }
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0;
    for (let i = at; i < end; i += 1) {
      if (IN_NESTED[buffer[i]!] === 0) continue;
      const d = buffer[i]!;
      if (d === QUOTE) {
        i = stringEnd(buffer, i + 1, end);
        if (i < 0) return -1;
      } else if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth += 1;
      else {
        depth -= 1;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // A number or a literal: up to the first byte that is not in one, which must end it.
  let i = at;
  while (i < end && IN_NUMBER[buffer[i]!] === 0) i += 1;
  if (i === at || i === end) return -1;
  const d = buffer[i];
  return d === COMMA || d === CLOSE_OBJECT || d === CLOSE_ARRAY ? i : -1;
}

/** The kind of the value `buffer[start, end)`, and for a string whether it holds escapes or multi-byte characters. */
export function valueFlags(buffer: Uint8Array, start: number, end: number): number {
  const c = buffer[start];
  if (c === OPEN_OBJECT) return OBJECT;
  if (c === OPEN_ARRAY) return ARRAY;
  if (c !== QUOTE) return PRIMITIVE;
  let flags = STRING;
  for (let i = start + 1; i < end - 1; i += 1) {
    if (IN_STRING[buffer[i]!] === 0) continue;
    const d = buffer[i]!;
    if (d === BACKSLASH) flags |= VALUE_ESCAPED;
    else if (d >= 0x80) flags |= VALUE_NOT_ASCII;
  }
  return flags;
}
