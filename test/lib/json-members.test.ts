import { describe, expect, it } from 'vitest';
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
} from '../../src/lib/json-members.js';
import { canonical, randomObject, respelled, seeded } from '../helpers/json-cases.js';

/** What scan() found, as JSON.parse reads each name and value. */
function members(line: string): { name: string; value: unknown; flags: number }[] | null {
  const bytes = Buffer.from(line, 'utf8');
  const found = new JsonMembers();
  if (!found.scan(bytes, 0, bytes.length)) return null;
  return Array.from({ length: found.count }, (_, m) => ({
    name: JSON.parse(`"${bytes.toString('utf8', found.nameStart(m), found.nameEnd(m))}"`) as string,
    value: JSON.parse(bytes.toString('utf8', found.valueStart(m), found.valueEnd(m))),
    flags: found.flags(m),
  }));
}

describe('JsonMembers', () => {
  it('finds every member of an object, name and value, as JSON.parse reads them, however they are spelled', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const next = seeded(seed);
      const record = randomObject(next);
      for (const line of [canonical(record), respelled(record, next)]) {
        const found = members(line);
        expect(found, line).not.toBeNull();
        expect(Object.fromEntries(found!.map(({ name, value }) => [name, value])), line).toEqual(JSON.parse(line));
      }
    }
  });

  it('tells the kind of each value, and whether a string or a name holds an escape or a multi-byte character', () => {
    const found = members('{"a":"x","b\\"":"\\n","c":"é","d":1.5,"e":null,"f":[1],"g":{"h":"]"}}')!;
    expect(found.map(({ flags }) => flags & KIND)).toEqual([STRING, STRING, STRING, PRIMITIVE, PRIMITIVE, ARRAY, OBJECT]);
    expect(found[1]!.flags & (NAME_ESCAPED | VALUE_ESCAPED)).toBe(NAME_ESCAPED | VALUE_ESCAPED);
    expect(found[2]!.flags & VALUE_NOT_ASCII).toBe(VALUE_NOT_ASCII);
    expect(found[0]!.flags & (NAME_ESCAPED | VALUE_ESCAPED | VALUE_NOT_ASCII)).toBe(0);
  });

  it('gives back the members of a scan from the spans it wrote, at another place in another buffer', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const next = seeded(seed);
      const record = randomObject(next);
      for (const line of [canonical(record), respelled(record, next)]) {
        // The line somewhere inside a buffer, as a chunk holds it; the spans in another.
        const bytes = Buffer.from(`xx\n${line}\nyy`, 'utf8');
        const [start, end] = [3, bytes.length - 3];
        const scanned = new JsonMembers();
        expect(scanned.scan(bytes, start, end), line).toBe(true);
        const spanBytes = scanned.spanBytes(start, end);
        expect(spanBytes).toBe(5 * scanned.count);
        const spans = Buffer.alloc(spanBytes + 7);
        scanned.writeSpans(spans, 7, start);
        const read = new JsonMembers();
        read.read(spans, 7, spanBytes, start);
        const all = (m: JsonMembers) =>
          Array.from({ length: m.count }, (_, i) => [m.nameStart(i), m.nameEnd(i), m.valueStart(i), m.valueEnd(i), m.flags(i)]);
        expect(all(read), line).toEqual(all(scanned));
      }
    }
    // Past 64 KiB the offsets would not fit: no spans.
    const long = Buffer.from(`{"a":"${'x'.repeat(70_000)}"}`);
    const found = new JsonMembers();
    expect(found.scan(long, 0, long.length)).toBe(true);
    expect(found.spanBytes(0, long.length)).toBe(0);
  });

  it('answers false, rather than guessing, for white space between tokens, a cut line, or what is not an object', () => {
    for (const line of ['{"a": 1}', '{ "a":1}', '{"a":1 }', '{"a":"x"', '{"a":[1,2}', '[1,2]', '"a"', '{"a":}', '{"a" :1}']) {
      expect(members(line), line).toBeNull();
    }
    expect(members('{}')).toEqual([]);
  });
});
