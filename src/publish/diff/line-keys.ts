import { JsonMembers, KIND, NAME_ESCAPED, PRIMITIVE, STRING, VALUE_ESCAPED, VALUE_NOT_ASCII } from '../../lib/json-members.js';
import { type RecordKeyOf, recordKey, recordKeyOf } from '../../model/record-keys.js';
import { fnv1a } from '../../lib/fnv1a.js';
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_OBJECT, QUOTE, sameBytes } from '../../lib/json-bytes.js';

/**
 * A resource's record keys (model/record-keys.ts) as UTF-8 bytes, read from a record's line
 * without parsing it where that is exact: the key fields are top-level strings, found by
 * json-members.ts, and their bytes between the quotes are the text's own UTF-8 when they hold no
 * escape and no multi-byte character (those are decoded, as JSON.parse would). Otherwise (a field
 * missing or not a string, a name spelled with an escape, a line json-members.ts does not read)
 * the line is parsed. JSON.parse of a 20 KB investor line costs about 100 µs, and a diff where every
 * record changed needs the key of millions of lines.
 */
export class LineKeys {
  private readonly key: RecordKeyOf;
  private readonly names: Buffer[];
  private readonly separators: Buffer[];
  private readonly separatorBytes: number;
  private readonly members = new JsonMembers();
  /** Whether the last write() found the key by scanning the whole line (members holds its members). */
  private scanned = false;
  /** keyHash of the key the last write() wrote. */
  hash = 0;
  private readonly found: Int32Array;
  /** Per name length, the key fields of that length as bits (a key has a few fields, never 32). */
  private readonly fieldsOfLength: Int32Array;
  /** Per key field: where its value starts and ends, and its flags (json-members.ts). */
  private readonly values: Int32Array;

  constructor(readonly resource: string) {
    this.key = recordKeyOf(resource);
    this.names = this.key.fields.map((field) => Buffer.from(field, 'utf8'));
    this.separators = this.key.separators.map((separator) => Buffer.from(separator, 'utf8'));
    this.separatorBytes = this.separators.reduce((sum, separator) => sum + separator.length, 0);
    this.found = new Int32Array(this.names.length);
    this.fieldsOfLength = new Int32Array(1 + Math.max(...this.names.map((name) => name.length)));
    this.names.forEach((name, f) => {
      this.fieldsOfLength[name.length] = this.fieldsOfLength[name.length]! | (1 << f);
    });
    this.values = new Int32Array(3 * this.names.length);
  }

  /**
   * The most bytes the key of a line of `length` bytes can take: an escape never grows when
   * decoded, but a byte that is not UTF-8 becomes a 3-byte replacement character.
   */
  room(length: number): number {
    return 3 * length + this.separatorBytes;
  }

  /**
   * Writes the key of the record `line[start, end)` into `out` at `at` (which has `room(end -
   * start)` bytes); returns how many bytes it took, or -1 when the line is not JSON with a key.
   */
  write(line: Buffer, start: number, end: number, out: Buffer, at: number): number {
    this.scanned = false;
    const written = this.keyOf(line, start, end, out, at);
    this.hash = written === -1 ? 0 : keyHash(out, at, at + written);
    return written;
  }

  private keyOf(line: Buffer, start: number, end: number, out: Buffer, at: number): number {
    const fast = this.fromBytes(line, start, end, out, at);
    if (fast !== -1) return fast;
    let record: unknown;
    try {
      record = JSON.parse(line.toString('utf8', start, end));
    } catch {
      return -1;
    }
    if (typeof record !== 'object' || record === null) return -1;
    return out.write(this.ofRecord(record), at, 'utf8');
  }

  /** The members of the line the last write() read from its start (json-members.ts); null when it read it otherwise. */
  scannedMembers(): JsonMembers | null {
    return this.scanned ? this.members : null;
  }

  ofRecord(record: unknown): string {
    return recordKey(this.resource, record);
  }

  private fromBytes(line: Buffer, start: number, end: number, out: Buffer, at: number): number {
    // A long line (an investor and its positions) whose key fields come last: read from its end.
    if (end - start > LONG_LINE && this.fromTail(line, start, end)) return this.writeKey(line, out, at);
    const members = this.members;
    if (!members.scan(line, start, end)) return -1;
    const found = this.found;
    for (let f = 0; f < found.length; f += 1) found[f] = -1;
    const fieldsOfLength = this.fieldsOfLength;
    for (let m = 0; m < members.count; m += 1) {
      // A name with an escape may spell one of the fields.
      if ((members.flags(m) & NAME_ESCAPED) !== 0) return -1;
      const nameStart = members.nameStart(m);
      const length = members.nameEnd(m) - nameStart;
      // Only the fields of this name's length are compared; the last member of a name counts, as in JSON.parse.
      let fields = length < fieldsOfLength.length ? fieldsOfLength[length]! : 0;
      for (let f = 0; fields !== 0; f += 1, fields >>>= 1) {
        if ((fields & 1) !== 0 && sameName(line, nameStart, length, this.names[f]!)) found[f] = m;
      }
    }
    for (let f = 0; f < this.names.length; f += 1) {
      const m = found[f]!;
      if (m === -1) return -1;
      this.values[3 * f] = members.valueStart(m);
      this.values[3 * f + 1] = members.valueEnd(m);
      this.values[3 * f + 2] = members.flags(m);
    }
    const written = this.writeKey(line, out, at);
    this.scanned = written !== -1;
    return written;
  }

