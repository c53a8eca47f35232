import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { calendarEventId, deriveCalendar, type CalendarEventInput } from '../../src/derive/calendar.js';
import { ingestCalendar } from '../../src/ingest/calendar/index.js';
import type { Sourced } from '../../src/model/dataset-build.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/calendar');

function event(overrides: Partial<CalendarEventInput> = {}): CalendarEventInput {
  return {
    eventName: 'Consumer Price Index (YoY)',
    scheduledAt: '2026-12-10T13:30:00.000Z',
    country: 'US',
    countryName: 'United States',
    category: 'inflation',
    importance: 'high',
    forecastValue: '2.9%',
    previousValue: '3.0%',
    actualValue: '',
    verifiedAt: '2026-11-20T09:00:00.000Z',
    license: 'CC-BY-4.0',
    attribution: { source: 'Example Macro Desk', text: 'Curated by the Example Macro Desk.' },
    ...overrides,
  };
}

/** The build time every test derives at. */
const NOW = new Date('2026-11-22T12:00:00.000Z');

const at = (source: string, location: string, record: CalendarEventInput): Sourced<CalendarEventInput> => ({ source, location, record });

describe('calendarEventId', () => {
  it('is evt- and 16 hex digits, derived from country, time and name only', () => {
    const id = calendarEventId(event());
    expect(id).toMatch(/^evt-[0-9a-f]{16}$/);
    expect(calendarEventId(event({ actualValue: '2.8%', forecastValue: '2.7%', verifiedAt: '2026-12-10T15:00:00.000Z' }))).toBe(id);
    expect(calendarEventId(event({ eventName: '  consumer price   index (yoy)' }))).toBe(id);
    expect(calendarEventId(event({ country: 'CA' }))).not.toBe(id);
    expect(calendarEventId(event({ scheduledAt: '2026-12-10T14:30:00.000Z' }))).not.toBe(id);
    expect(calendarEventId(event({ eventName: 'Core CPI (YoY)' }))).not.toBe(id);
  });

  it('keeps an event id when a re-ingest brings its actual value and a new verifiedAt', async () => {
    const before = deriveCalendar((await ingestCalendar(path.join(FIXTURES, 'reingest/v1'))).records, NOW);
    const after = deriveCalendar((await ingestCalendar(path.join(FIXTURES, 'reingest/v2'))).records, NOW);
    expect(before.records).toHaveLength(1);
    expect(after.records).toHaveLength(1);
    expect(after.records[0]!.actualValue).toBe('2.8%');
    expect(before.records[0]!.actualValue).toBe('');
    expect(after.records[0]!.id).toBe(before.records[0]!.id);
  });
});

