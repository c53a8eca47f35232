import type { Region } from '../../model/article.js';
import { DAY_MS } from '../../lib/time.js';
import { futureWindow, publicationRange } from '../calendar-window.js';
import { findProfileBArticle, selectProfileBArticles } from '../indexes/articles-index.js';
import { selectProfileBCalendar } from '../indexes/calendar-index.js';
import { arrayPage } from '../indexes/page.js';
import { listOperation, type Operation, singleOperation } from '../operation.js';
import { profileBListEnvelope, profileBSingleEnvelope } from '../schemas/envelopes.js';
import { PARAMETERS } from '../schemas/parameter-schemas.js';
import { RECORD_SCHEMAS } from '../schemas/record-schemas.js';
import { searchTerms } from '../search-text.js';

/** Profile B's calendar regions are countries: the region's own country only. */
const REGION_COUNTRY: Readonly<Record<Region, string>> = { us: 'US', kr: 'KR', jp: 'JP' };

/** The three Profile B operations, under /api/v1. */
export const PROFILE_B_OPERATIONS: readonly Operation[] = [
  listOperation({
    profile: 'B',
    kind: 'list',
    operationId: 'b.listArticles',
    scope: 'articles:read',
    path: '/api/v1/articles',
    dataset: 'articles',
    summary: 'List articles of a region',
    description:
      "Articles of the region's locale, filtered by category, search terms and publication days, newest first by default (ties by slug), with offset paging.",
    record: 'ProfileBArticleListItem',
    querystring: PARAMETERS.bListArticles,
    response: profileBListEnvelope(RECORD_SCHEMAS.ProfileBArticleListItem),
    plan: (q) => {
      const range = publicationRange(q.from, q.to);
      const terms = searchTerms(q.q);
      const filters = {
        region: q.region,
        category: q.category,
        q: q.q,
        from: q.from,
        to: q.to,
        sort: q.sort,
      };
      return {
        filters,
        page: (index, offset, limit) => arrayPage(selectProfileBArticles(index, { ...filters, terms, range }), offset, limit),
      };
    },
  }),
  singleOperation({
    profile: 'B',
    kind: 'single',
    operationId: 'b.getArticle',
    scope: 'articles:read',
    path: '/api/v1/articles/:slug',
    dataset: 'articles',
    summary: 'Get one article of a region, with its content',
    description:
      "One article by slug, looked up in the region's locale, with its sanitized HTML content. 404 not_found when the region has no article with the slug.",
    record: 'ProfileBArticleDetail',
    querystring: PARAMETERS.bGetArticle,
    params: PARAMETERS.bGetArticleParams,
    response: profileBSingleEnvelope(RECORD_SCHEMAS.ProfileBArticleDetail),
    plan: (p, q) => ({
      key: { slug: p.slug, region: q.region },
      find: (index) => findProfileBArticle(index, q.region, p.slug),
      notFoundMessage: `No article with slug ${p.slug} in region ${String(q.region)}`,
    }),
  }),
  listOperation({
    profile: 'B',
    kind: 'list',
    operationId: 'b.listEconomicCalendar',
    scope: 'calendar:read',
    path: '/api/v1/economic-calendar',
    dataset: 'calendar',
    summary: 'List upcoming events of a region',
    description:
      "Events of the region's country from the start of today (UTC) through futureDays days ahead, earliest first, optionally of a minimum importance.",
    record: 'ProfileBCalendarEvent',
    querystring: PARAMETERS.bListEconomicCalendar,
    response: profileBListEnvelope(RECORD_SCHEMAS.ProfileBCalendarEvent),
    plan: (q, now) => {
      const window = futureWindow(now, q.futureDays);
      const country = REGION_COUNTRY[q.region];
      const minImportance = q.importance;
      // The window start is part of the filters: the same URL gives another list on another day.
      const filters = { region: q.region, futureDays: q.futureDays, importance: minImportance, windowStartMs: window.startMs };
      return {
        filters,
        validSpan: { fromMs: window.startMs, untilMs: window.startMs + DAY_MS },
        page: (index, offset, limit) => arrayPage(selectProfileBCalendar(index, window, { country, minImportance }), offset, limit),
      };
    },
  }),
];
