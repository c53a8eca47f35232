import { describe, expect, it } from 'vitest';
import { CALENDAR_DRIFT, type CalendarWatch, type EventDates } from '../../../src/validate/drift/calendar.js';
import { notPassing } from './not-passing.js';

const GENERATED = '2026-11-22T00:00:00.000Z';
const snapshot = { label: 'calendar-20261122T000000Z-000000000000', generatedAt: GENERATED, facts: {} };

/** A schema-valid event (the fields the watch reads, and one it does not). */
const event = (n: number, scheduledAt: string, verifiedAt = '2026-11-20T00:00:00.000Z') => ({
  id: `evt-${n.toString(16).padStart(16, '0')}`,
  eventName: `Indicator ${n}`,
  scheduledAt,
  country: 'US',
  verifiedAt,
  importance: 'high',
});

describe('the calendar watch', () => {
  it('counts the events of the 30 days after generation, both ends in, and keeps every event by id', () => {
    const watch = CALENDAR_DRIFT.watch(snapshot);
    expect(watch.resource).toBe('events');
    const records = [
      event(1, '2026-11-21T23:59:59.999Z'),
      event(2, GENERATED),
      event(3, '2026-12-22T00:00:00.000Z'),
      event(4, '2026-12-22T00:00:00.001Z'),
    ];
    for (const record of records) watch.record(record);
    const result = watch.result();
    expect(result).toMatchObject({ dataset: 'calendar', generatedAt: GENERATED, eventsNext30Days: 2 });
    expect(result.events?.get('evt-0000000000000002')).toEqual({
      eventName: 'Indicator 2',
      scheduledAt: GENERATED,
      country: 'US',
      verifiedAt: '2026-11-20T00:00:00.000Z',
    });
    expect(result.events?.size).toBe(4);
  });

  it('refuses an event without an id, naming the snapshot', () => {
    const { id: _, ...anonymous } = event(1, GENERATED);
    expect(() => CALENDAR_DRIFT.watch(snapshot).record(anonymous)).toThrow(
      `${snapshot.label}: a record of events lacks what drift reads: id: `,
    );
  });
});

describe('the calendar checks', () => {
  const watch = (upcoming: number, events?: Array<[string, EventDates]>): CalendarWatch => ({
    dataset: 'calendar',
    generatedAt: '2026-11-23T00:00:00.000Z',
    eventsNext30Days: upcoming,
    ...(events ? { events: new Map(events) } : {}),
  });
  const at = (scheduledAt: string, verifiedAt = '2026-11-20T00:00:00.000Z', eventName = 'CPI'): EventDates => ({
    scheduledAt,
    verifiedAt,
    country: 'US',
    eventName,
  });
  const today = watch(60, [
    ['evt-a', at('2026-12-01T00:00:00.000Z')],
    ['evt-b', at('2026-12-02T00:00:00.000Z', '2026-11-20T00:00:00.000Z', 'GDP')],
  ]);
  const { defaults } = CALENDAR_DRIFT;

  it.each([
    ['a normal day', watch(55, [...today.events!]), defaults, {}],
    ['a quarter fewer events ahead', watch(45, [...today.events!]), defaults, { 'drift.calendar.upcoming': 'warn' }],
    ['half of them', watch(30, [...today.events!]), defaults, { 'drift.calendar.upcoming': 'fail' }],
    ['half of them, its thresholds unset', watch(30, [...today.events!]), {}, {}],
    [
      'an event moved four days: a new id, not lost',
      watch(60, [
        ['evt-a2', at('2026-12-05T00:00:00.000Z')],
        ['evt-b', at('2026-12-02T00:00:00.000Z', '2026-11-20T00:00:00.000Z', 'GDP')],
      ]),
      defaults,
      {},
    ],
    [
      'an event renamed: lost',
      watch(60, [
        ['evt-a2', at('2026-12-01T00:00:00.000Z', '2026-11-20T00:00:00.000Z', 'QA CPI')],
        ['evt-b', at('2026-12-02T00:00:00.000Z', '2026-11-20T00:00:00.000Z', 'GDP')],
      ]),
      defaults,
      { 'drift.calendar.upcoming-lost': 'fail' },
    ],
    [
      'an event verified earlier',
      watch(60, [
        ['evt-a', at('2026-12-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')],
        ['evt-b', at('2026-12-02T00:00:00.000Z', '2026-11-20T00:00:00.000Z', 'GDP')],
      ]),
      defaults,
      { 'drift.calendar.older-verification': 'fail' },
    ],
  ])('%s', (_, after, thresholds, failing) => {
    const results = CALENDAR_DRIFT.check(today, after, thresholds);
    expect(results.map((r) => r.rule)).toEqual([
      'drift.calendar.upcoming',
      'drift.calendar.upcoming-lost',
      'drift.calendar.older-verification',
    ]);
    expect(notPassing(results)).toEqual(failing);
  });

  it('judges only the count ahead where a side does not know its events', () => {
    expect(CALENDAR_DRIFT.check(watch(60), today, defaults).map((r) => r.rule)).toEqual(['drift.calendar.upcoming']);
  });
});
