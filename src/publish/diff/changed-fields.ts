import { CLOSE_OBJECT, COLON, COMMA, OPEN_OBJECT, QUOTE, sameBytes } from '../../lib/json-bytes.js';
import { fnv1a } from '../../lib/fnv1a.js';
import { JsonMembers, NAME_NOT_ASCII, valueEndAt, valueFlags } from '../../lib/json-members.js';
import { compareJsonValues, compareNames, namesInOrder } from '../../lib/json-value-difference.js';

/** A record's line: `buffer[start, end)`. */
export interface LineSpan {
  buffer: Buffer;
  start: number;
  end: number;
  /** Bytes right after the line that give its members as a scan found them (JsonMembers.writeSpans); 0 or none: scan it. */
  spanBytes?: number;
}

/**
 * The top-level fields in which a changed record differs, sorted: those only one side has, and
 * those whose values differ as their canonical JSON would. Read from the two lines' bytes where
 * that is exact (json-value-difference.ts: a new quarter changes 800,000 trades, and parsing both
 * sides of each was most of what pairing them cost); from the parsed records (`parse`) otherwise.
 */
export function changedFieldsOfLines(before: LineSpan, after: LineSpan, parse: () => [unknown, unknown]): string[] {
  return fieldsFromBytes(before, after) ?? changedFields(...parse());
}

/** Top-level fields whose values differ (as their canonical JSON would), sorted. */
export function changedFields(before: unknown, after: unknown): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const fields: string[] = [];
  for (const name of Object.keys(a)) if (!Object.hasOwn(b, name) || !sameValue(a[name], b[name])) fields.push(name);
  for (const name of Object.keys(b)) if (!Object.hasOwn(a, name)) fields.push(name);
  return fields.sort();
}

/**
 * Whether two parsed values have the same canonical JSON: the same type, and for arrays the same
 * items in order, for objects the same keys (in any order) with the same values. Compared in
 * place, so a difference early in a large array costs no serialization of either.
 */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i += 1) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const key of keys) if (!Object.hasOwn(y, key) || !sameValue(x[key], y[key])) return false;
  return true;
}

const membersBefore = new JsonMembers();
const membersAfter = new JsonMembers();

/** The changed fields from the lines' bytes; null when the lines are not objects read that way (the caller parses them). */
function fieldsFromBytes(before: LineSpan, after: LineSpan): string[] | null {
  const x = membersBefore;
  const a = before.buffer;
  if (before.spanBytes) x.read(a, before.end, before.spanBytes, before.start);
  else if (!x.scan(a, before.start, before.end)) return null;
  if (!namesInOrder(x, a)) return null;
  // The usual case: the after line has the same names in the same order, read along the before line's.
  const alongside = fieldsAlongside(x, a, after);
  if (alongside !== NOT_ALONGSIDE) return alongside;
  const y = membersAfter;
  const b = after.buffer;
  if (!y.scan(b, after.start, after.end) || !namesInOrder(y, b)) return null;
  const fields: string[] = [];
  for (let i = 0, j = 0; i < x.count || j < y.count; ) {
    const order = i === x.count ? 1 : j === y.count ? -1 : compareNames(x, a, i, y, b, j);
    if (order < 0) {
      fields.push(nameOf(x, a, i));
      i += 1;
      continue;
    }
    if (order > 0) {
      fields.push(nameOf(y, b, j));
      j += 1;
      continue;
    }
    const verdict = compareValues(x, a, i, b, y.valueStart(j), y.valueEnd(j), y.flags(j));
    if (verdict === null) return null;
    if (verdict) fields.push(nameOf(x, a, i));
    i += 1;
    j += 1;
  }
  return fields.sort();
}

const NOT_ALONGSIDE = null;

/**
 * The changed fields when the after line has exactly the before line's names, in their order
 * (`x`: the before line's members, names in strictly increasing order); NOT_ALONGSIDE when it has
 * not (or is not read that way), and the caller reads it whole. The after line is not scanned: each
 * name is checked where the before line's order puts it, and a value whose bytes are the before
 * value's bytes is the same value; only a value that differs is read for its end. So the names
 * come out in byte order, which is their sorted order when they are ASCII.
 */
