import type { z } from 'zod';
import type { DatasetName } from '../model/dataset.js';
import { BoundedTextMemo } from '../lib/bounded-text-memo.js';
import { canonicalJson } from './canonical-json.js';
import { compileRecordShape, perResource, type WriterKit } from './record-shape-compiler.js';

/**
 * Canonical JSON compiled once per record type. Records have fixed shapes, so the keys of each
 * object can be sorted once, when the serializer is made, instead of on every record; values are
 * written with the same primitives canonicalJson uses (JSON.stringify for strings and keys,
 * `'' + n` for numbers). The result is byte for byte canonicalJson's.
 *
 * Anything the shape does not foresee (a value of another type, an extra or undefined-valued key,
 * a non-finite number, a hole in an array) makes the serializer hand the whole record to
 * canonicalJson, which writes it the generic way or refuses it with its usual message. So the
 * compiled path is a shortcut for the shapes it knows, never a second definition of the bytes.
 */
export type CanonicalSerializer = (record: unknown) => string;

/** Returned by a field writer when the value does not have the compiled shape. */
const MISMATCH = undefined;
type Writer = (value: unknown) => string | undefined;

/**
 * Short strings repeat across records (issuer and investor names, titles, periods, actions): each
 * distinct one is quoted and escaped once. A lookup of a string already hashed costs about a third
 * of JSON.stringify. Long strings (article bodies) are never kept, and the memo holds at most 8 Mi
 * characters (names that are all escapes quote to six times their length), so at most 16 MiB.
 */
const QUOTED_MAX_LENGTH = 256;
const quoted = new BoundedTextMemo((text) => JSON.stringify(text), 1 << 17, 1 << 23);
const writeString: Writer = (value) =>
  typeof value === 'string' ? (value.length <= QUOTED_MAX_LENGTH ? quoted.of(value) : JSON.stringify(value)) : MISMATCH;
const writeNumber: Writer = (value) => (typeof value === 'number' && Number.isFinite(value) ? `${value}` : MISMATCH);
const writeBoolean: Writer = (value) => (typeof value === 'boolean' ? (value ? 'true' : 'false') : MISMATCH);
/** A shape the compiler does not know: such a record always takes the generic path. */
const writeUnknown: Writer = () => MISMATCH;

function compileArray(item: Writer): Writer {
  return (value) => {
    if (!Array.isArray(value)) return MISMATCH;
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return MISMATCH; // a hole: canonicalJson decides
      const written = item(value[i]);
      if (written === MISMATCH) return MISMATCH;
      out += i === 0 ? written : `,${written}`;
    }
    return `${out}]`;
  };
}

function compileObject(sorted: ReadonlyArray<{ key: string; write: Writer }>): Writer {
  const fields = sorted.map(({ key, write }) => ({ key, prefix: `${JSON.stringify(key)}:`, write }));
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return MISMATCH;
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return MISMATCH;
    const record = value as Record<string, unknown>;
    let out = '{';
    let present = 0;
    for (const field of fields) {
      const inner = record[field.key];
      if (inner === undefined) {
        if (Object.hasOwn(record, field.key)) return MISMATCH; // canonicalJson refuses an undefined value
        continue; // an absent optional field
      }
      const written = field.write(inner);
      if (written === MISMATCH) return MISMATCH;
      out += present === 0 ? field.prefix + written : `,${field.prefix}${written}`;
      present++;
    }
    // A key the shape does not list: only canonicalJson knows where it sorts.
    if (Object.keys(record).length !== present) return MISMATCH;
    return `${out}}`;
  };
}

const KIT: WriterKit<Writer> = {
  string: () => writeString,
  number: writeNumber,
  boolean: writeBoolean,
  unknown: writeUnknown,
  array: compileArray,
  object: compileObject,
};

/** A canonical serializer for records of one zod object schema. */
export function compileCanonical(schema: z.ZodType): CanonicalSerializer {
  const write = compileRecordShape(schema, KIT);
  return (record) => write(record) ?? canonicalJson(record);
}

/** The compiled serializer of one bundle resource's records, made once per process. */
export const resourceSerializer: (dataset: DatasetName, resource: string) => CanonicalSerializer = perResource(
  compileCanonical,
  canonicalJson,
);
