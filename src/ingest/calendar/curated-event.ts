import type { CalendarEvent } from '../../model/calendar-event.js';
import { resolveCountry } from './countries.js';
import { mergeCuration, readCurationMetadata, requireCuration, type CurationMetadata } from './curation-metadata.js';
import { cleanEventName, parseImportance, readValueText, requireText } from './event-fields.js';
import { parseClock, parseIsoDate, parseZonedInstant, zonedToInstant } from './scheduled-time.js';
import { SourceProblem, quote } from '../source-problem.js';

export type IngestedEvent = Omit<CalendarEvent, 'id'>;

/** Either `scheduledAt` with a zone, or `date` + `time` + `timeZone` (IANA; the file's by default). */
function readScheduledAt(raw: Record<string, unknown>, fileTimeZone: string | undefined): string {
  if (raw.scheduledAt !== undefined && raw.scheduledAt !== null && raw.scheduledAt !== '') {
    const text = requireText(raw.scheduledAt, 'scheduledAt');
    const instant = parseZonedInstant(text);
    if (!instant) {
      throw new SourceProblem(`scheduledAt ${quote(text)} is not an ISO 8601 date-time with a zone (e.g. 2026-11-23T08:30:00-05:00)`);
    }
    return instant;
  }
  if (raw.date === undefined || raw.date === null || raw.date === '') {
    throw new SourceProblem('missing scheduledAt (or date + time + timeZone)');
  }
  const dateText = requireText(raw.date, 'date');
  const date = parseIsoDate(dateText);
  if (!date) throw new SourceProblem(`date ${quote(dateText)} is not a YYYY-MM-DD calendar date`);
  const timeText = requireText(raw.time, 'time');
  const clock = parseClock(timeText);
  if (!clock) throw new SourceProblem(`time ${quote(timeText)} is not HH:MM, h:mmam/pm, "All Day" or "Tentative"`);
  const timeZone = raw.timeZone === undefined || raw.timeZone === '' ? fileTimeZone : requireText(raw.timeZone, 'timeZone');
  if (!timeZone) throw new SourceProblem('missing timeZone for date + time (per event or per file)');
  return zonedToInstant(date, clock, timeZone);
}

/**
 * One curated event (a JSON/YAML object or a CSV row turned into one) -> a record without id.
 * The event's own license/attribution/verifiedAt win over the file's.
 */
export function normaliseCuratedEvent(raw: Record<string, unknown>, fileMeta: CurationMetadata): IngestedEvent {
  const eventName = cleanEventName(requireText(raw.eventName ?? raw.name, 'eventName'));
  const countryText = requireText(raw.country, 'country');
  const country = resolveCountry(countryText);
  if (!country)
    throw new SourceProblem(
      `unknown country ${quote(countryText)} (expected an ISO 3166-1 alpha-2 code or a country name from the country table)`,
    );
  const eventMeta = readCurationMetadata(raw);
  const scheduledAt = readScheduledAt(raw, eventMeta.timeZone ?? fileMeta.timeZone);
  const curation = requireCuration(mergeCuration(fileMeta, eventMeta));
  return {
    eventName,
    scheduledAt,
    country: country.code,
    countryName: country.name,
    category: requireText(raw.category, 'category'),
    importance: parseImportance(raw.importance),
    forecastValue: readValueText(raw.forecastValue ?? raw.forecast, 'forecastValue'),
    previousValue: readValueText(raw.previousValue ?? raw.previous, 'previousValue'),
    actualValue: readValueText(raw.actualValue ?? raw.actual, 'actualValue'),
    verifiedAt: curation.verifiedAt,
    license: curation.license,
    attribution: curation.attribution,
  };
}
