import { calendarRange } from '../calendar-window.js';
import { selectArticles } from '../indexes/articles-index.js';
import { selectCalendar } from '../indexes/calendar-index.js';
import { arrayPage } from '../indexes/page.js';
import { listOperation, type Operation, singleOperation } from '../operation.js';
import { profileAEnvelope } from '../schemas/envelopes.js';
import { PARAMETERS } from '../schemas/parameter-schemas.js';
import { inlineRecord } from '../schemas/record-schemas.js';

/** The seven Profile A operations (docs/spec.md, Profile A operations), under /v1. */
export const PROFILE_A_OPERATIONS: readonly Operation[] = [
  listOperation({
    profile: 'A',
    kind: 'list',
    operationId: 'listArticles',
    path: '/v1/articles',
    dataset: 'articles',
    scope: 'articles:read',
    summary: 'List articles, newest first',
    description: 'Licensed editorial articles with rights and attribution, newest publishedAt first (then slug). List items omit content.',
    querystring: PARAMETERS.listArticles,
    response: profileAEnvelope('ArticleListEnvelope', inlineRecord),
    envelope: 'ArticleListEnvelope',
    plan: (q) => {
      const filters = { locale: q.locale, category: q.category };
      return { filters, page: (index, offset, limit) => arrayPage(selectArticles(index, filters), offset, limit) };
    },
  }),
  singleOperation({
    profile: 'A',
    kind: 'single',
    operationId: 'getArticle',
    path: '/v1/articles/:slug',
    dataset: 'articles',
    scope: 'articles:read',
    summary: 'Get one article with its content',
    description:
      'One article by slug, with its sanitized HTML content, rights and attribution. 404 not_found when no article has the slug.',
    querystring: PARAMETERS.getArticle,
    params: PARAMETERS.getArticleParams,
    response: profileAEnvelope('ArticleEnvelope', inlineRecord),
    envelope: 'ArticleEnvelope',
    plan: (p) => ({
      key: { slug: p.slug },
      find: (index) => index.bySlug.get(p.slug),
      notFoundMessage: `No article with slug ${p.slug}`,
    }),
  }),
  listOperation({
    profile: 'A',
    kind: 'list',
    operationId: 'listEconomicCalendar',
    path: '/v1/economic-calendar',
    dataset: 'calendar',
    scope: 'calendar:read',
    summary: 'List curated economic calendar events in a date range',
    description:
      'Events scheduled on the UTC days from..to (both inclusive, at most 93 days), earliest first. importance and country filter exactly.',
    querystring: PARAMETERS.listEconomicCalendar,
    response: profileAEnvelope('EconomicCalendarListEnvelope', inlineRecord),
    envelope: 'EconomicCalendarListEnvelope',
    plan: (q) => {
      const range = calendarRange(q.from, q.to);
      const filters = {
        from: q.from,
        to: q.to,
        importance: q.importance,
        country: q.country,
      };
      return { filters, page: (index, offset, limit) => arrayPage(selectCalendar(index, range, filters), offset, limit) };
    },
  }),
  listOperation({
    profile: 'A',
    kind: 'list',
    operationId: 'listSmartMoneyInvestors',
    path: '/v1/smart-money/investors',
    dataset: 'smart-money',
    scope: 'smart-money:read',
    summary: 'List tracked institutional investors',
    description: 'Largest reported value total first (then slug). Values are reported filing values, not assets under management.',
    querystring: PARAMETERS.listSmartMoneyInvestors,
    response: profileAEnvelope('SmartMoneyInvestorListEnvelope', inlineRecord),
    envelope: 'SmartMoneyInvestorListEnvelope',
    plan: (q) => {
      const filters = { category: q.category };
      return { filters, page: (index, position, limit) => index.investors(filters, position, limit) };
    },
  }),
  singleOperation({
    profile: 'A',
    kind: 'single',
    operationId: 'getSmartMoneyInvestor',
    path: '/v1/smart-money/investors/:slug',
    dataset: 'smart-money',
    scope: 'smart-money:read',
    summary: 'Get one investor with its issuer-name positions',
    description:
      'One tracked investor by slug with the positions of its latest 13F filing, largest reported value first. 404 not_found when no investor has the slug.',
    querystring: PARAMETERS.getSmartMoneyInvestor,
    params: PARAMETERS.getSmartMoneyInvestorParams,
    response: profileAEnvelope('SmartMoneyInvestorDetailEnvelope', inlineRecord),
    envelope: 'SmartMoneyInvestorDetailEnvelope',
    plan: (p) => ({
      key: { slug: p.slug },
      find: (index) => index.investor(p.slug),
      notFoundMessage: `No investor with slug ${p.slug}`,
    }),
  }),
  listOperation({
    profile: 'A',
    kind: 'list',
    operationId: 'listSmartMoneyConsensus',
    path: '/v1/smart-money/consensus',
    dataset: 'smart-money',
    scope: 'smart-money:read',
    summary: 'List issuers ranked by how many tracked investors hold them',
    description:
      'Issuers ordered by rank: the number of tracked investors holding them, then total reported value. At most 10 rows a page.',
    querystring: PARAMETERS.listSmartMoneyConsensus,
    response: profileAEnvelope('SmartMoneyConsensusListEnvelope', inlineRecord),
    envelope: 'SmartMoneyConsensusListEnvelope',
    plan: () => ({ filters: {}, page: (index, position, limit) => index.consensus(position, limit) }),
  }),
  listOperation({
    profile: 'A',
    kind: 'list',
    operationId: 'listSmartMoneyTrades',
    path: '/v1/smart-money/trades',
    dataset: 'smart-money',
    scope: 'smart-money:read',
    summary: 'List quarter-over-quarter position changes',
    description: 'Reported-value changes are not transaction cash flow. action is one of new, added, trimmed, sold.',
    querystring: PARAMETERS.listSmartMoneyTrades,
    response: profileAEnvelope('SmartMoneyTradeListEnvelope', inlineRecord),
    envelope: 'SmartMoneyTradeListEnvelope',
    plan: (q) => {
      const filters = { action: q.action, investorSlug: q.investorSlug };
      return { filters, page: (index, position, limit) => index.trades(filters, position, limit) };
    },
  }),
];
