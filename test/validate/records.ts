import type { ConsensusRow, InvestorDetail, TradeRow } from '../../src/model/smart-money.js';

/** Literal, schema-valid Smart Money records (issuer names only, as published). */
export function investor(slug: string, period = '2026-09-30'): InvestorDetail {
  return {
    slug,
    name: 'Example Capital Management LLC',
    category: 'hedge-fund',
    period,
    filedAt: '2026-11-14',
    reportedValueTotal: 3_000_000,
    positionCount: 2,
    positionsShown: 2,
    positions: [
      { issuerName: 'APPLE INC', titleOfClass: 'COM', kind: 'equity', shares: 10_000, reportedValue: 2_000_000, weight: 0.666667 },
      { issuerName: 'MICROSOFT CORP', titleOfClass: 'COM', kind: 'call', shares: 2_000, reportedValue: 1_000_000, weight: 0.333333 },
    ],
  };
}

export function consensusRow(rank: number, topHolders: string[] = ['example-capital']): ConsensusRow {
  return {
    rank,
    issuerName: `ISSUER NUMBER ${rank} INC`,
    titleOfClass: 'COM',
    holderCount: topHolders.length,
    totalReportedValue: 1_000_000 * rank,
    totalShares: 5_000 * rank,
    topHolders,
  };
}

export function trade(investorSlug: string): TradeRow {
  return {
    investorSlug,
    investorName: 'Example Capital Management LLC',
    issuerName: 'APPLE INC',
    titleOfClass: 'COM',
    kind: 'equity',
    action: 'added',
    period: '2026-09-30',
    previousPeriod: '2026-06-30',
    sharesBefore: 8_000,
    sharesAfter: 10_000,
    sharesChange: 2_000,
    reportedValueBefore: 1_500_000,
    reportedValueAfter: 2_000_000,
  };
}
