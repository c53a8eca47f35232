import type { DatasetName } from '../model/dataset.js';
import type { FreshnessFacts } from '../model/freshness.js';
import type { RuleResult, RuleStatus } from '../model/rule-result.js';
import { quarterEndLastMs } from '../lib/quarters.js';
import { DAY_MS, dateStartMs, instantMs } from '../lib/time.js';
import { formatDuration } from '../lib/duration.js';
import { DEFAULT_LIMITS, type FreshnessLimits } from './limits.js';

export { DEFAULT_LIMITS };

/**
 * Every freshness rule of docs/spec.md, Freshness rules, in one pure module used by build, promote,
 * validate and gate; the server goes by each manifest's freshUntil, which build computed here. All
 * arithmetic is on UTC epoch milliseconds; a timestamp with an offset is converted to UTC before it
 * is compared. "At most X days old" means: exactly X days passes, X days and 1 ms fails.
 *
 * A rule is either timed (it passes until an instant, `failsAt`, then fails for ever) or fixed (it
 * does not depend on `now`: the calendar coverage rule, and any rule whose fact is missing or
 * unreadable). A failing fixed rule makes the snapshot invalid at build.
 */

export interface FreshnessOptions {
  limits: FreshnessLimits;
  /** A fresh rule whose failsAt is less than this far ahead of now reports `warn`. */
  warnWithinMs: number;
}

interface TimedCheck {
  kind: 'timed';
  rule: string;
  limit: string;
  failsAtMs: number;
  /** What is measured, e.g. "snapshot generatedAt 2026-11-20T08:00:00.000Z". */
  subject: string;
  /** The fact as written in the snapshot. */
  value: string;
  /** The instant from which age is counted. */
  sinceMs: number;
  daysText: string;
}

interface FixedCheck {
  kind: 'fixed';
  rule: string;
  limit: string;
  valid: boolean;
  observed: string;
  message: string;
}

type Check = TimedCheck | FixedCheck;

export function evaluateFreshness(dataset: DatasetName, facts: FreshnessFacts, now: Date, options: FreshnessOptions): RuleResult[] {
  const nowMs = now.getTime();
  return checksFor(dataset, facts, options.limits).map((check) => judge(dataset, check, nowMs, options.warnWithinMs));
}

/**
 * The last instant at which every rule of the snapshot still passes: the earliest failsAt. A
 * snapshot that is invalid regardless of time (see isInvalidAtBuild) was never fresh, so it gets
 * its generatedAt instant (or the epoch when even that is unreadable).
 */
export function freshUntil(dataset: DatasetName, facts: FreshnessFacts, limits: FreshnessLimits): Date {
  const checks = checksFor(dataset, facts, limits);
  if (checks.some((c) => c.kind === 'fixed' && !c.valid)) return new Date(instantMs(facts.generatedAt) ?? 0);
  const failsAt = checks.flatMap((c) => (c.kind === 'timed' ? [c.failsAtMs] : []));
  return new Date(Math.min(...failsAt));
}

/** True when a rule fails whatever `now` is (calendar coverage too short, a fact missing or unreadable). */
export function isInvalidAtBuild(dataset: DatasetName, facts: FreshnessFacts, limits: FreshnessLimits): boolean {
  return checksFor(dataset, facts, limits).some((c) => c.kind === 'fixed' && !c.valid);
}

/** The age of the snapshot itself: the same rule for every dataset that has one. */
function snapshotAgeCheck(dataset: DatasetName, facts: FreshnessFacts, limitDays: number, defaultDays: number): Check {
  return ageCheck(
    dataset,
    'freshness.snapshot-age',
    'snapshot generatedAt',
    'generatedAt',
    facts.generatedAt,
    instantMs,
    limitDays,
    defaultDays,
  );
}

function checksFor(dataset: DatasetName, facts: FreshnessFacts, limits: FreshnessLimits): Check[] {
  switch (dataset) {
    case 'articles': {
      const l = limits.articles;
      const d = DEFAULT_LIMITS.articles;
      return [
        snapshotAgeCheck(dataset, facts, l.maxGenerationAgeDays, d.maxGenerationAgeDays),
        ageCheck(
          dataset,
          'freshness.latest-article-age',
          'latest article publishedAt',
          'latestPublishedAt',
          facts.latestPublishedAt,
          instantMs,
          l.maxLatestArticleAgeDays,
          d.maxLatestArticleAgeDays,
        ),
      ];
    }
    case 'calendar': {
      const l = limits.calendar;
      const d = DEFAULT_LIMITS.calendar;
      return [
        ageCheck(
          dataset,
          'freshness.verification-age',
          'oldest event verifiedAt',
          'oldestVerifiedAt',
          facts.oldestVerifiedAt,
          instantMs,
          l.maxVerificationAgeDays,
          d.maxVerificationAgeDays,
        ),
        coverageCheck(facts, l.minCoverageDays, d.minCoverageDays),
      ];
    }
    case 'smart-money': {
      const l = limits['smart-money'];
      const d = DEFAULT_LIMITS['smart-money'];
      return [
        snapshotAgeCheck(dataset, facts, l.maxGenerationAgeDays, d.maxGenerationAgeDays),
        ageCheck(
          dataset,
          'freshness.quarter-age',
          'oldest filing quarter end',
          'oldestPeriod',
          facts.oldestPeriod,
          quarterEndLastMs,
          l.maxQuarterAgeDays,
          d.maxQuarterAgeDays,
        ),
      ];
    }
  }
}

