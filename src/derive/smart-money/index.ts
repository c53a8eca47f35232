import type { FilingCatalog, FilingMeta, InvestorRegistryEntry } from '../../model/filing.js';
import type { BuildNote } from '../../model/report.js';
import type { ConsensusRow, InvestorDetail, TradeRow } from '../../model/smart-money.js';
import { ConsensusAccumulator } from './consensus.js';
import { effectiveFilings, type EffectiveFilings, type UnusedFiling } from './holdings.js';
import { buildInvestorDetail, type InvestorIdentity } from './investors.js';
import { UNCLASSIFIED_CATEGORY } from '../../model/smart-money.js';
import { compareText } from '../../lib/text-order.js';
import { aggregateCatalogPositions, type AggregatedPosition } from './positions.js';
import { previousQuarterEnd } from '../../lib/quarters.js';
import { assignInvestorSlugs } from './slugs.js';
import { isPeriodTooOld, periodFreshUntil } from './staleness.js';
import { deriveTrades } from './trades.js';

/**
 * Smart Money from accepted Form 13F filings (docs/spec.md, Smart Money derivation and Records). Pure: the catalog, the
 * registry and `now` go in; records, build notes and freshness facts come out.
 *
 * Scale: the whole SEC data set is ~9,000 filers x 2 quarters x ~390 rows. Planning reads filing
 * metadata only; rows are then materialized one investor at a time (catalog.rows), turned into
 * that investor's records and consensus input, and dropped before the next investor.
 */

export interface SmartMoneyInput {
  catalog: FilingCatalog;
  /** investors.yaml entries, or null when the sources have no registry. */
  registry: InvestorRegistryEntry[] | null;
  /** With a registry: publish every filer, not only the listed ones. */
  allFilers: boolean;
  now: Date;
  /** An investor whose latest report period is older than this is left out (docs/spec.md, Investors published). */
  maxQuarterAgeDays: number;
  /**
   * --allow-stale: publish investors past maxQuarterAgeDays too (each with a note). The snapshot then
   * fails the quarter-age freshness rule and is published as stale, which is what --allow-stale asks.
   */
  keepStaleInvestors?: boolean;
}

/** How many investors were left out, by rule: what an empty build names as its cause. */
export interface LeftOutCounts {
  /** Latest report period older than maxQuarterAgeDays. */
  staleQuarter: number;
  /** Listed in the registry without any Form 13F filing in the sources. */
  noFiling: number;
  /** Only notices, or amendments without an original. */
  noHoldingsReport: number;
}

export interface SmartMoneyResult {
  /** By slug. */
  investors: InvestorDetail[];
  /** By rank. */
  consensus: ConsensusRow[];
  /** By investor slug, then action (new, added, trimmed, sold), then reported value. */
  trades: TradeRow[];
  notes: BuildNote[];
  facts: { oldestPeriod?: string };
  leftOut: LeftOutCounts;
}

/** Where the registry lives (docs/spec.md, Filing sources), for notes about its entries. */
const REGISTRY_SOURCE = 'filings/investors.yaml';

/** What one investor will be built from: metadata only, no rows yet. */
export interface InvestorPlan {
  identity: InvestorIdentity;
  current: EffectiveFilings;
  /** The adjacent previous quarter's filings, if the investor filed holdings for it. */
  previous: EffectiveFilings | null;
}

/** Filings grouped by CIK, then by report period. */
function groupFilings(catalog: FilingCatalog): Map<string, Map<string, FilingMeta[]>> {
  const byCik = new Map<string, Map<string, FilingMeta[]>>();
  for (const filing of catalog.filings()) {
    let byPeriod = byCik.get(filing.cik);
    if (byPeriod === undefined) {
      byPeriod = new Map();
      byCik.set(filing.cik, byPeriod);
    }
    const filings = byPeriod.get(filing.period);
    if (filings === undefined) byPeriod.set(filing.period, [filing]);
    else filings.push(filing);
  }
  return byCik;
}

/**
 * The latest report period that has a holdings report; notices alone do not make a period usable.
 * The amendments of later periods that could not be used are named in `skipped`.
 */
function latestUsable(byPeriod: Map<string, FilingMeta[]>): { current: EffectiveFilings | null; skipped: UnusedFiling[] } {
  const periods = [...byPeriod.keys()].sort(compareText).reverse();
  const skipped: UnusedFiling[] = [];
  for (const period of periods) {
    const effective = effectiveFilings(byPeriod.get(period)!);
    if (effective.base !== null) return { current: effective, skipped };
    skipped.push(...effective.unused);
  }
  return { current: null, skipped };
}

