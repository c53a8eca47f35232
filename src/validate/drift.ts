import { z } from 'zod';
import { UNCLASSIFIED_CATEGORY } from '../model/smart-money.js';
import type { DatasetName } from '../model/dataset.js';
import type { RuleResult, RuleStatus } from '../model/rule-result.js';

/**
 * Drift checks: is a candidate snapshot whole, compared with the one it would replace? Freshness
 * says a snapshot is recent; drift says it did not lose a third of its records to a half-finished
 * download, a moved folder or an empty feed. Pure: two profiles and thresholds in, rule results out
 * (the same RuleResult shape as freshness, so every report, count and exit code treats them alike).
 */

/**
 * What drift needs to know of one resource: record counts from the manifests, and (where identity
 * is stable) the key churn that the comparison engine (src/publish/bundle-diff.ts) measured.
 */
export interface ResourceChange {
  before: number;
  after: number;
  /** Absent where identity churns by design (trades) or where only counts were compared (history). */
  keys?: { lost: number; added: number; lostSample: readonly string[] };
}

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

/** What the calendar drift needs of one event. */
export interface EventDates {
  scheduledAt: string;
  verifiedAt: string;
  /** What, with where, tells a moved event (a new time, so a new id) from a lost one. */
  country?: string;
  eventName?: string;
}

/** An event gone from its time but found this close to it, same country and name, was moved. */
const MOVED_WITHIN_MS = 7 * 24 * 60 * 60 * 1000;

/** Facts a domain expert watches, per dataset. */
export type DatasetWatch =
  | {
      dataset: 'articles';
      newestPublishedAt: string | null;
      /** Articles per locale; absent where only the newest article is known. */
      locales?: ReadonlyMap<string, number>;
      /** Articles from each source's feed, by source id (a source whose feed gave none is absent); absent for bundles that predate the count. */
      feedItems?: ReadonlyMap<string, number>;
    }
  | {
      dataset: 'calendar';
      generatedAt: string;
      eventsNext30Days: number;
      /** Every event by id; absent where only the count of the next 30 days is known. */
      events?: ReadonlyMap<string, EventDates>;
    }
  | { dataset: 'smart-money'; newestPeriod: string | null; investors: ReadonlyMap<string, InvestorFiling> };

/** A candidate compared with the snapshot it would replace. */
export interface DriftComparison {
  /** The snapshot compared with. */
  baseline: string;
  resources: Readonly<Record<string, ResourceChange>>;
  /** Absent when only counts were compared. */
  watch?: { before: DatasetWatch; after: DatasetWatch };
}

const Percent = z.number().min(0).max(100_000).nullable();

/** Thresholds of one resource, in percent of the current snapshot; null turns a check off. */
export const ResourceThresholds = z
  .object({
    /** Fewer records than the current snapshot by more than this. */
    shrinkWarnPercent: Percent,
    shrinkFailPercent: Percent,
    /** More records than the current snapshot by more than this (a bad join duplicates rows). */
    growthWarnPercent: Percent,
    growthFailPercent: Percent,
    /** Share of the current snapshot's keys missing from the candidate. */
    lostKeysWarnPercent: Percent,
    lostKeysFailPercent: Percent,
    /** Share of the candidate's keys that the current snapshot did not have. */
    newKeysWarnPercent: Percent,
    newKeysFailPercent: Percent,
  })
  .strict();
export type ResourceThresholds = z.infer<typeof ResourceThresholds>;

