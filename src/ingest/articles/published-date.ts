import type { WallTime } from '../../lib/zoned-time.js';
import { yearProblem } from '../date-range.js';

/**
 * Publication dates as editors and feeds write them, normalised to a UTC instant with milliseconds.
 * Accepted: a date alone (taken as 00:00:00Z, the Jekyll convention), an RFC 3339 / ISO 8601
 * date-time with an explicit offset (`T` or a space between date and time, `+09:00` or `+0900`),
 * and the RFC 822 dates of RSS 2.0 (`Sat, 21 Nov 2026 14:05:00 +0900`, `GMT`, `EST`...).
 * A date-time without an offset is refused: its instant would be a guess.
 */
export type DateParse = { instant: string } | { error: string };

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;
const RFC_822 =
  /^(?:[A-Za-z]{3},\s*)?(\d{1,2})\s+([A-Za-z]{3})\s+(\d{4}|\d{2})\s+(\d{2}):(\d{2})(?::(\d{2}))?\s*([+-]\d{4}|[A-Za-z]{1,3})$/;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** RFC 822 named zones, in minutes east of UTC. */
const NAMED_ZONES: Record<string, number> = {
  UT: 0,
  UTC: 0,
  GMT: 0,
  Z: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
};

interface Parts extends WallTime {
  millisecond: number;
  offsetMinutes: number;
}

export function parsePublishedDate(value: unknown): DateParse {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return { error: 'invalid date' };
    const problem = yearProblem(value.getUTCFullYear());
    return problem === undefined ? { instant: value.toISOString() } : { error: `${problem} in date ${value.toISOString()}` };
  }
  if (value === undefined || value === null || value === '') return { error: 'missing date' };
  if (typeof value !== 'string') return { error: `date must be written as text, got ${JSON.stringify(value)}` };
  const text = value.trim();
  const parts = matchDateOnly(text) ?? matchDateTime(text) ?? matchRfc822(text);
  if (parts === undefined) return { error: `unrecognised date "${text}"` };
  if (typeof parts === 'string') return { error: `${parts} in date "${text}"` };
  const problem = rangeProblem(parts);
  if (problem !== undefined) return { error: `${problem} in date "${text}"` };
  const utc =
    Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second, parts.millisecond) -
    parts.offsetMinutes * 60_000;
  return { instant: new Date(utc).toISOString() };
}

function matchDateOnly(text: string): Parts | undefined {
  const m = DATE_ONLY.exec(text);
  if (!m) return undefined;
  return { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: 0, minute: 0, second: 0, millisecond: 0, offsetMinutes: 0 };
}

function matchDateTime(text: string): Parts | string | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  if (m[8] === undefined) return 'no UTC offset';
  return {
    year: +m[1]!,
    month: +m[2]!,
    day: +m[3]!,
    hour: +m[4]!,
    minute: +m[5]!,
    second: m[6] === undefined ? 0 : +m[6],
    millisecond: m[7] === undefined ? 0 : +m[7].slice(0, 3).padEnd(3, '0'),
    offsetMinutes: numericOffset(m[8]),
  };
}

function matchRfc822(text: string): Parts | string | undefined {
  const m = RFC_822.exec(text);
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[2]!.toLowerCase()) + 1;
  if (month === 0) return `unknown month "${m[2]}"`;
  const zone = m[7]!;
  let offsetMinutes: number;
  if (/^[+-]/.test(zone)) offsetMinutes = numericOffset(zone);
  else {
    const named = NAMED_ZONES[zone.toUpperCase()];
    if (named === undefined) return `unknown time zone "${zone}"`;
    offsetMinutes = named;
  }
  // RFC 822 allows two-digit years; RFC 1123 (what RSS 2.0 recommends) uses four. RFC 5322 4.3
  // reads 00-49 as 20xx and 50-99 as 19xx: an old item's `99` is 1999, not a date far ahead.
  const twoDigits = +m[3]!;
  const year = m[3]!.length === 2 ? (twoDigits < 50 ? 2000 : 1900) + twoDigits : twoDigits;
  return {
    year,
    month,
    day: +m[1]!,
    hour: +m[4]!,
    minute: +m[5]!,
    second: m[6] === undefined ? 0 : +m[6],
    millisecond: 0,
    offsetMinutes,
  };
}

function numericOffset(zone: string): number {
  if (zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = +digits.slice(0, 2) * 60 + +digits.slice(2, 4);
  return zone.startsWith('-') ? -minutes : minutes;
}

function rangeProblem(p: Parts): string | undefined {
  const year = yearProblem(p.year);
  if (year !== undefined) return year;
  if (p.month < 1 || p.month > 12) return 'month out of range';
  const daysInMonth = new Date(Date.UTC(p.year, p.month, 0)).getUTCDate();
  if (p.day < 1 || p.day > daysInMonth) return 'day out of range';
  if (p.hour > 23 || p.minute > 59 || p.second > 59) return 'time out of range';
  if (Math.abs(p.offsetMinutes) > 18 * 60) return 'UTC offset out of range';
  return undefined;
}
