import { describe, expect, it } from 'vitest';
import { ConsensusAccumulator, TOP_HOLDER_LIMIT, deriveConsensus } from '../../../src/derive/smart-money/consensus.js';
import type { AggregatedPosition } from '../../../src/derive/smart-money/positions.js';
import { ConsensusRow, INVESTOR_SLUG_MAX } from '../../../src/model/smart-money.js';
import { CUSIP, equity, syntheticCusip } from './catalog.js';

const option = (kind: 'put' | 'call', base: AggregatedPosition): AggregatedPosition => ({
  ...base,
  key: base.key.replace('|-|', `|${kind}|`),
  kind,
});

describe('consensus', () => {
  it('ranks by distinct holders, then total reported value, then issuer name; rank runs 1..n', () => {
    const rows = deriveConsensus([
      {
        slug: 'a',
        positions: [
          equity('APPLE INC', CUSIP.apple, 10, 100),
          equity('CHEVRON CORP NEW', CUSIP.chevron, 10, 50),
          equity('BANK AMER CORP', CUSIP.bankOfAmerica, 1, 10),
        ],
      },
      { slug: 'b', positions: [equity('APPLE INC', CUSIP.apple, 5, 50), equity('COCA COLA CO', CUSIP.cocaCola, 10, 10)] },
      {
        slug: 'c',
        positions: [equity('CHEVRON CORP NEW', CUSIP.chevron, 10, 60), equity('AMERICAN EXPRESS CO', CUSIP.americanExpress, 1, 10)],
      },
    ]);
    expect(rows.map((r) => [r.rank, r.issuerName, r.holderCount, r.totalReportedValue])).toEqual([
      [1, 'APPLE INC', 2, 150],
      [2, 'CHEVRON CORP NEW', 2, 110],
      [3, 'AMERICAN EXPRESS CO', 1, 10],
      [4, 'BANK AMER CORP', 1, 10],
      [5, 'COCA COLA CO', 1, 10],
    ]);
    for (const row of rows) expect(ConsensusRow.parse(row)).toEqual(row);
  });

  it('sums shares and values and lists top holders by reported value, ties by slug', () => {
    const [row] = deriveConsensus([
      { slug: 'small', positions: [equity('APPLE INC', CUSIP.apple, 1, 10)] },
      { slug: 'big', positions: [equity('APPLE INC', CUSIP.apple, 9, 90)] },
      { slug: 'also-small', positions: [equity('APPLE INC', CUSIP.apple, 1, 10)] },
    ]);
    expect(row).toMatchObject({ holderCount: 3, totalShares: 11, totalReportedValue: 110, topHolders: ['big', 'also-small', 'small'] });
  });

  it('names at most 10 top holders, the largest ones', () => {
    const accumulator = new ConsensusAccumulator();
    for (let i = 0; i < 25; i += 1) accumulator.add(`investor-${i}`, [equity('APPLE INC', CUSIP.apple, 1, 1_000 + i)]);
    const [row] = accumulator.result();
    expect(row!.holderCount).toBe(25);
    expect(row!.topHolders).toEqual(Array.from({ length: TOP_HOLDER_LIMIT }, (_, i) => `investor-${24 - i}`));
  });

  it('counts equity rows only: puts, calls and principal amounts are left out', () => {
    const apple = equity('APPLE INC', CUSIP.apple, 10, 100);
    const rows = deriveConsensus([
      { slug: 'a', positions: [apple, option('put', apple), option('call', apple)] },
      { slug: 'b', positions: [option('call', equity('CHEVRON CORP NEW', CUSIP.chevron, 1, 999))] },
      {
        slug: 'c',
        positions: [{ ...equity('MICROSOFT CORP', CUSIP.microsoft, 1_000, 990), key: `${CUSIP.microsoft}|-|PRN`, kind: 'principal' }],
      },
    ]);
    expect(rows.map((r) => [r.issuerName, r.holderCount, r.totalShares])).toEqual([['APPLE INC', 1, 10]]);
  });

  it('a row of zero shares does not make its filer a holder (the trades call that position sold)', () => {
    const rows = deriveConsensus([
      { slug: 'a', positions: [equity('MICROSOFT CORP', CUSIP.microsoft, 0, 0), equity('APPLE INC', CUSIP.apple, 10, 100)] },
      { slug: 'b', positions: [equity('MICROSOFT CORP', CUSIP.microsoft, 5, 50)] },
      { slug: 'c', positions: [equity('COCA COLA CO', CUSIP.cocaCola, 0, 0)] },
    ]);
    expect(rows.map((r) => [r.issuerName, r.holderCount, r.totalShares, r.topHolders])).toEqual([
      ['APPLE INC', 1, 10, ['a']],
      ['MICROSOFT CORP', 1, 5, ['b']],
    ]);
  });

  it("uses at most 250 rows per investor: the investor's smallest positions beyond the cap do not count", () => {
    const many = Array.from({ length: 300 }, (_, i) => equity(`ISSUER ${i}`, syntheticCusip('C', i), 1, 1_000 + i));
    const rows = deriveConsensus([{ slug: 'a', positions: many }]);
    expect(rows).toHaveLength(250);
    expect(rows.some((r) => r.issuerName === 'ISSUER 0')).toBe(false);
    expect(rows.some((r) => r.issuerName === 'ISSUER 299')).toBe(true);
  });

  it('shows the most common filed name, alphabetically first on ties', () => {
    const rows = deriveConsensus([
      { slug: 'a', positions: [equity('APPLE INC', CUSIP.apple, 1, 10)] },
      { slug: 'b', positions: [equity('Apple Inc.', CUSIP.apple, 1, 10)] },
      { slug: 'c', positions: [equity('Apple Inc.', CUSIP.apple, 1, 10)] },
      { slug: 'd', positions: [equity('MICROSOFT CORP', CUSIP.microsoft, 1, 10)] },
      { slug: 'e', positions: [equity('MICROSOFT CORPORATION', CUSIP.microsoft, 1, 10)] },
    ]);
    expect(rows.map((r) => r.issuerName)).toEqual(['Apple Inc.', 'MICROSOFT CORP']);
  });

  it('counts names the same way when an issuer is filed under more names than it searches in order', () => {
    // Twelve names for one CUSIP: the first eight are searched in order, the rest through a map.
    // The most common, 'APPLE Z INC', sorts last and is filed once before the switch and three
    // times after it; 'APPLE INC', which would win any tie, is filed three times.
    const others = Array.from({ length: 10 }, (_, i) => `APPLE ${String.fromCharCode(80 + i)} INC`);
    const filed = ['APPLE Z INC', ...others, 'APPLE INC', 'APPLE Z INC', 'APPLE INC', 'APPLE Z INC', 'APPLE INC', 'APPLE Z INC'];
    const consensusOf = (names: string[]) =>
      deriveConsensus(names.map((name, i) => ({ slug: `holder-${i}`, positions: [equity(name, CUSIP.apple, 1, 10)] })));
    const rows = consensusOf(filed);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ issuerName: 'APPLE Z INC', holderCount: filed.length });
    // One more 'APPLE INC' ties them at four: the alphabetically first name wins, as with few names.
    expect(consensusOf([...filed, 'APPLE INC'])[0]!.issuerName).toBe('APPLE INC');
  });

  it('keeps two share classes (two CUSIPs) of one issuer apart, ordered deterministically', () => {
    const rows = deriveConsensus([
      {
        slug: 'a',
        positions: [
          { ...equity('ALPHABET INC', '02079K305', 1, 10), titleOfClass: 'CAP STK CL A' },
          { ...equity('ALPHABET INC', '02079K107', 1, 10), titleOfClass: 'CAP STK CL C' },
        ],
      },
    ]);
    expect(rows.map((r) => r.titleOfClass)).toEqual(['CAP STK CL C', 'CAP STK CL A']);
  });

  it('refuses the same investor twice, which would double its holder counts', () => {
    const accumulator = new ConsensusAccumulator();
    accumulator.add('a', [equity('APPLE INC', CUSIP.apple, 1, 10)]);
    expect(() => accumulator.add('a', [equity('APPLE INC', CUSIP.apple, 1, 10)])).toThrow(/added twice/);
  });

  it('a full page of 10 worst-case rows stays far below 512 KiB', () => {
    // Worst case: names 10x longer than EDGAR allows (nameOfIssuer 200, titleOfClass 150), made of
    // characters JSON escapes to 6 bytes each, 10 top holders with 160-character slugs, and the
    // largest numbers a record may hold.
    const accumulator = new ConsensusAccumulator();
    const issuerName = '\u0001'.repeat(2_000);
    const titleOfClass = '\u0002'.repeat(1_500);
    for (let h = 0; h < 12; h += 1) {
      const slug = `${String(h).padStart(2, '0')}${'x'.repeat(INVESTOR_SLUG_MAX - 2)}`;
      accumulator.add(
        slug,
        Array.from({ length: 10 }, (_, i) => ({ ...equity(issuerName, syntheticCusip('Z', i), 1e12, 1e12), titleOfClass })),
      );
    }
    const page = accumulator.result().slice(0, 10);
    expect(page).toHaveLength(10);
    expect(page.every((row) => row.topHolders.length === TOP_HOLDER_LIMIT)).toBe(true);
    const envelope = {
      data: page.map((row) => ({
        ...row,
        rank: Number.MAX_SAFE_INTEGER,
        totalReportedValue: Number.MAX_SAFE_INTEGER,
        totalShares: Number.MAX_SAFE_INTEGER,
        holderCount: Number.MAX_SAFE_INTEGER,
      })),
      page: { limit: 10, nextCursor: 'c'.repeat(2048) },
      snapshot: { id: 's'.repeat(200), generatedAt: '2026-11-22T00:00:00.000Z' },
      requestId: 'r'.repeat(200),
    };
    const bytes = Buffer.byteLength(JSON.stringify(envelope), 'utf8');
    expect(bytes).toBeLessThan((512 * 1024) / 2);
  });

  it('merges accumulators of disjoint investors into the rows of one accumulator given all of them, whatever the split', () => {
    // Many holders of few issuers: ties of value among top holders, names filed several ways (more
    // than searched in order), and holders past the ten shown.
    const names = [
      'APPLE INC',
      'Apple Inc.',
      'APPLE INC COM',
      'APPLE',
      'APPL INC',
      'APPLE INCORPORATED',
      'APPLE I',
      'APPLE IN',
      'APPLE Z',
      'AAPL',
    ];
    const investors = Array.from({ length: 60 }, (_, i) => ({
      slug: `investor-${String(i).padStart(2, '0')}`,
      positions: [
        equity(names[i % names.length]!, CUSIP.apple, 1 + (i % 7), 100 * (i % 5)),
        equity(i % 3 ? 'CHEVRON CORP NEW' : 'CHEVRON CORP', CUSIP.chevron, 2, 10 * i),
        ...(i % 4 === 0 ? [equity('COCA COLA CO', CUSIP.cocaCola, 1, 7)] : []),
      ],
    }));
    const whole = deriveConsensus(investors);
    for (const split of [1, 7, 30, 59]) {
      const [first, second] = [new ConsensusAccumulator(), new ConsensusAccumulator()];
      // Interleaved as workers take batches: neither gets a contiguous range.
      for (const [i, investor] of investors.entries()) (Math.floor(i / split) % 2 ? second : first).add(investor.slug, investor.positions);
      const merged = new ConsensusAccumulator();
      merged.merge(structuredClone(second.state()));
      merged.merge(structuredClone(first.state()));
      expect(merged.result(), `batches of ${split}`).toEqual(whole);
    }
    const a = new ConsensusAccumulator();
    a.add('same', [equity('APPLE INC', CUSIP.apple, 1, 10)]);
    const b = new ConsensusAccumulator();
    b.add('same', [equity('APPLE INC', CUSIP.apple, 1, 10)]);
    a.merge(new ConsensusAccumulator().state());
    expect(() => a.merge(b.state())).toThrow('consensus: investor same was added twice; holder counts would double');
  });
});