describe('deriveCalendar', () => {
  it('sorts by scheduledAt, then country, then event name', () => {
    const { records } = deriveCalendar(
      [
        at('a.yaml', 'events[0]', event({ scheduledAt: '2026-12-11T00:00:00.000Z', country: 'JP', countryName: 'Japan' })),
        at('a.yaml', 'events[1]', event({ eventName: 'Retail Sales (MoM)' })),
        at('a.yaml', 'events[2]', event({ country: 'CA', countryName: 'Canada' })),
        at('a.yaml', 'events[3]', event()),
      ],
      NOW,
    );
    expect(records.map((r) => `${r.scheduledAt} ${r.country} ${r.eventName}`)).toEqual([
      '2026-12-10T13:30:00.000Z CA Consumer Price Index (YoY)',
      '2026-12-10T13:30:00.000Z US Consumer Price Index (YoY)',
      '2026-12-10T13:30:00.000Z US Retail Sales (MoM)',
      '2026-12-11T00:00:00.000Z JP Consumer Price Index (YoY)',
    ]);
  });

  it('keeps the most recently verified of two duplicates and rejects the other, naming both', () => {
    const older = at('calendar/a.yaml', 'events[0]', event({ verifiedAt: '2026-11-15T09:00:00.000Z', forecastValue: 'old' }));
    const newer = at('calendar/b.json', 'events[4]', event({ verifiedAt: '2026-11-20T09:00:00.000Z', forecastValue: 'new' }));
    const { records, rejections } = deriveCalendar([older, newer], NOW);
    expect(records.map((r) => r.forecastValue)).toEqual(['new']);
    expect(rejections).toHaveLength(1);
    expect(rejections[0]).toMatchObject({ source: 'calendar/a.yaml', location: 'events[0]' });
    expect(rejections[0]!.reason).toContain('calendar/b.json events[4]');
    expect(rejections[0]!.reason).toContain('calendar/a.yaml events[0]');
    expect(rejections[0]!.reason).toContain(records[0]!.id);
  });

  it('breaks a verifiedAt tie between duplicates by source path order', () => {
    const { records, rejections } = deriveCalendar(
      [
        at('calendar/z.yaml', 'events[0]', event({ forecastValue: 'from z' })),
        at('calendar/m.yaml', 'events[0]', event({ forecastValue: 'from m' })),
      ],
      NOW,
    );
    expect(records.map((r) => r.forecastValue)).toEqual(['from m']);
    expect(rejections.map((r) => r.source)).toEqual(['calendar/z.yaml']);
  });

  it('finds duplicates across formats and spellings in real source files', async () => {
    const { records, rejections } = deriveCalendar((await ingestCalendar(path.join(FIXTURES, 'duplicates'))).records, NOW);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ attribution: { source: 'Desk B' }, scheduledAt: '2026-12-09T14:45:00.000Z' });
    expect(rejections).toEqual([
      expect.objectContaining({
        source: 'calendar/a-desk.yaml',
        location: 'events[0]',
        reason: expect.stringMatching(/^duplicate of evt-/),
      }),
    ]);
  });

  it('reports the oldest verifiedAt and coverageThrough as the UTC day of the last event', () => {
    const { facts } = deriveCalendar(
      [
        at('a.yaml', 'events[0]', event({ verifiedAt: '2026-11-18T10:00:00.000Z' })),
        // 23:30 in New York on 2027-03-04 is already the 5th in UTC.
        at('a.yaml', 'events[1]', event({ eventName: 'Late', scheduledAt: '2027-03-05T04:30:00.000Z' })),
        at(
          'a.yaml',
          'events[2]',
          event({ eventName: 'Early', scheduledAt: '2026-11-01T00:00:00.000Z', verifiedAt: '2026-11-21T00:00:00.000Z' }),
        ),
      ],
      NOW,
    );
    expect(facts).toEqual({ oldestVerifiedAt: '2026-11-18T10:00:00.000Z', coverageThrough: '2027-03-05' });
    expect(deriveCalendar([], NOW).facts).toEqual({});
  });

  it('rejects a record that does not fit the published schema instead of publishing it', () => {
    const { records, rejections } = deriveCalendar([at('a.yaml', 'events[0]', event({ scheduledAt: '2026-12-10T13:30:00Z' }))], NOW);
    expect(records).toEqual([]);
    expect(rejections[0]).toMatchObject({ source: 'a.yaml', location: 'events[0]', reason: expect.stringContaining('scheduledAt') });
  });

  it('rejects an event verified after the build time, while events scheduled later are fine', () => {
    const { records, rejections, facts } = deriveCalendar(
      [
        at('calendar/a.yaml', 'events[0]', event({ scheduledAt: '2027-06-01T12:00:00.000Z' })),
        at('calendar/a.yaml', 'events[1]', event({ eventName: 'GDP (QoQ)', verifiedAt: '2062-01-01T00:00:00.000Z' })),
      ],
      NOW,
    );
    expect(records.map((r) => r.scheduledAt)).toEqual(['2027-06-01T12:00:00.000Z']);
    expect(rejections).toEqual([
      {
        source: 'calendar/a.yaml',
        location: 'events[1]',
        reason: 'verifiedAt 2062-01-01T00:00:00.000Z is after the build time 2026-11-22T12:00:00.000Z; check the source clock or date',
      },
    ]);
    expect(facts.oldestVerifiedAt).toBe('2026-11-20T09:00:00.000Z');
  });

  it('keeps an event verified exactly at the build time, and rejects one verified 1 ms later', () => {
    const { records, rejections } = deriveCalendar(
      [
        at('a.yaml', 'events[0]', event({ verifiedAt: '2026-11-22T12:00:00.000Z' })),
        at('a.yaml', 'events[1]', event({ eventName: 'Later', verifiedAt: '2026-11-22T12:00:00.001Z' })),
      ],
      NOW,
    );
    expect(records.map((r) => r.verifiedAt)).toEqual(['2026-11-22T12:00:00.000Z']);
    expect(rejections.map((r) => r.location)).toEqual(['events[1]']);
  });

  it('does not let a duplicate with a future verifiedAt displace the one verified before the build', () => {
    const past = at('calendar/a.yaml', 'events[0]', event({ forecastValue: 'past' }));
    const future = at('calendar/b.yaml', 'events[0]', event({ forecastValue: 'future', verifiedAt: '2026-12-01T00:00:00.000Z' }));
    const { records, rejections } = deriveCalendar([past, future], NOW);
    expect(records.map((r) => r.forecastValue)).toEqual(['past']);
    expect(rejections).toEqual([
      expect.objectContaining({ source: 'calendar/b.yaml', reason: expect.stringMatching(/is after the build time/) }),
    ]);
  });
});
