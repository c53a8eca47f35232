import { BoundedTextMemo } from '../lib/bounded-text-memo.js';
import type { DatasetName } from '../model/dataset.js';
import { compileRecordShape, perResource, type WriterKit } from './record-shape-compiler.js';
import { CLOSE_ARRAY, CLOSE_OBJECT, COMMA, OPEN_ARRAY, OPEN_OBJECT } from '../lib/json-bytes.js';

/**
 * Canonical JSON compiled once per record type, written as UTF-8 bytes straight into the buffer a
 * line goes to: the bytes of compiled-canonical.ts's string, encoded, without the string. At full
 * scale a build writes about 650 MB of JSON; as strings, each was concatenated from pieces, then
 * flattened and encoded, and all of it was garbage the moment it was written.
 *
 * - Keys are sorted once; each key (with its comma) is bytes made once.
 * - A string is its JSON.stringify quoted form, encoded once per distinct short string (names,
 *   titles, periods repeat across millions of records) and copied; each field also keeps the last
 *   one it wrote, since consecutive records repeat most (a trade's investor, its periods).
 * - A safe integer is written digit by digit; any other finite number as `${n}` (weights, and
 *   what JavaScript writes in exponent form), which is what the string path writes.
 * Anything the shape does not foresee makes the encoder answer false, having written nothing the
 * caller keeps: the caller then writes canonicalJson's string instead (compiled-canonical.ts
 * explains the cases). A property test holds the bytes to canonicalJson's for every record type.
 */
export type CanonicalEncoder = (record: unknown, out: ByteOut) => boolean;

/** Where an encoder writes: `buffer` from `at` on; `reserve(n)` makes room for n more bytes (and may move what the line holds so far). */
export interface ByteOut {
  buffer: Buffer;
  at: number;
  reserve(bytes: number): void;
}

type ByteWriter = (value: unknown, out: ByteOut) => boolean;

/** As compiled-canonical.ts: short strings are encoded once, at most 131,072 of them and 8 MiB of their bytes. */
const QUOTED_MAX_LENGTH = 256;
const quotedBytes = new BoundedTextMemo<Buffer>(
  (text) => Buffer.from(JSON.stringify(text), 'utf8'),
  1 << 17,
  1 << 23,
  (bytes) => bytes.length,
);

function copy(bytes: Buffer, out: ByteOut): void {
  out.reserve(bytes.length);
  const { buffer } = out;
  let at = out.at;
  // Most are a few dozen bytes: a loop costs less than a call into native code.
  if (bytes.length <= 32) for (let i = 0; i < bytes.length; i++) buffer[at++] = bytes[i]!;
  else at += bytes.copy(buffer, at);
  out.at = at;
}

function writeAscii(text: string, out: ByteOut): void {
  out.reserve(text.length);
  const { buffer } = out;
  let at = out.at;
  for (let i = 0; i < text.length; i++) buffer[at++] = text.charCodeAt(i);
  out.at = at;
}

/** Each string field of a shape: the last string it wrote and its bytes, then the memo. */
function stringWriter(): ByteWriter {
  let lastText: string | undefined;
  let lastBytes: Buffer | undefined;
  return (value, out) => {
    if (typeof value !== 'string') return false;
    if (value === lastText) {
      copy(lastBytes!, out);
      return true;
    }
    if (value.length > QUOTED_MAX_LENGTH) {
      const json = JSON.stringify(value);
      out.reserve(3 * json.length);
      out.at += out.buffer.write(json, out.at, 'utf8');
      return true;
    }
    const bytes = quotedBytes.of(value);
    lastText = value;
    lastBytes = bytes;
    copy(bytes, out);
    return true;
  };
}

const EIGHT_DIGITS = 1e8;

/** Writes a safe integer's decimal digits (what `${n}` writes for it; -0 is 0). */
function writeSafeInteger(value: number, out: ByteOut): void {
  out.reserve(17);
  const { buffer } = out;
  let at = out.at;
  let n = value;
  if (n < 0) {
    buffer[at++] = 0x2d;
    n = -n;
  }
  // Above int32, two halves that integer arithmetic handles exactly: high digits, then eight low ones.
  let high = n;
  let low = -1;
  if (n > 0x7fffffff) {
    high = Math.floor(n / EIGHT_DIGITS);
    low = n - high * EIGHT_DIGITS;
    // The division may round across an integer; the remainder says which way.
    if (low < 0) {
      high -= 1;
      low += EIGHT_DIGITS;
    } else if (low >= EIGHT_DIGITS) {
      high += 1;
      low -= EIGHT_DIGITS;
    }
  }
  at = writeDigits(high, buffer, at, 0);
  if (low >= 0) at = writeDigits(low, buffer, at, 8);
  out.at = at;
}

