import { JsonMembers, NAME_NOT_ASCII } from '../../lib/json-members.js';
import { compareJsonValues, compareNames, namesInOrder } from '../../lib/json-value-difference.js';

/** A record's line: `buffer[start, end)`. */
export interface LineSpan {
  buffer: Buffer;
  start: number;
  end: number;
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
  const y = membersAfter;
  const a = before.buffer;
  const b = after.buffer;
  if (!x.scan(a, before.start, before.end) || !y.scan(b, after.start, after.end) || !namesInOrder(x, a)) return null;
  // The same names in the same order on both sides (the usual case) need no second check of their order.
  if (!sameNames(x, a, y, b) && !namesInOrder(y, b)) return null;
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
    const aStart = x.valueStart(i);
    const aEnd = x.valueEnd(i);
    const bStart = y.valueStart(j);
    const bEnd = y.valueEnd(j);
    const verdict = compareJsonValues(a, aStart, aEnd, x.flags(i), b, bStart, bEnd, y.flags(j));
    if (verdict === 'different') fields.push(nameOf(x, a, i));
    else if (verdict === 'unknown') {
      let same: boolean;
      try {
        same = sameValue(JSON.parse(a.toString('utf8', aStart, aEnd)), JSON.parse(b.toString('utf8', bStart, bEnd)));
      } catch {
        // Not JSON after all: parsing the whole lines says where.
        return null;
      }
      if (!same) fields.push(nameOf(x, a, i));
    }
    i += 1;
    j += 1;
  }
  return fields.sort();
}

/** Whether two member lists have the same names in the same order. */
function sameNames(x: JsonMembers, a: Buffer, y: JsonMembers, b: Buffer): boolean {
  if (x.count !== y.count) return false;
  for (let m = 0; m < x.count; m += 1) if (compareNames(x, a, m, y, b, m) !== 0) return false;
  return true;
}

/**
 * A member's name as text. The same few names change in record after record, so ASCII names are
 * kept by a hash of their bytes and found again without making a string.
 */
function nameOf(members: JsonMembers, buffer: Buffer, member: number): string {
  const start = members.nameStart(member);
  const end = members.nameEnd(member);
  if ((members.flags(member) & NAME_NOT_ASCII) !== 0) return buffer.toString('utf8', start, end);
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i += 1) hash = Math.imul(hash ^ buffer[i]!, 0x01000193);
  const known = names.get(hash);
  if (known !== undefined && known.length === end - start) {
    let same = true;
    for (let i = 0; i < known.length && same; i += 1) same = known.charCodeAt(i) === buffer[start + i];
    if (same) return known;
  }
  const name = buffer.toString('latin1', start, end);
  if (names.size < MAX_NAMES) names.set(hash, name);
  return name;
}

const names = new Map<number, string>();
const MAX_NAMES = 4096;
