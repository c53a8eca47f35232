import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TZDate } from '@date-fns/tz';
import { format } from 'date-fns';
import { stringify as toYaml } from 'yaml';
import { compareText } from '../lib/text-order.js';
import { DAY_MS, HOUR_MS } from '../lib/time.js';

/**
 * The sample calendar: curated central-bank decisions and macro releases of US, EU, GB, JP, KR,
 * CN, CA and AU from three weeks before `now` (with actual values) to about 120 days after it, in
 * the three curated formats, plus one provider weekly export in JSON and one in XML for the week
 * of `now`, each with its sidecar. Everything is computed from `now`: same now, same bytes.
 */

const PAST_DAYS = 21;
const FUTURE_DAYS = 120;

interface LocalDay {
  year: number;
  month: number;
  day: number;
}

type Cadence =
  /** Every `days` days from a fixed meeting date (central banks meet about every six weeks). */
  | { kind: 'every'; anchor: string; days: number }
  /** On a day of the month (clamped to its end, moved off weekends), optionally only some months. */
  | { kind: 'monthly'; day: number; months?: number[] }
  | { kind: 'firstFriday' };

interface Series {
  key: string;
  eventName: string;
  country: string;
  category: string;
  importance: 'low' | 'medium' | 'high';
  timeZone: string;
  time: string;
  cadence: Cadence;
  base: number;
  step: number;
  decimals: number;
  unit: string;
  /** Policy rates: the forecast is the consensus, equal to the decision. */
  forecastIsActual?: boolean;
}

const NY = 'America/New_York';
const rate = (key: string, eventName: string, country: string, timeZone: string, time: string, anchor: string, base: number): Series => ({
  key,
  eventName,
  country,
  category: 'central-bank',
  importance: 'high',
  timeZone,
  time,
  cadence: { kind: 'every', anchor, days: 42 },
  base,
  step: 0.25,
  decimals: 2,
  unit: '%',
  forecastIsActual: true,
});

const CENTRAL_BANKS: Series[] = [
  rate('fomc', 'FOMC Interest Rate Decision', 'US', NY, '14:00', '2026-01-28', 3.75),
  rate('ecb', 'ECB Deposit Facility Rate Decision', 'EU', 'Europe/Berlin', '14:15', '2026-02-05', 2.0),
  rate('boe', 'BoE Bank Rate Decision', 'GB', 'Europe/London', '12:00', '2026-02-05', 3.75),
  rate('boj', 'BoJ Policy Rate Decision', 'JP', 'Asia/Tokyo', '12:00', '2026-01-23', 0.75),
  rate('bok', 'BoK Base Rate Decision', 'KR', 'Asia/Seoul', '10:00', '2026-01-15', 2.5),
  rate('boc', 'BoC Interest Rate Decision', 'CA', 'America/Toronto', '09:45', '2026-01-28', 2.25),
  rate('rba', 'RBA Cash Rate Decision', 'AU', 'Australia/Sydney', '14:30', '2026-02-03', 3.6),
  {
    ...rate('lpr', 'PBoC 1-Year Loan Prime Rate', 'CN', 'Asia/Shanghai', '09:15', '2026-01-20', 3.0),
    cadence: { kind: 'monthly', day: 20 },
    step: 0.1,
  },
];

const QUARTER_FIRST = [1, 4, 7, 10];
const QUARTER_SECOND = [2, 5, 8, 11];
const release = (
  key: string,
  eventName: string,
  country: string,
  category: string,
  importance: Series['importance'],
  timeZone: string,
  time: string,
  cadence: Cadence,
  base: number,
  step: number,
  unit = '%',
  decimals = 1,
): Series => ({ key, eventName, country, category, importance, timeZone, time, cadence, base, step, decimals, unit });
const monthly = (day: number, months?: number[]): Cadence => ({ kind: 'monthly', day, ...(months ? { months } : {}) });

