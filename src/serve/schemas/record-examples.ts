import type { RecordName } from './record-schemas.js';

/**
 * One example of each published record, taken from the committed sample (`pdsnap sample`) and
 * shortened, for the OpenAPI descriptions. The linters and test/serve/openapi.test.ts check each
 * against its record schema, so an example cannot drift from the shape the server writes.
 */
const ARTICLE_SUMMARY = {
  slug: 'holiday-retail-sales-beat-forecasts',
  title: 'Holiday retail sales beat forecasts as shoppers start early',
  description: 'US retail sales rose more than economists expected last month, as discounting pulled holiday purchases forward.',
  category: 'economy',
  locale: 'en-US',
  publishedAt: '2026-11-21T05:53:00.000Z',
  author: 'Elena Rossi',
  image: 'images/retail-sales.jpg',
  rights: { license: 'Harbor Wire Syndication Agreement HW-2026-114', holder: 'Harbor Wire Media LLC', reuse: 'with-attribution' },
  attribution: { source: 'Harbor Wire', text: '© Harbor Wire Media LLC. Used under license.', url: 'https://www.harborwire.example/' },
};

const CONTENT = '<p>US retail sales rose more than economists expected last month.</p>\n<p>Control-group sales gained 0.6%.</p>';

const INVESTOR = {
  slug: 'copperline-investment-group-llc',
  name: 'Copperline Investment Group LLC',
  category: 'asset-manager',
  period: '2026-09-30',
  filedAt: '2026-10-22',
  reportedValueTotal: 1551456383,
  positionCount: 58,
  positionsShown: 58,
};

const PROFILE_B_ARTICLE = {
  slug: ARTICLE_SUMMARY.slug,
  title: ARTICLE_SUMMARY.title,
  description: ARTICLE_SUMMARY.description,
  category: ARTICLE_SUMMARY.category,
  author: ARTICLE_SUMMARY.author,
  image: ARTICLE_SUMMARY.image,
  region: 'us',
  date: '2026-11-21',
};

export const RECORD_EXAMPLES: Readonly<Record<RecordName, unknown>> = {
  ArticleSummary: ARTICLE_SUMMARY,
  Article: { ...ARTICLE_SUMMARY, content: CONTENT },
  CalendarEvent: {
    id: 'evt-1c2f7c6df5abb8bc',
    eventName: 'Unemployment Rate',
    scheduledAt: '2026-11-29T23:30:00.000Z',
    country: 'JP',
    countryName: 'Japan',
    category: 'employment',
    importance: 'low',
    forecastValue: '2.6%',
    previousValue: '2.5%',
    actualValue: '',
    verifiedAt: '2026-11-22T10:00:00.000Z',
    license: 'CC-BY-4.0',
    attribution: {
      source: 'Example Macro Desk',
      text: 'Economic calendar curated by the Example Macro Desk.',
      url: 'https://data.example.org/economic-calendar',
    },
  },
  SmartMoneyInvestor: INVESTOR,
  SmartMoneyInvestorDetail: {
    ...INVESTOR,
    positions: [
      { issuerName: 'AUTOZONE INC', titleOfClass: 'COM', kind: 'equity', shares: 137700, reportedValue: 471491685, weight: 0.303903 },
    ],
  },
  SmartMoneyConsensusRow: {
    rank: 1,
    issuerName: 'LOWES COS INC',
    titleOfClass: 'COM',
    holderCount: 20,
    totalReportedValue: 391339566,
    totalShares: 1333400,
    topHolders: ['granite-peak-partners-lp', 'copperline-investment-group-llc'],
  },
  SmartMoneyTrade: {
    investorSlug: 'atlas-crossing-capital-lp',
    investorName: 'Atlas Crossing Capital LP',
    issuerName: 'NVIDIA CORPORATION',
    titleOfClass: 'COM',
    kind: 'equity',
    action: 'new',
    period: '2026-09-30',
    previousPeriod: '2026-06-30',
    sharesBefore: 0,
    sharesAfter: 82300,
    sharesChange: 82300,
    reportedValueBefore: 0,
    reportedValueAfter: 10824672,
  },
  ProfileBArticleListItem: PROFILE_B_ARTICLE,
  ProfileBArticleDetail: { ...PROFILE_B_ARTICLE, content: CONTENT },
  ProfileBCalendarEvent: {
    eventName: 'ISM Manufacturing PMI',
    scheduledAt: '2026-12-01T15:00:00.000Z',
    category: 'pmi',
    forecastValue: '49.4',
    previousValue: '49.4',
    actualValue: '',
    country: 'United States',
    importance: 3,
  },
};