function fieldsAlongside(x: JsonMembers, a: Buffer, after: LineSpan): string[] | null {
  const b = after.buffer;
  const end = after.end;
  if (b[after.start] !== OPEN_OBJECT) return NOT_ALONGSIDE;
  let at = after.start + 1;
  const fields: string[] = [];
  let notAscii = false;
  for (let m = 0; m < x.count; m += 1) {
    if (m > 0) {
      if (b[at] !== COMMA) return NOT_ALONGSIDE;
      at += 1;
    }
    // `"name":` where the before line's order puts it.
    const nameStart = x.nameStart(m);
    const nameLength = x.nameEnd(m) - nameStart;
    if (at + nameLength + 3 > end || b[at] !== QUOTE || b[at + nameLength + 1] !== QUOTE || b[at + nameLength + 2] !== COLON)
      return NOT_ALONGSIDE;
    if (!sameBytes(a, nameStart, b, at + 1, nameLength)) return NOT_ALONGSIDE;
    const valueStart = at + nameLength + 3;
    const aStart = x.valueStart(m);
    const aLength = x.valueEnd(m) - aStart;
    // The same bytes, then the end of a value: the same value (a string, object or array ends itself; a number or literal ends there).
    const next = valueStart + aLength;
    if (next < end && (b[next] === COMMA || b[next] === CLOSE_OBJECT) && sameBytes(a, aStart, b, valueStart, aLength)) {
      at = next;
      continue;
    }
    const valueEnd = valueEndAt(b, valueStart, end);
    if (valueEnd < 0) return NOT_ALONGSIDE;
    const verdict = compareValues(x, a, m, b, valueStart, valueEnd, valueFlags(b, valueStart, valueEnd));
    if (verdict === null) return NOT_ALONGSIDE;
    if (verdict) {
      fields.push(nameOf(x, a, m));
      if ((x.flags(m) & NAME_NOT_ASCII) !== 0) notAscii = true;
    }
    at = valueEnd;
  }
  if (b[at] !== CLOSE_OBJECT || at + 1 !== end) return NOT_ALONGSIDE;
  // Byte order and the order of sort() (UTF-16 code units) differ only past ASCII.
  return notAscii ? fields.sort() : fields;
}

/**
 * Whether member `m` of the before line (`x` over `a`) and the value `b[start, end)` differ: true,
 * false, or null when neither the bytes nor the parsed values tell (not JSON after all).
 */
function compareValues(x: JsonMembers, a: Buffer, m: number, b: Buffer, start: number, end: number, flags: number): boolean | null {
  const aStart = x.valueStart(m);
  const aEnd = x.valueEnd(m);
  const verdict = compareJsonValues(a, aStart, aEnd, x.flags(m), b, start, end, flags);
  if (verdict !== 'unknown') return verdict === 'different';
  try {
    return !sameValue(JSON.parse(a.toString('utf8', aStart, aEnd)), JSON.parse(b.toString('utf8', start, end)));
  } catch {
    // Not JSON after all: parsing the whole lines says where.
    return null;
  }
}

/**
 * A member's name as text. The same few names change in record after record, so ASCII names are
 * not made into strings each time: first the name this member index had last time is tried (lines
 * of a resource have the same names in the same places), then the names kept by a hash of their bytes.
 */
function nameOf(members: JsonMembers, buffer: Buffer, member: number): string {
  const start = members.nameStart(member);
  const end = members.nameEnd(member);
  if ((members.flags(member) & NAME_NOT_ASCII) !== 0) return buffer.toString('utf8', start, end);
  const last = lastNames[member];
  if (last !== undefined && sameText(last, buffer, start, end)) return last;
  const hash = fnv1a(buffer, start, end);
  const known = names.get(hash);
  let name: string;
  if (known !== undefined && sameText(known, buffer, start, end)) name = known;
  else {
    name = buffer.toString('latin1', start, end);
    if (names.size < MAX_NAMES) names.set(hash, name);
  }
  if (member < MAX_MEMBERS_KEPT) lastNames[member] = name;
  return name;
}

/** Whether the ASCII text `name` is spelled by `buffer[start, end)`. */
function sameText(name: string, buffer: Buffer, start: number, end: number): boolean {
  if (name.length !== end - start) return false;
  for (let i = 0; i < name.length; i += 1) if (name.charCodeAt(i) !== buffer[start + i]) return false;
  return true;
}

const lastNames: string[] = [];
const MAX_MEMBERS_KEPT = 64;
const names = new Map<number, string>();
const MAX_NAMES = 4096;
