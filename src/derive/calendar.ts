import { CalendarEvent } from '../model/calendar-event.js';
import type { Sourced } from '../model/dataset-build.js';
import type { Rejection } from '../model/report.js';
import { sha256Hex } from '../lib/file-digest.js';
import { compareText } from '../lib/text-order.js';
import { formatZodIssues } from '../lib/zod-issues.js';

export type CalendarEventInput = Omit<CalendarEvent, 'id'>;

export interface CalendarDerivation {
  records: CalendarEvent[];
  rejections: Rejection[];
  facts: { oldestVerifiedAt?: string; coverageThrough?: string };
}

/** Names differing only in case, width or spacing ("CPI  m/m", "cpi m/m") are the same event. */
function normaliseEventName(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * `evt-` + 16 hex of SHA-256 over what identifies an event: where, when and what. Values that
 * change between re-ingests (actual, forecast, verifiedAt) and provider ids stay out, so an
 * event keeps its id when its actual value is released or it is verified again.
 */
export function calendarEventId(event: Pick<CalendarEvent, 'country' | 'scheduledAt' | 'eventName'>): string {
  const canonical = JSON.stringify([event.country, event.scheduledAt, normaliseEventName(event.eventName)]);
  return `evt-${sha256Hex(canonical).slice(0, 16)}`;
}

type Candidate = Sourced<CalendarEvent> & { order: number };

/** Most recently verified first; on a tie, the source that comes first in path order, then in input order. */
function preferred(a: Candidate, b: Candidate): number {
  return compareText(b.record.verifiedAt, a.record.verifiedAt) || compareText(a.source, b.source) || a.order - b.order;
}

function describe(entry: Sourced<CalendarEvent>): string {
  return `${entry.source} ${entry.location} (verifiedAt ${entry.record.verifiedAt})`;
}

/**
 * Ingested events -> published records at the build time `now`: ids, duplicates resolved, stable
 * order (scheduledAt, country, eventName), and the facts the freshness rules read.
 *
 * An event verified after `now` is rejected: a future verifiedAt (a wrong clock or a typo) would
 * keep the data set fresh forever and win every duplicate. Events scheduled in the future are the
 * point of a calendar; only verifiedAt is checked.
 */
export function deriveCalendar(input: Sourced<CalendarEventInput>[], now: Date): CalendarDerivation {
  const rejections: Rejection[] = [];
  const buildTime = now.toISOString();
  const byId = new Map<string, Candidate[]>();
  input.forEach((entry, order) => {
    const candidate = { id: calendarEventId(entry.record), ...entry.record };
    // Ingest already checks every field; this guards the published shape against anything it missed.
    const checked = CalendarEvent.safeParse(candidate);
    if (!checked.success) {
      rejections.push({
        source: entry.source,
        location: entry.location,
        reason: `invalid event: ${formatZodIssues(checked.error, undefined, 'event')}`,
      });
      return;
    }
    // Instants are canonical (UTC, milliseconds), so text order is time order.
    if (checked.data.verifiedAt > buildTime) {
      rejections.push({
        source: entry.source,
        location: entry.location,
        reason: `verifiedAt ${checked.data.verifiedAt} is after the build time ${buildTime}; check the source clock or date`,
      });
      return;
    }
    const group = byId.get(checked.data.id) ?? [];
    group.push({ record: checked.data, source: entry.source, location: entry.location, order });
    byId.set(checked.data.id, group);
  });

  const records: CalendarEvent[] = [];
  for (const group of byId.values()) {
    const [kept, ...others] = [...group].sort(preferred);
    records.push(kept!.record);
    for (const other of others) {
      rejections.push({
        source: other.source,
        location: other.location,
        reason:
          `duplicate of ${kept!.record.id} "${kept!.record.eventName}" (${kept!.record.country}, ${kept!.record.scheduledAt}): ` +
          `kept ${describe(kept!)}, the more recently verified one, over ${describe(other)}`,
      });
    }
  }

  records.sort(
    (a, b) => compareText(a.scheduledAt, b.scheduledAt) || compareText(a.country, b.country) || compareText(a.eventName, b.eventName),
  );

  const facts: CalendarDerivation['facts'] = {};
  if (records.length > 0) {
    // biome-ignore lint/complexity/useMathMinMax: ISO instants compare as strings; Math.min would make them NaN
    facts.oldestVerifiedAt = records.map((r) => r.verifiedAt).reduce((min, v) => (v < min ? v : min));
    facts.coverageThrough = records[records.length - 1]!.scheduledAt.slice(0, 10);
  }
  return { records, rejections, facts };
}
