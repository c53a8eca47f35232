import { CONSENSUS_INPUT_CAP, type ConsensusRow } from '../../model/smart-money.js';
import { capPositions } from './cap.js';
import { compareDescending, compareText } from './order.js';
import type { AggregatedPosition } from './positions.js';

/**
 * Consensus (docs/spec.md, Consensus): which issuers most investors hold. Inputs are each investor's
 * positions capped to 250 rows (the same rows its detail page shows), of which only equity rows
 * count: options and principal amounts are not holdings of the issuer's shares. Equity rows are
 * grouped by their position key, which for equity is the CUSIP alone, so two share classes of one
 * issuer stay apart, as filed.
 */

/** How many investor slugs a row names. 10 rows x 10 slugs x 160 chars keeps a page far below 512 KiB. */
export const TOP_HOLDER_LIMIT = 10;

interface Holder {
  slug: string;
  reportedValue: number;
}

interface IssuerTally {
  key: string;
  holderCount: number;
  totalReportedValue: number;
  totalShares: number;
  /** Largest holders, at most TOP_HOLDER_LIMIT, kept sorted; bounded so memory stays flat at scale. */
  topHolders: Holder[];
  /** How often each filed issuerName -> titleOfClass pair was seen, to show the most common one. */
  names: Map<string, Map<string, number>>;
}

function compareHolders(a: Holder, b: Holder): number {
  return compareDescending(a.reportedValue, b.reportedValue) || compareText(a.slug, b.slug);
}

function keepTopHolder(topHolders: Holder[], holder: Holder): void {
  // Most holders of a popular issuer are smaller than the current tenth: one comparison rejects them.
  const last = topHolders[TOP_HOLDER_LIMIT - 1];
  if (last !== undefined && compareHolders(holder, last) >= 0) return;
  let index = topHolders.findIndex((existing) => compareHolders(holder, existing) < 0);
  if (index === -1) index = topHolders.length;
  if (index >= TOP_HOLDER_LIMIT) return;
  topHolders.splice(index, 0, holder);
  if (topHolders.length > TOP_HOLDER_LIMIT) topHolders.pop();
}

/** Most common filed name; ties go to the alphabetically first (issuer name, then title). */
function mostCommonName(names: Map<string, Map<string, number>>): { issuerName: string; titleOfClass: string } {
  let best = { issuerName: '', titleOfClass: '' };
  let bestCount = -1;
  for (const [issuerName, titles] of names) {
    for (const [titleOfClass, count] of titles) {
      const better =
        count > bestCount ||
        (count === bestCount && (compareText(issuerName, best.issuerName) || compareText(titleOfClass, best.titleOfClass)) < 0);
      if (better) {
        best = { issuerName, titleOfClass };
        bestCount = count;
      }
    }
  }
  return best;
}

/**
 * Streams investors in one at a time, so the orchestrator can drop each investor's rows after
 * adding them. Memory grows with the number of distinct issuers, not with the number of rows.
 */
export class ConsensusAccumulator {
  private readonly tallies = new Map<string, IssuerTally>();
  private readonly investors = new Set<string>();

  constructor(private readonly inputCap: number = CONSENSUS_INPUT_CAP) {}

  /** Adds one investor's positions; they are capped to 250 here as well, so uncapped input is safe. */
  add(investorSlug: string, positions: readonly AggregatedPosition[]): void {
    if (this.investors.has(investorSlug)) {
      throw new Error(`consensus: investor ${investorSlug} was added twice; holder counts would double`);
    }
    this.investors.add(investorSlug);
    // Already-capped input (the usual case) needs no second sort: tallies do not depend on order.
    const capped = positions.length <= this.inputCap ? positions : capPositions(positions, this.inputCap);
    for (const position of equityByKey(capped).values()) {
      let tally = this.tallies.get(position.key);
      if (tally === undefined) {
        tally = { key: position.key, holderCount: 0, totalReportedValue: 0, totalShares: 0, topHolders: [], names: new Map() };
        this.tallies.set(position.key, tally);
      }
      tally.holderCount += 1;
      tally.totalReportedValue += position.reportedValue;
      tally.totalShares += position.shares;
      let titles = tally.names.get(position.issuerName);
      if (titles === undefined) {
        titles = new Map();
        tally.names.set(position.issuerName, titles);
      }
      titles.set(position.titleOfClass, (titles.get(position.titleOfClass) ?? 0) + 1);
      keepTopHolder(tally.topHolders, { slug: investorSlug, reportedValue: position.reportedValue });
    }
  }

  /** Rows ranked by holder count, then total reported value, then issuer name, then key; rank 1..n. */
  result(): ConsensusRow[] {
    const ranked = [...this.tallies.values()]
      .map((tally) => ({ tally, ...mostCommonName(tally.names) }))
      .sort(
        (a, b) =>
          compareDescending(a.tally.holderCount, b.tally.holderCount) ||
          compareDescending(a.tally.totalReportedValue, b.tally.totalReportedValue) ||
          compareText(a.issuerName, b.issuerName) ||
          compareText(a.tally.key, b.tally.key),
      );
    return ranked.map(({ tally, issuerName, titleOfClass }, index) => ({
      rank: index + 1,
      issuerName,
      titleOfClass,
      holderCount: tally.holderCount,
      totalReportedValue: tally.totalReportedValue,
      totalShares: tally.totalShares,
      topHolders: tally.topHolders.map((holder) => holder.slug),
    }));
  }
}

/**
 * Equity positions by key. Aggregated input has one position per key already; should a caller
 * pass a key twice, it is merged so that the investor still counts once.
 */
function equityByKey(positions: readonly AggregatedPosition[]): Map<string, AggregatedPosition> {
  const byKey = new Map<string, AggregatedPosition>();
  for (const position of positions) {
    if (position.kind !== 'equity') continue;
    const seen = byKey.get(position.key);
    byKey.set(
      position.key,
      seen === undefined
        ? position
        : { ...seen, shares: seen.shares + position.shares, reportedValue: seen.reportedValue + position.reportedValue },
    );
  }
  return byKey;
}

/** Consensus over a whole list of investors at once; the accumulator is the streaming form. */
export function deriveConsensus(investors: Iterable<{ slug: string; positions: readonly AggregatedPosition[] }>): ConsensusRow[] {
  const accumulator = new ConsensusAccumulator();
  for (const investor of investors) accumulator.add(investor.slug, investor.positions);
  return accumulator.result();
}
