import type { Importance } from '../../model/calendar-event.js';
import { COUNTRY_NAMES } from './countries.js';
import { requireCuration } from './curation-metadata.js';
import type { IngestedEvent } from './curated-event.js';
import { countryOfCurrency } from './currencies.js';
import { cleanEventName } from './event-fields.js';
import type { ProviderRow } from './provider-export.js';
import { parseClock, parseUsDate, parseZonedInstant, zonedToInstant } from './scheduled-time.js';
import type { Sidecar } from './sidecar.js';
import { SourceProblem, quote } from '../source-problem.js';

const HOLIDAY_CATEGORY = 'holiday';
/** Category of a provider event whose title matches no keyword and whose sidecar names no default. */
const FALLBACK_CATEGORY = 'other';

const IMPORTANCE_BY_IMPACT: Readonly<Record<string, Importance>> = { high: 'high', medium: 'medium', low: 'low' };

/** First keyword of the sidecar's mapping found in the title (case-insensitive), else the default. */
function categoryOfTitle(title: string, sidecar: Sidecar): string {
  const lower = title.toLowerCase();
  const match = sidecar.categories.find(([keyword]) => lower.includes(keyword.toLowerCase()));
  return match?.[1] ?? sidecar.defaultCategory ?? FALLBACK_CATEGORY;
}

/**
 * The provider's XML export writes `date` + `time` in UTC (checked against known release times:
 * the US 09:45 ET flash PMI is listed at 1:45pm in summer, Australia's 09:00 AEDT one at 10:00pm
 * the day before), while its JSON export carries New York offsets. So UTC, unless the sidecar
 * names another zone for an export that is written otherwise.
 */
const PROVIDER_XML_DEFAULT_ZONE = 'UTC';

export function providerXmlZone(sidecar: Sidecar): string {
  return sidecar.meta.timeZone ?? PROVIDER_XML_DEFAULT_ZONE;
}

function scheduledAtOf(row: ProviderRow, sidecar: Sidecar): string {
  if (row.when.kind === 'zoned') {
    const instant = parseZonedInstant(row.when.dateTime);
    if (!instant) throw new SourceProblem(`date ${quote(row.when.dateTime)} is not an ISO 8601 date-time with an offset`);
    return instant;
  }
  const date = parseUsDate(row.when.date);
  if (!date) throw new SourceProblem(`date ${quote(row.when.date)} is not MM-DD-YYYY`);
  const clock = parseClock(row.when.time);
  if (!clock) throw new SourceProblem(`time ${quote(row.when.time)} is not h:mmam/pm, "All Day" or "Tentative"`);
  return zonedToInstant(date, clock, providerXmlZone(sidecar));
}

/**
 * A provider row -> a record without id. Bank holidays are kept (category "holiday", importance
 * low): a market closure is calendar information users filter on.
 */
export function normaliseProviderRow(row: ProviderRow, sidecar: Sidecar): IngestedEvent {
  if (row.title === '') throw new SourceProblem('missing title');
  const country = countryOfCurrency(row.currency);
  if (!country) {
    throw new SourceProblem(
      row.currency === ''
        ? 'missing country (currency code)'
        : `currency ${quote(row.currency)} cannot be placed on one country (known: USD, EUR, GBP, JPY, KRW, CNY, CAD, AUD, NZD, CHF)`,
    );
  }
  const impact = row.impact.toLowerCase();
  const holiday = impact === 'holiday';
  const importance = holiday ? 'low' : IMPORTANCE_BY_IMPACT[impact];
  if (!importance) throw new SourceProblem(`impact ${quote(row.impact)} is not High, Medium, Low or Holiday`);
  const curation = requireCuration(sidecar.meta);
  const eventName = cleanEventName(row.title);
  return {
    eventName,
    scheduledAt: scheduledAtOf(row, sidecar),
    country,
    countryName: COUNTRY_NAMES[country]!,
    category: holiday ? HOLIDAY_CATEGORY : categoryOfTitle(eventName, sidecar),
    importance,
    forecastValue: row.forecast,
    previousValue: row.previous,
    actualValue: row.actual,
    verifiedAt: curation.verifiedAt,
    license: curation.license,
    attribution: curation.attribution,
  };
}