export const DatasetDriftThresholds = z
  .object({
    resources: z.record(z.string(), ResourceThresholds),
    /** calendar: events scheduled in the 30 days after generation, fewer by more than this. */
    upcomingEventsWarnPercent: Percent.optional(),
    upcomingEventsFailPercent: Percent.optional(),
    /** calendar: share of the events still ahead of the new snapshot's generation that are gone. */
    upcomingLostWarnPercent: Percent.optional(),
    upcomingLostFailPercent: Percent.optional(),
    /** calendar: share of the events in both whose verifiedAt went back (an older copy of a file). */
    olderVerificationWarnPercent: Percent.optional(),
    olderVerificationFailPercent: Percent.optional(),
    /** smart-money: share of the investors before that are gone although their last filing was not aged out. */
    goneWhileFreshWarnPercent: Percent.optional(),
    goneWhileFreshFailPercent: Percent.optional(),
    /** smart-money: share of the investors the registry classified before that are published unclassified now. */
    registryLostWarnPercent: Percent.optional(),
    registryLostFailPercent: Percent.optional(),
    /** smart-money: share of the investors in both now published from an older quarter. */
    olderFilingsWarnPercent: Percent.optional(),
    olderFilingsFailPercent: Percent.optional(),
    /** smart-money: share of the investors in both whose same filing (period, filedAt) now gives fewer positions or less value. */
    shrunkFilingsWarnPercent: Percent.optional(),
    shrunkFilingsFailPercent: Percent.optional(),
  })
  .strict();
export type DatasetDriftThresholds = z.infer<typeof DatasetDriftThresholds>;
export type DriftThresholds = Record<DatasetName, DatasetDriftThresholds>;

/**
 * Defaults chosen for real rebuilds: a daily rebuild ages out a few articles and adds a few; a
 * quarter-end rebuild brings new filings for most investors, moves some issuers in and out of
 * consensus and recomputes every trade. A partial download or a moved folder loses a quarter or
 * more of a resource at once, which these fail.
 */
const STEADY: ResourceThresholds = {
  shrinkWarnPercent: 10,
  shrinkFailPercent: 25,
  growthWarnPercent: 50,
  growthFailPercent: 200,
  lostKeysWarnPercent: 10,
  lostKeysFailPercent: 25,
  newKeysWarnPercent: 50,
  newKeysFailPercent: null,
};