const RELEASES: Series[] = [
  release('us-cpi', 'Consumer Price Index (YoY)', 'US', 'inflation', 'high', NY, '08:30', monthly(12), 2.9, 0.1),
  release('eu-hicp', 'HICP Flash Estimate (YoY)', 'EU', 'inflation', 'high', 'Europe/Berlin', '11:00', monthly(1), 2.1, 0.1),
  release('gb-cpi', 'Consumer Price Index (YoY)', 'GB', 'inflation', 'high', 'Europe/London', '07:00', monthly(17), 3.6, 0.1),
  release('jp-cpi', 'National CPI (YoY)', 'JP', 'inflation', 'medium', 'Asia/Tokyo', '08:30', monthly(20), 2.8, 0.1),
  release('kr-cpi', 'Consumer Price Index (YoY)', 'KR', 'inflation', 'medium', 'Asia/Seoul', '08:00', monthly(3), 2.2, 0.1),
  release('cn-cpi', 'CPI (YoY)', 'CN', 'inflation', 'medium', 'Asia/Shanghai', '09:30', monthly(10), 0.2, 0.1),
  release('ca-cpi', 'Consumer Price Index (YoY)', 'CA', 'inflation', 'high', 'America/Toronto', '08:30', monthly(18), 2.2, 0.1),
  release('au-cpi', 'Monthly CPI Indicator (YoY)', 'AU', 'inflation', 'medium', 'Australia/Sydney', '11:30', monthly(26), 3.0, 0.1),
  release('us-gdp', 'GDP Growth Rate (QoQ, annualized)', 'US', 'gdp', 'high', NY, '08:30', monthly(29, QUARTER_FIRST), 2.1, 0.4),
  release('eu-gdp', 'GDP Flash Estimate (QoQ)', 'EU', 'gdp', 'medium', 'Europe/Berlin', '11:00', monthly(30, QUARTER_FIRST), 0.2, 0.1),
  release('gb-gdp', 'GDP (MoM)', 'GB', 'gdp', 'medium', 'Europe/London', '07:00', monthly(13), 0.1, 0.1),
  release('jp-gdp', 'GDP Preliminary (QoQ)', 'JP', 'gdp', 'medium', 'Asia/Tokyo', '08:50', monthly(16, QUARTER_SECOND), 0.3, 0.2),
  release('kr-gdp', 'GDP Advance Estimate (QoQ)', 'KR', 'gdp', 'medium', 'Asia/Seoul', '08:00', monthly(24, QUARTER_FIRST), 0.5, 0.2),
  release('cn-gdp', 'GDP (YoY)', 'CN', 'gdp', 'high', 'Asia/Shanghai', '10:00', monthly(16, QUARTER_FIRST), 4.8, 0.2),
  release('us-retail', 'Retail Sales (MoM)', 'US', 'retail-sales', 'high', NY, '08:30', monthly(16), 0.4, 0.3),
  release('gb-retail', 'Retail Sales (MoM)', 'GB', 'retail-sales', 'medium', 'Europe/London', '07:00', monthly(20), 0.2, 0.3),
  release('ca-retail', 'Retail Sales (MoM)', 'CA', 'retail-sales', 'medium', 'America/Toronto', '08:30', monthly(22), 0.3, 0.3),
  release('au-retail', 'Retail Sales (MoM)', 'AU', 'retail-sales', 'medium', 'Australia/Sydney', '11:30', monthly(6), 0.4, 0.2),
];

const ACTIVITY: Series[] = [
  release('us-ism', 'ISM Manufacturing PMI', 'US', 'pmi', 'high', NY, '10:00', monthly(1), 49.4, 0.6, ''),
  release('eu-pmi', 'HCOB Manufacturing PMI', 'EU', 'pmi', 'medium', 'Europe/Berlin', '10:00', monthly(1), 49.8, 0.5, ''),
  release('gb-pmi', 'S&P Global UK Manufacturing PMI', 'GB', 'pmi', 'medium', 'Europe/London', '09:30', monthly(1), 50.2, 0.5, ''),
  release('jp-pmi', 'au Jibun Bank Manufacturing PMI', 'JP', 'pmi', 'low', 'Asia/Tokyo', '09:30', monthly(1), 48.9, 0.4, ''),
  release('cn-pmi', 'NBS Manufacturing PMI', 'CN', 'pmi', 'high', 'Asia/Shanghai', '09:30', monthly(31), 49.6, 0.4, ''),
  release('kr-pmi', 'S&P Global Korea Manufacturing PMI', 'KR', 'pmi', 'low', 'Asia/Seoul', '09:30', monthly(1), 50.1, 0.5, ''),
  release('us-nfp', 'Nonfarm Payrolls', 'US', 'employment', 'high', NY, '08:30', { kind: 'firstFriday' }, 150, 40, 'K', 0),
  release('us-unemployment', 'Unemployment Rate', 'US', 'employment', 'high', NY, '08:30', { kind: 'firstFriday' }, 4.3, 0.1),
  release(
    'ca-employment',
    'Employment Change',
    'CA',
    'employment',
    'high',
    'America/Toronto',
    '08:30',
    { kind: 'firstFriday' },
    20,
    15,
    'K',
    1,
  ),
  release('au-employment', 'Employment Change', 'AU', 'employment', 'high', 'Australia/Sydney', '11:30', monthly(15), 25, 15, 'K', 1),
  release('gb-claimant', 'Claimant Count Change', 'GB', 'employment', 'medium', 'Europe/London', '07:00', monthly(14), 20, 10, 'K', 1),
  release('jp-unemployment', 'Unemployment Rate', 'JP', 'employment', 'low', 'Asia/Tokyo', '08:30', monthly(30), 2.5, 0.1),
  release('kr-unemployment', 'Unemployment Rate', 'KR', 'employment', 'low', 'Asia/Seoul', '08:00', monthly(12), 2.7, 0.1),
];

