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

/** How many line breaks `bytes` holds: the whole NDJSON lines in it, when it ends with one. */
export function countLineBreaks(bytes: Uint8Array): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) count += 1;
  return count;
}
