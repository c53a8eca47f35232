import type { Article } from '../model/article.js';
import type { Sourced } from '../model/dataset-build.js';
import type { Rejection } from '../model/report.js';

export interface ArticlesDerivation {
  records: Article[];
  rejections: Rejection[];
  facts: { latestPublishedAt?: string };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Which of two articles with the same slug and locale is kept: the most recently published, then
 * the first source path, then the first location in it (comparisons by code unit, not by the
 * machine's locale, so every machine decides the same).
 */
function preferred(a: Sourced<Article>, b: Sourced<Article>): number {
  return (
    compareText(b.record.publishedAt, a.record.publishedAt) ||
    compareText(a.source, b.source) ||
    compareText(a.location, b.location)
  );
}

/** Publishing order: newest first, then locale, then slug. */
export function compareArticles(a: Article, b: Article): number {
  return compareText(b.publishedAt, a.publishedAt) || compareText(a.locale, b.locale) || compareText(a.slug, b.slug);
}

/**
 * Ingested articles -> published records, at the build time `now`.
 *
 * An article dated after `now` is rejected, not published early (it is published by the first
 * build after it is due), and so cannot make the data set look fresh. Slugs are unique per locale
 * (the detail path is /articles/{slug} within a locale): of a duplicate set one article is kept
 * and every other is rejected, naming the one kept.
 */
export function deriveArticles(input: Sourced<Article>[], now: Date): ArticlesDerivation {
  const kept = new Map<string, Sourced<Article>>();
  const rejections: Rejection[] = [];
  const buildTime = now.toISOString();
  const due: Sourced<Article>[] = [];
  for (const candidate of input) {
    // Instants are canonical (UTC, milliseconds), so text order is time order.
    if (candidate.record.publishedAt > buildTime) {
      rejections.push({
        source: candidate.source,
        location: candidate.location,
        reason: `publishedAt ${candidate.record.publishedAt} is after the build time ${buildTime}; publish it when it is due`,
      });
    } else {
      due.push(candidate);
    }
  }
  for (const candidate of due.sort(preferred)) {
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
  rejections.sort((a, b) => compareText(a.source, b.source) || compareText(a.location, b.location));
  const latestPublishedAt = records[0]?.publishedAt;
  return { records, rejections, facts: latestPublishedAt === undefined ? {} : { latestPublishedAt } };
}
