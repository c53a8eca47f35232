import { createHash } from 'node:crypto';
import type { Article, Locale } from '../../../src/model/article.js';
import type { CalendarEvent, Importance } from '../../../src/model/calendar-event.js';
import type { ConsensusRow, InvestorDetail, Position, TradeAction, TradeRow } from '../../../src/model/smart-money.js';

/** Realistic, schema-valid records for the server tests, dated relative to a fixed "now". */

const RIGHTS = { license: 'Editorial license 2026', holder: 'Harbor Street Media', reuse: 'with-attribution' } as const;

function hoursBefore(now: Date, hours: number): string {
  return new Date(now.getTime() - hours * 3_600_000).toISOString();
}

const EN_TOPICS = [
  ['fed-holds-rates-steady', 'Fed holds rates steady as inflation cools', 'The central bank kept its benchmark rate unchanged.', 'economy'],
  ['treasury-yields-slip', 'Treasury yields slip after jobs report', 'Bond markets rallied on softer payrolls.', 'markets'],
  ['chipmakers-lead-rally', 'Chipmakers lead a broad equity rally', 'Semiconductor shares rose for a third day.', 'markets'],
  ['oil-prices-fall', 'Oil prices fall on supply outlook', 'Crude dropped as inventories grew.', 'commodities'],
  ['retail-sales-beat', 'Retail sales beat forecasts in October', 'Consumers kept spending into the holidays.', 'economy'],
] as const;

/** 25 en-US, 8 ko-KR, 7 ja-JP and 5 zh-CN articles, one every 3 hours back from `now`. */
export function articles(now: Date): Article[] {
  const list: Article[] = [];
  const plan: Array<[Locale, number]> = [
    ['en-US', 25],
    ['ko-KR', 8],
    ['ja-JP', 7],
    ['zh-CN', 5],
  ];
  let hour = 1;
  for (const [locale, count] of plan) {
    for (let i = 0; i < count; i += 1) {
      const [stem, title, description, category] = EN_TOPICS[i % EN_TOPICS.length]!;
      const slug = `${locale.toLowerCase()}-${stem}-${i + 1}`;
      list.push({
        slug,
        title: locale === 'en-US' ? `${title} (${i + 1})` : `${locale} ${title} ${i + 1}`,
        description,
        category,
        locale,
        publishedAt: hoursBefore(now, hour),
        author: 'Dana Whitfield',
        image: `images/${slug}.jpg`,
        rights: RIGHTS,
        attribution: {
          source: 'Harbor Street Media',
          url: 'https://harbor.example/news',
          text: 'Reprinted with permission of Harbor Street Media',
        },
        content: `<h2>${title}</h2><p>${description}</p>`,
      });
      hour += 3;
    }
  }
  return list;
}

