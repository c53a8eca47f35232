import { ARTICLE_SLUG_MAX, LOCALES } from '../../model/article.js';
import { IMPORTANCE } from '../../model/calendar-event.js';
import { SLUG_PATTERN } from '../../model/primitives.js';
import { INVESTOR_SLUG_MAX, TRADE_ACTIONS } from '../../model/smart-money.js';
import type { JsonSchema } from '../parameter-validation.js';
import { REGIONS } from './profile-b-shapes.js';

/**
 * Query and path parameters of every operation, as JSON schemas (docs/spec.md, Profile A parameters and Profile B parameters).
 * The server validates requests against exactly these, and the OpenAPI description lists them:
 * `description` and the first of `examples` become the parameter's description and example there.
 */

// The helpers are generic with `const` type parameters and return `as const` objects, so each schema
// keeps its literal type: operation.ts derives the value type of the validated parameters from it.
type Properties = Record<string, JsonSchema>;

function query<const P extends Properties>(properties: P): { type: 'object'; properties: P; additionalProperties: false };
function query<const P extends Properties, const R extends readonly (keyof P & string)[]>(
  properties: P,
  required: R,
): { type: 'object'; properties: P; required: R; additionalProperties: false };
function query(properties: Properties, required: readonly string[] = []): JsonSchema {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

const limit = <const M extends number, const F extends number>(max: M, fallback: F) =>
  ({
    type: 'integer',
    minimum: 1,
    maximum: max,
    default: fallback,
    description: `Page size: 1 to ${max} records, ${fallback} when absent.`,
    examples: [Math.min(5, max)],
  }) as const;
const cursor = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  description: 'Opaque cursor from page.nextCursor of the previous page; bound to the snapshot, the operation and the filters.',
  examples: ['WzEsImFydGljbGVzLTIwMjYxMTIyVDEyMDAwMFoiLCJsaXN0QXJ0aWNsZXMiLCJUMVBOb1l3cnFnd0RWTHRmbWo3TDVlIiwyMF0.lDEHAefLTGeTh5fqH5QZLQ'],
} as const;
const category = (example: string) =>
  ({
    type: 'string',
    minLength: 1,
    maxLength: 80,
    description: 'Only records of this category (exact match).',
    examples: [example],
  }) as const;
const date = (description: string, example: string) =>
  ({
    type: 'string',
    format: 'date',
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    description,
    examples: [example],
  }) as const;
const region = {
  type: 'string',
  enum: REGIONS,
  default: 'us',
  description: 'Region: us (en-US articles, US events), kr (ko-KR, KR) or jp (ja-JP, JP).',
  examples: ['us'],
} as const;
const offset = {
  type: 'integer',
  minimum: 0,
  default: 0,
  description: 'Records to skip; past the end gives an empty page with the true total.',
  examples: [0],
} as const;

function slugParams(maxLength: number, example: string) {
  return {
    type: 'object',
    properties: {
      slug: {
        type: 'string',
        minLength: 1,
        maxLength,
        pattern: SLUG_PATTERN.source,
        description: "The record's slug (lower-case words joined by hyphens).",
        examples: [example],
      },
    },
    required: ['slug'],
    additionalProperties: false,
  } as const;
}

const ARTICLE_SLUG_EXAMPLE = 'holiday-retail-sales-beat-forecasts';
const INVESTOR_SLUG_EXAMPLE = 'copperline-investment-group-llc';

export const PARAMETERS = {
  listArticles: query({
    limit: limit(100, 20),
    cursor,
    locale: { type: 'string', enum: [...LOCALES], description: 'Only articles in this locale.', examples: ['en-US'] },
    category: category('economy'),
  }),
  getArticle: query({}),
  getArticleParams: slugParams(ARTICLE_SLUG_MAX, ARTICLE_SLUG_EXAMPLE),
  listEconomicCalendar: query(
    {
      from: date('Inclusive start day (UTC).', '2026-11-01'),
      to: date('Inclusive end day (UTC); at most 93 days including both ends.', '2026-12-31'),
      importance: { type: 'string', enum: [...IMPORTANCE], description: 'Only events of this importance.', examples: ['high'] },
      country: {
        type: 'string',
        minLength: 2,
        maxLength: 2,
        pattern: '^[A-Z]{2}$',
        description: 'Only events of this country (ISO 3166-1 alpha-2).',
        examples: ['US'],
      },
      limit: limit(100, 20),
      cursor,
    },
    ['from', 'to'],
  ),
  listSmartMoneyInvestors: query({ limit: limit(100, 20), cursor, category: category('asset-manager') }),
  getSmartMoneyInvestor: query({}),
  getSmartMoneyInvestorParams: slugParams(INVESTOR_SLUG_MAX, INVESTOR_SLUG_EXAMPLE),
  listSmartMoneyConsensus: query({ limit: limit(10, 10), cursor }),
  listSmartMoneyTrades: query({
    limit: limit(100, 20),
    cursor,
    action: { type: 'string', enum: [...TRADE_ACTIONS], description: 'Only changes of this kind.', examples: ['new'] },
    investorSlug: {
      type: 'string',
      minLength: 1,
      maxLength: INVESTOR_SLUG_MAX,
      description: 'Only changes of this investor.',
      examples: [INVESTOR_SLUG_EXAMPLE],
    },
  }),

  // Profile B
  bListArticles: query({
    region,
    category: category('economy'),
    q: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description:
        'Every whitespace-separated term must occur in the title or description, ignoring case and Unicode spelling (NFKC); at least one term.',
      examples: ['retail sales'],
    },
    from: date('Published on or after this UTC day.', '2026-11-01'),
    to: date('Published on or before this UTC day.', '2026-11-30'),
    sort: {
      type: 'string',
      enum: ['date_desc', 'date_asc'],
      default: 'date_desc',
      description: 'Order by publication time; ties by slug.',
      examples: ['date_desc'],
    },
    limit: limit(100, 20),
    offset,
  }),
  bGetArticle: query({ region }),
  bGetArticleParams: slugParams(ARTICLE_SLUG_MAX, ARTICLE_SLUG_EXAMPLE),
  bListEconomicCalendar: query({
    region,
    futureDays: {
      type: 'integer',
      minimum: 0,
      maximum: 365,
      default: 90,
      description: 'Days ahead: from the start of today (UTC) through the end of the day this many days later.',
      examples: [30],
    },
    importance: { type: 'integer', minimum: 1, maximum: 3, description: 'Minimum importance: 1 low, 2 medium, 3 high.', examples: [3] },
    limit: limit(100, 20),
    offset,
  }),
} satisfies Record<string, JsonSchema>;
