import type { CalendarEvent, Importance } from '../../model/calendar-event.js';
import { IMPORTANCE_LEVEL } from '../../model/calendar-event.js';
import type { InstantRange } from '../calendar-window.js';
import { profileBCalendarEvent, type ProfileBCalendarEvent } from '../schemas/profile-b-shapes.js';
import { SelectionCache } from './selection-cache.js';
import { compareText } from '../../lib/text-order.js';

export interface CalendarIndex {
  /** Ordered by scheduledAt, then id. */
  events: readonly CalendarEvent[];
  /** scheduledAt of each event in Unix ms, for binary search. */
  times: readonly number[];
  /** Profile B projection of each event, same order. */
  profileB: readonly ProfileBCalendarEvent[];
  cache: SelectionCache<readonly CalendarEvent[]>;
  profileBCache: SelectionCache<readonly ProfileBCalendarEvent[]>;
}

export function indexCalendar(records: readonly CalendarEvent[]): CalendarIndex {
  const events = [...records].sort((a, b) => compareText(a.scheduledAt, b.scheduledAt) || compareText(a.id, b.id));
  return {
    events,
    times: events.map((e) => Date.parse(e.scheduledAt)),
    profileB: events.map(profileBCalendarEvent),
    cache: new SelectionCache(),
    profileBCache: new SelectionCache(),
  };
}

/** Index of the first event at or after `ms`. */
function lowerBound(times: readonly number[], ms: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((times[middle] as number) < ms) low = middle + 1;
    else high = middle;
  }
  return low;
}

function positionsIn(index: CalendarIndex, range: InstantRange): [number, number] {
  return [lowerBound(index.times, range.startMs), lowerBound(index.times, range.endMs)];
}

/** Profile A: events in the range, optionally of exactly one importance and one country. */
export function selectCalendar(
  index: CalendarIndex,
  range: InstantRange,
  filter: { importance?: Importance; country?: string },
): readonly CalendarEvent[] {
  const key = JSON.stringify([range.startMs, range.endMs, filter.importance, filter.country]);
  return index.cache.get(key, () => {
    const [first, end] = positionsIn(index, range);
    return index.events
      .slice(first, end)
      .filter(
        (e) =>
          (filter.importance === undefined || e.importance === filter.importance) &&
          (filter.country === undefined || e.country === filter.country),
      );
  });
}

/** Profile B: events in the window for one country, of at least the given importance level. */
export function selectProfileBCalendar(
  index: CalendarIndex,
  range: InstantRange,
  filter: { country: string; minImportance?: number },
): readonly ProfileBCalendarEvent[] {
  const key = JSON.stringify([range.startMs, range.endMs, filter.country, filter.minImportance]);
  return index.profileBCache.get(key, () => {
    const [first, end] = positionsIn(index, range);
    const selected: ProfileBCalendarEvent[] = [];
    for (let i = first; i < end; i += 1) {
      const event = index.events[i] as CalendarEvent;
      if (event.country !== filter.country) continue;
      if (filter.minImportance !== undefined && IMPORTANCE_LEVEL[event.importance] < filter.minImportance) continue;
      selected.push(index.profileB[i] as ProfileBCalendarEvent);
    }
    return selected;
  });
}
