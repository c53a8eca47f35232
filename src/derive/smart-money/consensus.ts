import { CONSENSUS_INPUT_CAP, type ConsensusRow } from '../../model/smart-money.js';
import { capPositions } from './cap.js';
import { compareText } from '../../lib/text-order.js';
import { compareDescending } from './compare-descending.js';
import type { AggregatedPosition } from './positions.js';

/**
 * Consensus (docs/spec.md, Consensus): which issuers most investors hold. Inputs are each investor's
 * positions capped to 250 rows (the same rows its detail page shows), of which only equity rows
 * holding shares count: options and principal amounts are not holdings of the issuer's shares, and
 * a row of zero shares is a position the filer no longer holds (the trades call it `sold`). Equity rows are
 * grouped by their position key, which for equity is the CUSIP alone, so two share classes of one
 * issuer stay apart, as filed.
 */

/** How many investor slugs a row names. 10 rows x 10 slugs x 160 chars keeps a page far below 512 KiB. */
export const TOP_HOLDER_LIMIT = 10;

interface Holder {
  slug: string;
  reportedValue: number;
}

/** One filed issuerName and titleOfClass pair of an issuer, and how many investors filed it. */
interface FiledName {
  issuerName: string;
  titleOfClass: string;
  count: number;
}

interface IssuerTally {
  key: string;
  holderCount: number;
  totalReportedValue: number;
  totalShares: number;
  /** Largest holders, at most TOP_HOLDER_LIMIT, kept sorted; bounded so memory stays flat at scale. */
  topHolders: Holder[];
  /**
   * The filed name pairs, to show the most common one. Searched in order while they are few: an
   * issuer is filed under one to a few pairs, and the names are the catalog's interned strings,
   * so equal names are mostly the same string and compare at once.
   */
  names: FiledName[];
  /** The same pairs by issuer name and title, once there are more than NAMES_SEARCHED_IN_ORDER. */
  nameIndex: Map<string, Map<string, FiledName>> | null;
}

/**
 * Past this many pairs an issuer's names are looked up in a map: a data set where every holder
 * files the issuer under a name of its own must not make each addition search all of them.
 */
const NAMES_SEARCHED_IN_ORDER = 8;

/** Where a holder of `reportedValue` sorts against `b`: larger values first, then slug. */
function compareHolder(slug: string, reportedValue: number, b: Holder): number {
  return compareDescending(reportedValue, b.reportedValue) || compareText(slug, b.slug);
}

function keepTopHolder(topHolders: Holder[], slug: string, reportedValue: number): void {
  // Most holders of a popular issuer are smaller than the current tenth: one comparison rejects
  // them, before anything is made for them.
  const last = topHolders[TOP_HOLDER_LIMIT - 1];
  if (last !== undefined && compareHolder(slug, reportedValue, last) >= 0) return;
  let index = 0;
  while (index < topHolders.length && compareHolder(slug, reportedValue, topHolders[index]!) >= 0) index++;
  topHolders.splice(index, 0, { slug, reportedValue });
  if (topHolders.length > TOP_HOLDER_LIMIT) topHolders.pop();
}

function countName(tally: IssuerTally, issuerName: string, titleOfClass: string, count = 1): void {
  const index = tally.nameIndex;
  if (index === null) {
    for (const name of tally.names) {
      if (name.issuerName === issuerName && name.titleOfClass === titleOfClass) {
        name.count += count;
        return;
      }
    }
  } else {
    const name = index.get(issuerName)?.get(titleOfClass);
    if (name !== undefined) {
      name.count += count;
      return;
    }
  }
  const name = { issuerName, titleOfClass, count };
  tally.names.push(name);
  if (index !== null) indexName(index, name);
  else if (tally.names.length > NAMES_SEARCHED_IN_ORDER) {
    tally.nameIndex = new Map();
    for (const known of tally.names) indexName(tally.nameIndex, known);
  }
}

function indexName(index: Map<string, Map<string, FiledName>>, name: FiledName): void {
  let titles = index.get(name.issuerName);
  if (titles === undefined) {
    titles = new Map();
    index.set(name.issuerName, titles);
  }
  titles.set(name.titleOfClass, name);
}

/** Most common filed name; ties go to the alphabetically first (issuer name, then title). */
function mostCommonName(names: readonly FiledName[]): { issuerName: string; titleOfClass: string } {
  let best = { issuerName: '', titleOfClass: '' };
  let bestCount = -1;
  for (const { issuerName, titleOfClass, count } of names) {
    const better =
      count > bestCount ||
      (count === bestCount && (compareText(issuerName, best.issuerName) || compareText(titleOfClass, best.titleOfClass)) < 0);
    if (better) {
      best = { issuerName, titleOfClass };
      bestCount = count;
    }
  }
  return best;
}

/**
 * What an accumulator has counted, as plain data that can move between threads: the investors added
 * and each issuer's tally. Every part of a tally is a count, an exact sum of whole numbers, or the
 * largest holders by a total order, so tallies of disjoint sets of investors merge into the tallies
 * of their union whatever the order (ConsensusAccumulator.merge).
 */
