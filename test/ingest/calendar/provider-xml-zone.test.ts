import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ingestCalendar } from '../../../src/ingest/calendar/index.js';

/**
 * One provider XML export of the week of Sunday 2026-11-01, when New York leaves daylight time
 * (02:00 EDT becomes 01:00 EST), read twice: `utc/` with a sidecar that names no zone, and
 * `new-york/` with a sidecar that overrides it with America/New_York.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/calendar/provider-utc');
const UTC_EXPORT = 'calendar/utc/ff_calendar_thisweek.xml';
const NEW_YORK_EXPORT = 'calendar/new-york/ff_calendar_thisweek.xml';
const HOUR = 3_600_000;

/** `YYYY-MM-DD HH:mm` of an instant on a zone's wall clock. */
function wallClock(instant: string, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(instant));
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`;
}

describe('provider XML export times', async () => {
  const result = await ingestCalendar(ROOT);
  const at = (source: string, name: string) => {
    const found = result.records.find((r) => r.source === source && r.record.eventName === name);
    if (!found) throw new Error(`no ${name} in ${source}`);
    return found.record.scheduledAt;
  };

  it('reads every event of both copies', () => {
    expect(result.rejections).toEqual([]);
    expect(result.records.filter((r) => r.source === UTC_EXPORT)).toHaveLength(7);
    expect(result.records.filter((r) => r.source === NEW_YORK_EXPORT)).toHaveLength(7);
  });

  it('takes date and time as UTC when the sidecar names no zone, which puts releases at their known local times', () => {
    // Each release at the time its publisher announces, on both sides of New York's change.
    expect(wallClock(at(UTC_EXPORT, 'Trade Balance'), 'Asia/Seoul')).toBe('2026-11-01 09:00');
    expect(wallClock(at(UTC_EXPORT, 'Manufacturing PMI'), 'Australia/Sydney')).toBe('2026-11-02 09:00'); // listed 10:00pm the day before
    expect(wallClock(at(UTC_EXPORT, 'Final Manufacturing PMI'), 'America/New_York')).toBe('2026-11-02 09:45');
    expect(wallClock(at(UTC_EXPORT, 'ISM Manufacturing PMI'), 'America/New_York')).toBe('2026-11-02 10:00');
    expect(wallClock(at(UTC_EXPORT, 'Cash Rate'), 'Australia/Sydney')).toBe('2026-11-03 14:30');
    expect(wallClock(at(UTC_EXPORT, 'Non-Farm Employment Change'), 'America/New_York')).toBe('2026-11-06 08:30');
    expect(at(UTC_EXPORT, 'Trade Balance')).toBe('2026-11-01T00:00:00.000Z');
    expect(at(UTC_EXPORT, 'Manufacturing PMI')).toBe('2026-11-01T22:00:00.000Z');
    expect(at(UTC_EXPORT, 'Bank Holiday')).toBe('2026-11-03T00:00:00.000Z'); // All Day: midnight of the export's zone
  });

  it('takes date and time in the zone a sidecar names instead, across the end of daylight time', () => {
    // 12:00am on Nov 1 is still EDT (UTC-4); everything after 02:00 that day is EST (UTC-5).
    expect(at(NEW_YORK_EXPORT, 'Trade Balance')).toBe('2026-11-01T04:00:00.000Z');
    expect(at(NEW_YORK_EXPORT, 'Manufacturing PMI')).toBe('2026-11-02T03:00:00.000Z');
    expect(at(NEW_YORK_EXPORT, 'ISM Manufacturing PMI')).toBe('2026-11-02T20:00:00.000Z');
    expect(at(NEW_YORK_EXPORT, 'Non-Farm Employment Change')).toBe('2026-11-06T18:30:00.000Z');
    const shift = (name: string) => (Date.parse(at(NEW_YORK_EXPORT, name)) - Date.parse(at(UTC_EXPORT, name))) / HOUR;
    expect(['Trade Balance', 'Manufacturing PMI', 'Cash Rate', 'Non-Farm Employment Change'].map(shift)).toEqual([4, 5, 5, 5]);
  });

  it('says in the build notes which zone each export was read in', () => {
    expect(result.notes).toEqual([
      {
        source: NEW_YORK_EXPORT,
        message: "provider XML dates and times read as America/New_York (the sidecar's timeZone, instead of the UTC default)",
      },
      {
        source: UTC_EXPORT,
        message: 'provider XML dates and times read as UTC (the default for provider-xml; a sidecar timeZone overrides it)',
      },
    ]);
  });
});
