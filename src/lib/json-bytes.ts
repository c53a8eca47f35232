/** The bytes of JSON's structure, for the code that reads or writes canonical JSON as bytes. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
/** The end of an NDJSON line. */
export const NEWLINE = 0x0a;

/** Whether `a` from `aStart` and `b` from `bStart` hold the same `length` bytes (a loop: short runs cost less than a call to compare). */
export function sameBytes(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, length: number): boolean {
  for (let i = 0; i < length; i += 1) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}

/** How many line breaks `bytes` holds: the whole NDJSON lines in it, when it ends with one. */
export function countLineBreaks(bytes: Uint8Array): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) count += 1;
  return count;
}
