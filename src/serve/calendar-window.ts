import { ParameterProblem } from './api-error.js';
import { DAY_MS, dateStartMs } from '../lib/time.js';

/** The longest Profile A calendar range, counted in days with both ends included. */
const MAX_CALENDAR_RANGE_DAYS = 93;

/** Half-open instant range [startMs, endMs) in Unix milliseconds. */
export interface InstantRange {
  startMs: number;
  endMs: number;
}

/** Parameters reach here checked as calendar dates by their schema (parameter-validation.ts). */
function utcDayStart(date: string): number {
  return dateStartMs(date) ?? Number.NaN;
}

/**
 * Profile A from/to: both inclusive UTC days, from <= to, and at most 93 days counting both ends,
 * so from=2026-01-01&to=2026-04-03 (93 days) is accepted and to=2026-04-04 (94 days) is not.
 */
export function calendarRange(from: string, to: string): InstantRange {
  const startMs = utcDayStart(from);
  const lastDayMs = utcDayStart(to);
  if (lastDayMs < startMs) throw new ParameterProblem('to', `to (${to}) must not be before from (${from})`);
  const days = (lastDayMs - startMs) / DAY_MS + 1;
  if (days > MAX_CALENDAR_RANGE_DAYS) {
    throw new ParameterProblem('to', `the range from ${from} to ${to} covers ${days} days; at most ${MAX_CALENDAR_RANGE_DAYS} are allowed`);
  }
  return { startMs, endMs: lastDayMs + DAY_MS };
}

/**
 * Profile B futureDays: from the start of the current UTC day through the end of the UTC day
 * `futureDays` days later. Starting at the day, not the instant, keeps today's already released
 * events (with their actual values) in the answer and makes the result the same all day long.
 */
export function futureWindow(now: Date, futureDays: number): InstantRange {
  const startMs = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return { startMs, endMs: startMs + (futureDays + 1) * DAY_MS };
}

/** Profile B article from/to: inclusive UTC days, either may be absent. */
export function publicationRange(from: string | undefined, to: string | undefined): InstantRange {
  const startMs = from === undefined ? -Infinity : utcDayStart(from);
  const endMs = to === undefined ? Infinity : utcDayStart(to) + DAY_MS;
  if (from !== undefined && to !== undefined && endMs <= startMs) {
    throw new ParameterProblem('to', `to (${to}) must not be before from (${from})`);
  }
  return { startMs, endMs };
}
