import type { z } from 'zod';
import type { RuleResult } from '../../model/rule-result.js';
import { InvestorDetail, UNCLASSIFIED_CATEGORY } from '../../model/smart-money.js';
import {
  type DatasetDrift,
  fixed,
  type OwnThresholds,
  pair,
  sampleText,
  shareCheck,
  type WatchedSnapshot,
  type Watcher,
  warnFail,
  readWatched,
} from './core.js';
import { datasetThresholds, STEADY } from './thresholds.js';

/**
 * Drift of the Smart Money datasets: besides the counts and keys of investors, consensus and trades,
 * the newest 13F quarter never moves backwards, and investor by investor: none leaves while its
 * filing is current, none the registry classified turns unclassified, none goes back a quarter,
 * and the same filing never gives fewer positions or less value.
 */

export interface InvestorFiling {
  name: string;
  /** Quarter end of the investor's latest filing. */
  period: string;
  filedAt: string;
  /** Positions and their total reported value, uncapped: what the same filing must give again. */
  positionCount?: number;
  reportedValueTotal?: number;
  /** The registry's category (`investors.yaml`), or `unclassified` for a filer it does not list. */
  category?: string;
}

/** What the Smart Money watch knows of a snapshot. */
export interface SmartMoneyWatch {
  dataset: 'smart-money';
  newestPeriod: string | null;
  investors: ReadonlyMap<string, InvestorFiling>;
}

type Investors = ReadonlyMap<string, InvestorFiling>;

const THRESHOLDS = datasetThresholds(['investors', 'consensus', 'trades'], {
  /** Share of the investors before that are gone although their last filing was not aged out. */
  ...warnFail('goneWhileFresh'),
  /** Share of the investors the registry classified before that are published unclassified now. */
  ...warnFail('registryLost'),
  /** Share of the investors in both now published from an older quarter. */
  ...warnFail('olderFilings'),
  /** Share of the investors in both whose same filing (period, filedAt) now gives fewer positions or less value. */
  ...warnFail('shrunkFilings'),
});
export type SmartMoneyDriftThresholds = z.infer<typeof THRESHOLDS.schema>;

const DEFAULTS: SmartMoneyDriftThresholds = {
  resources: {
    investors: STEADY,
    // Issuers move in and out of consensus.
    consensus: { ...STEADY, lostKeysWarnPercent: 20, lostKeysFailPercent: 40 },
    // Trades are recomputed from two quarters each time: only their volume is comparable.
    trades: { ...STEADY, shrinkWarnPercent: 30, shrinkFailPercent: 50, growthWarnPercent: 100, growthFailPercent: 300 },
  },
  // A filer's latest 13F never goes back a quarter, and a filing, once filed, never loses rows
  // (an amendment that adds holdings adds them): either, for many investors, is a data set
  // missing, older or cut short.
  olderFilingsWarnPercent: 0,
  olderFilingsFailPercent: 10,
  // An investor whose last filing is as recent as others still published was not aged out by the
  // quarter rule: its filings left the sources (a moved folder, a partial download, a registry edit).
  goneWhileFreshWarnPercent: 0,
  goneWhileFreshFailPercent: 5,
  // With --all-filers an investor left out of investors.yaml is still published, under its filer
  // name and unclassified: an emptied or truncated registry changes no count and no key.
  registryLostWarnPercent: 0,
  registryLostFailPercent: 10,
  shrunkFilingsWarnPercent: 0,
  shrunkFilingsFailPercent: 10,
};

/** What the watch reads of an investor (not its positions). */
const WatchedInvestor = InvestorDetail.pick({
  slug: true,
  name: true,
  period: true,
  filedAt: true,
  positionCount: true,
  reportedValueTotal: true,
  category: true,
}).strip();

function watch(snapshot: WatchedSnapshot): Watcher<SmartMoneyWatch> {
  let newest: string | null = null;
  const investors = new Map<string, InvestorFiling>();
  return {
    resource: 'investors',
    record(record) {
      const { slug, ...filing } = readWatched(WatchedInvestor, record, snapshot, 'investors');
      investors.set(slug, filing);
      if (newest === null || filing.period > newest) newest = filing.period;
    },
    result: () => ({ dataset: 'smart-money', newestPeriod: newest, investors }),
  };
}

function check(before: SmartMoneyWatch, after: SmartMoneyWatch, thresholds: OwnThresholds<SmartMoneyDriftThresholds>): RuleResult[] {
  const backwards = before.newestPeriod !== null && (after.newestPeriod === null || after.newestPeriod < before.newestPeriod);
  const periodObserved = `${before.newestPeriod ?? 'none'} -> ${after.newestPeriod ?? 'none'}`;
  const gone = [...before.investors].filter(([slug]) => !after.investors.has(slug));
  const named = sampleText(
    gone,
    ([slug, filing]) => `${filing.name} (${slug}, last filing ${filing.period} filed ${filing.filedAt.slice(0, 10)})`,
  );
  return [
    ...filingChecks(before.investors, after.investors, thresholds),
    fixed(
      'drift.smart-money.newest-quarter',
      periodObserved,
      'the newest 13F quarter never moves backwards',
      backwards ? 'fail' : 'pass',
      backwards ? `the newest 13F quarter moved backwards (${periodObserved})` : 'the newest 13F quarter is the same or later',
    ),
    fixed(
      'drift.smart-money.investors-gone',
      `${gone.length} investor(s) gone`,
      'named, judged by the investors resource thresholds',
      gone.length === 0 ? 'pass' : 'warn',
      gone.length === 0 ? 'no investor disappeared' : `investors no longer published: ${named}`,
    ),
    goneWhileFresh(before.investors, after.investors, gone, thresholds),
    registryLost(before.investors, after.investors, thresholds),
  ];
}

