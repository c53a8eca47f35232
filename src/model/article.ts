import { z } from 'zod';
import { Instant, NonEmpty, Slug } from './primitives.js';
import { Attribution, Rights } from './rights.js';

export const LOCALES = ['en-US', 'ko-KR', 'ja-JP', 'zh-CN'] as const;
export const Locale = z.enum(LOCALES);
export type Locale = z.infer<typeof Locale>;

/** Profile B regions and the locale each one serves; zh-CN has no Profile B region. */
export const REGION_LOCALE = { us: 'en-US', kr: 'ko-KR', jp: 'ja-JP' } as const satisfies Record<string, Locale>;
export type Region = keyof typeof REGION_LOCALE;

export const ARTICLE_SLUG_MAX = 200;

/** An article as listed (Profile A list item). */
export const ArticleSummary = z
  .object({
    slug: Slug(ARTICLE_SLUG_MAX),
    title: NonEmpty,
    description: z.string(),
    category: Slug(80),
    locale: Locale,
    publishedAt: Instant,
    author: NonEmpty,
    /** Relative image path, or "" when the article has none. */
    image: z.string(),
    rights: Rights,
    attribution: Attribution,
  })
  .strict();
export type ArticleSummary = z.infer<typeof ArticleSummary>;

/** An article with its rendered, sanitized HTML content: what articles.json holds. */
export const Article = ArticleSummary.extend({ content: z.string() }).strict();
export type Article = z.infer<typeof Article>;

/**
 * An article as ingest hands it to derivation: the record, where it was read, and for a feed item
 * its identity, which decides duplicates and tells namesakes apart (src/derive/articles.ts).
 */
export interface IngestedArticle {
  record: Article;
  source: string;
  location: string;
  /** Hugo `expiryDate`: from this instant on the article is not published. */
  expiresAt?: string;
  /** Set for items of a syndication feed (RSS, Atom, JSON Feed). */
  feedItem?: {
    /** The registry id of the feed's source. */
    sourceId: string;
    /** guid (RSS) or id (Atom, JSON Feed), else the link, else title and publication instant. */
    id: string;
  };
}