// ---- dates -------------------------------------------------------------------------------------

function utcDay(ms: number): LocalDay {
  const d = new Date(ms);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

function dayMs({ year, month, day }: LocalDay): number {
  return Date.UTC(year, month - 1, day);
}

function isoDay(d: LocalDay): string {
  return `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

function weekday(d: LocalDay): number {
  return new Date(dayMs(d)).getUTCDay();
}

/** Releases do not come out on weekends: Saturday and Sunday move to Monday. */
function offWeekend(d: LocalDay): LocalDay {
  const dow = weekday(d);
  return dow === 6 ? utcDay(dayMs(d) + 2 * DAY_MS) : dow === 0 ? utcDay(dayMs(d) + DAY_MS) : d;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Candidate local days of a series, a little wider than the window (the instant filter decides). */
function candidateDays(cadence: Cadence, from: LocalDay, to: LocalDay): LocalDay[] {
  const days: LocalDay[] = [];
  const lo = dayMs(from) - 2 * DAY_MS;
  const hi = dayMs(to) + 2 * DAY_MS;
  if (cadence.kind === 'every') {
    const [y, m, d] = cadence.anchor.split('-').map(Number) as [number, number, number];
    const anchor = Date.UTC(y, m - 1, d);
    const stepMs = cadence.days * DAY_MS;
    for (let t = anchor + Math.ceil((lo - anchor) / stepMs) * stepMs; t <= hi; t += stepMs) days.push(utcDay(t));
    return days;
  }
  for (let year = from.year, month = from.month - 1; ; month++) {
    if (month > 12) {
      month = 1;
      year++;
    }
    if (month === 0) {
      month = 12;
      year--;
    }
    if (Date.UTC(year, month - 1, 1) > hi) break;
    if (cadence.kind === 'firstFriday') {
      const first = { year, month, day: 1 };
      days.push({ year, month, day: 1 + ((5 - weekday(first) + 7) % 7) });
    } else if (!cadence.months || cadence.months.includes(month)) {
      days.push(offWeekend({ year, month, day: Math.min(cadence.day, daysInMonth(year, month)) }));
    }
  }
  return days.filter((d) => dayMs(d) >= lo && dayMs(d) <= hi);
}

function zoned(day: LocalDay, time: string, timeZone: string): TZDate {
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  return new TZDate(day.year, day.month - 1, day.day, hour, minute, 0, 0, timeZone);
}

// ---- values ------------------------------------------------------------------------------------

/** A deterministic number in [0, 1) for a key: the sample must not depend on Math.random. */
function unit(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) / 2 ** 32;
}

/** Plain code-unit order: localeCompare could differ between machines and break byte-identity. */
function byKey(a: SampleEvent, b: SampleEvent): number {
  return compareText(a.series.key, b.series.key);
}

interface SampleEvent {
  series: Series;
  day: LocalDay;
  at: TZDate;
  forecast: string;
  previous: string;
  actual: string;
}

function eventsOf(series: Series, now: Date): SampleEvent[] {
  const start = now.getTime() - PAST_DAYS * DAY_MS;
  const end = now.getTime() + FUTURE_DAYS * DAY_MS;
  const shown = (v: number) => `${v.toFixed(series.decimals)}${series.unit}`;
  let previous = series.base;
  const events: SampleEvent[] = [];
  for (const day of candidateDays(series.cadence, utcDay(start), utcDay(end))) {
    const at = zoned(day, series.time, series.timeZone);
    if (at.getTime() < start || at.getTime() > end) continue;
    const r = unit(`${series.key}/${isoDay(day)}`);
    // Policy rates move rarely; data releases wander around their base.
    const move = series.forecastIsActual ? (r < 0.15 ? -1 : r < 0.92 ? 0 : 1) : r < 0.3 ? -1 : r < 0.7 ? 0 : 1;
    const value = series.forecastIsActual ? Math.max(0, previous + move * series.step) : series.base + move * series.step;
    const surprise = unit(`${series.key}/${isoDay(day)}/forecast`) < 0.5 ? 0 : series.step;
    const forecast = series.forecastIsActual ? value : value + (r < 0.5 ? surprise : -surprise);
    events.push({
      series,
      day,
      at,
      forecast: shown(forecast),
      previous: shown(previous),
      actual: at.getTime() <= now.getTime() ? shown(value) : '',
    });
    previous = value;
  }
  return events;
}

// ---- curated files -----------------------------------------------------------------------------

const CURATED_LICENSE = 'CC-BY-4.0';
const CURATED_ATTRIBUTION = {
  source: 'Example Macro Desk',
  url: 'https://data.example.org/economic-calendar',
  text: 'Economic calendar curated by the Example Macro Desk from the issuing agencies’ release schedules.',
};

function verifiedAt(now: Date, daysBefore: number, hourUtc: number): string {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(midnight - daysBefore * DAY_MS + hourUtc * HOUR_MS).toISOString();
}

function centralBanksYaml(now: Date): string {
  const events = CENTRAL_BANKS.flatMap((s) => eventsOf(s, now))
    .sort((a, b) => a.at.getTime() - b.at.getTime() || byKey(a, b))
    .map((e) => ({
      eventName: e.series.eventName,
      date: isoDay(e.day),
      time: e.series.time,
      timeZone: e.series.timeZone,
      country: e.series.country,
      category: e.series.category,
      importance: e.series.importance,
      forecast: e.forecast,
      previous: e.previous,
      actual: e.actual,
    }));
  const header = '# Central-bank policy decisions. Times are local to each bank (timeZone); pdsnap converts them to UTC.\n';
  return header + toYaml({ license: CURATED_LICENSE, attribution: CURATED_ATTRIBUTION, verifiedAt: verifiedAt(now, 1, 9), events });
}

function releasesJson(now: Date): string {
  const events = RELEASES.flatMap((s) => eventsOf(s, now))
    .sort((a, b) => a.at.getTime() - b.at.getTime() || byKey(a, b))
    .map((e, index) => ({
      eventName: e.series.eventName,
      scheduledAt: format(e.at, "yyyy-MM-dd'T'HH:mm:ssxxx"),
      country: e.series.country,
      category: e.series.category,
      // Curators may write importance as 1..3 too; a few events do, to show both spellings.
      importance: index % 5 === 0 ? { low: 1, medium: 2, high: 3 }[e.series.importance] : e.series.importance,
      forecastValue: e.forecast,
      previousValue: e.previous,
      actualValue: e.actual,
    }));
  return `${JSON.stringify({ license: CURATED_LICENSE, attribution: CURATED_ATTRIBUTION, verifiedAt: verifiedAt(now, 2, 14), events }, null, 2)}\n`;
}

function csvCell(value: string): string {
  return /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function activityCsv(now: Date): string {
  const header = [
    'eventName',
    'date',
    'time',
    'timeZone',
    'country',
    'category',
    'importance',
    'forecast',
    'previous',
    'actual',
    'verifiedAt',
  ];
  const rows = ACTIVITY.flatMap((s) => eventsOf(s, now))
    .sort((a, b) => a.at.getTime() - b.at.getTime() || byKey(a, b))
    .map((e) => [
      e.series.eventName,
      isoDay(e.day),
      e.series.time,
      e.series.timeZone,
      e.series.country,
      e.series.category,
      e.series.importance,
      e.forecast,
      e.previous,
      e.actual,
      // Released events were re-checked when their actual value came in; the rest use the sidecar's date.
      e.actual === '' ? '' : verifiedAt(now, 1, 16),
    ]);
  return `${[header, ...rows].map((row) => row.map(csvCell).join(',')).join('\n')}\n`;
}

function activitySidecar(now: Date): string {
  return (
    '# Curation metadata for activity.csv (a CSV cannot carry it itself).\n' +
    toYaml({ license: CURATED_LICENSE, attribution: CURATED_ATTRIBUTION, verifiedAt: verifiedAt(now, 3, 10) })
  );
}

// ---- provider weekly exports -------------------------------------------------------------------

interface ProviderSample {
  weekday: number;
  time: string;
  currency: string;
  title: string;
  impact: 'High' | 'Medium' | 'Low' | 'Holiday';
  forecast: string;
  previous: string;
}

/**
 * Release times as New York wall-clock times; weekday 0 is Monday. The JSON export writes them
 * with their New York offset, the XML export in UTC (as the provider's XML does).
 */
const XML_WEEK: ProviderSample[] = [
  { weekday: 0, time: 'All Day', currency: 'JPY', title: 'Bank Holiday', impact: 'Holiday', forecast: '', previous: '' },
  { weekday: 1, time: '10:00am', currency: 'USD', title: 'CB Consumer Confidence', impact: 'High', forecast: '93.4', previous: '94.6' },
  { weekday: 1, time: '10:00am', currency: 'USD', title: 'Richmond Manufacturing Index', impact: 'Low', forecast: '-3', previous: '-4' },
  {
    weekday: 2,
    time: '4:00am',
    currency: 'EUR',
    title: 'German ifo Business Climate',
    impact: 'Medium',
    forecast: '88.4',
    previous: '88.4',
  },
  { weekday: 2, time: '8:00pm', currency: 'NZD', title: 'RBNZ Official Cash Rate', impact: 'High', forecast: '2.25%', previous: '2.50%' },
  { weekday: 3, time: '8:30am', currency: 'USD', title: 'Unemployment Claims', impact: 'Medium', forecast: '224K', previous: '220K' },
  { weekday: 4, time: '4:00am', currency: 'CHF', title: 'KOF Economic Barometer', impact: 'Low', forecast: '101.2', previous: '101.0' },
  { weekday: 4, time: 'Tentative', currency: 'CNY', title: 'Industrial Profits y/y', impact: 'Low', forecast: '', previous: '21.6%' },
];

const JSON_WEEK: ProviderSample[] = [
  { weekday: 0, time: '6:00am', currency: 'GBP', title: 'CBI Realized Sales', impact: 'Low', forecast: '-25', previous: '-27' },
  { weekday: 1, time: '3:35am', currency: 'AUD', title: 'RBA Gov Bullock Speaks', impact: 'Medium', forecast: '', previous: '' },
  { weekday: 2, time: '10:30am', currency: 'USD', title: 'Crude Oil Inventories', impact: 'Low', forecast: '-1.2M', previous: '3.4M' },
  { weekday: 2, time: '8:30am', currency: 'CAD', title: 'Corporate Profits q/q', impact: 'Low', forecast: '', previous: '1.8%' },
  { weekday: 3, time: '7:30am', currency: 'EUR', title: 'ECB Monetary Policy Meeting Accounts', impact: 'Low', forecast: '', previous: '' },
  { weekday: 3, time: '6:30pm', currency: 'JPY', title: 'Tokyo Core CPI y/y', impact: 'Medium', forecast: '2.7%', previous: '2.8%' },
  { weekday: 4, time: '5:00pm', currency: 'NZD', title: 'ANZ Business Confidence', impact: 'Low', forecast: '', previous: '53.1' },
];

function mondayOf(now: Date): LocalDay {
  const today = utcDay(now.getTime());
  return utcDay(dayMs(today) - ((weekday(today) + 6) % 7) * DAY_MS);
}

/** `8:30am` -> `08:30`, All Day / Tentative -> `00:00`. */
function clock24(time: string): string {
  const m = /^(\d{1,2}):(\d{2})(am|pm)$/.exec(time);
  if (!m) return '00:00';
  const hour = (Number(m[1]) % 12) + (m[3] === 'pm' ? 12 : 0);
  return `${String(hour).padStart(2, '0')}:${m[2]}`;
}

function providerDay(now: Date, sample: ProviderSample): LocalDay {
  return utcDay(dayMs(mondayOf(now)) + sample.weekday * DAY_MS);
}

function providerJson(now: Date): string {
  const events = JSON_WEEK.map((s) => ({
    title: s.title,
    country: s.currency,
    date: format(zoned(providerDay(now, s), clock24(s.time), NY), "yyyy-MM-dd'T'HH:mm:ssxxx"),
    impact: s.impact,
    forecast: s.forecast,
    previous: s.previous,
  }));
  return JSON.stringify(events);
}

function cdata(value: string): string {
  return `<![CDATA[${value}]]>`;
}

/** The XML export's `date` and `time`: the release instant in UTC, `h:mmam`; All Day and Tentative keep their day. */
function utcDateAndTime(day: LocalDay, time: string): { day: LocalDay; time: string } {
  if (!/^\d{1,2}:\d{2}(am|pm)$/.test(time)) return { day, time };
  const at = new Date(zoned(day, clock24(time), NY).getTime());
  const hour = at.getUTCHours();
  const clock = `${hour % 12 === 0 ? 12 : hour % 12}:${String(at.getUTCMinutes()).padStart(2, '0')}${hour < 12 ? 'am' : 'pm'}`;
  return { day: utcDay(at.getTime()), time: clock };
}

function providerXml(now: Date): string {
  const events = XML_WEEK.map((s) => {
    const { day: d, time } = utcDateAndTime(providerDay(now, s), s.time);
    const usDate = `${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}-${d.year}`;
    return [
      '<event>',
      `<title>${s.title}</title>`,
      `<country>${s.currency}</country>`,
      `<date>${cdata(usDate)}</date>`,
      `<time>${cdata(time)}</time>`,
      `<impact>${cdata(s.impact)}</impact>`,
      s.forecast ? `<forecast>${cdata(s.forecast)}</forecast>` : '<forecast />',
      s.previous ? `<previous>${cdata(s.previous)}</previous>` : '<previous />',
      `<url>${cdata(`https://markets.example.com/calendar/${s.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`)}</url>`,
      '</event>',
    ].join('\n');
  });
  return `<?xml version="1.0" encoding="windows-1252"?>\n<weeklyevents>\n${events.join('\n')}\n</weeklyevents>\n`;
}

const PROVIDER_CATEGORIES = {
  'Cash Rate': 'central-bank',
  RBA: 'central-bank',
  ECB: 'central-bank',
  CPI: 'inflation',
  'Unemployment Claims': 'employment',
  Confidence: 'sentiment',
  ifo: 'sentiment',
  KOF: 'sentiment',
  'Manufacturing Index': 'pmi',
  'Crude Oil': 'energy',
  Profits: 'earnings',
  Sales: 'retail-sales',
};

function providerSidecar(now: Date, formatName: 'provider-json' | 'provider-xml'): string {
  // The XML export's times are UTC, pdsnap's default for provider-xml, so its sidecar names no
  // zone. (The JSON export carries its own offsets; its sidecar's timeZone is not needed.)
  return (
    '# Curation metadata for the provider weekly export beside this file.\n' +
    (formatName === 'provider-xml' ? '# Its dates and times are UTC (the default for provider-xml; timeZone: would override it).\n' : '') +
    toYaml({
      format: formatName,
      ...(formatName === 'provider-json' ? { timeZone: NY } : {}),
      license: 'Example Markets Data Agreement 2026 (redistribution with attribution)',
      attribution: {
        source: 'Example Markets weekly calendar export',
        url: 'https://markets.example.com/calendar',
        text: 'Calendar data: Example Markets, checked by the Example Macro Desk.',
      },
      verifiedAt: verifiedAt(now, 1, 6),
      defaultCategory: 'other',
      categories: PROVIDER_CATEGORIES,
    })
  );
}

export async function writeSampleCalendar(sourcesRoot: string, now: Date): Promise<void> {
  const dir = path.join(sourcesRoot, 'calendar');
  const providerDir = path.join(dir, 'provider');
  await mkdir(providerDir, { recursive: true });
  const files: [string, string][] = [
    [path.join(dir, 'central-banks.yaml'), centralBanksYaml(now)],
    [path.join(dir, 'releases.json'), releasesJson(now)],
    [path.join(dir, 'activity.csv'), activityCsv(now)],
    [path.join(dir, 'activity.csv.meta.yaml'), activitySidecar(now)],
    [path.join(providerDir, 'ff_calendar_thisweek.json'), providerJson(now)],
    [path.join(providerDir, 'ff_calendar_thisweek.json.meta.yaml'), providerSidecar(now, 'provider-json')],
    [path.join(providerDir, 'ff_calendar_thisweek.xml'), providerXml(now)],
    [path.join(providerDir, 'ff_calendar_thisweek.xml.meta.yaml'), providerSidecar(now, 'provider-xml')],
  ];
  for (const [file, content] of files) await writeFile(file, content);
}