/**
 * Investors gone although their last filing was no older than the oldest the candidate still
 * publishes: the quarter rule did not age them out, so their filings left the sources (a moved or
 * renamed folder, a partial download, a registry edit). The counts let a tenth of the investors
 * go with a warning at most; none of them goes on a normal day.
 */
function goneWhileFresh(
  before: Investors,
  after: Investors,
  gone: ReadonlyArray<[string, InvestorFiling]>,
  thresholds: OwnThresholds<SmartMoneyDriftThresholds>,
): RuleResult {
  let oldest: string | null = null;
  for (const filing of after.values()) if (oldest === null || filing.period < oldest) oldest = filing.period;
  const fresh = gone.filter(([, filing]) => oldest === null || filing.period >= oldest);
  return shareCheck(
    'drift.smart-money.gone-while-fresh',
    { part: fresh.length, whole: before.size, of: 'investors gone with a filing still current' },
    pair(thresholds, 'goneWhileFresh'),
    'of investors gone while current',
    {
      none: 'no investor with a current filing disappeared',
      some: `: not aged out (the candidate still publishes filings of ${oldest ?? 'no quarter'}), so their filings left the sources (a moved folder, a partial download, a registry edit), e.g. ${sampleText(fresh, ([slug, filing]) => `${filing.name} (${slug}, last filing ${filing.period})`)}`,
    },
  );
}

/**
 * Investors the registry (`investors.yaml`) classified before and that are published unclassified
 * now: their registry entries are gone. Without --all-filers they would be gone too (and judged
 * above); with it they stay under their filer names, so no count or key shows an emptied registry.
 */
function registryLost(before: Investors, after: Investors, thresholds: OwnThresholds<SmartMoneyDriftThresholds>): RuleResult {
  const listed = [...before].filter(([, filing]) => filing.category !== undefined && filing.category !== UNCLASSIFIED_CATEGORY);
  const lost = listed.filter(([slug]) => after.get(slug)?.category === UNCLASSIFIED_CATEGORY);
  return shareCheck(
    'drift.smart-money.registry-lost',
    { part: lost.length, whole: listed.length, of: 'registry investors now unclassified' },
    pair(thresholds, 'registryLost'),
    'of registry investors unclassified',
    {
      none: 'every investor the registry classified still is',
      some: `: their entries are missing from filings/investors.yaml, e.g. ${sampleText(lost, ([slug, filing]) => `${filing.name} (${slug}, ${filing.category} -> ${after.get(slug)!.name}, ${UNCLASSIFIED_CATEGORY})`)}`,
    },
  );
}

/**
 * Investors compared by slug, filing by filing. A filer's latest 13F never goes back a quarter: an
 * investor published from an older quarter than before lost its newest filing (a data set missing,
 * replaced by an older one, or unreadable). A filing, once filed, never loses rows (an amendment that
 * adds holdings adds them; one that restates them is a later filing): the same filing (period and
 * filing date) with fewer positions or less reported value was read from a table cut short.
 */
function filingChecks(before: Investors, after: Investors, thresholds: OwnThresholds<SmartMoneyDriftThresholds>): RuleResult[] {
  const inBoth = [...before].filter(([slug]) => after.has(slug)).map(([slug, was]) => [slug, was, after.get(slug)!] as const);
  const older = inBoth.filter(([, was, now]) => now.period < was.period);
  const shrunk = inBoth.filter(
    ([, was, now]) =>
      now.period === was.period &&
      now.filedAt === was.filedAt &&
      ((now.positionCount ?? 0) < (was.positionCount ?? 0) || (now.reportedValueTotal ?? 0) < (was.reportedValueTotal ?? 0)),
  );
  return [
    shareCheck(
      'drift.smart-money.older-filings',
      { part: older.length, whole: inBoth.length, of: 'investors from an older quarter' },
      pair(thresholds, 'olderFilings'),
      'of investors from an older quarter',
      {
        none: 'no investor is published from an older quarter than before',
        some: `: their newest filing is missing from the sources (a data set missing, older or unreadable), e.g. ${sampleText(older, ([slug, was, now]) => `${was.name} (${slug}, ${was.period} -> ${now.period})`)}`,
      },
    ),
    shareCheck(
      'drift.smart-money.shrunk-filings',
      { part: shrunk.length, whole: inBoth.length, of: "investors' same filing smaller" },
      pair(thresholds, 'shrunkFilings'),
      "of investors' same filing smaller",
      {
        none: 'no filing published before gives fewer positions or less value now',
        some: `: the same filing (period and filing date) gives fewer positions or less reported value, read from an information table cut short, e.g. ${sampleText(
          shrunk,
          ([slug, was, now]) =>
            `${was.name} (${slug}, ${was.period} filed ${was.filedAt.slice(0, 10)}: ${was.positionCount ?? '?'} -> ${now.positionCount ?? '?'} positions)`,
        )}`,
      },
    ),
  ];
}

export const SMART_MONEY_DRIFT = {
  override: THRESHOLDS.override,
  defaults: DEFAULTS,
  // Trades are recomputed from two quarters every time: their keys churn by design.
  keyed: ['investors', 'consensus'],
  watch,
  check,
} satisfies DatasetDrift<SmartMoneyDriftThresholds, SmartMoneyWatch>;