export const DEFAULT_DRIFT_THRESHOLDS: DriftThresholds = {
  articles: { resources: { articles: { ...STEADY, lostKeysWarnPercent: 20, lostKeysFailPercent: 40 } } },
  calendar: {
    // Past events roll off as weeks pass: the count may shrink a little every day; lost ids are normal.
    resources: { events: { ...STEADY, shrinkWarnPercent: 20, shrinkFailPercent: 40, lostKeysWarnPercent: 50, lostKeysFailPercent: null } },
    upcomingEventsWarnPercent: 20,
    upcomingEventsFailPercent: 40,
    // An event still ahead leaves only when it is cancelled or moved (its id names its time): a few.
    upcomingLostWarnPercent: 5,
    upcomingLostFailPercent: 20,
    // Verification only moves forward: an event verified earlier than before comes from an older copy.
    olderVerificationWarnPercent: 0,
    olderVerificationFailPercent: 5,
  },
  'smart-money': {
    resources: {
      investors: STEADY,
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
  },
};

/** `drift:` of pdsnap.config.yaml: any threshold of any resource of any dataset; unknown names are refused. */
const resourceOverrides = (names: readonly string[]) =>
  z.object(Object.fromEntries(names.map((name) => [name, ResourceThresholds.partial().optional()]))).strict();
export const DriftThresholdsOverride = z
  .object({
    articles: z
      .object({ resources: resourceOverrides(['articles']).optional() })
      .strict()
      .optional(),
    calendar: z
      .object({
        resources: resourceOverrides(['events']).optional(),
        upcomingEventsWarnPercent: Percent.optional(),
        upcomingEventsFailPercent: Percent.optional(),
        upcomingLostWarnPercent: Percent.optional(),
        upcomingLostFailPercent: Percent.optional(),
        olderVerificationWarnPercent: Percent.optional(),
        olderVerificationFailPercent: Percent.optional(),
      })
      .strict()
      .optional(),
    'smart-money': z
      .object({
        resources: resourceOverrides(['investors', 'consensus', 'trades']).optional(),
        olderFilingsWarnPercent: Percent.optional(),
        olderFilingsFailPercent: Percent.optional(),
        goneWhileFreshWarnPercent: Percent.optional(),
        goneWhileFreshFailPercent: Percent.optional(),
        registryLostWarnPercent: Percent.optional(),
        registryLostFailPercent: Percent.optional(),
        shrunkFilingsWarnPercent: Percent.optional(),
        shrunkFilingsFailPercent: Percent.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type DriftThresholdsOverride = z.infer<typeof DriftThresholdsOverride>;

export function applyDriftOverrides(override: DriftThresholdsOverride | undefined): DriftThresholds {
  const merged = {} as DriftThresholds;
  for (const dataset of Object.keys(DEFAULT_DRIFT_THRESHOLDS) as DatasetName[]) {
    const base = DEFAULT_DRIFT_THRESHOLDS[dataset];
    const given = (override?.[dataset] ?? {}) as Partial<DatasetDriftThresholds> & {
      resources?: Record<string, Partial<ResourceThresholds> | undefined>;
    };
    const resources: Record<string, ResourceThresholds> = {};
    for (const [name, limits] of Object.entries(base.resources)) resources[name] = { ...limits, ...given.resources?.[name] };
    const { resources: _ignored, ...rest } = given;
    merged[dataset] = { ...base, ...rest, resources };
  }
  return merged;
}

/** How many of the lost keys (or investors) a failing check names. */
export const SAMPLE_SIZE = 5;

/** The first SAMPLE_SIZE items described and joined, then how many more there are: what a message names. */
function sampleText<T>(items: readonly T[], describe: (item: T) => string, separator = '; '): string {
  const more = items.length > SAMPLE_SIZE ? ` and ${items.length - SAMPLE_SIZE} more` : '';
  return `${items.slice(0, SAMPLE_SIZE).map(describe).join(separator)}${more}`;
}

/** The rule of a first snapshot: nothing to compare with, so drift passes with a note. */
const BASELINE_RULE = 'drift.baseline';

/**
 * The rule of a comparison made with a stand-in for the current snapshot (its pointer missing or
 * broken): a warning, so that the report says which snapshot the figures are against, and why.
 */
export function standInBaselineRule(standIn: string, reason: string): RuleResult {
  return fixed(BASELINE_RULE, standIn, 'the current snapshot', 'warn', `${reason}; compared with ${standIn} instead`);
}

export function evaluateDrift(
  comparison: DriftComparison | null,
  thresholds: DatasetDriftThresholds,
  noBaseline = 'first snapshot of this dataset',
): RuleResult[] {
  if (comparison === null) {
    return [
      fixed(BASELINE_RULE, 'no snapshot to compare with', 'a snapshot to compare with', 'pass', `${noBaseline}: nothing to compare with`),
    ];
  }
  const results: RuleResult[] = [];
  for (const [resource, change] of Object.entries(comparison.resources)) {
    const limits = thresholds.resources[resource];
    if (limits === undefined) continue;
    results.push(...countChecks(resource, change.before, change.after, limits));
    if (change.keys) results.push(...keyChecks(resource, change, change.keys, limits));
  }
  if (comparison.watch) results.push(...watchChecks(comparison.watch.before, comparison.watch.after, thresholds));
  return results;
}

function countChecks(resource: string, before: number, after: number, limits: ResourceThresholds): RuleResult[] {
  const observed = `${before} -> ${after} records (${signedPercent(before, after)})`;
  const shrink = before === 0 ? 0 : ((before - after) / before) * 100;
  const growth = before === 0 ? (after === 0 ? 0 : Number.POSITIVE_INFINITY) : ((after - before) / before) * 100;
  return [
    graded(
      `drift.${resource}.shrink`,
      observed,
      shrink,
      limits.shrinkWarnPercent,
      limits.shrinkFailPercent,
      'fewer records',
      `${resource}: ${observed}`,
    ),
    graded(
      `drift.${resource}.growth`,
      observed,
      growth,
      limits.growthWarnPercent,
      limits.growthFailPercent,
      'more records',
      `${resource}: ${observed}`,
    ),
  ];
}

function keyChecks(
  resource: string,
  counts: ResourceChange,
  keys: NonNullable<ResourceChange['keys']>,
  limits: ResourceThresholds,
): RuleResult[] {
  const lostShare = counts.before === 0 ? 0 : (keys.lost / counts.before) * 100;
  const newShare = counts.after === 0 ? 0 : (keys.added / counts.after) * 100;
  const lostObserved = `${keys.lost} of ${counts.before} keys lost (${lostShare.toFixed(1)}%)`;
  const sample = keys.lostSample.slice(0, SAMPLE_SIZE);
  const more = keys.lost > sample.length ? ` and ${keys.lost - sample.length} more` : '';
  const lostMessage = keys.lost === 0 ? `${resource}: no key lost` : `${resource}: ${lostObserved}, e.g. ${sample.join(', ')}${more}`;
  return [
    graded(
      `drift.${resource}.lost-keys`,
      lostObserved,
      lostShare,
      limits.lostKeysWarnPercent,
      limits.lostKeysFailPercent,
      'of keys lost',
      lostMessage,
    ),
    graded(
      `drift.${resource}.new-keys`,
      `${keys.added} of ${counts.after} keys new (${newShare.toFixed(1)}%)`,
      newShare,
      limits.newKeysWarnPercent,
      limits.newKeysFailPercent,
      'of keys new',
      `${resource}: ${keys.added} of ${counts.after} keys are new`,
    ),
  ];
}

function watchChecks(before: DatasetWatch, after: DatasetWatch, thresholds: DatasetDriftThresholds): RuleResult[] {
  if (before.dataset === 'articles' && after.dataset === 'articles') {
    const moved =
      before.newestPublishedAt !== null && (after.newestPublishedAt === null || after.newestPublishedAt < before.newestPublishedAt);
    const observed = `${before.newestPublishedAt ?? 'none'} -> ${after.newestPublishedAt ?? 'none'}`;
    return [
      fixed(
        'drift.articles.newest',
        observed,
        'the newest article never gets older',
        moved ? 'fail' : 'pass',
        moved
          ? `the newest article got older (${observed}): the newest articles are missing from the sources`
          : 'the newest article is as new or newer',
      ),
      ...localeChecks(before.locales, after.locales),
      ...feedChecks(before.feedItems, after.feedItems),
    ];
  }
  if (before.dataset === 'calendar' && after.dataset === 'calendar') {
    const drop = before.eventsNext30Days === 0 ? 0 : ((before.eventsNext30Days - after.eventsNext30Days) / before.eventsNext30Days) * 100;
    const observed = `${before.eventsNext30Days} -> ${after.eventsNext30Days} events in the 30 days after generation`;
    const upcoming = graded(
      'drift.calendar.upcoming',
      observed,
      drop,
      thresholds.upcomingEventsWarnPercent ?? null,
      thresholds.upcomingEventsFailPercent ?? null,
      'fewer upcoming events',
      observed,
    );
    if (!before.events || !after.events) return [upcoming];
    return [upcoming, ...eventChecks(before.events, after.events, after.generatedAt, thresholds)];
  }
  if (before.dataset === 'smart-money' && after.dataset === 'smart-money') {
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
  return [];
}

/**
 * Investors gone although their last filing was no older than the oldest the candidate still
 * publishes: the quarter rule did not age them out, so their filings left the sources (a moved or
 * renamed folder, a partial download, a registry edit). The counts let a tenth of the investors
 * go with a warning at most; none of them goes on a normal day.
 */
function goneWhileFresh(
  before: ReadonlyMap<string, InvestorFiling>,
  after: ReadonlyMap<string, InvestorFiling>,
  gone: ReadonlyArray<[string, InvestorFiling]>,
  thresholds: DatasetDriftThresholds,
): RuleResult {
  let oldest: string | null = null;
  for (const filing of after.values()) if (oldest === null || filing.period < oldest) oldest = filing.period;
  const fresh = gone.filter(([, filing]) => oldest === null || filing.period >= oldest);
  const observed = `${fresh.length} of ${before.size} investors gone with a filing still current (${share(fresh.length, before.size).toFixed(1)}%)`;
  return graded(
    'drift.smart-money.gone-while-fresh',
    observed,
    share(fresh.length, before.size),
    thresholds.goneWhileFreshWarnPercent ?? null,
    thresholds.goneWhileFreshFailPercent ?? null,
    'of investors gone while current',
    fresh.length === 0
      ? 'no investor with a current filing disappeared'
      : `${observed}: not aged out (the candidate still publishes filings of ${oldest ?? 'no quarter'}), so their filings left the sources (a moved folder, a partial download, a registry edit), e.g. ${sampleText(fresh, ([slug, filing]) => `${filing.name} (${slug}, last filing ${filing.period})`)}`,
  );
}

/**
 * Investors the registry (`investors.yaml`) classified before and that are published unclassified
 * now: their registry entries are gone. Without --all-filers they would be gone too (and judged
 * above); with it they stay under their filer names, so no count or key shows an emptied registry.
 */
function registryLost(
  before: ReadonlyMap<string, InvestorFiling>,
  after: ReadonlyMap<string, InvestorFiling>,
  thresholds: DatasetDriftThresholds,
): RuleResult {
  const listed = [...before].filter(([, filing]) => filing.category !== undefined && filing.category !== UNCLASSIFIED_CATEGORY);
  const lost = listed.filter(([slug]) => after.get(slug)?.category === UNCLASSIFIED_CATEGORY);
  const observed = `${lost.length} of ${listed.length} registry investors now unclassified (${share(lost.length, listed.length).toFixed(1)}%)`;
  return graded(
    'drift.smart-money.registry-lost',
    observed,
    share(lost.length, listed.length),
    thresholds.registryLostWarnPercent ?? null,
    thresholds.registryLostFailPercent ?? null,
    'of registry investors unclassified',
    lost.length === 0
      ? 'every investor the registry classified still is'
      : `${observed}: their entries are missing from filings/investors.yaml, e.g. ${sampleText(lost, ([slug, filing]) => `${filing.name} (${slug}, ${filing.category} -> ${after.get(slug)!.name}, ${UNCLASSIFIED_CATEGORY})`)}`,
  );
}

/** A locale that had articles and has none: every reader of that locale gets an empty list. */
function localeChecks(before: ReadonlyMap<string, number> | undefined, after: ReadonlyMap<string, number> | undefined): RuleResult[] {
  return emptiedGroups('drift.articles.locales', before, after, {
    none: (kept) => `${kept} locale(s), none gone`,
    gone: 'locale(s) gone',
    limit: 'a locale with articles never loses them all',
    pass: 'every locale that had articles still has some',
    fail: (list) => `no article left in ${list}: a folder, feed or source of that locale is missing from the sources`,
  });
}

/**
 * A feed that gave articles and gives none now answered an empty channel, or is an error page saved
 * under its name (a rejection of the whole file, which alone only warns): its articles leave
 * together, however small a share of the dataset they are. A feed rolls its oldest items off every
 * day, but never down to none while its source publishes.
 */
function feedChecks(before: ReadonlyMap<string, number> | undefined, after: ReadonlyMap<string, number> | undefined): RuleResult[] {
  return emptiedGroups('drift.articles.feeds', before, after, {
    none: (kept) => `${kept} feed(s) with articles, none emptied`,
    gone: 'feed(s) emptied',
    limit: 'a feed that gave articles never gives none',
    pass: 'every source whose feed gave articles still gets some from it',
    fail: (list) => `no article left from the feed of ${list}: the feed is empty, unreadable or missing from the sources`,
  });
}

/**
 * Groups of articles (by locale, by source feed) that had some and have none now: a rule without a
 * threshold, naming them. No rule when either side lacks the counts (a bundle that predates them).
 */
function emptiedGroups(
  rule: string,
  before: ReadonlyMap<string, number> | undefined,
  after: ReadonlyMap<string, number> | undefined,
  text: { none: (kept: number) => string; gone: string; limit: string; pass: string; fail: (list: string) => string },
): RuleResult[] {
  if (!before || !after) return [];
  const gone = [...before].filter(([name, count]) => count > 0 && (after.get(name) ?? 0) === 0);
  if (gone.length === 0) return [fixed(rule, text.none(after.size), text.limit, 'pass', text.pass)];
  const list = gone.map(([name, count]) => `${name} (${count} article(s) before)`).join(', ');
  return [fixed(rule, `${gone.length} ${text.gone}: ${gone.map(([name]) => name).join(', ')}`, text.limit, 'fail', text.fail(list))];
}

/**
 * Events compared by id. An event still ahead of the new snapshot leaves only when it is cancelled
 * or moved; a whole file of them leaving (renamed events, another environment's ids, a file cut
 * short) is a source problem, whatever the counts say. And an event's verifiedAt only moves
 * forward: one verified earlier than before was read from an older copy of its file.
 */
function eventChecks(
  before: ReadonlyMap<string, EventDates>,
  after: ReadonlyMap<string, EventDates>,
  generatedAfter: string,
  thresholds: DatasetDriftThresholds,
): RuleResult[] {
  const from = Date.parse(generatedAfter);
  const ahead = [...before].filter(([, event]) => Date.parse(event.scheduledAt) >= from);
  // An event's id names its time: one rescheduled, or whose tentative time became exact, is gone
  // under its old id and there under a new one. That is the calendar doing its job, not a loss.
  const timesOf = new Map<string, number[]>();
  for (const event of after.values()) {
    const what = `${event.country}\u0000${event.eventName}`;
    const times = timesOf.get(what);
    if (times) times.push(Date.parse(event.scheduledAt));
    else timesOf.set(what, [Date.parse(event.scheduledAt)]);
  }
  const moved = (event: EventDates) =>
    event.eventName !== undefined &&
    (timesOf.get(`${event.country}\u0000${event.eventName}`) ?? []).some(
      (at) => Math.abs(at - Date.parse(event.scheduledAt)) <= MOVED_WITHIN_MS,
    );
  const lost = ahead.filter(([id, event]) => !after.has(id) && !moved(event));
  const inBoth = [...before].filter(([id]) => after.has(id));
  const older = inBoth.filter(([id, event]) => Date.parse(after.get(id)!.verifiedAt) < Date.parse(event.verifiedAt));
  const lostObserved = `${lost.length} of ${ahead.length} events still ahead gone (${share(lost.length, ahead.length).toFixed(1)}%)`;
  const olderObserved = `${older.length} of ${inBoth.length} events verified earlier than before (${share(older.length, inBoth.length).toFixed(1)}%)`;
  const name = (list: ReadonlyArray<[string, EventDates]>, what: (id: string, event: EventDates) => string) =>
    sampleText(list, ([id, event]) => what(id, event), ', ');
  return [
    graded(
      'drift.calendar.upcoming-lost',
      lostObserved,
      share(lost.length, ahead.length),
      thresholds.upcomingLostWarnPercent ?? null,
      thresholds.upcomingLostFailPercent ?? null,
      'of the events still ahead gone',
      lost.length === 0
        ? 'no event still ahead is gone'
        : `${lostObserved}, e.g. ${name(lost, (id, event) => `${id} (${event.scheduledAt})`)}: renamed, from another source, or a file cut short`,
    ),
    graded(
      'drift.calendar.older-verification',
      olderObserved,
      share(older.length, inBoth.length),
      thresholds.olderVerificationWarnPercent ?? null,
      thresholds.olderVerificationFailPercent ?? null,
      'of the events verified earlier than before',
      older.length === 0
        ? 'no event was verified earlier than before'
        : `${olderObserved}, e.g. ${name(older, (id, event) => `${id} (${event.verifiedAt} -> ${after.get(id)!.verifiedAt})`)}: an older copy of a calendar file was read`,
    ),
  ];
}

/**
 * Investors compared by slug, filing by filing. A filer's latest 13F never goes back a quarter: an
 * investor published from an older quarter than before lost its newest filing (a data set missing,
 * replaced by an older one, or unreadable). A filing, once filed, never loses rows (an amendment that
 * adds holdings adds them; one that restates them is a later filing): the same filing (period and
 * filing date) with fewer positions or less reported value was read from a table cut short.
 */
function filingChecks(
  before: ReadonlyMap<string, InvestorFiling>,
  after: ReadonlyMap<string, InvestorFiling>,
  thresholds: DatasetDriftThresholds,
): RuleResult[] {
  const inBoth = [...before].filter(([slug]) => after.has(slug)).map(([slug, was]) => [slug, was, after.get(slug)!] as const);
  const older = inBoth.filter(([, was, now]) => now.period < was.period);
  const shrunk = inBoth.filter(
    ([, was, now]) =>
      now.period === was.period &&
      now.filedAt === was.filedAt &&
      ((now.positionCount ?? 0) < (was.positionCount ?? 0) || (now.reportedValueTotal ?? 0) < (was.reportedValueTotal ?? 0)),
  );
  const olderObserved = `${older.length} of ${inBoth.length} investors from an older quarter (${share(older.length, inBoth.length).toFixed(1)}%)`;
  const shrunkObserved = `${shrunk.length} of ${inBoth.length} investors' same filing smaller (${share(shrunk.length, inBoth.length).toFixed(1)}%)`;
  return [
    graded(
      'drift.smart-money.older-filings',
      olderObserved,
      share(older.length, inBoth.length),
      thresholds.olderFilingsWarnPercent ?? null,
      thresholds.olderFilingsFailPercent ?? null,
      'of investors from an older quarter',
      older.length === 0
        ? 'no investor is published from an older quarter than before'
        : `${olderObserved}: their newest filing is missing from the sources (a data set missing, older or unreadable), e.g. ${sampleText(older, ([slug, was, now]) => `${was.name} (${slug}, ${was.period} -> ${now.period})`)}`,
    ),
    graded(
      'drift.smart-money.shrunk-filings',
      shrunkObserved,
      share(shrunk.length, inBoth.length),
      thresholds.shrunkFilingsWarnPercent ?? null,
      thresholds.shrunkFilingsFailPercent ?? null,
      "of investors' same filing smaller",
      shrunk.length === 0
        ? 'no filing published before gives fewer positions or less value now'
        : `${shrunkObserved}: the same filing (period and filing date) gives fewer positions or less reported value, read from an information table cut short, e.g. ${sampleText(
            shrunk,
            ([slug, was, now]) =>
              `${was.name} (${slug}, ${was.period} filed ${was.filedAt.slice(0, 10)}: ${was.positionCount ?? '?'} -> ${now.positionCount ?? '?'} positions)`,
          )}`,
    ),
  ];
}

function share(part: number, whole: number): number {
  return whole === 0 ? 0 : (part / whole) * 100;
}

function graded(
  rule: string,
  observed: string,
  value: number,
  warnAt: number | null,
  failAt: number | null,
  what: string,
  message: string,
): RuleResult {
  const status: RuleStatus = failAt !== null && value > failAt ? 'fail' : warnAt !== null && value > warnAt ? 'warn' : 'pass';
  const parts = [warnAt === null ? null : `warn above ${warnAt}%`, failAt === null ? null : `fail above ${failAt}%`].filter(
    (part) => part !== null,
  );
  return fixed(rule, observed, parts.length === 0 ? 'off' : `${parts.join(', ')} ${what}`, status, message);
}

function fixed(rule: string, observed: string, limit: string, status: RuleStatus, message: string): RuleResult {
  return { rule, observed, limit, status, failsAt: null, message };
}

function signedPercent(before: number, after: number): string {
  if (before === 0) return after === 0 ? '0%' : 'new';
  const change = ((after - before) / before) * 100;
  return `${change >= 0 ? '+' : ''}${change.toFixed(1)}%`;
}
