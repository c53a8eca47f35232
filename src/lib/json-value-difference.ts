import {
  ARRAY,
  JsonMembers,
  KIND,
  NAME_ESCAPED,
  OBJECT,
  PRIMITIVE,
  STRING,
  VALUE_ESCAPED,
  VALUE_NOT_ASCII,
  valueEndAt,
  valueFlags,
} from './json-members.js';
import { CLOSE_ARRAY, COMMA, sameBytes } from './json-bytes.js';

/** Two encoded JSON values: the same bytes, surely different values, or unknown without parsing them. */
export type ValueVerdict = 'same' | 'different' | 'unknown';

/**
 * Compares two JSON values by their bytes (`a[aStart, aEnd)` and `b[bStart, bEnd)`, flags from
 * json-members.ts). Equal bytes are the same value. Different bytes are surely different values
 * where a value has one spelling only: strings without escapes or multi-byte characters, whole
 * numbers of up to 15 digits written plainly, true, false and null, values of different kinds, and
 * arrays or objects in which such a difference is found (an item or member that differs, a member
 * only one has, a different length). Anything else (a fraction, an exponent, an escape, members
 * out of order) is 'unknown': the caller parses the two values and compares them.
 */
export function compareJsonValues(
  a: Uint8Array,
  aStart: number,
  aEnd: number,
  aFlags: number,
  b: Uint8Array,
  bStart: number,
  bEnd: number,
  bFlags: number,
  depth = 0,
): ValueVerdict {
  if (aEnd - aStart === bEnd - bStart && sameBytes(a, aStart, b, bStart, aEnd - aStart)) return 'same';
  const kind = aFlags & KIND;
  if (kind !== (bFlags & KIND)) return 'different';
  switch (kind) {
    case STRING:
      return ((aFlags | bFlags) & (VALUE_ESCAPED | VALUE_NOT_ASCII)) === 0 ? 'different' : 'unknown';
    case PRIMITIVE:
      return spelledOneWay(a, aStart, aEnd) && spelledOneWay(b, bStart, bEnd) ? 'different' : 'unknown';
    case ARRAY:
      return depth >= MAX_DEPTH ? 'unknown' : compareArrays(a, aStart, aEnd, b, bStart, bEnd, depth);
    case OBJECT:
      return depth >= MAX_DEPTH ? 'unknown' : compareObjects(a, aStart, aEnd, b, bStart, bEnd, depth);
    default:
      return 'unknown';
  }
}

/** Whether the members' names are plain (no escape) and in strictly increasing byte order, so that none repeats. */
export function namesInOrder(members: JsonMembers, buffer: Uint8Array): boolean {
  for (let m = 0; m < members.count; m += 1) {
    if ((members.flags(m) & NAME_ESCAPED) !== 0) return false;
    if (m > 0 && compareNames(members, buffer, m - 1, members, buffer, m) >= 0) return false;
  }
  return true;
}

/** The byte order of member `i` of `x`'s name and member `j` of `y`'s. */
export function compareNames(x: JsonMembers, a: Uint8Array, i: number, y: JsonMembers, b: Uint8Array, j: number): number {
  return compareBytes(a, x.nameStart(i), x.nameEnd(i), b, y.nameStart(j), y.nameEnd(j));
}

const MAX_DEPTH = 32;

function compareArrays(
  a: Uint8Array,
  aStart: number,
  aEnd: number,
  b: Uint8Array,
  bStart: number,
  bEnd: number,
  depth: number,
): ValueVerdict {
  let i = aStart + 1;
  let j = bStart + 1;
  for (;;) {
    const aEnded = a[i] === CLOSE_ARRAY;
    const bEnded = b[j] === CLOSE_ARRAY;
    // One has more items than the other: different, whatever the items.
    if (aEnded || bEnded) return aEnded && bEnded ? 'unknown' : 'different';
    const aItemEnd = valueEndAt(a, i, aEnd);
    const bItemEnd = valueEndAt(b, j, bEnd);
    if (aItemEnd < 0 || bItemEnd < 0) return 'unknown';
    const verdict = compareJsonValues(a, i, aItemEnd, valueFlags(a, i, aItemEnd), b, j, bItemEnd, valueFlags(b, j, bItemEnd), depth + 1);
    if (verdict === 'different') return 'different';
    i = aItemEnd;
    j = bItemEnd;
    if (a[i] === COMMA) i += 1;
    else if (a[i] !== CLOSE_ARRAY) return 'unknown';
    if (b[j] === COMMA) j += 1;
    else if (b[j] !== CLOSE_ARRAY) return 'unknown';
  }
}

/** Member lists for each depth of nested objects, reused. */
const nested: { a: JsonMembers; b: JsonMembers }[] = [];

function compareObjects(
  a: Uint8Array,
  aStart: number,
  aEnd: number,
  b: Uint8Array,
  bStart: number,
  bEnd: number,
  depth: number,
): ValueVerdict {
  nested[depth] ??= { a: new JsonMembers(), b: new JsonMembers() };
  const { a: x, b: y } = nested[depth]!;
  if (!x.scan(a, aStart, aEnd) || !y.scan(b, bStart, bEnd) || !namesInOrder(x, a) || !namesInOrder(y, b)) return 'unknown';
  for (let i = 0, j = 0; i < x.count || j < y.count; ) {
    // A member only one of them has.
    if (i === x.count || j === y.count) return 'different';
    const order = compareNames(x, a, i, y, b, j);
    if (order !== 0) return 'different';
    const verdict = compareJsonValues(
      a,
      x.valueStart(i),
      x.valueEnd(i),
      x.flags(i),
      b,
      y.valueStart(j),
      y.valueEnd(j),
      y.flags(j),
      depth + 1,
    );
    if (verdict === 'different') return 'different';
    i += 1;
    j += 1;
  }
  return 'unknown';
}

/** true, false, null, or a whole number of up to 15 digits without a leading zero (and not -0): no other spelling has its value. */
function spelledOneWay(buffer: Uint8Array, start: number, end: number): boolean {
  const length = end - start;
  const first = buffer[start];
  if (first === 0x74 || first === 0x66 || first === 0x6e) {
    return (
      (length === 4 && first === 0x74 && buffer[start + 1] === 0x72 && buffer[start + 2] === 0x75 && buffer[start + 3] === 0x65) ||
      (length === 5 &&
        first === 0x66 &&
        buffer[start + 1] === 0x61 &&
        buffer[start + 2] === 0x6c &&
        buffer[start + 3] === 0x73 &&
        buffer[start + 4] === 0x65) ||
      (length === 4 && first === 0x6e && buffer[start + 1] === 0x75 && buffer[start + 2] === 0x6c && buffer[start + 3] === 0x6c)
    );
  }
  const digits = first === MINUS ? start + 1 : start;
  const count = end - digits;
  if (count < 1 || count > 15) return false;
  if (buffer[digits] === ZERO) return count === 1 && digits === start;
  for (let i = digits; i < end; i += 1) {
    const c = buffer[i]!;
    if (c < ZERO || c > ZERO + 9) return false;
  }
  return true;
}

function compareBytes(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): number {
  const length = Math.min(aEnd - aStart, bEnd - bStart);
  for (let i = 0; i < length; i += 1) {
    const difference = a[aStart + i]! - b[bStart + i]!;
    if (difference !== 0) return difference;
  }
  return aEnd - aStart - (bEnd - bStart);
}

const MINUS = 0x2d;
const ZERO = 0x30;
