import { describe, expect, it } from 'vitest';
import { changedFields, changedFieldsOfLines } from '../../../src/publish/diff/changed-fields.js';
import { canonical, randomObject, randomText, respelled, seeded } from '../../helpers/json-cases.js';

function span(line: string) {
  const buffer = Buffer.from(line, 'utf8');
  return { buffer, start: 0, end: buffer.length };
}

describe('changedFieldsOfLines', () => {
  it('names the fields that changed exactly as comparing the parsed records does, however the lines are spelled', () => {
    for (let seed = 1; seed <= 1500; seed += 1) {
      const next = seeded(seed);
      const before = randomObject(next);
      const after = next() < 0.3 ? { ...before, value: next() } : next() < 0.5 ? randomObject(next) : { ...before };
      for (const [a, b] of [
        [canonical(before), canonical(after)],
        [respelled(before, next), canonical(after)],
        [respelled(before, next), respelled(after, next)],
      ] as const) {
        const fields = changedFieldsOfLines(span(a), span(b), () => [JSON.parse(a), JSON.parse(b)]);
        expect(fields, `${a}\n${b}`).toEqual(changedFields(JSON.parse(a), JSON.parse(b)));
      }
    }
  });

  it('sorts names past ASCII as sort() does, not in byte order (U+E000 sorts after 😀, its UTF-8 before)', () => {
    const names = ['a', 'é', '\uE000', '😀', 'z'];
    for (let seed = 1; seed <= 300; seed += 1) {
      const next = seeded(seed);
      const before = randomObject(next, 1, names);
      const after = Object.fromEntries(Object.entries(before).map(([name, value]) => [name, next() < 0.5 ? value : randomText(next)]));
      const [a, b] = [canonical(before), canonical(after)];
      expect(
        changedFieldsOfLines(span(a), span(b), () => [JSON.parse(a), JSON.parse(b)]),
        `${a}\n${b}`,
      ).toEqual(changedFields(JSON.parse(a), JSON.parse(b)));
    }
    // Written in byte order (as sort() would not), so read from the bytes: no parse.
    const refuse = (): [unknown, unknown] => {
      throw new Error('parsed');
    };
    expect(changedFieldsOfLines(span('{"\uE000":1,"😀":1}'), span('{"\uE000":2,"😀":2}'), refuse)).toEqual(['😀', '\uE000']);
  });

  it('parses neither record where the bytes tell: canonical trades and investors', () => {
    const trade = (value: number, action: string) =>
      canonical({
        action,
        investorSlug: 'alder-3323',
        issuerName: 'ROWEST "NEW" ROEL INC',
        kind: 'equity',
        reportedValueAfter: value,
        sharesChange: -value,
        titleOfClass: 'COM',
      });
    const investor = (first: string) =>
      canonical({
        name: 'X',
        positions: [
          { issuerName: first, shares: 5, weight: 0.25 },
          { issuerName: 'B', shares: 1, weight: 0.75 },
        ],
        slug: 'x',
      });
    const refuse = (): [unknown, unknown] => {
      throw new Error('parsed');
    };
    expect(changedFieldsOfLines(span(trade(1, 'added')), span(trade(2, 'trimmed')), refuse)).toEqual([
      'action',
      'reportedValueAfter',
      'sharesChange',
    ]);
    expect(changedFieldsOfLines(span(investor('A')), span(investor('C')), refuse)).toEqual(['positions']);
  });
});
