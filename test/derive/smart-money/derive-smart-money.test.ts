import { describe, expect, it } from 'vitest';
import { deriveSmartMoney, streamSmartMoney, type SmartMoneyInput } from '../../../src/derive/smart-money/index.js';
import type { Filing, InvestorRegistryEntry } from '../../../src/model/filing.js';
import { ConsensusRow, InvestorDetail, TradeRow } from '../../../src/model/smart-money.js';
import { CUSIP, InMemoryFilingCatalog, filing, row } from './catalog.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const Q3 = '2026-09-30';
const Q2 = '2026-06-30';
const Q1 = '2026-03-31';

function derive(filings: Filing[], options: Partial<Omit<SmartMoneyInput, 'catalog'>> = {}) {
  const catalog = new InMemoryFilingCatalog(filings);
  const result = deriveSmartMoney({ catalog, registry: null, allFilers: false, now: NOW, maxQuarterAgeDays: 180, ...options });
  return { catalog, result };
}

const berkshireQ2 = filing({ cik: '1067983', period: Q2, filerName: 'BERKSHIRE HATHAWAY INC', filedAt: '2026-08-14' }, [
  row('APPLE INC', CUSIP.apple, 400, 80_000),
  row('CHEVRON CORP NEW', CUSIP.chevron, 100, 15_000),
  row('COCA COLA CO', CUSIP.cocaCola, 400, 28_000),
]);
const berkshireQ3 = filing({ cik: '1067983', period: Q3, filerName: 'BERKSHIRE HATHAWAY INC', filedAt: '2026-11-14' }, [
  row('APPLE INC', CUSIP.apple, 300, 75_000),
  row('COCA COLA CO', CUSIP.cocaCola, 400, 29_000),
  row('BANK AMER CORP', CUSIP.bankOfAmerica, 1_000, 45_000),
  row('BANK AMER CORP', CUSIP.bankOfAmerica, 50, 5_000, { putCall: 'call' }),
]);
const exampleQ3 = filing({ cik: '2001', period: Q3, filerName: 'Example Capital Management, L.P.', filedAt: '2026-11-13' }, [
  row('APPLE INC', CUSIP.apple, 10, 2_500),
  row('MICROSOFT CORP', CUSIP.microsoft, 20, 9_000),
]);

const registry: InvestorRegistryEntry[] = [
  { cik: '1067983', slug: 'berkshire-hathaway', name: 'Berkshire Hathaway', category: 'conglomerate' },
  { cik: '999', slug: 'missing-fund', name: 'Missing Fund', category: 'hedge-fund' },
];

