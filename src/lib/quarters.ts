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
