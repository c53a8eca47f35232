import { describe, expect, it } from 'vitest';
import { compareJsonValues } from '../../src/lib/json-value-difference.js';
import { JsonMembers } from '../../src/lib/json-members.js';
import { canonical, randomValue, respelled, seeded } from '../helpers/json-cases.js';

/** The verdict on two encoded values, each read as the only member of an object. */
function verdict(a: string, b: string): string {
  const [x, y] = [Buffer.from(`{"v":${a}}`), Buffer.from(`{"v":${b}}`)];
  const [mx, my] = [new JsonMembers(), new JsonMembers()];
  expect(mx.scan(x, 0, x.length) && my.scan(y, 0, y.length)).toBe(true);
  return compareJsonValues(x, mx.valueStart(0), mx.valueEnd(0), mx.flags(0), y, my.valueStart(0), my.valueEnd(0), my.flags(0));
}

describe('compareJsonValues', () => {
  it('never calls two values different that parse to the same canonical JSON, nor the same two that do not', () => {
    for (let seed = 1; seed <= 2000; seed += 1) {
      const next = seeded(seed);
      const a = randomValue(next);
      const b = next() < 0.3 ? a : randomValue(next);
      for (const [x, y] of [
        [canonical(a), canonical(b)],
        [canonical(a), respelled(b, next)],
        [respelled(a, next), respelled(b, next)],
      ] as const) {
        const answer = verdict(x, y);
        const equal = canonical(JSON.parse(x)) === canonical(JSON.parse(y));
        if (answer === 'same') expect(x, `${x} ${y}`).toBe(y);
        if (answer === 'different') expect(equal, `${x} ${y}`).toBe(false);
        if (equal) expect(answer, `${x} ${y}`).not.toBe('different');
      }
    }
  });

  it('decides from the bytes where each value has one spelling, and leaves the rest to a parse', () => {
    expect(verdict('"a"', '"b"')).toBe('different');
    expect(verdict('12', '13')).toBe('different');
    expect(verdict('"12"', '12')).toBe('different');
    expect(verdict('[1,2]', '[1,2,3]')).toBe('different');
    expect(verdict('{"a":1,"b":[1]}', '{"a":1,"b":[2]}')).toBe('different');
    expect(verdict('{"a":1}', '{"a":1,"b":2}')).toBe('different');
    expect(verdict('[{"issuerName":"A","weight":0.5}]', '[{"issuerName":"B","weight":0.5}]')).toBe('different');
    for (const [a, b] of [
      ['1', '1.0'],
      ['0', '-0'],
      ['1e2', '100'],
      ['"a"', '"\\u0061"'],
      ['"é"', '"e"'],
      ['{"a":1,"b":2}', '{"b":2,"a":1}'],
      ['0.5', '0.25'],
      ['12345678901234567', '12345678901234568'],
    ]) {
      expect(verdict(a!, b!), `${a} ${b}`).toBe('unknown');
    }
    expect(verdict('[1,"x"]', '[1,"x"]')).toBe('same');
  });
});