function latestFiling(byPeriod: Map<string, FilingMeta[]>): FilingMeta {
  const all = [...byPeriod.values()].flat();
  return all.sort((a, b) => compareText(a.filedAt, b.filedAt) || compareText(a.accessionNumber, b.accessionNumber)).at(-1)!;
}

function unusedNotes(unused: readonly UnusedFiling[]): BuildNote[] {
  return unused.map(({ filing, reason }) => ({ source: filing.source, message: reason }));
}

interface Candidate {
  cik: string;
  current: EffectiveFilings;
  registered: InvestorRegistryEntry | null;
}

/**
 * Chooses the investors to publish and what each is built from, in slug order (the published
 * order); metadata only. Slugs of unregistered filers are assigned over every filer with a holdings
 * report, stale ones included, so that one filer going stale does not rename another.
 */
export function planSmartMoney(input: SmartMoneyInput): { plans: InvestorPlan[]; notes: BuildNote[]; leftOut: LeftOutCounts } {
  const notes: BuildNote[] = [];
  const leftOut: LeftOutCounts = { staleQuarter: 0, noFiling: 0, noHoldingsReport: 0 };
  const byCik = groupFilings(input.catalog);

  const registered = new Map<string, InvestorRegistryEntry>();
  const registrySlugs = new Set<string>();
  for (const listed of input.registry ?? []) {
    // Filings carry CIKs without leading zeros; a registry may copy them from EDGAR with zeros.
    const entry = { ...listed, cik: listed.cik.replace(/^0+(?=\d)/, '') };
    if (registered.has(entry.cik) || registrySlugs.has(entry.slug)) {
      notes.push({
        source: REGISTRY_SOURCE,
        message: `registry entry ${entry.slug} (CIK ${entry.cik}) repeats a CIK or slug listed before it and is ignored`,
      });
      continue;
    }
    registered.set(entry.cik, entry);
    registrySlugs.add(entry.slug);
  }

  const ciks = [...registered.keys()];
  if (input.registry === null || input.allFilers) ciks.push(...[...byCik.keys()].filter((cik) => !registered.has(cik)));

  const candidates: Candidate[] = [];
  for (const cik of ciks) {
    const entry = registered.get(cik) ?? null;
    const byPeriod = byCik.get(cik);
    const label = entry ? `registry investor ${entry.slug} (CIK ${cik})` : `filer CIK ${cik}`;
    if (byPeriod === undefined) {
      leftOut.noFiling += 1;
      notes.push({ source: REGISTRY_SOURCE, message: `${label} has no Form 13F filing in the sources and is not published` });
      continue;
    }
    const { current, skipped } = latestUsable(byPeriod);
    notes.push(...unusedNotes(skipped));
    if (current === null) {
      const latest = latestFiling(byPeriod);
      leftOut.noHoldingsReport += 1;
      notes.push({
        source: latest.source,
        message: `${label} ${latest.filerName ? `(${latest.filerName}) ` : ''}filed no holdings report (only 13F-NT notices or amendments without an original) and is not published`,
      });
      continue;
    }
    candidates.push({ cik, current, registered: entry });
  }

  const derivedSlugs = assignInvestorSlugs(
    candidates.filter((c) => c.registered === null).map((c) => ({ cik: c.cik, name: filedName(c.current.base) })),
    registrySlugs,
  );

  const plans: InvestorPlan[] = [];
  for (const { cik, current, registered: entry } of candidates) {
    const identity: InvestorIdentity = entry
      ? { cik, slug: entry.slug, name: entry.name, category: entry.category }
      : { cik, slug: derivedSlugs.get(cik)!, name: filedName(current.base), category: UNCLASSIFIED_CATEGORY };
    if (isPeriodTooOld(current.base.period, input.now, input.maxQuarterAgeDays)) {
      // Not the instant itself (the report gives it): the same inputs left out by the same rule give
      // the same notes on every day the rule gives the same answer, which the derivation cache relies on.
      const age =
        `its latest report period ${current.base.period} is more than ${input.maxQuarterAgeDays} days old ` +
        `(stale since ${periodFreshUntil(current.base.period, input.maxQuarterAgeDays).toISOString()})`;
      if (input.keepStaleInvestors !== true) {
        leftOut.staleQuarter += 1;
        notes.push({ source: current.base.source, message: `investor ${identity.slug} (CIK ${cik}) is not published: ${age}` });
        continue;
      }
      notes.push({
        source: current.base.source,
        message: `investor ${identity.slug} (CIK ${cik}) is published although ${age}: --allow-stale`,
      });
    }
    const previousPeriod = previousQuarterEnd(current.base.period);
    const previousFilings = previousPeriod === null ? undefined : byCik.get(cik)!.get(previousPeriod);
    const previousPeriodFilings = previousFilings === undefined ? null : effectiveFilings(previousFilings);
    const previous = previousPeriodFilings?.base ? previousPeriodFilings : null;
    notes.push(...unusedNotes(current.unused), ...unusedNotes(previousPeriodFilings?.unused ?? []));
    plans.push({ identity, current, previous });
  }
  plans.sort((a, b) => compareText(a.identity.slug, b.identity.slug));
  // Catalog order depends on how the sources were read; the report must not.
  notes.sort((a, b) => compareText(a.source, b.source) || compareText(a.message, b.message));
  return { plans, notes, leftOut };
}