describe('deriveSmartMoney', () => {
  it('without a registry publishes every filer, slug from its filed name, category unclassified', () => {
    const { result } = derive([berkshireQ2, berkshireQ3, exampleQ3]);
    expect(result.investors.map((i) => [i.slug, i.name, i.category])).toEqual([
      ['berkshire-hathaway-inc', 'BERKSHIRE HATHAWAY INC', 'unclassified'],
      ['example-capital-management-l-p', 'Example Capital Management, L.P.', 'unclassified'],
    ]);
    for (const investor of result.investors) expect(InvestorDetail.parse(investor)).toEqual(investor);
  });

  it('with a registry publishes only the listed investors, named as the registry says, and notes a listed CIK without filings', () => {
    const { result } = derive([berkshireQ2, berkshireQ3, exampleQ3], { registry });
    expect(result.investors.map((i) => [i.slug, i.name, i.category])).toEqual([
      ['berkshire-hathaway', 'Berkshire Hathaway', 'conglomerate'],
    ]);
    expect(result.notes).toContainEqual({
      source: 'filings/investors.yaml',
      message: 'registry investor missing-fund (CIK 999) has no Form 13F filing in the sources and is not published',
    });
  });

  it('matches registry CIKs written with EDGAR leading zeros', () => {
    const { result } = derive([berkshireQ3], { registry: [{ ...registry[0]!, cik: '0001067983' }] });
    expect(result.investors.map((i) => i.slug)).toEqual(['berkshire-hathaway']);
  });

  it('with a registry and allFilers also publishes unlisted filers with derived slugs', () => {
    const { result } = derive([berkshireQ2, berkshireQ3, exampleQ3], { registry, allFilers: true });
    expect(result.investors.map((i) => [i.slug, i.category])).toEqual([
      ['berkshire-hathaway', 'conglomerate'],
      ['example-capital-management-l-p', 'unclassified'],
    ]);
  });

  it('builds the investor from its latest period: totals uncapped, filedAt from the base filing', () => {
    const { result } = derive([berkshireQ2, berkshireQ3]);
    expect(result.investors[0]).toMatchObject({
      period: Q3,
      filedAt: '2026-11-14',
      reportedValueTotal: 154_000,
      positionCount: 4,
      positionsShown: 4,
    });
    expect(result.investors[0]!.positions.map((p) => [p.issuerName, p.kind])).toEqual([
      ['APPLE INC', 'equity'],
      ['BANK AMER CORP', 'equity'],
      ['COCA COLA CO', 'equity'],
      ['BANK AMER CORP', 'call'],
    ]);
  });

  it('derives trades against the adjacent quarter, ordered by action', () => {
    const { result } = derive([berkshireQ2, berkshireQ3, exampleQ3]);
    expect(result.trades.map((t) => `${t.investorSlug}:${t.action}:${t.issuerName}:${t.kind}`)).toEqual([
      'berkshire-hathaway-inc:new:BANK AMER CORP:equity',
      'berkshire-hathaway-inc:new:BANK AMER CORP:call',
      'berkshire-hathaway-inc:trimmed:APPLE INC:equity',
      'berkshire-hathaway-inc:sold:CHEVRON CORP NEW:equity',
    ]);
    for (const trade of result.trades) expect(TradeRow.parse(trade)).toEqual(trade);
  });

  it('an investor whose previous filing is two quarters back gets no trades', () => {
    const older = filing({ cik: '1067983', period: Q1, filerName: 'BERKSHIRE HATHAWAY INC' }, [
      row('CHEVRON CORP NEW', CUSIP.chevron, 100, 15_000),
    ]);
    const { result } = derive([older, berkshireQ3]);
    expect(result.investors).toHaveLength(1);
    expect(result.trades).toEqual([]);
  });

  it('a RESTATEMENT replaces the holdings it restates and a NEW HOLDINGS amendment adds to them', () => {
    const restated = filing(
      {
        cik: '1067983',
        period: Q3,
        filerName: 'BERKSHIRE HATHAWAY INC',
        filedAt: '2026-11-18',
        submissionType: '13F-HR/A',
        amendmentType: 'RESTATEMENT',
      },
      [row('APPLE INC', CUSIP.apple, 300, 75_000)],
    );
    const added = filing(
      {
        cik: '1067983',
        period: Q3,
        filerName: 'BERKSHIRE HATHAWAY INC',
        filedAt: '2026-11-20',
        submissionType: '13F-HR/A',
        amendmentType: 'NEW HOLDINGS',
      },
      [row('AMERICAN EXPRESS CO', CUSIP.americanExpress, 10, 3_000)],
    );
    const { result } = derive([berkshireQ3, restated, added]);
    expect(result.investors[0]!.positions.map((p) => p.issuerName)).toEqual(['APPLE INC', 'AMERICAN EXPRESS CO']);
    expect(result.investors[0]!.filedAt).toBe('2026-11-18');
    expect(result.notes.map((n) => n.message)).toContainEqual(expect.stringMatching(/superseded by 13F-HR\/A/));
  });

  it('a 13F-NT is not a sale: the investor keeps its last holdings report and gets no sold rows', () => {
    const notice = filing({ cik: '1067983', period: Q3, filerName: 'BERKSHIRE HATHAWAY INC', submissionType: '13F-NT' });
    const { result, catalog } = derive([berkshireQ2, notice]);
    expect(result.investors.map((i) => i.period)).toEqual([Q2]);
    expect(result.trades.filter((t) => t.action === 'sold')).toEqual([]);
    expect(catalog.rowsRequested).not.toContain(notice.meta.accessionNumber);
  });

  it('a NEW HOLDINGS amendment in a later quarter without its original is named in a note; the investor stays on its last report', () => {
    const orphan = filing({
      cik: '1067983',
      period: Q3,
      filerName: 'BERKSHIRE HATHAWAY INC',
      submissionType: '13F-HR/A',
      amendmentType: 'NEW HOLDINGS',
      accessionNumber: '0001067983-26-000009',
      source: 'filings/edgar/brk-q3-amendment.txt',
    });
    const { result } = derive([berkshireQ2, orphan]);
    expect(result.investors.map((i) => i.period)).toEqual([Q2]);
    expect(result.notes).toContainEqual({
      source: 'filings/edgar/brk-q3-amendment.txt',
      message: `NEW HOLDINGS amendment 0001067983-26-000009 has no original 13F-HR or RESTATEMENT for period ${Q3} to add to`,
    });
  });
  it('a filer with only 13F-NT notices is not published, and the build says why', () => {
    const notice = filing({
      cik: '3003',
      period: Q3,
      filerName: 'Notice Only LLC',
      submissionType: '13F-NT',
      source: 'filings/edgar/notice.txt',
    });
    const { result } = derive([notice, exampleQ3]);
    expect(result.investors.map((i) => i.name)).toEqual(['Example Capital Management, L.P.']);
    expect(result.notes).toContainEqual({
      source: 'filings/edgar/notice.txt',
      message: expect.stringMatching(/filer CIK 3003 \(Notice Only LLC\) filed no holdings report/),
    });
  });

  describe('the 180-day quarter age, counted from 23:59:59.999Z of the quarter end', () => {
    const q2Only = filing({ cik: '1067983', period: Q2, filerName: 'BERKSHIRE HATHAWAY INC', source: 'filings/edgar/brk-q2.txt' }, [
      row('APPLE INC', CUSIP.apple, 1, 250),
    ]);

    it('keeps an investor whose quarter end is exactly 180 days old', () => {
      const { result } = derive([q2Only], { now: new Date('2026-12-27T23:59:59.999Z') });
      expect(result.investors).toHaveLength(1);
      expect(result.facts).toEqual({ oldestPeriod: Q2 });
    });

    it('leaves out, with one note naming its filing, an investor 180 days and 1 ms old', () => {
      const { result } = derive([q2Only], { now: new Date('2026-12-28T00:00:00.000Z') });
      expect(result.investors).toEqual([]);
      expect(result.consensus).toEqual([]);
      expect(result.facts).toEqual({});
      expect(result.notes).toEqual([
        {
          source: 'filings/edgar/brk-q2.txt',
          message:
            'investor berkshire-hathaway-inc (CIK 1067983) is not published: its latest report period 2026-06-30 is more than 180 days old (stale since 2026-12-27T23:59:59.999Z)',
        },
      ]);
      expect(result.leftOut).toEqual({ staleQuarter: 1, noFiling: 0, noHoldingsReport: 0 });
    });

    it('keeps that investor with keepStaleInvestors (--allow-stale), saying so in a note', () => {
      const { result } = derive([q2Only], { now: new Date('2026-12-28T00:00:00.000Z'), keepStaleInvestors: true });
      expect(result.investors.map((i) => i.slug)).toEqual(['berkshire-hathaway-inc']);
      expect(result.facts).toEqual({ oldestPeriod: '2026-06-30' });
      expect(result.leftOut.staleQuarter).toBe(0);
      expect(result.notes.map((n) => n.message)).toEqual([
        'investor berkshire-hathaway-inc (CIK 1067983) is published although its latest report period 2026-06-30 is more than 180 days old (stale since 2026-12-27T23:59:59.999Z): --allow-stale',
      ]);
    });

    it('a previous quarter older than 180 days still serves as the comparison baseline', () => {
      const { result } = derive([berkshireQ2, berkshireQ3], { now: new Date('2027-01-15T00:00:00.000Z') });
      expect(result.trades.length).toBeGreaterThan(0);
      expect(result.facts).toEqual({ oldestPeriod: Q3 });
    });
  });

  it('oldestPeriod is the earliest period among published investors', () => {
    const notice = filing({ cik: '1067983', period: Q3, submissionType: '13F-NT' });
    const { result } = derive([berkshireQ2, notice, exampleQ3]);
    expect(result.facts).toEqual({ oldestPeriod: Q2 });
  });

  it('materializes only the rows it needs: latest and adjacent previous quarter, once each', () => {
    const older = filing({ cik: '1067983', period: Q1, filerName: 'BERKSHIRE HATHAWAY INC' }, [
      row('CHEVRON CORP NEW', CUSIP.chevron, 100, 15_000),
    ]);
    const { catalog } = derive([older, berkshireQ2, berkshireQ3]);
    expect([...catalog.rowsRequested].sort()).toEqual([berkshireQ2.meta.accessionNumber, berkshireQ3.meta.accessionNumber].sort());
  });

  it('builds consensus from equity rows of every published investor', () => {
    const { result } = derive([berkshireQ2, berkshireQ3, exampleQ3]);
    expect(result.consensus.map((c) => [c.rank, c.issuerName, c.holderCount, c.topHolders])).toEqual([
      [1, 'APPLE INC', 2, ['berkshire-hathaway-inc', 'example-capital-management-l-p']],
      [2, 'BANK AMER CORP', 1, ['berkshire-hathaway-inc']],
      [3, 'COCA COLA CO', 1, ['berkshire-hathaway-inc']],
      [4, 'MICROSOFT CORP', 1, ['example-capital-management-l-p']],
    ]);
    for (const rowOut of result.consensus) expect(ConsensusRow.parse(rowOut)).toEqual(rowOut);
  });

  it('the streaming form hands over the same investors and trades, in the same order', () => {
    const filings = [berkshireQ2, berkshireQ3, exampleQ3];
    const whole = derive(filings).result;
    const streamed: { investors: unknown[]; trades: unknown[] } = { investors: [], trades: [] };
    const rest = streamSmartMoney(
      { catalog: new InMemoryFilingCatalog(filings), registry: null, allFilers: false, now: NOW, maxQuarterAgeDays: 180 },
      (investor, trades) => {
        streamed.investors.push(investor);
        streamed.trades.push(...trades);
      },
    );
    expect(streamed).toEqual({ investors: whole.investors, trades: whole.trades });
    expect(rest).toEqual({ consensus: whole.consensus, notes: whole.notes, facts: whole.facts, leftOut: whole.leftOut });
  });

  it('gives the same output, notes included, for the same input in any order', () => {
    const notice = filing({ cik: '3003', period: Q3, filerName: 'Notice Only LLC', submissionType: '13F-NT' });
    const stale = filing({ cik: '4004', period: '2025-12-31', filerName: 'Old Filer' }, [row('APPLE INC', CUSIP.apple, 1, 250)]);
    const first = derive([berkshireQ2, berkshireQ3, exampleQ3, notice, stale], { registry, allFilers: true }).result;
    const second = derive([stale, exampleQ3, notice, berkshireQ3, berkshireQ2], {
      registry: [...registry].reverse(),
      allFilers: true,
    }).result;
    expect(first.notes).toHaveLength(3);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  });

  it('no published record contains a CUSIP or a CUSIP-shaped string', () => {
    const { result } = derive([berkshireQ2, berkshireQ3, exampleQ3]);
    const published = JSON.stringify({ investors: result.investors, consensus: result.consensus, trades: result.trades });
    for (const cusip of Object.values(CUSIP)) expect(published).not.toContain(cusip);
    // 9 characters standing alone: 6 issuer + 2 issue (upper-case letters, digits, * @ #) + 1 check digit.
    const cusipShaped = published.match(/(?<![0-9A-Za-z])[0-9A-Z*@#]{8}\d(?![0-9A-Za-z])/g);
    expect(cusipShaped).toBeNull();
    expect(published).not.toMatch(/cusip|figi|ticker/i);
  });
});
