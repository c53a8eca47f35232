import { REGION_LOCALE, type Article, type Locale, type Region } from '../../model/article.js';
import type { InstantRange } from '../calendar-window.js';
import { profileBArticle, type ProfileBArticleDetail } from '../schemas/profile-b-shapes.js';
import { SelectionCache } from './selection-cache.js';
import { compareText } from '../../lib/text-order.js';
import { searchableText } from '../search-text.js';

interface ProfileBEntry {
  record: ProfileBArticleDetail;
  locale: Locale;
  publishedMs: number;
  /** Title and description as searchableText, searched by `q`. */
  haystack: string;
}

export interface ArticlesIndex {
  /** Profile A order: newest publishedAt first, then slug. */
  newestFirst: readonly Article[];
  bySlug: ReadonlyMap<string, Article>;
  profileB: {
    newestFirst: readonly ProfileBEntry[];
    byRegionAndSlug: ReadonlyMap<string, ProfileBArticleDetail>;
  };
  cache: SelectionCache<readonly Article[]>;
  profileBCache: SelectionCache<readonly ProfileBArticleDetail[]>;
}

function newestFirst(a: Article, b: Article): number {
  return compareText(b.publishedAt, a.publishedAt) || compareText(a.slug, b.slug);
}

/** Indexes one articles snapshot; Profile B projections are made here once, not per request. */
export function indexArticles(records: readonly Article[]): ArticlesIndex {
  const sorted = [...records].sort(newestFirst);
  const bySlug = new Map<string, Article>();
  // Slugs are unique within a snapshot; should two locales ever share one, Profile A serves the newest.
  for (const article of sorted) if (!bySlug.has(article.slug)) bySlug.set(article.slug, article);
  const entries: ProfileBEntry[] = [];
  const byRegionAndSlug = new Map<string, ProfileBArticleDetail>();
  for (const article of sorted) {
    const record = profileBArticle(article);
    if (!record) continue;
    entries.push({
      record,
      locale: article.locale,
      publishedMs: Date.parse(article.publishedAt),
      haystack: searchableText(`${article.title}\n${article.description}`),
    });
    const key = `${record.region}/${record.slug}`;
    if (!byRegionAndSlug.has(key)) byRegionAndSlug.set(key, record);
  }
  return {
    newestFirst: sorted,
    bySlug,
    profileB: { newestFirst: entries, byRegionAndSlug },
    cache: new SelectionCache(),
    profileBCache: new SelectionCache(),
  };
}

export function selectArticles(index: ArticlesIndex, filter: { locale?: string; category?: string }): readonly Article[] {
  if (filter.locale === undefined && filter.category === undefined) return index.newestFirst;
  return index.cache.get(JSON.stringify([filter.locale, filter.category]), () =>
    index.newestFirst.filter(
      (a) =>
        (filter.locale === undefined || a.locale === filter.locale) && (filter.category === undefined || a.category === filter.category),
    ),
  );
}

export interface ProfileBArticleFilter {
  region: Region;
  category?: string;
  /** The terms of `q` (search-text.ts searchTerms): every one must occur. */
  terms?: readonly string[];
  range: InstantRange;
  sort: 'date_desc' | 'date_asc';
}

/**
 * Profile B's list: the region's locale, category, every term of `q` found in the title or
 * description (as searchableText: case and Unicode spelling ignored), the publication range,
 * newest or oldest first.
 */
export function selectProfileBArticles(index: ArticlesIndex, filter: ProfileBArticleFilter): readonly ProfileBArticleDetail[] {
  const key = JSON.stringify([filter.region, filter.category, filter.terms, filter.range.startMs, filter.range.endMs, filter.sort]);
  return index.profileBCache.get(key, () => {
    const locale = REGION_LOCALE[filter.region];
    const terms = filter.terms ?? [];
    const matches = index.profileB.newestFirst.filter(
      (e) =>
        e.locale === locale &&
        (filter.category === undefined || e.record.category === filter.category) &&
        e.publishedMs >= filter.range.startMs &&
        e.publishedMs < filter.range.endMs &&
        terms.every((term) => e.haystack.includes(term)),
    );
    // Oldest first for date_asc; equal instants keep slug order either way.
    if (filter.sort === 'date_asc') matches.sort((a, b) => a.publishedMs - b.publishedMs || compareText(a.record.slug, b.record.slug));
    return matches.map((e) => e.record);
  });
}

export function findProfileBArticle(index: ArticlesIndex, region: Region, slug: string): ProfileBArticleDetail | undefined {
  return index.profileB.byRegionAndSlug.get(`${region}/${slug}`);
}
