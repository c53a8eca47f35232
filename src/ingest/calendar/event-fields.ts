import type { Importance } from '../../model/calendar-event.js';
import { SourceProblem, quote } from '../source-problem.js';

/**
 * The names a curated event's fields may be written under, in CSV headers and JSON or YAML keys
 * alike, compared without case, spaces, `_` or `-` (`Forecast Value`, `forecast_value`).
 */
const EVENT_FIELDS: Readonly<Record<string, string>> = {
  eventname: 'eventName',
  name: 'eventName',
  scheduledat: 'scheduledAt',
  date: 'date',
  time: 'time',
  timezone: 'timeZone',
  country: 'country',
  category: 'category',
  importance: 'importance',
  forecastvalue: 'forecastValue',
  forecast: 'forecastValue',
  previousvalue: 'previousValue',
  previous: 'previousValue',
  actualvalue: 'actualValue',
  actual: 'actualValue',
  license: 'license',
  verifiedat: 'verifiedAt',
  attribution: 'attribution',
  attributionsource: 'attributionSource',
  attributionurl: 'attributionUrl',
  attributiontext: 'attributionText',
};

/** The field a column or key names, or undefined when it names none. */
export function eventFieldOf(name: string): string | undefined {
  const field = EVENT_FIELDS[name.toLowerCase().replace(/[\s_-]/g, '')];
  return field;
}

/**
 * A JSON or YAML event with its keys under their field names. A field written twice under two
 * names (`forecast` and `forecastValue`) is refused rather than one silently preferred; keys that
 * name no field are returned for the file's note: a value under a name pdsnap does not know is
 * never dropped without a word.
 */
export function withFieldNames(raw: Record<string, unknown>): { event: Record<string, unknown>; unknown: string[] } {
  const event: Record<string, unknown> = {};
  const writtenAs: Record<string, string> = {};
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const field = eventFieldOf(key);
    if (field === undefined) {
      unknown.push(key);
      continue;
    }
    if (writtenAs[field] !== undefined)
      throw new SourceProblem(`${field} is written twice, as ${quote(writtenAs[field])} and ${quote(key)}`);
    writtenAs[field] = key;
    event[field] = value;
  }
  return { event, unknown };
}

const IMPORTANCE_BY_WORD: Readonly<Record<string, Importance>> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  '1': 'low',
  '2': 'medium',
  '3': 'high',
};

/** Curated importance: low/medium/high (any case) or 1..3, 3 being high (as Profile B shows it). */
export function parseImportance(value: unknown): Importance {
  if (value === undefined || value === null || value === '') throw new SourceProblem('missing importance');
  const importance = IMPORTANCE_BY_WORD[String(value).trim().toLowerCase()];
  if (!importance) throw new SourceProblem(`importance ${quote(value)} is not low, medium, high or 1..3`);
  return importance;
}

/**
 * Forecast, previous and actual are formatted text ("3.2%", "245K"); a number written without
 * quotes is kept as JavaScript prints it. Missing means "" (for actual: not released yet).
 */
export function readValueText(value: unknown, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new SourceProblem(`${field} must be text or a number, got ${quote(JSON.stringify(value))}`);
}

export function requireText(value: unknown, field: string): string {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (value === undefined || value === null || value === '') throw new SourceProblem(`missing ${field}`);
  throw new SourceProblem(`${field} must be text, got ${quote(JSON.stringify(value))}`);
}

/** Event names compare and display with single spaces. */
export function cleanEventName(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}
