import { DAY_MS, dateStartMs } from './time.js';

/** Calendar quarter ends (YYYY-MM-DD, UTC calendar dates) as used by Form 13F report periods. */

/** Form 13F is due 45 days after the quarter end. */
export const FILING_DEADLINE_DAYS = 45;

/**
 * A quarter end is a whole UTC day, so its age counts from the last millisecond of that day,
 * 23:59:59.999Z (null for a date that does not exist): the one rule of derive and validate.
 */
export function quarterEndLastMs(period: string): number | null {
  const start = dateStartMs(period);
  return start === null ? null : start + DAY_MS - 1;
}

const QUARTER_END_DAYS: Record<string, string> = { '03': '31', '06': '30', '09': '30', '12': '31' };

export function isQuarterEnd(period: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(period);
  return match !== null && QUARTER_END_DAYS[match[2]!] === match[3];
}

/**
 * The quarter end exactly one quarter before `period` (2026-03-31 -> 2025-12-31), or null when
 * `period` is not a quarter end, in which case it has no adjacent quarter to compare with.
 */
export function previousQuarterEnd(period: string): string | null {
  if (!isQuarterEnd(period)) return null;
  const year = Number(period.slice(0, 4));
  switch (period.slice(5, 7)) {
    case '03':
      return `${String(year - 1).padStart(4, '0')}-12-31`;
    case '06':
      return `${period.slice(0, 4)}-03-31`;
    case '09':
      return `${period.slice(0, 4)}-06-30`;
    default:
      return `${period.slice(0, 4)}-09-30`;
  }
}

/** The last quarter end on or before the UTC date of `instant` (2026-12-06T… -> 2026-09-30; 2026-09-30T… -> 2026-09-30). */
export function quarterEndOnOrBefore(instant: Date): string {
  const year = instant.getUTCFullYear();
  const date = instant.toISOString().slice(0, 10);
  const ends = ['03-31', '06-30', '09-30', '12-31'].map((end) => `${String(year).padStart(4, '0')}-${end}`);
  return ends.filter((end) => end <= date).at(-1) ?? `${String(year - 1).padStart(4, '0')}-12-31`;
}

/** A calendar quarter: the year and its quarter, 1 to 4 (EDGAR's index folders `<year>/QTR<quarter>`). */
export interface CalendarQuarter {
  year: number;
  quarter: 1 | 2 | 3 | 4;
}

/** The calendar quarter of a UTC day (YYYY-MM-DD) or of a quarter end. */
export function quarterOfDay(isoDay: string): CalendarQuarter {
  return {
    year: Number(isoDay.slice(0, 4)),
    quarter: (Math.floor((Number(isoDay.slice(5, 7)) - 1) / 3) + 1) as CalendarQuarter['quarter'],
  };
}

export function nextQuarter({ year, quarter }: CalendarQuarter): CalendarQuarter {
  return quarter === 4 ? { year: year + 1, quarter: 1 } : { year, quarter: (quarter + 1) as CalendarQuarter['quarter'] };
}

/** Every calendar quarter from `first` through `last`, in order; none when `first` comes after `last`. */
export function quartersThrough(first: CalendarQuarter, last: CalendarQuarter): CalendarQuarter[] {
  const quarters: CalendarQuarter[] = [];
  for (let q = first; q.year * 4 + q.quarter <= last.year * 4 + last.quarter; q = nextQuarter(q)) quarters.push(q);
  return quarters;
}

const QUARTER_ENDS = ['12-31', '03-31', '06-30', '09-30'] as const;

/**
 * The two report periods a Smart Money snapshot at `now` is made from, older first: the latest
 * quarter end whose 45-day filing deadline has passed on `now`'s UTC day (its filings are all due),
 * and the quarter before it (the trades baseline). The sample generator writes filings for these
 * two quarters, and `fetch` asks EDGAR for the indexes that list them.
 */
export function reportQuarters(now: Date): [previous: string, latest: string] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  // The quarter before the current one, counted as quarters since year 0 (index 0 = Q4 of the year before).
  let count = now.getUTCFullYear() * 4 + Math.floor(now.getUTCMonth() / 3);
  const endOf = (n: number) => {
    const year = Math.floor(n / 4) - (n % 4 === 0 ? 1 : 0);
    return `${String(year).padStart(4, '0')}-${QUARTER_ENDS[n % 4]}`;
  };
  while (dateStartMs(endOf(count))! + FILING_DEADLINE_DAYS * DAY_MS > today) count -= 1;
  return [endOf(count - 1), endOf(count)];
}
