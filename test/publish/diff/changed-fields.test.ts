import { describe, expect, it } from 'vitest';
import { changedFields, changedFieldsOfLines } from '../../../src/publish/diff/changed-fields.js';
import { canonical, randomObject, respelled, seeded } from '../../helpers/json-cases.js';

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
