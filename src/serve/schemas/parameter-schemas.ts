import { ARTICLE_SLUG_MAX, LOCALES } from '../../model/article.js';
import { IMPORTANCE } from '../../model/calendar-event.js';
import { SLUG_PATTERN } from '../../model/primitives.js';
import { INVESTOR_SLUG_MAX, TRADE_ACTIONS } from '../../model/smart-money.js';
import type { JsonSchema } from '../parameter-validation.js';
import { REGIONS } from './profile-b-shapes.js';

/**
 * Query and path parameters of every operation, as JSON schemas (docs/spec.md, Profile A parameters and Profile B parameters).
 * The server validates requests against exactly these, and the OpenAPI description lists them.
 */

function query(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

const limit = (max: number, fallback: number): JsonSchema => ({
  type: 'integer',
  minimum: 1,
  maximum: max,
  default: fallback,
  description: 'Page size.',
});
const cursor: JsonSchema = { type: 'string', minLength: 1, maxLength: 2048, description: 'Opaque cursor from page.nextCursor.' };
const category: JsonSchema = { type: 'string', minLength: 1, maxLength: 80, description: 'Category slug filter.' };
const date = (description: string): JsonSchema => ({ type: 'string', format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });

export function slugParams(maxLength: number): JsonSchema {
  return {
    type: 'object',
    properties: { slug: { type: 'string', minLength: 1, maxLength, pattern: SLUG_PATTERN.source } },
    required: ['slug'],
    additionalProperties: false,
  };
}

export const PARAMETERS = {
  listArticles: query({
    limit: limit(100, 20),
    cursor,
    locale: { type: 'string', enum: [...LOCALES] },
    category,
  }),
  getArticle: query({}),
  getArticleParams: slugParams(ARTICLE_SLUG_MAX),
  listEconomicCalendar: query(
    {
      from: date('Inclusive start date (UTC).'),
      to: date('Inclusive end date (UTC); at most 93 days including both ends.'),
      importance: { type: 'string', enum: [...IMPORTANCE] },
      country: { type: 'string', minLength: 2, maxLength: 2, pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2.' },
      limit: limit(100, 20),
      cursor,
    },
    ['from', 'to'],
  ),
  listSmartMoneyInvestors: query({ limit: limit(100, 20), cursor, category }),
  getSmartMoneyInvestor: query({}),
  getSmartMoneyInvestorParams: slugParams(INVESTOR_SLUG_MAX),
  listSmartMoneyConsensus: query({ limit: limit(10, 10), cursor }),
  listSmartMoneyTrades: query({
    limit: limit(100, 20),
    cursor,
    action: { type: 'string', enum: [...TRADE_ACTIONS] },
    investorSlug: { type: 'string', minLength: 1, maxLength: INVESTOR_SLUG_MAX },
  }),

  // Profile B
  bListArticles: query({
    region: { type: 'string', enum: REGIONS, default: 'us' },
    category,
    q: { type: 'string', minLength: 1, maxLength: 200, description: 'Case-insensitive search over title and description.' },
    from: date('Published on or after (UTC day).'),
    to: date('Published on or before (UTC day).'),
    sort: { type: 'string', enum: ['date_desc', 'date_asc'], default: 'date_desc' },
    limit: limit(100, 20),
    offset: { type: 'integer', minimum: 0, default: 0 },
  }),
  bGetArticle: query({ region: { type: 'string', enum: REGIONS, default: 'us' } }),
  bGetArticleParams: slugParams(ARTICLE_SLUG_MAX),
  bListEconomicCalendar: query({
    region: { type: 'string', enum: REGIONS, default: 'us' },
    futureDays: { type: 'integer', minimum: 0, maximum: 365, default: 90 },
    importance: { type: 'integer', minimum: 1, maximum: 3, description: 'Minimum importance; 3 is high.' },
    limit: limit(100, 20),
    offset: { type: 'integer', minimum: 0, default: 0 },
  }),
} satisfies Record<string, JsonSchema>;
