import { BoundedTextMemo } from '../../lib/bounded-text-memo.js';
import { wallTimeToInstant } from '../../lib/zoned-time.js';
import { yearProblem } from '../date-range.js';
import { SourceProblem, quote } from '../source-problem.js';

/** ISO 8601 date-time that names its zone (Z or an offset); fractions beyond ms are cut. */
const ZONED_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)$/i;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface LocalDate {
  year: number;
  month: number;
  day: number;
}
export interface ClockTime {
  hour: number;
  minute: number;
  second: number;
}

const MIDNIGHT: ClockTime = { hour: 0, minute: 0, second: 0 };

/**
 * A year outside the accepted range is not a typo to guess at (`0026` would become 1926): the
 * value is refused with that reason, whichever reader found it.
 */
function checkYear(year: number, value: string): void {
  const problem = yearProblem(year);
  if (problem !== undefined) throw new SourceProblem(`${problem} in ${quote(value.trim())}`);
}

function isRealDate({ year, month, day }: LocalDate): boolean {
  const probe = new Date(Date.UTC(year, month - 1, day));
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

function isRealClock({ hour, minute, second }: ClockTime): boolean {
  return hour <= 23 && minute <= 59 && second <= 59;
}

/** A date-time with an explicit zone -> UTC instant with ms. Undefined for anything else; a SourceProblem for a year out of range. */
export function parseZonedInstant(value: string): string | undefined {
  const m = ZONED_DATE_TIME.exec(value.trim());
  if (!m) return undefined;
  const date = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  checkYear(date.year, value);
  const clock = { hour: Number(m[4]), minute: Number(m[5]), second: Number(m[6] ?? 0) };
  if (!isRealDate(date) || !isRealClock(clock)) return undefined;
  const millis = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  const zone = m[8]!.toUpperCase();
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const hours = Number(digits.slice(0, 2));
    const minutes = Number(digits.slice(2) || '0');
    if (hours > 23 || minutes > 59) return undefined;
    offsetMinutes = sign * (hours * 60 + minutes);
  }
  const utc = Date.UTC(date.year, date.month - 1, date.day, clock.hour, clock.minute, clock.second, millis) - offsetMinutes * 60_000;
  return new Date(utc).toISOString();
}

/** `YYYY-MM-DD` -> a real calendar date, or undefined. */
export function parseIsoDate(value: string): LocalDate | undefined {
  const m = ISO_DATE.exec(value.trim());
  if (!m) return undefined;
  const date = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  checkYear(date.year, value);
  return isRealDate(date) ? date : undefined;
}

/** Provider XML dates are `MM-DD-YYYY`. */
export function parseUsDate(value: string): LocalDate | undefined {
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(value.trim());
  if (!m) return undefined;
  const date = { year: Number(m[3]), month: Number(m[1]), day: Number(m[2]) };
  checkYear(date.year, value);
  return isRealDate(date) ? date : undefined;
}

/**
 * A time of day: `08:30`, `14:00:00` or the 12-hour `8:30am` of provider exports. "All Day" and
 * "Tentative" (and an empty time) mean the day is known but not the hour: they give midnight of
 * the zone, so the event still sorts and filters on the right day.
 */
export function parseClock(value: string): ClockTime | undefined {
  const text = value.trim().toLowerCase();
  if (text === '' || text === 'all day' || text === 'tentative') return MIDNIGHT;
  const m24 = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (m24) {
    const clock = { hour: Number(m24[1]), minute: Number(m24[2]), second: Number(m24[3] ?? 0) };
    return isRealClock(clock) ? clock : undefined;
  }
  const m12 = /^(\d{1,2}):(\d{2})\s*(am|pm)$/.exec(text);
  if (m12) {
    const hour12 = Number(m12[1]);
    const minute = Number(m12[2]);
    if (hour12 < 1 || hour12 > 12 || minute > 59) return undefined;
    const hour = (hour12 % 12) + (m12[3] === 'pm' ? 12 : 0);
    return { hour, minute, second: 0 };
  }
  return undefined;
}

/** Zone names already checked: building an Intl.DateTimeFormat costs about 0.3 ms, and every event names its zone. */
const timeZones = new BoundedTextMemo((name) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return name.trim() !== '';
  } catch {
    return false;
  }
}, 256);

export function isTimeZone(name: string): boolean {
  return timeZones.of(name);
}

/**
 * Wall-clock time in an IANA zone -> UTC instant (src/lib/zoned-time.ts: a time in a spring-forward
 * gap moves forward by the gap, one that occurs twice is the first, on every host).
 */
export function zonedToInstant(date: LocalDate, clock: ClockTime, timeZone: string): string {
  if (!isTimeZone(timeZone))
    throw new SourceProblem(`unknown time zone ${quote(timeZone)} (expected an IANA name such as America/New_York)`);
  return new Date(wallTimeToInstant({ ...date, ...clock }, timeZone)).toISOString();
}
