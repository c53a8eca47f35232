import { afterEach, describe, expect, it } from 'vitest';
import { wallTimeToInstant, type WallTime } from '../../src/lib/zoned-time.js';

const at = (year: number, month: number, day: number, hour: number, minute: number): WallTime => ({
  year,
  month,
  day,
  hour,
  minute,
  second: 0,
});
const iso = (wall: WallTime, zone: string) => new Date(wallTimeToInstant(wall, zone)).toISOString();

// Node applies a TZ set at run time to Date's local-time arithmetic: the hosts an operator may have.
const HOSTS = ['UTC', 'America/Los_Angeles', 'Europe/London', 'Europe/Berlin', 'Australia/Sydney', 'Asia/Tokyo'];
const hostZone = process.env.TZ;
afterEach(() => {
  if (hostZone === undefined) delete process.env.TZ;
  else process.env.TZ = hostZone;
});

describe('wallTimeToInstant', () => {
  it.each([
    ['an ordinary winter day in New York', at(2026, 11, 20, 8, 30), 'America/New_York', '2026-11-20T13:30:00.000Z'],
    ['an ordinary summer day in New York', at(2026, 7, 20, 8, 30), 'America/New_York', '2026-07-20T12:30:00.000Z'],
    ['the hour New York repeats: the first, daylight time', at(2026, 11, 1, 1, 30), 'America/New_York', '2026-11-01T05:30:00.000Z'],
    ['the hour London repeats: the first, summer time', at(2026, 10, 25, 1, 30), 'Europe/London', '2026-10-25T00:30:00.000Z'],
    ['the hour Sydney repeats: the first, daylight time', at(2026, 4, 5, 2, 30), 'Australia/Sydney', '2026-04-04T15:30:00.000Z'],
    ['the half hour Lord Howe repeats: the first', at(2026, 4, 5, 1, 45), 'Australia/Lord_Howe', '2026-04-04T14:45:00.000Z'],
    ['the hour New York skips: moved forward by the gap', at(2026, 3, 8, 2, 30), 'America/New_York', '2026-03-08T07:30:00.000Z'],
    ['the hour London skips: moved forward by the gap', at(2026, 3, 29, 1, 30), 'Europe/London', '2026-03-29T01:30:00.000Z'],
  ])('%s, whatever the host time zone', (_name, wall, zone, expected) => {
    for (const host of HOSTS) {
      process.env.TZ = host;
      expect(iso(wall, zone), `on a ${host} host`).toBe(expected);
    }
  });
});
