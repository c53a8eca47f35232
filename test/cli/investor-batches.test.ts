import { describe, expect, it } from 'vitest';
import { ConsensusAccumulator, type ConsensusHolding, type InvestorPlan } from '../../src/derive/smart-money/index.js';
import { batchInvestorPlans } from '../../src/cli/pipeline/investor-batches.js';
import { HoldingsPacker, unpackHoldings } from '../../src/cli/pipeline/packed-holdings.js';

/** Only the slug decides where a batch ends: the rest of a plan is not looked at. */
const plan = (slug: string) => ({ identity: { cik: '1', slug, name: slug, category: 'unclassified' } }) as unknown as InvestorPlan;
const slugsOf = (batches: InvestorPlan[][]) => batches.map((batch) => batch.map((p) => p.identity.slug).join(','));

describe('investor batches cut by content', () => {
  const plans = Array.from({ length: 2000 }, (_, i) => plan(`investor-${String(i).padStart(5, '0')}`));

  it('average about the size asked for, never pass four times it, and keep every plan once, in order', () => {
    const batches = batchInvestorPlans(plans, 16);
    expect(batches.flat()).toEqual(plans);
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(64);
    expect(plans.length / batches.length).toBeGreaterThan(8);
    expect(plans.length / batches.length).toBeLessThan(24);
  });

  it('leave every batch but the one touched as it was when an investor is added, removed or changed', () => {
    const before = new Set(slugsOf(batchInvestorPlans(plans, 16)));
    const added = [...plans.slice(0, 1000), plan('investor-00999-b'), ...plans.slice(1000)];
    const removed = [...plans.slice(0, 700), ...plans.slice(701)];
    for (const after of [added, removed]) {
      const batches = slugsOf(batchInvestorPlans(after, 16));
      const changed = batches.filter((batch) => !before.has(batch));
      // A forced cut at four times the average can move the next boundary too: at most two batches differ.
      expect(changed.length).toBeGreaterThanOrEqual(1);
      expect(changed.length).toBeLessThanOrEqual(2);
    }
  });
});

describe('consensus holdings as the derivation cache keeps them', () => {
  it('unpack to the same holdings, and count to the same consensus as the positions they came from', () => {
    const holdings: Record<string, ConsensusHolding[]> = {
      'alpha-capital': [
        { key: '037833100|-|SH', issuerName: 'APPLE INC', titleOfClass: 'COM', shares: 100, reportedValue: 19_000 },
        { key: '594918104|-|SH', issuerName: 'MICROSOFT CORP', titleOfClass: 'COM', shares: 5, reportedValue: 2_000 },
      ],
      'beta-partners': [{ key: '037833100|-|SH', issuerName: 'APPLE INC.', titleOfClass: 'COM', shares: 7, reportedValue: 1_330 }],
      'gamma-llc': [],
    };
    const packer = new HoldingsPacker();
    for (const [slug, list] of Object.entries(holdings)) packer.add(slug, list);
    const packed = JSON.parse(JSON.stringify(packer.pack()));
    expect(packed[1]).toEqual(['beta-partners', ['037833100|-|SH', 'APPLE INC.', 'COM', 7, 1_330]]);
    const unpacked = [...unpackHoldings(packed)];
    expect(Object.fromEntries(unpacked)).toEqual(holdings);

    const direct = new ConsensusAccumulator();
    for (const [slug, list] of Object.entries(holdings))
      direct.add(
        slug,
        list.map((h) => ({ ...h, kind: 'equity' as const })),
      );
    const replayed = new ConsensusAccumulator();
    for (const [slug, list] of unpacked) replayed.addHoldings(slug, list);
    expect(replayed.result()).toEqual(direct.result());
  });

  it('refuses a pack that is not well formed', () => {
    expect(() => [...unpackHoldings([['x', ['k', 'n', 3, 1, 1]]])]).toThrow(/not a string/);
    expect(() => [...unpackHoldings([['x', ['k', 'n', 't', 1.5, 1]]])]).toThrow(/whole number/);
    expect(() => [...unpackHoldings([['x', ['k', 'n']]])]).toThrow(/not an investor/);
    expect(() => [...unpackHoldings({} as never)]).toThrow(/not a list/);
  });
});
