import { describe, expect, it } from 'vitest';
import { ByteValueCache } from '../../src/lib/byte-value-cache.js';

/** The bounds of the tab-separated fields of `line` (as a TSV scanner finds them). */
function fieldBounds(line: Buffer): Int32Array {
  const bounds: number[] = [];
  let start = 0;
  for (let i = 0; i <= line.length; i++) {
    if (i === line.length || line[i] === 0x09) {
      bounds.push(start, i);
      start = i + 1;
    }
  }
  return Int32Array.from(bounds);
}

describe('ByteValueCache', () => {
  it('makes one value per distinct byte string, wherever the bytes sit', () => {
    const cache = new ByteValueCache<string>();
    const made: string[] = [];
    const make = (text: string) => {
      made.push(text);
      return text.toUpperCase();
    };
    const line = Buffer.from('apple\tbanana\tapple\tappl');
    const bounds = fieldBounds(line);
    const values = [0, 1, 2, 3].map((k) => cache.get(line, bounds[2 * k]!, bounds[2 * k + 1]!, make));
    expect(values).toEqual(['APPLE', 'BANANA', 'APPLE', 'APPL']);
    expect(made).toEqual(['apple', 'banana', 'appl']);
    expect(cache.size).toBe(3);
  });

  it('keys fields read together by their bytes joined with tabs, so a different split is another key', () => {
    const cache = new ByteValueCache<readonly string[]>();
    let calls = 0;
    const make = (texts: readonly string[]) => {
      calls++;
      return [...texts];
    };
    const rows = ['a\tbc\tX', 'ab\tc\tX', 'a\tbc\tX', 'zz\ta\tbc\tX'];
    const results = rows.map((row, index) => {
      const line = Buffer.from(row);
      const bounds = fieldBounds(line);
      // The last row's security starts at its second field, as a column order may put it.
      return cache.getJoined(line, index === 3 ? bounds.subarray(2) : bounds, 3, make);
    });
    expect(results.map((texts) => texts.join('|'))).toEqual(['a|bc|X', 'ab|c|X', 'a|bc|X', 'a|bc|X']);
    expect(results[2]).toBe(results[0]);
    expect(results[3]).toBe(results[0]);
    expect(calls).toBe(2);
  });

  it('decodes each field on its own, invalid UTF-8 included, and survives growth past its first tables', () => {
    const cache = new ByteValueCache<readonly string[]>();
    const invalid = Buffer.concat([Buffer.from('x\t'), Buffer.from([0xc3]), Buffer.from('\ty')]);
    expect(cache.getJoined(invalid, fieldBounds(invalid), 3, (texts) => [...texts])).toEqual(['x', '\uFFFD', 'y']);
    for (let i = 0; i < 5000; i++) {
      const line = Buffer.from(`name ${i}\tCOM\t${String(i).padStart(9, '0')}`);
      expect(cache.getJoined(line, fieldBounds(line), 3, (texts) => [...texts])[2]).toBe(String(i).padStart(9, '0'));
    }
    expect(cache.size).toBe(5001);
    const again = Buffer.from('name 4321\tCOM\t000004321');
    expect(cache.getJoined(again, fieldBounds(again), 3, () => ['made again'])).toEqual(['name 4321', 'COM', '000004321']);
  });
});