export interface ConsensusState {
  investors: string[];
  tallies: Array<{
    key: string;
    holderCount: number;
    totalReportedValue: number;
    totalShares: number;
    topHolders: Holder[];
    names: FiledName[];
  }>;
}

/**
 * Streams investors in one at a time, so the orchestrator can drop each investor's rows after
 * adding them. Memory grows with the number of distinct issuers, not with the number of rows.
 */
export class ConsensusAccumulator {
  private readonly tallies = new Map<string, IssuerTally>();
  private readonly investors = new Set<string>();

  constructor(private readonly inputCap: number = CONSENSUS_INPUT_CAP) {}

  /**
   * Adds one investor's positions; they are capped to 250 here as well, so uncapped input is safe.
   * Returns the holdings counted (what a derivation cache keeps of them).
   */
  add(investorSlug: string, positions: readonly AggregatedPosition[]): ConsensusHolding[] {
    const holdings = consensusHoldings(positions, this.inputCap);
    this.addHoldings(investorSlug, holdings);
    return holdings;
  }

  /**
   * Adds one investor's holdings as consensusHoldings() made them (a derivation cache keeps them so,
   * to count an investor again without deriving it): the same tallies as add() of its positions.
   */
  addHoldings(investorSlug: string, holdings: readonly ConsensusHolding[]): void {
    if (this.investors.has(investorSlug)) {
      throw new Error(`consensus: investor ${investorSlug} was added twice; holder counts would double`);
    }
    this.investors.add(investorSlug);
    for (const position of holdings) {
      let tally = this.tallies.get(position.key);
      if (tally === undefined) {
        tally = { key: position.key, holderCount: 0, totalReportedValue: 0, totalShares: 0, topHolders: [], names: [], nameIndex: null };
        this.tallies.set(position.key, tally);
      }
      tally.holderCount += 1;
      tally.totalReportedValue += position.reportedValue;
      tally.totalShares += position.shares;
      countName(tally, position.issuerName, position.titleOfClass);
      keepTopHolder(tally.topHolders, investorSlug, position.reportedValue);
    }
  }

  /** What was added so far, for merge() in another thread. */
  state(): ConsensusState {
    return {
      investors: [...this.investors],
      tallies: [...this.tallies.values()].map(({ key, holderCount, totalReportedValue, totalShares, topHolders, names }) => ({
        key,
        holderCount,
        totalReportedValue,
        totalShares,
        topHolders,
        names,
      })),
    };
  }

  /**
   * Adds what another accumulator counted over other investors (its state()): the result is the one
   * of adding all of them to one accumulator, in any order. An investor added to both is refused.
   */
  merge(other: ConsensusState): void {
    for (const slug of other.investors) {
      if (this.investors.has(slug)) throw new Error(`consensus: investor ${slug} was added twice; holder counts would double`);
      this.investors.add(slug);
    }
    for (const theirs of other.tallies) {
      let tally = this.tallies.get(theirs.key);
      if (tally === undefined) {
        tally = { key: theirs.key, holderCount: 0, totalReportedValue: 0, totalShares: 0, topHolders: [], names: [], nameIndex: null };
        this.tallies.set(theirs.key, tally);
      }
      tally.holderCount += theirs.holderCount;
      tally.totalReportedValue += theirs.totalReportedValue;
      tally.totalShares += theirs.totalShares;
      for (const name of theirs.names) countName(tally, name.issuerName, name.titleOfClass, name.count);
      for (const holder of theirs.topHolders) keepTopHolder(tally.topHolders, holder.slug, holder.reportedValue);
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

/** What of one investor's positions counts toward consensus: an equity position holding shares, one per key. */
export type ConsensusHolding = Pick<AggregatedPosition, 'key' | 'issuerName' | 'titleOfClass' | 'shares' | 'reportedValue'>;

/**
 * The holdings an investor adds to consensus: its positions capped to `inputCap` rows (already-capped
 * input, the usual case, needs no second sort: tallies do not depend on order), of which the equity
 * positions that hold shares, by key. Aggregated input has one position per key already; should a
 * caller pass a key twice, it is merged so that the investor still counts once. A position of zero
 * shares is not held: trades report it as `sold`, so it must not make its filer a holder here either.
 */
export function consensusHoldings(positions: readonly AggregatedPosition[], inputCap: number = CONSENSUS_INPUT_CAP): ConsensusHolding[] {
  const capped = positions.length <= inputCap ? positions : capPositions(positions, inputCap);
  const byKey = new Map<string, ConsensusHolding>();
  for (const position of capped) {
    if (position.kind !== 'equity' || position.shares <= 0) continue;
    const seen = byKey.get(position.key);
    byKey.set(
      position.key,
      seen === undefined
        ? position
        : { ...seen, shares: seen.shares + position.shares, reportedValue: seen.reportedValue + position.reportedValue },
    );
  }
  return [...byKey.values()];
}

/** Consensus over a whole list of investors at once; the accumulator is the streaming form. */
export function deriveConsensus(investors: Iterable<{ slug: string; positions: readonly AggregatedPosition[] }>): ConsensusRow[] {
  const accumulator = new ConsensusAccumulator();
  for (const investor of investors) accumulator.add(investor.slug, investor.positions);
  return accumulator.result();
}
