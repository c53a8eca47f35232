/** Instants and UTC calendar dates, parsed one strict way everywhere. */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

const INSTANT_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Epoch ms of an ISO 8601 instant that names its zone (Z or an offset), on a date that exists
 * (2026-02-30 is refused, where Date.parse would roll it over to March). A zone-less time is
 * refused: it would be read in the machine's local zone, which is how time-zone bugs get in.
 */
export function instantMs(text: string | undefined): number | null {
  if (text === undefined) return null;
  const match = INSTANT_WITH_ZONE.exec(text);
  if (!match || !isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]))) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

/** 00:00:00.000Z of a YYYY-MM-DD date that exists; null otherwise. */
export function dateStartMs(text: string): number | null {
  const match = DATE_ONLY.exec(text);
  if (!match) return null;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return isCalendarDate(y, m, d) ? utcDayMs(y, m, d) : null;
}

/**
 * Epoch ms of a value of `--now` or `PDSNAP_CLOCK`: an instant with a zone, or a calendar date
 * (its start in UTC); null when it is neither (`nowRefusal` says why).
 */
export function nowValueMs(text: string): number | null {
  return DATE_ONLY.test(text) ? dateStartMs(text) : instantMs(text);
}

/** Why `nowValueMs` refused a value, quoting it: a day that does not exist (2026-02-30), or no instant at all. */
export function nowRefusal(text: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (match && !isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
    return `"${text}": ${match[0]} is not a day of the calendar`;
  }
  return `"${text}" is not an ISO 8601 instant with a zone, e.g. 2026-11-22T08:00:00Z`;
}

function isCalendarDate(y: number, m: number, d: number): boolean {
  const date = new Date(utcDayMs(y, m, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** 00:00Z of year-month-day as given: Date.UTC would read the years 0 to 99 as 1900 to 1999. */
function utcDayMs(y: number, m: number, d: number): number {
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  return date.getTime();
}
