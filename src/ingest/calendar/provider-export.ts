import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { isObject } from './curated-document.js';
import { SourceProblem } from './source-problem.js';

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
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new SourceProblem(`not valid JSON: ${(error as Error).message}`);
  }
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

const xmlParser = new XMLParser({
  // Values stay text: "0.3%" and "8:30am" must not become numbers; CDATA is merged into the text.
  parseTagValue: false,
  ignoreAttributes: true,
  processEntities: true,
  isArray: (tagName) => tagName === 'event',
});

/** `<weeklyevents><event><title/><country/><date/><time/><impact/><forecast/><previous/>...</event></weeklyevents>` */
export function readProviderXml(source: string): ProviderRow[] {
  const valid = XMLValidator.validate(source.trimStart());
  if (valid !== true) throw new SourceProblem(`not well-formed XML: ${valid.err.msg}`, `line ${valid.err.line}`);
  const document = xmlParser.parse(source.trimStart()) as Record<string, unknown>;
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
