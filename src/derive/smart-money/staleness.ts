import { previousQuarterEnd, quarterEndLastMs, quarterEndOnOrBefore } from '../../lib/quarters.js';
import { DAY_MS } from '../../lib/time.js';

/**
 * The 180-day rule of Smart Money (docs/spec.md, Investors published) as applied to one investor's period.
 * A quarter end is a whole UTC day, so its age is counted from the last instant of that day,
 * 23:59:59.999Z: a period of 2026-06-30 is still within 180 days at 2026-12-27T23:59:59.999Z
 * and too old one millisecond later.
 */

export function quarterEndInstant(period: string): Date {
  return new Date(quarterEndLastMs(period) ?? Number.NaN);
}

/** The last instant at which `period` is still at most `maxAgeDays` old. */
export function periodFreshUntil(period: string, maxAgeDays: number): Date {
  return new Date(quarterEndInstant(period).getTime() + maxAgeDays * DAY_MS);
}

export function isPeriodTooOld(period: string, now: Date, maxAgeDays: number): boolean {
  return now.getTime() > periodFreshUntil(period, maxAgeDays).getTime();
}

/**
 * The newest quarter end that the rule calls too old at `now`: every quarter end up to it is, every
 * later one is not. What the rule makes of any filing at `now` follows from it alone, so two
 * instants with the same answer here leave out the same investors (the derivation cache's key).
 */
export function newestTooOldPeriod(now: Date, maxAgeDays: number): string {
  let period = quarterEndOnOrBefore(now);
  while (!isPeriodTooOld(period, now, maxAgeDays)) period = previousQuarterEnd(period)!;
  return period;
}