function eventId(key: string): string {
  return `evt-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

const COUNTRIES: Array<[string, string]> = [
  ['US', 'United States'],
  ['KR', 'South Korea'],
  ['JP', 'Japan'],
  ['DE', 'Germany'],
];
const EVENTS: Array<[string, string, Importance]> = [
  ['CPI y/y', 'inflation', 'high'],
  ['Unemployment Rate', 'employment', 'medium'],
  ['Interest Rate Decision', 'central-bank', 'high'],
  ['Retail Sales m/m', 'consumption', 'low'],
];

/** One event every 2 days per country from `first` for `days` days, importance cycling. */
export function calendarEvents(first: string, days: number, verifiedAt: string): CalendarEvent[] {
  const start = Date.parse(`${first}T00:00:00.000Z`);
  const list: CalendarEvent[] = [];
  for (let day = 0; day < days; day += 2) {
    COUNTRIES.forEach(([country, countryName], c) => {
      const [eventName, category, importance] = EVENTS[(day / 2 + c) % EVENTS.length]!;
      const scheduledAt = new Date(start + day * 86_400_000 + (12 + c) * 3_600_000 + 30 * 60_000).toISOString();
      const released = scheduledAt < verifiedAt;
      list.push({
        id: eventId(`${country}|${eventName}|${scheduledAt}`),
        eventName,
        scheduledAt,
        country,
        countryName,
        category,
        importance,
        forecastValue: '0.3%',
        previousValue: '0.2%',
        actualValue: released ? '0.4%' : '',
        verifiedAt,
        license: 'CC-BY-4.0',
        attribution: { source: 'Meridian Calendar Desk', text: 'Curated by Meridian Calendar Desk' },
      });
    });
  }
  return list;
}

const ISSUERS = [
  'APPLE INC',
  'MICROSOFT CORP',
  'ALPHABET INC',
  'AMAZON COM INC',
  'NVIDIA CORPORATION',
  'BANK AMER CORP',
  'COCA COLA CO',
  'CHEVRON CORP NEW',
];

function positions(scale: number): Position[] {
  const values = ISSUERS.map((_, i) => (ISSUERS.length - i) * 1_000_000 * scale);
  const total = values.reduce((a, b) => a + b, 0);
  return ISSUERS.map((issuerName, i) => ({
    issuerName,
    titleOfClass: 'COM',
    kind: 'equity' as const,
    shares: (i + 1) * 1000 * scale,
    reportedValue: values[i]!,
    weight: Math.round((values[i]! / total) * 1e6) / 1e6,
  }));
}

export function investors(): InvestorDetail[] {
  const specs: Array<[string, string, string, number]> = [
    ['berkshire-hathaway', 'Berkshire Hathaway Inc', 'value', 9],
    ['bridgewater-associates', 'Bridgewater Associates, LP', 'macro', 5],
    ['pershing-square', 'Pershing Square Capital Management, L.P.', 'activist', 3],
  ];
  return specs.map(([slug, name, category, scale]) => {
    const held = positions(scale);
    return {
      slug,
      name,
      category,
      period: '2026-09-30',
      filedAt: '2026-11-14',
      reportedValueTotal: held.reduce((a, p) => a + p.reportedValue, 0),
      positionCount: held.length,
      positionsShown: held.length,
      positions: held,
    };
  });
}

/** 15 consensus rows, so that consensus pages (at most 10 rows) need a cursor. */
export function consensus(): ConsensusRow[] {
  return Array.from({ length: 15 }, (_, i) => ({
    rank: i + 1,
    issuerName: `${ISSUERS[i % ISSUERS.length]} ${i + 1}`,
    titleOfClass: 'COM',
    holderCount: Math.max(1, 3 - Math.floor(i / 5)),
    totalReportedValue: (15 - i) * 10_000_000,
    totalShares: (15 - i) * 100_000,
    topHolders: ['berkshire-hathaway', 'bridgewater-associates'],
  }));
}

/**
 * 24 trade rows: each investor x each issuer, actions cycling; in the pipeline's order, investor by
 * investor and within one new, added, trimmed, sold (the serving index keeps each as one run).
 */
export function trades(): TradeRow[] {
  const actions: TradeAction[] = ['new', 'added', 'trimmed', 'sold'];
  const rows: TradeRow[] = [];
  for (const investor of investors()) {
    const start = rows.length;
    ISSUERS.forEach((issuerName, i) => {
      const action = actions[i % actions.length]!;
      const before = action === 'new' ? 0 : 10_000;
      const after = action === 'sold' ? 0 : action === 'added' ? 15_000 : action === 'trimmed' ? 5_000 : 8_000;
      rows.push({
        investorSlug: investor.slug,
        investorName: investor.name,
        issuerName,
        titleOfClass: 'COM',
        kind: 'equity',
        action,
        period: '2026-09-30',
        previousPeriod: '2026-06-30',
        sharesBefore: before,
        sharesAfter: after,
        sharesChange: after - before,
        reportedValueBefore: before * 100,
        reportedValueAfter: after * 100,
      });
    });
    const own = rows.splice(start).sort((a, b) => actions.indexOf(a.action) - actions.indexOf(b.action));
    rows.push(...own);
  }
  return rows;
}