  /**
   * Finds the key fields among the last members of the object `line[start, end)`, read backwards
   * while they hold strings, numbers or literals (a nested value ends the search: false). The first
   * member of a name found from the end is the last in the line, the one JSON.parse keeps; a name
   * with an escape among those read might spell a field (false).
   */
  private fromTail(line: Buffer, start: number, end: number): boolean {
    const values = this.values;
    let missing = this.names.length;
    for (let f = 0; f < this.names.length; f += 1) values[3 * f] = -1;
    let i = end - 1;
    if (line[i] !== CLOSE_OBJECT) return false;
    i -= 1;
    for (let members = 0; members < MAX_TAIL_MEMBERS; members += 1) {
      // The value, backwards from its last byte.
      let valueStart: number;
      let flags: number;
      const valueEnd = i + 1;
      if (line[i] === QUOTE) {
        flags = STRING;
        let j = i - 1;
        for (; j > start; j -= 1) {
          const c = line[j]!;
          if (c === QUOTE && !escapedAt(line, j)) break;
          if (c === BACKSLASH) flags |= VALUE_ESCAPED;
          else if (c >= 0x80) flags |= VALUE_NOT_ASCII;
        }
        valueStart = j;
        i = j - 1;
      } else {
        flags = PRIMITIVE;
        let j = i;
        for (; j > start; j -= 1) {
          const c = line[j]!;
          if (c === COLON) break;
          // A nested value, white space or anything else a number or literal does not hold.
          if (c === CLOSE_OBJECT || c === CLOSE_ARRAY || c <= QUOTE || c === COMMA) return false;
        }
        valueStart = j + 1;
        i = j;
      }
      if (i <= start || line[i] !== COLON || line[i - 1] !== QUOTE) return false;
      // The name, backwards.
      const nameEnd = i - 1;
      let j = nameEnd - 1;
      for (; j > start; j -= 1) {
        const c = line[j]!;
        if (c === QUOTE) break;
        if (c === BACKSLASH) return false;
      }
      // The name's opening quote, after a comma or the opening brace: else this was not a member.
      if (j <= start || escapedAt(line, j) || (line[j - 1] !== COMMA && !(line[j - 1] === OPEN_OBJECT && j - 1 === start))) return false;
      const nameStart = j + 1;
      for (let f = 0; f < this.names.length; f += 1) {
        if (values[3 * f] === -1 && sameName(line, nameStart, nameEnd - nameStart, this.names[f]!)) {
          values[3 * f] = valueStart;
          values[3 * f + 1] = valueEnd;
          values[3 * f + 2] = flags;
          missing -= 1;
        }
      }
      if (missing === 0) return true;
      i = j - 1;
      if (line[i] !== COMMA) return false;
      i -= 1;
    }
    return false;
  }

  /** Writes the key from the fields' values found (this.values) into `out` at `at`; its length, or -1 when a value is not a string. */
  private writeKey(line: Buffer, out: Buffer, at: number): number {
    let written = at;
    for (let f = 0; f < this.names.length; f += 1) {
      const valueStart = this.values[3 * f]!;
      const valueEnd = this.values[3 * f + 1]!;
      const flags = this.values[3 * f + 2]!;
      if ((flags & KIND) !== STRING) return -1;
      if (f > 0) written += this.separators[f - 1]!.copy(out, written);
      if ((flags & VALUE_ESCAPED) !== 0)
        written += out.write(JSON.parse(line.toString('utf8', valueStart, valueEnd)) as string, written, 'utf8');
      else if ((flags & VALUE_NOT_ASCII) !== 0) written += out.write(line.toString('utf8', valueStart + 1, valueEnd - 1), written, 'utf8');
      else {
        for (let i = valueStart + 1; i < valueEnd - 1; i += 1) out[written++] = line[i]!;
      }
    }
    return written - at;
  }
}

/** From this many bytes, a line is first read from its end for its key. */
const LONG_LINE = 2048;
/** Members read from the end of a line, at most, before reading it from its start. */
const MAX_TAIL_MEMBERS = 8;

/** Whether the quote at `at` is escaped: an odd run of backslashes before it. */
function escapedAt(line: Buffer, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && line[i] === BACKSLASH; i -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}

function sameName(line: Buffer, at: number, length: number, name: Buffer): boolean {
  return name.length === length && sameBytes(line, at, name, 0, length);
}

/** A key's hash (FNV-1a of its bytes): the same key always has the same hash, whichever thread worked it out. */
export const keyHash = fnv1a;
