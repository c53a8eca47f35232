import { describe, expect, it } from 'vitest';
import { type InvestorFiling, SMART_MONEY_DRIFT, type SmartMoneyWatch } from '../../../src/validate/drift/smart-money.js';
import { investor } from '../records.js';
import { notPassing } from './not-passing.js';

const snapshot = { label: 'smart-money-20261122T000000Z-000000000000', generatedAt: '2026-11-22T00:00:00.000Z', facts: {} };

describe('the Smart Money watch', () => {
  it('keeps each investor’s latest filing by slug (not its positions) and the newest quarter', () => {
    const watch = SMART_MONEY_DRIFT.watch(snapshot);
    expect(watch.resource).toBe('investors');
    watch.record(investor('alpha-capital', '2026-06-30'));
    watch.record(investor('beta-partners', '2026-09-30'));
    const result = watch.result();
    expect(result.newestPeriod).toBe('2026-09-30');
    expect([...result.investors.keys()]).toEqual(['alpha-capital', 'beta-partners']);
    expect(result.investors.get('alpha-capital')).toEqual({
      name: 'Example Capital Management LLC',
      category: 'hedge-fund',
      period: '2026-06-30',
      filedAt: '2026-11-14',
      reportedValueTotal: 3_000_000,
      positionCount: 2,
    });
  });

  it('knows no quarter of a snapshot without investors', () => {
    expect(SMART_MONEY_DRIFT.watch(snapshot).result()).toEqual({ dataset: 'smart-money', newestPeriod: null, investors: new Map() });
  });
});

describe('the Smart Money checks', () => {
  const filing = (period = '2026-09-30', edit: Partial<InvestorFiling> = {}): InvestorFiling => ({
    name: 'Fund LP',
    period,
    filedAt: '2026-11-14',
    positionCount: 40,
    reportedValueTotal: 1_000_000,
    category: 'hedge-fund',
    ...edit,
  });
  /** Ten investors, fund-0 to fund-9, the first ones edited. */
  const watch = (...edited: InvestorFiling[]): SmartMoneyWatch => {
    const investors = new Map(Array.from({ length: 10 }, (_, i) => [`fund-${i}`, edited[i] ?? filing()] as const));
    return { dataset: 'smart-money', newestPeriod: '2026-09-30', investors };
  };
  const today = watch();
  const without = (slug: string): SmartMoneyWatch => {
    const investors = new Map(today.investors);
    investors.delete(slug);
    return { ...today, investors };
  };
  const { defaults } = SMART_MONEY_DRIFT;

  it.each([
    ['the same day', today, defaults, {}],
    [
      'a new quarter for everyone',
      watch(...Array.from({ length: 10 }, () => filing('2026-12-31', { filedAt: '2027-02-10', positionCount: 5 }))),
      defaults,
      {},
    ],
    ['an amendment that adds positions', watch(filing('2026-09-30', { positionCount: 45 })), defaults, {}],
    ['one investor from the quarter before', watch(filing('2026-06-30')), defaults, { 'drift.smart-money.older-filings': 'warn' }],
    [
      'two from the quarter before',
      watch(filing('2026-06-30'), filing('2026-06-30')),
      defaults,
      { 'drift.smart-money.older-filings': 'fail' },
    ],
    [
      'the same filing with less value',
      watch(filing('2026-09-30', { reportedValueTotal: 10 })),
      defaults,
      { 'drift.smart-money.shrunk-filings': 'warn' },
    ],
    [
      'the newest quarter gone',
      watch(...Array.from({ length: 10 }, () => filing('2026-06-30'))),
      defaults,
      {
        'drift.smart-money.older-filings': 'fail',
      },
    ],
    [
      'one investor gone with a current filing',
      without('fund-3'),
      defaults,
      { 'drift.smart-money.investors-gone': 'warn', 'drift.smart-money.gone-while-fresh': 'fail' },
    ],
    ['the same, its thresholds unset', without('fund-3'), {}, { 'drift.smart-money.investors-gone': 'warn' }],
    [
      'one dropped from the registry (10 %)',
      watch(filing('2026-09-30', { category: 'unclassified' })),
      defaults,
      { 'drift.smart-money.registry-lost': 'warn' },
    ],
    [
      'two dropped from the registry',
      watch(filing('2026-09-30', { category: 'unclassified' }), filing('2026-09-30', { category: 'unclassified' })),
      defaults,
      { 'drift.smart-money.registry-lost': 'fail' },
    ],
  ])('%s', (_, after, thresholds, failing) => {
    const results = SMART_MONEY_DRIFT.check(today, after, thresholds);
    expect(results.map((r) => r.rule)).toEqual([
      'drift.smart-money.older-filings',
      'drift.smart-money.shrunk-filings',
      'drift.smart-money.newest-quarter',
      'drift.smart-money.investors-gone',
      'drift.smart-money.gone-while-fresh',
      'drift.smart-money.registry-lost',
    ]);
    expect(notPassing(results)).toEqual(failing);
  });

  it('fails the newest quarter moving backwards', () => {
    const results = SMART_MONEY_DRIFT.check(today, { ...today, newestPeriod: '2026-06-30' }, defaults);
    expect(results.find((r) => r.rule === 'drift.smart-money.newest-quarter')).toMatchObject({
      status: 'fail',
      message: 'the newest 13F quarter moved backwards (2026-09-30 -> 2026-06-30)',
    });
  });
});