function ageCheck(
  dataset: DatasetName,
  rule: string,
  subject: string,
  factName: string,
  value: string | undefined,
  parse: (text: string) => number | null,
  days: number,
  defaultDays: number,
): Check {
  const limit = limitText(`at most ${days}d old`, days, defaultDays);
  const unusable = unusableFact(dataset, rule, limit, factName, value, parse);
  if (unusable) return unusable;
  const sinceMs = parse(value!)!;
  return {
    kind: 'timed',
    rule,
    limit,
    subject: `${subject} ${value}`,
    value: value!,
    sinceMs,
    failsAtMs: sinceMs + days * DAY_MS,
    daysText: `${days}d`,
  };
}

/** Coverage runs through the end of the coverageThrough day, i.e. 00:00Z of the next day. */
function coverageCheck(facts: FreshnessFacts, days: number, defaultDays: number): Check {
  const rule = 'freshness.coverage-ahead';
  const limit = limitText(`at least ${days}d past generation`, days, defaultDays);
  const missing =
    unusableFact('calendar', rule, limit, 'generatedAt', facts.generatedAt, instantMs) ??
    unusableFact('calendar', rule, limit, 'coverageThrough', facts.coverageThrough, dateStartMs);
  if (missing) return missing;
  const generatedMs = instantMs(facts.generatedAt)!;
  const coverageEndMs = dateStartMs(facts.coverageThrough!)! + DAY_MS;
  const ahead = coverageEndMs - generatedMs;
  const valid = ahead >= days * DAY_MS;
  const observed = `${facts.coverageThrough} (${formatDuration(ahead)} past generation)`;
  const message = valid
    ? `calendar: coverage through ${facts.coverageThrough} runs ${formatDuration(ahead)} past generation at ${iso(generatedMs)}, at least ${days}d`
    : `calendar: coverage through ${facts.coverageThrough} ends ${formatDuration(ahead)} after generation at ${iso(generatedMs)}; needs at least ${days}d, so the snapshot is invalid whatever the time`;
  return { kind: 'fixed', rule, limit, valid, observed, message };
}

function unusableFact(
  dataset: DatasetName,
  rule: string,
  limit: string,
  factName: string,
  value: string | undefined,
  parse: (text: string) => number | null,
): FixedCheck | null {
  if (value === undefined || value === '') {
    return {
      kind: 'fixed',
      rule,
      limit,
      valid: false,
      observed: 'missing',
      message: `${dataset}: the snapshot facts have no ${factName} (were there no records?), so this rule cannot pass`,
    };
  }
  if (parse(value) === null) {
    return {
      kind: 'fixed',
      rule,
      limit,
      valid: false,
      observed: `unreadable "${value}"`,
      message: `${dataset}: ${factName} "${value}" is not a valid date or an ISO 8601 instant with a zone`,
    };
  }
  return null;
}

function judge(dataset: DatasetName, check: Check, nowMs: number, warnWithinMs: number): RuleResult {
  if (check.kind === 'fixed') {
    return {
      rule: check.rule,
      observed: check.observed,
      limit: check.limit,
      status: check.valid ? 'pass' : 'fail',
      failsAt: null,
      message: check.message,
    };
  }
  const age = nowMs - check.sinceMs;
  const remaining = check.failsAtMs - nowMs;
  const status: RuleStatus = remaining < 0 ? 'fail' : remaining < warnWithinMs ? 'warn' : 'pass';
  const ageText = age < 0 ? `${formatDuration(-age, 'up')} in the future` : `${formatDuration(age, 'up')} old`;
  const failsAt = iso(check.failsAtMs);
  const message =
    status === 'fail'
      ? `${dataset}: ${check.subject} is ${ageText}, more than ${check.daysText}: stale since ${failsAt}`
      : status === 'warn'
        ? `${dataset}: ${check.subject} is ${ageText}; it goes stale in ${formatDuration(remaining)}, after ${failsAt}`
        : `${dataset}: ${check.subject} is ${ageText}, within ${check.daysText}; fresh until ${failsAt}`;
  return { rule: check.rule, observed: `${check.value} (${ageText})`, limit: check.limit, status, failsAt, message };
}

/** Overrides are never silent: a limit that is not the service's says so in every report line. */
function limitText(text: string, days: number, defaultDays: number): string {
  return days === defaultDays ? text : `${text} (config; service default ${defaultDays}d)`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
