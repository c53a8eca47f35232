import type { z } from 'zod';
import { CalendarEvent } from '../../model/calendar-event.js';
import type { RuleResult } from '../../model/rule-result.js';
import { DAY_MS } from '../../lib/time.js';
import {
  type DatasetDrift,
  graded,
  type OwnThresholds,
  pair,
  sampleText,
  share,
  shareCheck,
  type WatchedSnapshot,
  type Watcher,
  warnFail,
  readWatched,
} from './core.js';
import { datasetThresholds, STEADY } from './thresholds.js';

/**
 * Drift of the calendar: besides the count and ids of the events, the near future does not empty,
 * an event still ahead leaves only when it is cancelled or moved, and an event's verification only
 * moves forward.
 */

/** What the calendar drift needs of one event. */
export interface EventDates {
  scheduledAt: string;
  verifiedAt: string;
  /** What, with where, tells a moved event (a new time, so a new id) from a lost one. */
  country?: string;
  eventName?: string;
}

/** What the calendar watch knows of a snapshot. */
export interface CalendarWatch {
  dataset: 'calendar';
  generatedAt: string;
  eventsNext30Days: number;
  /** Every event by id; absent where only the count of the next 30 days is known. */
  events?: ReadonlyMap<string, EventDates>;
}

const THRESHOLDS = datasetThresholds(['events'], {
  /** Events scheduled in the 30 days after generation, fewer by more than this. */
  ...warnFail('upcomingEvents'),
  /** Share of the events still ahead of the new snapshot's generation that are gone. */
  ...warnFail('upcomingLost'),
  /** Share of the events in both whose verifiedAt went back (an older copy of a file). */
  ...warnFail('olderVerification'),
});
export type CalendarDriftThresholds = z.infer<typeof THRESHOLDS.schema>;

const DEFAULTS: CalendarDriftThresholds = {
  // Past events roll off as weeks pass: the count may shrink a little every day; lost ids are normal.
  resources: { events: { ...STEADY, shrinkWarnPercent: 20, shrinkFailPercent: 40, lostKeysWarnPercent: 50, lostKeysFailPercent: null } },
  upcomingEventsWarnPercent: 20,
  upcomingEventsFailPercent: 40,
  // An event still ahead leaves only when it is cancelled or moved (its id names its time): a few.
  upcomingLostWarnPercent: 5,
  upcomingLostFailPercent: 20,
  // Verification only moves forward: an event verified earlier than before comes from an older copy.
  olderVerificationWarnPercent: 0,
  olderVerificationFailPercent: 5,
};

/** The window after generation whose events the upcoming check counts. */
const THIRTY_DAYS_MS = 30 * DAY_MS;
/** An event gone from its time but found this close to it, same country and name, was moved. */
const MOVED_WITHIN_MS = 7 * DAY_MS;

/** What the watch reads of an event. */
const WatchedEvent = CalendarEvent.pick({ id: true, scheduledAt: true, verifiedAt: true, country: true, eventName: true }).strip();

function watch(snapshot: WatchedSnapshot): Watcher<CalendarWatch> {
  const from = Date.parse(snapshot.generatedAt);
  let upcoming = 0;
  const events = new Map<string, EventDates>();
  return {
    resource: 'events',
    record(record) {
      const { id, ...event } = readWatched(WatchedEvent, record, snapshot, 'events');
      const at = Date.parse(event.scheduledAt);
      if (at >= from && at <= from + THIRTY_DAYS_MS) upcoming += 1;
      events.set(id, event);
    },
    result: () => ({ dataset: 'calendar', generatedAt: snapshot.generatedAt, eventsNext30Days: upcoming, events }),
  };
}

function check(before: CalendarWatch, after: CalendarWatch, thresholds: OwnThresholds<CalendarDriftThresholds>): RuleResult[] {
  const drop = share(before.eventsNext30Days - after.eventsNext30Days, before.eventsNext30Days);
  const observed = `${before.eventsNext30Days} -> ${after.eventsNext30Days} events in the 30 days after generation`;
  const upcoming = graded('drift.calendar.upcoming', observed, drop, pair(thresholds, 'upcomingEvents'), 'fewer upcoming events', observed);
  if (!before.events || !after.events) return [upcoming];
  return [upcoming, ...eventChecks(before.events, after.events, after.generatedAt, thresholds)];
}

/**
 * Events compared by id. An event still ahead of the new snapshot leaves only when it is cancelled
 * or moved; a whole file of them leaving (renamed events, another environment's ids, a file cut
 * short) is a source problem, whatever the counts say. And an event's verifiedAt only moves
 * forward: one verified earlier than before was read from an older copy of its file.
 */
function eventChecks(
  before: ReadonlyMap<string, EventDates>,
  after: ReadonlyMap<string, EventDates>,
  generatedAfter: string,
  thresholds: OwnThresholds<CalendarDriftThresholds>,
): RuleResult[] {
  const from = Date.parse(generatedAfter);
  const ahead = [...before].filter(([, event]) => Date.parse(event.scheduledAt) >= from);
  // An event's id names its time: one rescheduled, or whose tentative time became exact, is gone
  // under its old id and there under a new one. That is the calendar doing its job, not a loss.
  const timesOf = new Map<string, number[]>();
  for (const event of after.values()) {
    const what = `${event.country}\u0000${event.eventName}`;
    const times = timesOf.get(what);
    if (times) times.push(Date.parse(event.scheduledAt));
    else timesOf.set(what, [Date.parse(event.scheduledAt)]);
  }
  const moved = (event: EventDates) =>
    event.eventName !== undefined &&
    (timesOf.get(`${event.country}\u0000${event.eventName}`) ?? []).some(
      (at) => Math.abs(at - Date.parse(event.scheduledAt)) <= MOVED_WITHIN_MS,
    );
  const lost = ahead.filter(([id, event]) => !after.has(id) && !moved(event));
  const inBoth = [...before].filter(([id]) => after.has(id));
  const older = inBoth.filter(([id, event]) => Date.parse(after.get(id)!.verifiedAt) < Date.parse(event.verifiedAt));
  const name = (list: ReadonlyArray<[string, EventDates]>, what: (id: string, event: EventDates) => string) =>
    sampleText(list, ([id, event]) => what(id, event), ', ');
  return [
    shareCheck(
      'drift.calendar.upcoming-lost',
      { part: lost.length, whole: ahead.length, of: 'events still ahead gone' },
      pair(thresholds, 'upcomingLost'),
      'of the events still ahead gone',
      {
        none: 'no event still ahead is gone',
        some: `, e.g. ${name(lost, (id, event) => `${id} (${event.scheduledAt})`)}: renamed, from another source, or a file cut short`,
      },
    ),
    shareCheck(
      'drift.calendar.older-verification',
      { part: older.length, whole: inBoth.length, of: 'events verified earlier than before' },
      pair(thresholds, 'olderVerification'),
      'of the events verified earlier than before',
      {
        none: 'no event was verified earlier than before',
        some: `, e.g. ${name(older, (id, event) => `${id} (${event.verifiedAt} -> ${after.get(id)!.verifiedAt})`)}: an older copy of a calendar file was read`,
      },
    ),
  ];
}

export const CALENDAR_DRIFT = {
  override: THRESHOLDS.override,
  defaults: DEFAULTS,
  keyed: ['events'],
  watch,
  check,
} satisfies DatasetDrift<CalendarDriftThresholds, CalendarWatch>;
