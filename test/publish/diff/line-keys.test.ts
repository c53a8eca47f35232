import { describe, expect, it } from 'vitest';
import { recordKey } from '../../../src/model/record-keys.js';
import { keyHash, LineKeys } from '../../../src/publish/diff/line-keys.js';
import { canonical, randomText, randomValue, respelled, seeded } from '../../helpers/json-cases.js';

/** The key LineKeys writes for a line (as text), or null when it says the line has none. */
function keyOf(resource: string, line: string | Buffer): string | null {
  const bytes = Buffer.isBuffer(line) ? line : Buffer.from(line, 'utf8');
  const keys = new LineKeys(resource);
  const out = Buffer.alloc(keys.room(bytes.length));
  const length = keys.write(bytes, 0, bytes.length, out, 0);
  if (length === -1) return null;
  // The hash worked out while writing is the key's hash, however the key was found.
  expect(keys.hash).toBe(keyHash(out, 0, length));
  return out.toString('utf8', 0, length);
}

/** What diff keyed records by before: recordKey of the parsed line. */
function parsedKey(resource: string, line: string | Buffer): string {
  return recordKey(resource, JSON.parse(Buffer.isBuffer(line) ? line.toString('utf8') : line));
}

const FIELDS: Record<string, string[]> = {
  trades: ['investorSlug', 'issuerName', 'titleOfClass', 'kind'],
  investors: ['slug'],
  consensus: ['issuerName', 'titleOfClass'],
  articles: ['locale', 'slug'],
  events: ['id'],
};

describe('LineKeys', () => {
  it('writes the key recordKey makes of the parsed record, for every resource, however the line is spelled', () => {
    for (let seed = 1; seed <= 400; seed += 1) {
      const next = seeded(seed);
      for (const [resource, fields] of Object.entries(FIELDS)) {
        const record: Record<string, unknown> = { action: randomValue(next), positions: [randomValue(next), { slug: 'nested' }] };
        for (const field of fields) record[field] = next() < 0.9 ? randomText(next) : randomValue(next);
        for (const line of [canonical(record), respelled(record, next)]) {
          const key = keyOf(resource, line);
          // A field that is not a string, or cannot be read from the bytes, is left to a parse: the key is the same.
          expect(key, `${resource} ${line}`).toBe(parsedKey(resource, line));
        }
      }
    }
  });

  it('takes the last of a repeated field, as JSON.parse does, also when a later one is spelled with an escape', () => {
    for (const line of [
      '{"slug":"first","slug":"second"}',
      '{"slug":"first","sl\\u0075g":"second"}',
      '{"sl\\u0075g":"first","slug":"second"}',
      '{"x\\"slug":"not it","slug":"it"}',
      '{"slug":"it","x":"\\"slug\\":\\"not it\\""}',
      '{"a":{"slug":"nested"},"slug":"top"}',
      '{"slug":"top","a":{"slug":"nested"}}',
    ]) {
      expect(keyOf('investors', line), line).toBe(parsedKey('investors', line));
    }
  });

  it('reads a long line whose key comes last from its end, exactly as from its start', () => {
    const positions = Array.from({ length: 300 }, (_, i) => ({ issuerName: `ISSUER "${i}"`, shares: i, weight: i / 7 }));
    for (const tail of [
      '"slug":"fir-ridge"',
      '"slug":"f\\u00efr"',
      '"slug":"a","slug":"b"',
      '"sl\\u0075g":"a","slug":"b"',
      '"slug":"a","x\\"slug":"b"',
    ]) {
      const line = `{"name":"X","positions":${JSON.stringify(positions)},"positionsShown":250,${tail}}`;
      expect(Buffer.byteLength(line)).toBeGreaterThan(2048);
      expect(keyOf('investors', line), tail).toBe(parsedKey('investors', line));
    }
    const nestedLast = `{"slug":"a","positions":${JSON.stringify(positions)}}`;
    expect(keyOf('investors', nestedLast)).toBe('a');
  });

  it('writes bytes that are not UTF-8 as JSON.parse reads them (a replacement character), and refuses a line that is not a JSON object', () => {
    const line = Buffer.concat([Buffer.from('{"slug":"a'), Buffer.from([0xff]), Buffer.from('b"}')]);
    expect(keyOf('investors', line)).toBe(parsedKey('investors', line));
    for (const bad of ['{"slug":"a"', 'not json', '"slug"', '42', 'null']) expect(keyOf('investors', bad), bad).toBeNull();
    // An array is an object to recordKey, with no fields: its key is as before.
    expect(keyOf('investors', '[1,2]')).toBe(parsedKey('investors', '[1,2]'));
  });
});