/** The filer's name as filed; a CIK label in the rare case that the cover page left it empty. */
function filedName(filing: FilingMeta): string {
  return filing.filerName.trim() || `CIK ${filing.cik}`;
}

export interface DerivedInvestorRecords {
  detail: InvestorDetail;
  /** Capped positions with their internal keys: the consensus input. */
  shownPositions: AggregatedPosition[];
  trades: TradeRow[];
}

/**
 * Materializes one investor's rows (current and previous quarter), derives its records, and lets the
 * rows go. Investors are independent of each other: their records may be derived on several threads
 * at once, each reading the catalog, and put in plan order afterwards.
 */
export function deriveInvestorRecords(plan: InvestorPlan, catalog: Pick<FilingCatalog, 'rows' | 'eachRow'>): DerivedInvestorRecords {
  const filingsOf = (effective: EffectiveFilings) => [
    effective.base.accessionNumber,
    ...effective.additions.map((filing) => filing.accessionNumber),
  ];
  const positions = aggregateCatalogPositions(catalog, filingsOf(plan.current));
  const { detail, shownPositions } = buildInvestorDetail(plan.identity, plan.current.base, positions);
  const previous =
    plan.previous === null
      ? null
      : { period: plan.previous.base.period, positions: aggregateCatalogPositions(catalog, filingsOf(plan.previous)) };
  const trades = deriveTrades({ period: plan.current.base.period, positions }, previous, plan.identity);
  return { detail, shownPositions, trades };
}

/** Receives each published investor, in slug order, with its trade rows (already in published order). */
export type SmartMoneySink = (investor: InvestorDetail, trades: TradeRow[]) => void;

/**
 * The streaming form: hands each investor and its trades to `sink` as soon as they are derived
 * and keeps only the consensus tallies, so a caller that writes records out as they come never
 * holds the whole dataset. At full SEC scale the trade rows alone run to millions of objects.
 */
export function streamSmartMoney(
  input: SmartMoneyInput,
  sink: SmartMoneySink,
  /** Told how many investors will be derived, once that is known (for progress). */
  onPlanned?: (investors: number) => void,
): Pick<SmartMoneyResult, 'consensus' | 'notes' | 'facts' | 'leftOut'> {
  const { plans, notes, leftOut } = planSmartMoney(input);
  onPlanned?.(plans.length);
  const consensus = new ConsensusAccumulator();
  let oldestPeriod: string | undefined;
  for (const plan of plans) {
    const derived = deriveInvestorRecords(plan, input.catalog);
    consensus.add(derived.detail.slug, derived.shownPositions);
    if (oldestPeriod === undefined || compareText(derived.detail.period, oldestPeriod) < 0) oldestPeriod = derived.detail.period;
    sink(derived.detail, derived.trades);
  }
  return { consensus: consensus.result(), notes, facts: oldestPeriod === undefined ? {} : { oldestPeriod }, leftOut };
}

/** Every record in memory at once; fine for tests and moderate builds (see streamSmartMoney). */
export function deriveSmartMoney(input: SmartMoneyInput): SmartMoneyResult {
  const investors: InvestorDetail[] = [];
  const trades: TradeRow[] = [];
  // Plans come in slug order and each investor's trades are already ordered, so appending keeps
  // the published order of trades without a global sort.
  const rest = streamSmartMoney(input, (investor, investorTrades) => {
    investors.push(investor);
    for (const trade of investorTrades) trades.push(trade);
  });
  return { investors, consensus: rest.consensus, trades, notes: rest.notes, facts: rest.facts, leftOut: rest.leftOut };
}

export { aggregatePositions, type AggregatedPosition } from './positions.js';
export { capPositions } from './cap.js';
export {
  ConsensusAccumulator,
  type ConsensusHolding,
  type ConsensusState,
  consensusHoldings,
  deriveConsensus,
  TOP_HOLDER_LIMIT,
} from './consensus.js';
export { effectiveFilings, effectiveHoldings, type EffectiveFilings } from './holdings.js';
export { buildInvestorDetail, positionWeight } from './investors.js';
export { assignInvestorSlugs, slugFromName } from './slugs.js';
export { deriveTrades } from './trades.js';
export { isPeriodTooOld, quarterEndInstant } from './staleness.js';
