import type { Locale } from '../../model/article.js';
import type { BuildNote, Rejection } from '../../model/report.js';
import type { RegisteredSource } from './source-registry.js';

/**
 * One article as a source wrote it, before rights, dates, slugs and content are resolved. Every
 * reader (Markdown, JSON, RSS, Atom, JSON Feed) produces drafts, so that one function decides what
 * becomes a record. Values an editor typed stay `unknown` until checked.
 */
export interface ArticleDraft {
  /** Path relative to the sources root. */
  source: string;
  /** Where in the source: `front matter`, `record 2`, `item 3`, `entry 2 (<id>)`. */
  location: string;
  /** The registry entry of the feed this item came from; Markdown and JSON name theirs in sourceId. */
  feedSource?: RegisteredSource;
  sourceId?: unknown;
  rights?: unknown;
  attribution?: unknown;
  title?: unknown;
  /** Plain text as written (front matter, JSON, JSON Feed `summary`), or HTML when descriptionIsHtml. */
  description?: unknown;
  /** The description is HTML (an RSS description, an Atom summary) and is read as text by its markup. */
  descriptionIsHtml?: boolean;
  date?: unknown;
  /** Jekyll: the date in the file name, used when the front matter has none. */
  fallbackDate?: string;
  author?: unknown;
  /** Candidate categories in the source's order; the first one is used. */
  categories: unknown[];
  locale?: unknown;
  /** The locale the file's folder names (`articles/en-US/`); Markdown and JSON articles only. */
  folderLocale?: { locale: Locale; folder: string };
  slug?: unknown;
  /**
   * Tried in order when no slug is written: Markdown its file name stem then its title, JSON its
   * title, a feed item its title then its link stem (only when the link's path identifies it).
   */
  slugCandidates: string[];
  /** A feed item's guid (RSS), id (Atom, JSON Feed) or else its link: what tells two items apart. */
  itemId?: string;
  image?: unknown;
  /** Unsanitized HTML content. */
  html: string;
  /** What relative URLs in `html` are relative to (an Atom entry's xml:base), when the source says. */
  baseUrl?: string;
  /**
   * Why the source itself keeps this out of the dataset, e.g. "provider market snapshot" (front
   * matter type or feed category) or "draft" (Hugo `draft: true`): a note, not a rejection.
   */
  exclusion?: string;
  /** Hugo `expiryDate`: from then on the article is not published (as typed; checked when finalised). */
  expiry?: unknown;
  /** Problems found while reading the fields themselves (a `draft: yes` that is no boolean). */
  fieldProblems?: string[];
}

/** What a reader makes of one file. */
export interface DraftBatch {
  drafts: ArticleDraft[];
  rejections: Rejection[];
  notes: BuildNote[];
}

const MARKET_SNAPSHOT = 'market-snapshot';

/** `type: market-snapshot`, or a category/tag of that name, whatever its case or spacing. */
export function marksMarketSnapshot(values: unknown[]): boolean {
  return values.some(
    (value) =>
      typeof value === 'string' &&
      value
        .trim()
        .toLowerCase()
        .replace(/[\s_]+/g, '-') === MARKET_SNAPSHOT,
  );
}
