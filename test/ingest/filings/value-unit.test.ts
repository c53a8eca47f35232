import { describe, expect, it } from 'vitest';
import { decideValueUnit, toWholeDollars } from '../../../src/ingest/filings/value-unit.js';

const share = (amount: number, reportedValue: number) => ({ putCall: null, amountType: 'SH' as const, amount, reportedValue });

describe('decideValueUnit', () => {
  it('reads filings made from 2023-01-03 on as dollars when prices agree', () => {
    const decision = decideValueUnit('2026-11-13', [share(100, 22_800), share(100, 43_100), share(100, 12_100)]);
    expect(decision).toMatchObject({ unit: 'dollars', overridden: false });
    expect(decision.reason).toContain('filed 2026-11-13, on or after 2023-01-03: dollars');
  });

  it('reads filings made before 2023-01-03 as thousands when prices agree', () => {
    expect(decideValueUnit('2023-01-02', [share(1000, 228), share(1000, 431), share(1000, 121)])).toMatchObject({
      unit: 'thousands',
      overridden: false,
    });
  });

  it('overrides to thousands a 2023+ filing whose implied prices are fractions of a cent to a few cents', () => {
    const decision = decideValueUnit('2024-02-13', [share(100000, 19259), share(50000, 18803), share(20000, 9904), share(30000, 1768)]);
    expect(decision).toMatchObject({ unit: 'thousands', overridden: true });
    expect(decision.reason).toMatch(/read as thousands$/);
  });

  it('overrides to dollars a pre-2023 filing whose implied prices read as thousands are absurd', () => {
    const decision = decideValueUnit('2022-12-28', [share(40000, 7101600), share(25000, 8408000), share(60000, 3671400)]);
    expect(decision).toMatchObject({ unit: 'dollars', overridden: true });
    expect(decision.reason).toMatch(/read as dollars$/);
  });

  it('keeps the date rule with fewer than three share rows (a lone $700,000 share class)', () => {
    expect(decideValueUnit('2022-05-13', [share(10, 7_000)])).toMatchObject({ unit: 'thousands', overridden: false });
  });

  it('ignores option and PRN rows as price evidence', () => {
    const options = [1, 2, 3].map(() => ({ putCall: 'call' as const, amountType: 'SH' as const, amount: 1_000_000, reportedValue: 1 }));
    const notes = [1, 2, 3].map(() => ({ putCall: null, amountType: 'PRN' as const, amount: 1_000_000, reportedValue: 1 }));
    expect(decideValueUnit('2026-11-13', [...options, ...notes])).toMatchObject({ unit: 'dollars', overridden: false });
  });
});

describe('toWholeDollars', () => {
  it('multiplies thousands and rounds to whole dollars', () => {
    expect(toWholeDollars(19259, 'thousands')).toBe(19_259_000);
    expect(toWholeDollars(1234.6, 'dollars')).toBe(1235);
  });
});