/** The digits of an int32 `n` at `at`, at least `width` of them (zero-padded); returns the position after them. */
function writeDigits(n: number, buffer: Buffer, at: number, width: number): number {
  let digits = 1;
  for (let limit = 10; digits < 10 && n >= limit; limit *= 10) digits++;
  if (digits < width) digits = width;
  let i = at + digits;
  const end = i;
  let rest = n;
  do {
    const next = (rest / 10) | 0;
    buffer[--i] = 0x30 + (rest - next * 10);
    rest = next;
  } while (i > at);
  return end;
}

/** Millionths: a weight is rounded to 6 decimals (positionWeight), so most fractions are a whole number of them. */
const MILLION = 1_000_000;

/**
 * A number strictly between 0 and 1 that is a whole number of millionths k (k / 1e6 is exactly it):
 * `${n}` writes it as "0." and k's six digits without their trailing zeros. The shortest decimal
 * that reads back as n is that one (another of at most six decimals is at least 1e-6 away, far
 * beyond a double's spacing here), and from 1e-6 up `${n}` writes no exponent; a test compares
 * every one of the 999,999 with `${n}`. Returns false for any other number.
 */
function writeMillionths(value: number, out: ByteOut): boolean {
  if (!(value > 0 && value < 1)) return false;
  const k = Math.round(value * MILLION);
  if (k / MILLION !== value) return false;
  out.reserve(8);
  const { buffer } = out;
  let at = out.at;
  buffer[at++] = 0x30;
  buffer[at++] = 0x2e;
  let digits = 6;
  let rest = k;
  while (rest % 10 === 0) {
    rest /= 10;
    digits--;
  }
  for (let i = digits - 1; i >= 0; i--) {
    const next = (rest / 10) | 0;
    buffer[at + i] = 0x30 + (rest - next * 10);
    rest = next;
  }
  out.at = at + digits;
  return true;
}

const writeNumber: ByteWriter = (value, out) => {
  if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  if (Number.isSafeInteger(value)) writeSafeInteger(value, out);
  else if (!writeMillionths(value, out)) writeAscii(`${value}`, out);
  return true;
};

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const writeBoolean: ByteWriter = (value, out) => {
  if (typeof value !== 'boolean') return false;
  copy(value ? TRUE : FALSE, out);
  return true;
};

const writeUnknown: ByteWriter = () => false;

function writeByte(byte: number, out: ByteOut): void {
  out.reserve(1);
  out.buffer[out.at++] = byte;
}

function compileArray(item: ByteWriter): ByteWriter {
  return (value, out) => {
    if (!Array.isArray(value)) return false;
    writeByte(OPEN_ARRAY, out);
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return false; // a hole: canonicalJson decides
      if (i > 0) writeByte(COMMA, out);
      if (!item(value[i], out)) return false;
    }
    writeByte(CLOSE_ARRAY, out);
    return true;
  };
}

function compileObject(sorted: ReadonlyArray<{ key: string; write: ByteWriter }>): ByteWriter {
  const fields = sorted.map(({ key, write }) => ({
    key,
    first: Buffer.from(`${JSON.stringify(key)}:`, 'utf8'),
    next: Buffer.from(`,${JSON.stringify(key)}:`, 'utf8'),
    write,
  }));
  return (value, out) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
    const record = value as Record<string, unknown>;
    writeByte(OPEN_OBJECT, out);
    let present = 0;
    for (const field of fields) {
      const inner = record[field.key];
      if (inner === undefined) {
        if (Object.hasOwn(record, field.key)) return false; // canonicalJson refuses an undefined value
        continue; // an absent optional field
      }
      copy(present === 0 ? field.first : field.next, out);
      if (!field.write(inner, out)) return false;
      present++;
    }
    // A key the shape does not list: only canonicalJson knows where it sorts.
    let keys = 0;
    for (const key in record) if (Object.hasOwn(record, key)) keys++;
    if (keys !== present) return false;
    writeByte(CLOSE_OBJECT, out);
    return true;
  };
}

const KIT: WriterKit<ByteWriter> = {
  string: stringWriter,
  number: writeNumber,
  boolean: writeBoolean,
  unknown: writeUnknown,
  array: compileArray,
  object: compileObject,
};

/** The compiled encoder of one bundle resource's records, made once per process; null for a resource without a schema. */
export const resourceEncoder: (dataset: DatasetName, resource: string) => CanonicalEncoder | null = perResource<CanonicalEncoder | null>(
  (schema) => compileRecordShape(schema, KIT),
  null,
);
