import { describe, expect, it } from 'vitest';
import { type EffectiveFilings, effectiveFilings, effectiveHoldings } from '../../../src/derive/smart-money/holdings.js';
import type { FilingMeta, HoldingRow } from '../../../src/model/filing.js';
import { CUSIP, InMemoryFilingCatalog, filing, row } from './catalog.js';

/** A 13F-HR/A of the investor and period, of the given type, filed on `filedAt` under `accessionNumber`. */
function amendment(amendmentType: 'RESTATEMENT' | 'NEW HOLDINGS', filedAt: string, accessionNumber: string, rows: HoldingRow[] = []) {
  return filing({ cik, period, filedAt, submissionType: '13F-HR/A', amendmentType, accessionNumber }, rows);
}

/** The effective filings of a period that has a holdings report. */
function usable(filings: FilingMeta[]): EffectiveFilings {
  const effective = effectiveFilings(filings);
  if (effective.base === null) throw new Error('expected a holdings report');
  return effective;
}

const period = '2026-09-30';
const cik = '1067983';

describe('effective holdings of one investor and period', () => {
  it('uses the original 13F-HR when there is no amendment', () => {
    const original = filing({ cik, period, filedAt: '2026-11-14' }, [row('APPLE INC', CUSIP.apple, 100, 25_000)]);
    const catalog = new InMemoryFilingCatalog([original]);
    const effective = usable([original.meta]);
    expect(effective.base).toBe(original.meta);
    expect(effectiveHoldings(effective, (a) => catalog.rows(a)).map((r) => r.issuerName)).toEqual(['APPLE INC']);
  });

  it('a RESTATEMENT replaces the original and every earlier NEW HOLDINGS amendment', () => {
    const original = filing({ cik, period, filedAt: '2026-11-10' }, [row('APPLE INC', CUSIP.apple, 100, 25_000)]);
    const added = filing({ cik, period, filedAt: '2026-11-11', submissionType: '13F-HR/A', amendmentType: 'NEW HOLDINGS' }, [
      row('CHEVRON CORP NEW', CUSIP.chevron, 5, 800),
    ]);
    const restated = filing({ cik, period, filedAt: '2026-11-20', submissionType: '13F-HR/A', amendmentType: 'RESTATEMENT' }, [
      row('APPLE INC', CUSIP.apple, 90, 22_500),
    ]);
    const catalog = new InMemoryFilingCatalog([original, added, restated]);
    const effective = usable([original.meta, added.meta, restated.meta]);
    expect(effective.base).toBe(restated.meta);
    expect(effective.additions).toEqual([]);
    expect(effectiveHoldings(effective, (a) => catalog.rows(a))).toEqual([row('APPLE INC', CUSIP.apple, 90, 22_500)]);
    expect(effective.unused.map((u) => u.filing)).toEqual([original.meta, added.meta]);
  });

  it('the latest RESTATEMENT wins, by filing date and then accession number', () => {
    const original = filing({ cik, period, filedAt: '2026-11-10' });
    const first = amendment('RESTATEMENT', '2026-11-20', '0001067983-26-000002');
    const second = amendment('RESTATEMENT', '2026-11-20', '0001067983-26-000009');
    const earlier = filing({ cik, period, filedAt: '2026-11-15', submissionType: '13F-HR/A', amendmentType: 'RESTATEMENT' });
    expect(usable([second.meta, original.meta, earlier.meta, first.meta]).base).toBe(second.meta);
  });

  it('a NEW HOLDINGS amendment adds its rows to the base', () => {
    const original = filing({ cik, period, filedAt: '2026-11-10' }, [row('APPLE INC', CUSIP.apple, 100, 25_000)]);
    const added = filing({ cik, period, filedAt: '2026-11-12', submissionType: '13F-HR/A', amendmentType: 'NEW HOLDINGS' }, [
      row('CHEVRON CORP NEW', CUSIP.chevron, 5, 800),
    ]);
    const catalog = new InMemoryFilingCatalog([original, added]);
    const effective = usable([added.meta, original.meta]);
    expect(effective.base).toBe(original.meta);
    expect(effective.additions).toEqual([added.meta]);
    expect(effectiveHoldings(effective, (a) => catalog.rows(a)).map((r) => r.issuerName)).toEqual(['APPLE INC', 'CHEVRON CORP NEW']);
  });

  it('a 13F-NT contributes nothing: a period with only a notice has no usable holdings', () => {
    const notice = filing({ cik, period, submissionType: '13F-NT' });
    const noticeAmendment = filing({ cik, period, submissionType: '13F-NT/A' });
    expect(effectiveFilings([notice.meta, noticeAmendment.meta])).toEqual({ base: null, unused: [] });
  });

  it('a 13F-NT next to a holdings report does not replace or empty it', () => {
    const original = filing({ cik, period, filedAt: '2026-11-10' }, [row('APPLE INC', CUSIP.apple, 100, 25_000)]);
    const notice = filing({ cik, period, filedAt: '2026-11-21', submissionType: '13F-NT' });
    const effective = usable([original.meta, notice.meta]);
    expect(effective.base).toBe(original.meta);
    expect(effective.additions).toEqual([]);
  });

  it('a NEW HOLDINGS amendment without an original is not usable on its own, and says so', () => {
    const added = filing({ cik, period, submissionType: '13F-HR/A', amendmentType: 'NEW HOLDINGS' });
    const effective = effectiveFilings([added.meta]);
    expect(effective.base).toBeNull();
    expect(effective.unused.map((u) => u.filing)).toEqual([added.meta]);
    expect(effective.unused[0]!.reason).toMatch(/has no original 13F-HR or RESTATEMENT for period 2026-09-30/);
  });

  it('a NEW HOLDINGS amendment adds to the original whatever their dates and accession numbers say', () => {
    // A filer's agent files the amendment the day the original is signed, under the agent's own CIK,
    // whose accession number sorts before the filer's.
    const original = filing({ cik, period, filedAt: '2026-11-10', accessionNumber: '0001067983-26-000005' }, [
      row('APPLE INC', CUSIP.apple, 100, 25_000),
    ]);
    const added = amendment('NEW HOLDINGS', '2026-11-10', '0000950123-26-000100', [row('CHEVRON CORP NEW', CUSIP.chevron, 5, 800)]);
    const effective = usable([original.meta, added.meta]);
    expect(effective.base).toBe(original.meta);
    expect(effective.additions).toEqual([added.meta]);
    expect(effective.unused).toEqual([]);
  });

  it('with two originals, an amendment of the earlier one goes with it; one filed from the later one on adds to it', () => {
    const first = filing({ cik, period, filedAt: '2026-11-10' }, [row('APPLE INC', CUSIP.apple, 100, 25_000)]);
    const ofFirst = amendment('NEW HOLDINGS', '2026-11-12', '0001067983-26-000011', [row('CHEVRON CORP NEW', CUSIP.chevron, 5, 800)]);
    // Filed whole again (with the Chevron row), as a 13F-HR instead of a RESTATEMENT.
    const second = filing({ cik, period, filedAt: '2026-11-14' }, [
      row('APPLE INC', CUSIP.apple, 100, 25_000),
      row('CHEVRON CORP NEW', CUSIP.chevron, 5, 800),
    ]);
    const sameDay = amendment('NEW HOLDINGS', '2026-11-14', '0000950123-26-000013', [row('COCA COLA CO', CUSIP.cocaCola, 1, 60)]);
    const ofSecond = amendment('NEW HOLDINGS', '2026-11-20', '0001067983-26-000020', [row('MICROSOFT CORP', CUSIP.microsoft, 2, 900)]);
    const catalog = new InMemoryFilingCatalog([first, ofFirst, second, sameDay, ofSecond]);
    const effective = usable([ofSecond.meta, sameDay.meta, second.meta, ofFirst.meta, first.meta]);
    expect(effective.base).toBe(second.meta);
    expect(effective.additions).toEqual([sameDay.meta, ofSecond.meta]);
    expect(effectiveHoldings(effective, (a) => catalog.rows(a)).map((r) => r.issuerName)).toEqual([
      'APPLE INC',
      'CHEVRON CORP NEW',
      'COCA COLA CO',
      'MICROSOFT CORP',
    ]);
    expect(effective.unused.map((u) => u.filing)).toEqual([first.meta, ofFirst.meta]);
    expect(effective.unused[1]!.reason).toMatch(/amended the 13F-HR .* which the later 13F-HR .* replaces/);
  });

  it('a 13F-HR whose cover page marks it an amendment amends by its type; it is no second original', () => {
    // Form type 13F-HR, cover page isAmendment true: what it does is its amendment type.
    const original = filing({ cik, period, filedAt: '2026-11-10' }, [row('APPLE INC', CUSIP.apple, 100, 25_000)]);
    const added = filing({ cik, period, filedAt: '2026-11-12', amendmentType: 'NEW HOLDINGS' }, [
      row('CHEVRON CORP NEW', CUSIP.chevron, 5, 800),
    ]);
    const catalog = new InMemoryFilingCatalog([original, added]);
    const effective = usable([original.meta, added.meta]);
    expect(effective.base).toBe(original.meta);
    expect(effective.additions).toEqual([added.meta]);
    expect(effectiveHoldings(effective, (a) => catalog.rows(a)).map((r) => r.issuerName)).toEqual(['APPLE INC', 'CHEVRON CORP NEW']);

    // A RESTATEMENT so marked is the base, as a 13F-HR/A RESTATEMENT is, even beside an original dated later.
    const restated = filing({ cik, period, filedAt: '2026-11-09', amendmentType: 'RESTATEMENT' }, [
      row('APPLE INC', CUSIP.apple, 90, 22_500),
    ]);
    const restatedFirst = usable([original.meta, restated.meta]);
    expect(restatedFirst.base).toBe(restated.meta);
    expect(restatedFirst.unused[0]!.reason).toBe(
      `13F-HR ${original.meta.accessionNumber} was superseded by 13F-HR (RESTATEMENT amendment) ${restated.meta.accessionNumber}`,
    );
  });

  it('a NEW HOLDINGS amendment filed the same day as a RESTATEMENT says which was taken as later', () => {
    const original = filing({ cik, period, filedAt: '2026-11-10' });
    const added = amendment('NEW HOLDINGS', '2026-11-20', '0000950123-26-000100');
    const restated = amendment('RESTATEMENT', '2026-11-20', '0001067983-26-000009');
    const effective = effectiveFilings([original.meta, added.meta, restated.meta]);
    expect(effective.base).toBe(restated.meta);
    expect(effective.unused.find((u) => u.filing === added.meta)!.reason).toMatch(
      /filed the same day as the RESTATEMENT 0001067983-26-000009/,
    );
  });

  it('an amendment that names no amendment type is reported as unused, not guessed at', () => {
    const original = filing({ cik, period, filedAt: '2026-11-10' });
    const unknown = filing({ cik, period, filedAt: '2026-11-12', submissionType: '13F-HR/A', amendmentType: null });
    const effective = usable([original.meta, unknown.meta]);
    expect(effective.base).toBe(original.meta);
    expect(effective.unused).toHaveLength(1);
    expect(effective.unused[0]!.reason).toMatch(/names no amendment type/);
  });
});
