import { z } from 'zod';
import type { FreshnessFacts } from '../../model/freshness.js';
import type { RuleResult, RuleStatus } from '../../model/rule-result.js';
import { formatZodIssues } from '../../lib/zod-issues.js';

/**
 * What every drift check shares. A check is judged against a pair of thresholds, warn above one
 * percentage and fail above another, which the config names `<check>WarnPercent` and
 * `<check>FailPercent`: the pair is defined (warnFail) and read (pair) by the check's name alone.
 * Every check gives a RuleResult, the shape freshness gives, so every report, count and exit code
 * treats them alike.
 */

/** A threshold in percent of the snapshot compared with; null turns it off. */
const Percent = z.number().min(0).max(100_000).nullable();

type PairKeys<N extends string> = `${N}WarnPercent` | `${N}FailPercent`;

/** The same schema under each of the names: the shape of an object whose keys a list gives. */
export function shapeOf<const K extends string, S extends z.ZodType>(names: readonly K[], schema: S): Record<K, S> {
  // Object.fromEntries cannot say which keys it made; they are exactly `names`.
  return Object.fromEntries(names.map((name) => [name, schema])) as Record<K, S>;
}

/** The schema of one check's thresholds: `<name>WarnPercent` and `<name>FailPercent`. */
export function warnFail<N extends string>(name: N): Record<PairKeys<N>, typeof Percent> {
  return shapeOf([`${name}WarnPercent`, `${name}FailPercent`], Percent);
}

/** One check's thresholds; null is off. */
export interface WarnFail {
  warn: number | null;
  fail: number | null;
}

/** The thresholds of the check `name`; a pair the thresholds do not set is off. */
export function pair<N extends string>(thresholds: Partial<Record<PairKeys<N>, number | null>>, name: N): WarnFail {
  const warn: `${N}WarnPercent` = `${name}WarnPercent`;
  const fail: `${N}FailPercent` = `${name}FailPercent`;
  return { warn: thresholds[warn] ?? null, fail: thresholds[fail] ?? null };
}

/** What a dataset's watch knows of a snapshot besides its records. */
export interface WatchedSnapshot {
  /** Names the snapshot in an error. */
  label: string;
  generatedAt: string;
  facts: Pick<FreshnessFacts, 'feedItems'>;
}

/**
 * Gathers the facts a domain expert watches from one snapshot's records of one resource, as the
 * comparison engine streams them (src/publish/diff/bundle-diff.ts); pure, the reading is the caller's.
 */
export interface Watcher<W> {
  /** The resource whose records it reads. */
  readonly resource: string;
  record(record: unknown): void;
  result(): W;
}

/** The thresholds of a dataset's own checks: its pairs beside `resources`, any of them unset (off). */
export type OwnThresholds<T> = Partial<Omit<T, 'resources'>>;

/**
 * One dataset's drift: the config's `drift.<dataset>` section and its defaults, the resources whose
 * key churn it judges (the others only by their counts), its watch, and the checks of the watch.
 */
export interface DatasetDrift<T extends { resources: object }, W> {
  override: z.ZodType;
  defaults: T;
  keyed: ReadonlyArray<keyof T['resources'] & string>;
  watch(snapshot: WatchedSnapshot): Watcher<W>;
  check(before: W, after: W, thresholds: OwnThresholds<T>): RuleResult[];
}

/** The fields a watch reads of a record; a record without them is named, not counted as undefined. */
export function readWatched<S extends z.ZodType>(schema: S, record: unknown, snapshot: WatchedSnapshot, resource: string): z.infer<S> {
  const read = schema.safeParse(record);
  if (!read.success) throw new Error(`${snapshot.label}: a record of ${resource} lacks what drift reads: ${formatZodIssues(read.error)}`);
  return read.data;
}

/** How many of the lost keys (or investors) a failing check names. */
export const SAMPLE_SIZE = 5;

/** The first SAMPLE_SIZE items described and joined, then how many more there are: what a message names. */
export function sampleText<T>(items: readonly T[], describe: (item: T) => string, separator = '; '): string {
  const more = items.length > SAMPLE_SIZE ? ` and ${items.length - SAMPLE_SIZE} more` : '';
  return `${items.slice(0, SAMPLE_SIZE).map(describe).join(separator)}${more}`;
}

/** `part` in percent of `whole`; 0 of nothing. */
export function share(part: number, whole: number): number {
  return whole === 0 ? 0 : (part / whole) * 100;
}

/** A check judged against its pair of thresholds: above fail fails, above warn warns, at either passes. */
export function graded(rule: string, observed: string, value: number, limits: WarnFail, what: string, message: string): RuleResult {
  const { warn, fail } = limits;
  const status: RuleStatus = fail !== null && value > fail ? 'fail' : warn !== null && value > warn ? 'warn' : 'pass';
  const parts = [warn === null ? null : `warn above ${warn}%`, fail === null ? null : `fail above ${fail}%`].filter(
    (part) => part !== null,
  );
  return fixed(rule, observed, parts.length === 0 ? 'off' : `${parts.join(', ')} ${what}`, status, message);
}

/**
 * A check of how many of a whole went wrong: observed as "3 of 40 <of> (7.5%)" and judged on that
 * share; its message is `none` when nothing did, else the observed figures followed by `some`.
 */
export function shareCheck(
  rule: string,
  counted: { part: number; whole: number; of: string },
  limits: WarnFail,
  what: string,
  message: { none: string; some: string },
): RuleResult {
  const percent = share(counted.part, counted.whole);
  const observed = `${counted.part} of ${counted.whole} ${counted.of} (${percent.toFixed(1)}%)`;
  return graded(rule, observed, percent, limits, what, counted.part === 0 ? message.none : `${observed}${message.some}`);
}

/** A check without thresholds: its status is decided by the check. */
export function fixed(rule: string, observed: string, limit: string, status: RuleStatus, message: string): RuleResult {
  return { rule, observed, limit, status, failsAt: null, message };
}
