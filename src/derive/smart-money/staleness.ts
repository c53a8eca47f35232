import { quarterEndLastMs } from '../../lib/quarters.js';
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
