import { describe, expect, it } from 'vitest';
import { aggregatePositions } from '../../../src/derive/smart-money/positions.js';
import { CUSIP, row } from './catalog.js';

describe('aggregatePositions', () => {
  it('sums rows of the same CUSIP listed once per investment discretion', () => {
    const positions = aggregatePositions([row('APPLE INC', CUSIP.apple, 100, 25_000), row('APPLE INC', CUSIP.apple, 40, 10_000)]);
    expect(positions).toEqual([
      { key: `${CUSIP.apple}|-|SH`, issuerName: 'APPLE INC', titleOfClass: 'COM', kind: 'equity', shares: 140, reportedValue: 35_000 },
    ]);
  });

  it('keeps Put and Call rows apart from the equity row of the same CUSIP: three positions', () => {
    const positions = aggregatePositions([
      row('APPLE INC', CUSIP.apple, 100, 25_000),
      row('APPLE INC', CUSIP.apple, 50, 12_500, { putCall: 'put' }),
      row('APPLE INC', CUSIP.apple, 30, 7_500, { putCall: 'call' }),
      row('APPLE INC', CUSIP.apple, 20, 5_000, { putCall: 'call' }),
    ]);
    expect(positions.map((p) => [p.kind, p.shares, p.reportedValue])).toEqual([
      ['equity', 100, 25_000],
      ['put', 50, 12_500],
      ['call', 50, 12_500],
    ]);
  });

  it('PRN rows are principal positions, apart from shares of the same CUSIP', () => {
    const positions = aggregatePositions([
      row('APPLE INC', CUSIP.apple, 100, 25_000),
      row('APPLE INC', CUSIP.apple, 1_000_000, 990_000, { amountType: 'PRN', titleOfClass: 'NOTE 3.000% 6/20/27' }),
    ]);
    expect(positions.map((p) => [p.kind, p.titleOfClass, p.shares])).toEqual([
      ['equity', 'COM', 100],
      ['principal', 'NOTE 3.000% 6/20/27', 1_000_000],
    ]);
  });

  it('shows the filed names of the largest row of a group, the first one on ties', () => {
    const [largest] = aggregatePositions([
      row('Apple Inc', CUSIP.apple, 10, 100),
      row('APPLE INC', CUSIP.apple, 20, 300, { titleOfClass: 'COM NEW' }),
      row('APPLE INCORPORATED', CUSIP.apple, 20, 300),
    ]);
    expect([largest!.issuerName, largest!.titleOfClass]).toEqual(['APPLE INC', 'COM NEW']);
  });

  it('rounds summed fractional share amounts once, after adding', () => {
    const [position] = aggregatePositions([row('APPLE INC', CUSIP.apple, 0.4, 100), row('APPLE INC', CUSIP.apple, 0.4, 100)]);
    expect(position!.shares).toBe(1);
  });
});
