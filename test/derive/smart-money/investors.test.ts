import { describe, expect, it } from 'vitest';
import { buildInvestorDetail, positionWeight } from '../../../src/derive/smart-money/investors.js';
import { InvestorDetail } from '../../../src/model/smart-money.js';
import { CUSIP, equity, meta, syntheticCusip } from './catalog.js';

const identity = { cik: '1067983', slug: 'berkshire-hathaway', name: 'Berkshire Hathaway Inc.', category: 'conglomerate' };

describe('buildInvestorDetail', () => {
  it('takes period and filedAt from the base filing and publishes no position key', () => {
    const base = meta({ cik: '1067983', period: '2026-09-30', filedAt: '2026-11-14' });
    const { detail } = buildInvestorDetail(identity, base, [
      equity('APPLE INC', CUSIP.apple, 300, 75_000),
      equity('CHEVRON CORP NEW', CUSIP.chevron, 100, 25_000),
    ]);
    expect(InvestorDetail.parse(detail)).toEqual(detail);
    expect(detail).toMatchObject({
      period: '2026-09-30',
      filedAt: '2026-11-14',
      reportedValueTotal: 100_000,
      positionCount: 2,
      positionsShown: 2,
    });
    expect(detail.positions).toEqual([
      { issuerName: 'APPLE INC', titleOfClass: 'COM', kind: 'equity', shares: 300, reportedValue: 75_000, weight: 0.75 },
      { issuerName: 'CHEVRON CORP NEW', titleOfClass: 'COM', kind: 'equity', shares: 100, reportedValue: 25_000, weight: 0.25 },
    ]);
  });

  it('totals and counts are uncapped; shown positions and weights are capped against the uncapped total', () => {
    const base = meta({ cik: '1067983', period: '2026-09-30' });
    const positions = Array.from({ length: 260 }, (_, i) => equity(`ISSUER ${i}`, syntheticCusip('W', i), 1, 100));
    const { detail, shownPositions } = buildInvestorDetail(identity, base, positions);
    expect(detail.reportedValueTotal).toBe(26_000);
    expect(detail.positionCount).toBe(260);
    expect(detail.positionsShown).toBe(250);
    expect(detail.positions).toHaveLength(250);
    expect(shownPositions).toHaveLength(250);
    expect(detail.positions[0]!.weight).toBe(0.003846);
  });

  it('weights are 0 when the investor reports a total value of 0', () => {
    const base = meta({ cik: '1067983', period: '2026-09-30' });
    const { detail } = buildInvestorDetail(identity, base, [equity('APPLE INC', CUSIP.apple, 10, 0)]);
    expect(detail.positions[0]!.weight).toBe(0);
  });
});

describe('positionWeight', () => {
  it.each([
    [1, 3, 0.333333],
    [2, 3, 0.666667],
    [5, 5, 1],
    [0, 5, 0],
    [7, 0, 0],
  ])('%d of %d -> %d', (value, total, weight) => {
    expect(positionWeight(value, total)).toBe(weight);
  });
});
