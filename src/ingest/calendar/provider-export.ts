import { readXml } from '../xml-reader.js';
import { isObject, parseJsonSource } from './curated-document.js';
import { SourceProblem } from '../source-problem.js';

/**
 * One event of a provider weekly export (the ForexFactory-style layout), still in the
 * provider's terms. Only the fields the record model needs are kept: ids, urls and any other
 * payload fields are dropped right here.
 */
export interface ProviderRow {
  location: string;
  title: string;
  /** Currency code: USD, EUR, ... or "All". */
  currency: string;
  /** JSON exports: an ISO date-time with offset. XML exports: date `MM-DD-YYYY` + time in UTC (or the sidecar's zone). */
  when: { kind: 'zoned'; dateTime: string } | { kind: 'local'; date: string; time: string };
  impact: string;
  forecast: string;
  previous: string;
  actual: string;
}

function text(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number') return String(value);
  return '';
}

/** `[{"title","country":"USD","date":"2026-11-23T08:30:00-05:00","impact","forecast","previous"}, ...]` */
export function readProviderJson(source: string): ProviderRow[] {
  const value = parseJsonSource(source);
  if (!Array.isArray(value)) throw new SourceProblem('expected a provider weekly export: a JSON list of events');
  return value.map((item, index): ProviderRow => {
    const event = isObject(item) ? item : {};
    return {
      location: `[${index}]`,
      title: text(event.title),
      currency: text(event.country),
      when: { kind: 'zoned', dateTime: text(event.date) },
      impact: text(event.impact),
      forecast: text(event.forecast),
      previous: text(event.previous),
      actual: text(event.actual),
    };
  });
}

const EVENT_ARRAY = new Set(['event']);

/** `<weeklyevents><event><title/><country/><date/><time/><impact/><forecast/><previous/>...</event></weeklyevents>` */
export function readProviderXml(source: string): ProviderRow[] {
  // The one XML reader: values stay text ("0.3%", "8:30am"), CDATA merged, no entity declarations.
  const read = readXml(source, { arrays: EVENT_ARRAY });
  if (!read.ok) throw new SourceProblem(read.kind === 'syntax' ? `not well-formed XML: ${read.reason}` : read.reason, `line ${read.line}`);
  const document = read.root;
  const root = document.weeklyevents;
  if (root === undefined) throw new SourceProblem('expected a <weeklyevents> root element');
  const events = isObject(root) && Array.isArray(root.event) ? (root.event as unknown[]) : [];
  return events.map((item, index): ProviderRow => {
    const event = isObject(item) ? item : {};
    return {
      location: `event ${index + 1}`,
      title: text(event.title),
      currency: text(event.country),
      when: { kind: 'local', date: text(event.date), time: text(event.time) },
      impact: text(event.impact),
      forecast: text(event.forecast),
      previous: text(event.previous),
      actual: text(event.actual),
    };
  });
}
