import { HOUR_MS } from './time.js';

/**
 * Wall-clock time in an IANA zone to a UTC instant, the same on every machine. The zone's rules for
 * that very moment apply (08:30 in New York is 12:30Z in summer time, 13:30Z in winter time). The
 * two wall times a zone lacks or repeats are decided as Temporal's `compatible` disambiguation and
 * RFC 5545 do: a time in a spring-forward gap moves forward by the gap (02:30 -> 03:30 daylight
 * time), and a time that occurs twice when clocks fall back is the first of the two (01:30 daylight
 * time). Date objects are not used for this: their local-time arithmetic follows the host's own
 * time zone (TZ), so a repeated hour came out differently on a UTC server and a London laptop.
 */
export interface WallTime {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export function wallTimeToInstant(wall: WallTime, timeZone: string): number {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  // The zone's offsets half a day either side: a transition between them is what makes a wall time missing or repeated.
  const before = asUtc - offsetAt(asUtc - HALF_DAY_MS, timeZone);
  const after = asUtc - offsetAt(asUtc + HALF_DAY_MS, timeZone);
  const valid = [before, after].filter((instant) => instant + offsetAt(instant, timeZone) === asUtc);
  // Repeated: the earlier; missing: the offset from before the gap, which lands after it.
  return valid.length > 0 ? Math.min(...valid) : before;
}

const HALF_DAY_MS = 12 * HOUR_MS;

/** The zone's offset from UTC at an instant, in milliseconds (wall time minus UTC), to the second. */
function offsetAt(instant: number, timeZone: string): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(instant));
  const field = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((part) => part.type === type)!.value);
  const wall = Date.UTC(field('year'), field('month') - 1, field('day'), field('hour'), field('minute'), field('second'));
  return wall - Math.floor(instant / 1000) * 1000;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}
