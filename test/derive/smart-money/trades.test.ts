import { describe, expect, it } from 'vitest';
import { deriveTrades } from '../../../src/derive/smart-money/trades.js';
import { TradeRow } from '../../../src/model/smart-money.js';
import { CUSIP, equity, syntheticCusip } from './catalog.js';

const investor = { slug: 'example-capital', name: 'Example Capital LLC' };
const quarter = (period: string, positions: ReturnType<typeof equity>[]) => ({ period, positions });

function tradesOf(before: ReturnType<typeof equity>[], after: ReturnType<typeof equity>[]) {
  return deriveTrades(quarter('2026-09-30', after), quarter('2026-06-30', before), investor);
}

describe('deriveTrades', () => {
  it('new: a position absent in the previous quarter', () => {
    const [trade] = tradesOf([], [equity('APPLE INC', CUSIP.apple, 100, 25_000)]);
    expect(trade).toEqual({
      investorSlug: 'example-capital',
      investorName: 'Example Capital LLC',
      issuerName: 'APPLE INC',
      titleOfClass: 'COM',
      kind: 'equity',
      action: 'new',
      period: '2026-09-30',
      previousPeriod: '2026-06-30',
      sharesBefore: 0,
      sharesAfter: 100,
      sharesChange: 100,
      reportedValueBefore: 0,
      reportedValueAfter: 25_000,
    });
    expect(TradeRow.parse(trade)).toEqual(trade);
  });

  it('added: more shares than in the previous quarter', () => {
    const trades = tradesOf([equity('APPLE INC', CUSIP.apple, 100, 25_000)], [equity('APPLE INC', CUSIP.apple, 150, 36_000)]);
    expect(trades.map((t) => [t.action, t.sharesChange])).toEqual([['added', 50]]);
  });

  it('trimmed: fewer shares, still held', () => {
    const trades = tradesOf([equity('APPLE INC', CUSIP.apple, 100, 25_000)], [equity('APPLE INC', CUSIP.apple, 60, 15_000)]);
    expect(trades.map((t) => [t.action, t.sharesBefore, t.sharesAfter, t.sharesChange])).toEqual([['trimmed', 100, 60, -40]]);
  });

  it('sold: held before and absent now', () => {
    const trades = tradesOf([equity('CHEVRON CORP NEW', CUSIP.chevron, 80, 12_000)], []);
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({
      action: 'sold',
      issuerName: 'CHEVRON CORP NEW',
      sharesBefore: 80,
      sharesAfter: 0,
      sharesChange: -80,
      reportedValueBefore: 12_000,
      reportedValueAfter: 0,
    });
  });

  it('sold: held before and listed with zero shares now', () => {
    const trades = tradesOf([equity('CHEVRON CORP NEW', CUSIP.chevron, 80, 12_000)], [equity('CHEVRON CORP NEW', CUSIP.chevron, 0, 0)]);
    expect(trades.map((t) => [t.action, t.sharesAfter])).toEqual([['sold', 0]]);
  });

  it('unchanged share counts give no row, even when the reported value moved', () => {
    expect(tradesOf([equity('APPLE INC', CUSIP.apple, 100, 25_000)], [equity('APPLE INC', CUSIP.apple, 100, 31_000)])).toEqual([]);
  });

  it('classifies on shares, never on value: value up with fewer shares is trimmed', () => {
    const trades = tradesOf([equity('APPLE INC', CUSIP.apple, 100, 20_000)], [equity('APPLE INC', CUSIP.apple, 90, 27_000)]);
    expect(trades.map((t) => t.action)).toEqual(['trimmed']);
  });

  it('classifies on shares, never on value: value down with more shares is added', () => {
    const trades = tradesOf([equity('APPLE INC', CUSIP.apple, 100, 20_000)], [equity('APPLE INC', CUSIP.apple, 110, 15_000)]);
    expect(trades.map((t) => t.action)).toEqual(['added']);
  });

  it('a position that only fell below the 250-row display cap is not sold', () => {
    // 300 positions held in both quarters with the same shares; the smallest one was in the top 250
    // before (it was larger) and is far below the cap now. It is still held, so there is no row.
    const held = Array.from({ length: 299 }, (_, i) => equity(`HELD ${i}`, syntheticCusip('H', i), 10, 1_000 + i));
    const before = [...held, equity('SMALLCAP INC', CUSIP.cocaCola, 10, 1_000_000)];
    const after = [...held, equity('SMALLCAP INC', CUSIP.cocaCola, 10, 1)];
    expect(tradesOf(before, after)).toEqual([]);
  });

  it('more than 250 change rows: new/added/trimmed capped at 250, sold rows kept separately on top', () => {
    const before = Array.from({ length: 40 }, (_, i) => equity(`GONE ${i}`, syntheticCusip('G', i), 5, 500));
    const after = Array.from({ length: 300 }, (_, i) =>
      equity(`NEW ${String(i).padStart(3, '0')}`, syntheticCusip('N', i), 10, 10_000 + i),
    );
    const trades = tradesOf(before, after);
    expect(trades).toHaveLength(290);
    const news = trades.filter((t) => t.action === 'new');
    expect(news).toHaveLength(250);
    // The 250 largest by reportedValueAfter are kept: values 10_050 .. 10_299.
    expect(Math.min(...news.map((t) => t.reportedValueAfter))).toBe(10_050);
    expect(trades.filter((t) => t.action === 'sold')).toHaveLength(40);
  });

  it('no previous quarter means no trades, not a list of new positions', () => {
    expect(deriveTrades(quarter('2026-09-30', [equity('APPLE INC', CUSIP.apple, 100, 25_000)]), null, investor)).toEqual([]);
  });

  it('a previous filing that is not the adjacent quarter means no trades', () => {
    const current = quarter('2026-09-30', [equity('APPLE INC', CUSIP.apple, 100, 25_000)]);
    const twoQuartersBack = quarter('2026-03-31', [equity('CHEVRON CORP NEW', CUSIP.chevron, 80, 12_000)]);
    expect(deriveTrades(current, twoQuartersBack, investor)).toEqual([]);
  });

  it('compares Q1 with Q4 of the year before', () => {
    const trades = deriveTrades(
      quarter('2026-03-31', [equity('APPLE INC', CUSIP.apple, 100, 25_000)]),
      quarter('2025-12-31', []),
      investor,
    );
    expect(trades.map((t) => [t.action, t.previousPeriod])).toEqual([['new', '2025-12-31']]);
  });

  it('options are compared with options: a call bought next to unchanged equity is new', () => {
    const call = { ...equity('APPLE INC', CUSIP.apple, 50, 5_000), key: `${CUSIP.apple}|call|SH`, kind: 'call' as const };
    const trades = tradesOf([equity('APPLE INC', CUSIP.apple, 100, 25_000)], [equity('APPLE INC', CUSIP.apple, 100, 25_000), call]);
    expect(trades.map((t) => [t.action, t.kind])).toEqual([['new', 'call']]);
  });

  it('orders rows by action (new, added, trimmed, sold), then reported value, then issuer name', () => {
    const trades = tradesOf(
      [
        equity('ADDED CO', CUSIP.apple, 10, 100),
        equity('TRIMMED CO', CUSIP.chevron, 10, 100),
        equity('SOLD SMALL', CUSIP.cocaCola, 10, 100),
        equity('SOLD BIG', CUSIP.bankOfAmerica, 10, 900),
      ],
      [
        equity('TRIMMED CO', CUSIP.chevron, 5, 50),
        equity('ADDED CO', CUSIP.apple, 20, 200),
        equity('NEW B', CUSIP.microsoft, 1, 300),
        equity('NEW A', CUSIP.americanExpress, 1, 300),
      ],
    );
    expect(trades.map((t) => `${t.action}:${t.issuerName}`)).toEqual([
      'new:NEW A',
      'new:NEW B',
      'added:ADDED CO',
      'trimmed:TRIMMED CO',
      'sold:SOLD BIG',
      'sold:SOLD SMALL',
    ]);
  });
});
