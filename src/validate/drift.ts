import { z } from 'zod';
import type { DatasetName } from '../model/dataset.js';
import type { RuleResult } from '../model/rule-result.js';
import { ARTICLES_DRIFT, type ArticlesDriftThresholds, type ArticlesWatch } from './drift/articles.js';
import { CALENDAR_DRIFT, type CalendarDriftThresholds, type CalendarWatch } from './drift/calendar.js';
import { fixed, type WatchedSnapshot, type Watcher } from './drift/core.js';
import { type ResourceChange, resourceChecks } from './drift/resources.js';
import { SMART_MONEY_DRIFT, type SmartMoneyDriftThresholds, type SmartMoneyWatch } from './drift/smart-money.js';
import { type ResourceThresholds, withOverride } from './drift/thresholds.js';

/**
 * Drift checks: is a candidate snapshot whole, compared with the one it would replace? Freshness
 * says a snapshot is recent; drift says it did not lose a third of its records to a half-finished
 * download, a moved folder or an empty feed. Pure: two profiles and thresholds in, rule results out.
 * Every resource gets the same checks (./drift/resources.ts); each dataset's module (./drift/*.ts)
 * owns its thresholds, what it watches and the checks of its watch; this file maps each dataset to
 * its module.
 */

export { SAMPLE_SIZE } from './drift/core.js';
export type { ResourceChange } from './drift/resources.js';
export type { ResourceThresholds } from './drift/thresholds.js';
export type { EventDates } from './drift/calendar.js';
export type { InvestorFiling } from './drift/smart-money.js';

/** The facts a domain expert watches, of each dataset. */
type WatchOf = { articles: ArticlesWatch; calendar: CalendarWatch; 'smart-money': SmartMoneyWatch };
export type DatasetWatch = WatchOf[DatasetName];

/** A candidate compared with the snapshot it would replace. */
export interface DriftComparison {
  /** The snapshot compared with. */
  baseline: string;
  resources: Readonly<Record<string, ResourceChange>>;
  /** Absent when only counts were compared. */
  watch?: { before: DatasetWatch; after: DatasetWatch };
}

/** The thresholds of every dataset: the defaults with the `drift:` section of pdsnap.config.yaml. */
export interface DriftThresholds {
  articles: ArticlesDriftThresholds;
  calendar: CalendarDriftThresholds;
  'smart-money': SmartMoneyDriftThresholds;
}

/** The thresholds of one dataset: those of its resources, and the pairs of its own checks (another dataset's are not set). */
export type DatasetDriftThresholds = { resources: Readonly<Partial<Record<string, ResourceThresholds>>> } & Partial<
  Omit<ArticlesDriftThresholds & CalendarDriftThresholds & SmartMoneyDriftThresholds, 'resources'>
>;

export const DEFAULT_DRIFT_THRESHOLDS: DriftThresholds = {
  articles: ARTICLES_DRIFT.defaults,
  calendar: CALENDAR_DRIFT.defaults,
  'smart-money': SMART_MONEY_DRIFT.defaults,
};

/** `drift:` of pdsnap.config.yaml: any threshold of any resource of any dataset; unknown names are refused. */
export const DriftThresholdsOverride = z
  .object({
    articles: ARTICLES_DRIFT.override.optional(),
    calendar: CALENDAR_DRIFT.override.optional(),
    'smart-money': SMART_MONEY_DRIFT.override.optional(),
  })
  .strict();
export type DriftThresholdsOverride = z.infer<typeof DriftThresholdsOverride>;

export function applyDriftOverrides(override: DriftThresholdsOverride | undefined): DriftThresholds {
  return {
    articles: withOverride(ARTICLES_DRIFT.defaults, override?.articles),
    calendar: withOverride(CALENDAR_DRIFT.defaults, override?.calendar),
    'smart-money': withOverride(SMART_MONEY_DRIFT.defaults, override?.['smart-money']),
  };
}

/** Each dataset's module, typed so that a watch only ever meets the checks of its own dataset. */
const DRIFT_BY_DATASET: {
  [D in DatasetName]: {
    keyed: readonly string[];
    watch(snapshot: WatchedSnapshot): Watcher<WatchOf[D]>;
    check(before: WatchOf[D], after: WatchOf[D], thresholds: DatasetDriftThresholds): RuleResult[];
  };
} = { articles: ARTICLES_DRIFT, calendar: CALENDAR_DRIFT, 'smart-money': SMART_MONEY_DRIFT };

/**
 * What drift reads of a dataset's two snapshots: the resources whose key churn it judges (the others
 * only by their counts: trades are recomputed every quarter by design), and the watch of each.
 */
export function driftReading(dataset: DatasetName): { keyed: readonly string[]; watch(snapshot: WatchedSnapshot): Watcher<DatasetWatch> } {
  return DRIFT_BY_DATASET[dataset];
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

/**
 * The rule of a comparison with a snapshot whose records could not be read (a damaged or missing
 * file): a warning, since only the record counts its verified manifest lists were compared.
 */
export function damagedBaselineRule(baseline: string, damage: string): RuleResult {
  return fixed(
    BASELINE_RULE,
    baseline,
    'the current snapshot',
    'warn',
    `the snapshot to compare with cannot be read (${damage}); judged by the record counts its manifest lists, not record by record`,
  );
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
    if (limits !== undefined) results.push(...resourceChecks(resource, change, limits));
  }
  const watch = comparison.watch;
  if (watch && watch.before.dataset === watch.after.dataset) {
    results.push(...watchChecks(watch.before.dataset, watch.before, watch.after, thresholds));
  }
  return results;
}

function watchChecks<D extends DatasetName>(
  dataset: D,
  before: WatchOf[D],
  after: WatchOf[D],
  thresholds: DatasetDriftThresholds,
): RuleResult[] {
  return DRIFT_BY_DATASET[dataset].check(before, after, thresholds);
}
