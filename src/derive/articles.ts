import { ARTICLE_SLUG_MAX, type Article, type IngestedArticle } from '../model/article.js';
import type { BuildNote, Rejection } from '../model/report.js';
import { sha256Hex } from '../lib/file-digest.js';
import { compareText } from '../lib/text-order.js';

export interface ArticlesDerivation {
  records: Article[];
  rejections: Rejection[];
  /** Decisions: feed items given a namesake slug. */
  notes: BuildNote[];
  facts: { latestPublishedAt?: string; feedItems: Record<string, number> };
}

/**
 * Which of two articles with the same slug and locale is kept: the most recently published, then
 * the first source path, then the first location in it (comparisons by code unit, not by the
 * machine's locale, so every machine decides the same).
 */
function preferred(a: IngestedArticle, b: IngestedArticle): number {
  return compareText(b.record.publishedAt, a.record.publishedAt) || compareText(a.source, b.source) || compareText(a.location, b.location);
}

/** Publishing order: newest first, then locale, then slug. */
function compareArticles(a: Article, b: Article): number {
  return compareText(b.publishedAt, a.publishedAt) || compareText(a.locale, b.locale) || compareText(a.slug, b.slug);
}

/**
 * Ingested articles -> published records, at the build time `now`.
 *
 * An article dated after `now` is rejected, not published early (it is published by the first
 * build after it is due), and so cannot make the data set look fresh. Then:
 * 1. Feed items are the same item when their source and guid (or id) are: of a duplicate set one
 *    item is kept (the most recently published) and every other is rejected, naming the one kept.
 * 2. Feed items whose slug (from their title) another article already has are namesakes, not
 *    duplicates: the article written by an editor (Markdown, JSON), else the earliest published
 *    item, keeps the slug; every other item gets `<slug>-<8 hex>` from its source and guid, the
 *    same on every build, and a note says so.
 * 3. Slugs are unique per locale (the detail path is /articles/{slug} within a locale): of
 *    articles that still share one, one is kept and every other is rejected, naming the one kept.
 */
export function deriveArticles(input: IngestedArticle[], now: Date): ArticlesDerivation {
  const rejections: Rejection[] = [];
  const notes: BuildNote[] = [];
  const buildTime = now.toISOString();
  const due: IngestedArticle[] = [];
  for (const candidate of input) {
    // Instants are canonical (UTC, milliseconds), so text order is time order.
    if (candidate.expiresAt !== undefined && candidate.expiresAt <= buildTime) {
      notes.push({
        source: candidate.source,
        message: `${candidate.location}: expired at ${candidate.expiresAt} (expiryDate), before the build time ${buildTime}; not published`,
      });
    } else if (candidate.record.publishedAt > buildTime) {
      rejections.push({
        source: candidate.source,
        location: candidate.location,
        reason: `publishedAt ${candidate.record.publishedAt} is after the build time ${buildTime}; publish it when it is due`,
      });
    } else {
      due.push(candidate);
    }
  }

  const items = new Map<string, IngestedArticle>();
  const distinct: IngestedArticle[] = [];
  for (const candidate of due.sort(preferred)) {
    if (candidate.feedItem === undefined) {
      distinct.push(candidate);
      continue;
    }
    const key = itemKey(candidate.feedItem);
    const winner = items.get(key);
    if (winner === undefined) {
      items.set(key, candidate);
      distinct.push(candidate);
      continue;
    }
    rejections.push({
      source: candidate.source,
      location: candidate.location,
      reason: `duplicate feed item "${candidate.feedItem.id}" of source ${candidate.feedItem.sourceId}: kept the item from ${winner.source} (${winner.location})`,
    });
  }

  const renamed = renameNamesakes(distinct, notes);
  const named = distinct.map((candidate) => renamed.get(candidate) ?? candidate);

  const kept = new Map<string, IngestedArticle>();
  for (const candidate of named.sort(preferred)) {
    const key = `${candidate.record.locale}\n${candidate.record.slug}`;
    const winner = kept.get(key);
    if (winner === undefined) {
      kept.set(key, candidate);
      continue;
    }
    rejections.push({
      source: candidate.source,
      location: candidate.location,
      reason: `duplicate slug "${candidate.record.slug}" in ${candidate.record.locale}: kept the article from ${winner.source} (${winner.location})`,
    });
  }
  const records = [...kept.values()].map((entry) => entry.record).sort(compareArticles);
  const feedItems = new Map<string, number>();
  for (const { feedItem } of kept.values()) if (feedItem) feedItems.set(feedItem.sourceId, (feedItems.get(feedItem.sourceId) ?? 0) + 1);
  rejections.sort((a, b) => compareText(a.source, b.source) || compareText(a.location, b.location));
  notes.sort((a, b) => compareText(a.source, b.source) || compareText(a.message, b.message));
  const latestPublishedAt = records[0]?.publishedAt;
  return {
    records,
    rejections,
    notes,
    facts: { ...(latestPublishedAt === undefined ? {} : { latestPublishedAt }), feedItems: Object.fromEntries(feedItems) },
  };
}

function itemKey(item: { sourceId: string; id: string }): string {
  return `${item.sourceId}\n${item.id}`;
}

/**
 * Step 2 of deriveArticles: the items that get a new slug, as copies. The slug holder is chosen so that an item keeps its slug
 * when a namesake appears in a later feed: an editor's article first (the one step 3 keeps), else
 * the earliest published item (then the item key, so ties are decided the same way everywhere).
 */
function renameNamesakes(articles: IngestedArticle[], notes: BuildNote[]): Map<IngestedArticle, IngestedArticle> {
  const renamed = new Map<IngestedArticle, IngestedArticle>();
  const bySlug = new Map<string, IngestedArticle[]>();
  for (const article of articles) {
    const key = `${article.record.locale}\n${article.record.slug}`;
    const group = bySlug.get(key);
    if (group === undefined) bySlug.set(key, [article]);
    else group.push(article);
  }
  for (const group of bySlug.values()) {
    if (group.length < 2 || group.every((article) => article.feedItem === undefined)) continue;
    const editors = group.filter((article) => article.feedItem === undefined).sort(preferred);
    const earliestItem = (a: IngestedArticle, b: IngestedArticle) =>
      compareText(a.record.publishedAt, b.record.publishedAt) || compareText(itemKey(a.feedItem!), itemKey(b.feedItem!));
    // The editors' article that step 3 keeps, else the earliest item.
    const holder = editors[0] ?? group.slice().sort(earliestItem)[0]!;
    const others = group.filter((article) => article !== holder);
    for (const article of others) {
      if (article.feedItem === undefined) continue; // editors' namesakes are duplicates (step 3)
      const slug = namesakeSlug(article.record.slug, itemKey(article.feedItem));
      renamed.set(article, { ...article, record: { ...article.record, slug } });
      notes.push({
        source: article.source,
        message: `${article.location}: slug "${article.record.slug}" is already taken by ${holder.source} (${holder.location}); published as "${slug}" (the title's slug and a hash of the item's guid)`,
      });
    }
  }
  return renamed;
}

/** `<slug>-<first 8 hex of the SHA-256 of the item key>`, within the slug length limit. */
function namesakeSlug(slug: string, key: string): string {
  const suffix = sha256Hex(key).slice(0, 8);
  const room = ARTICLE_SLUG_MAX - suffix.length - 1;
  const base = slug.length <= room ? slug : slug.slice(0, room).replace(/-+$/, '');
  return `${base}-${suffix}`;
}
