import type { z } from 'zod';
import { Article } from '../../model/article.js';
import type { RuleResult } from '../../model/rule-result.js';
import { type DatasetDrift, fixed, type WatchedSnapshot, type Watcher, readWatched } from './core.js';
import { datasetThresholds, STEADY } from './thresholds.js';

/**
 * Drift of the articles: besides the count and keys of the articles, the newest article never gets
 * older, and no locale and no source's feed that had articles is left with none.
 */

/** What the articles watch knows of a snapshot. */
export interface ArticlesWatch {
  dataset: 'articles';
  newestPublishedAt: string | null;
  /** Articles per locale; absent where only the newest article is known. */
  locales?: ReadonlyMap<string, number>;
  /** Articles from each source's feed, by source id (a source whose feed gave none is absent); absent for bundles that predate the count. */
  feedItems?: ReadonlyMap<string, number>;
}

/** The articles' own checks have no thresholds. */
const THRESHOLDS = datasetThresholds(['articles'], {});
export type ArticlesDriftThresholds = z.infer<typeof THRESHOLDS.schema>;

const DEFAULTS: ArticlesDriftThresholds = {
  // Articles age out: a daily rebuild loses a few keys.
  resources: { articles: { ...STEADY, lostKeysWarnPercent: 20, lostKeysFailPercent: 40 } },
};

/** What the watch reads of an article. */
const WatchedArticle = Article.pick({ locale: true, publishedAt: true }).strip();

function watch(snapshot: WatchedSnapshot): Watcher<ArticlesWatch> {
  let newest: string | null = null;
  const locales = new Map<string, number>();
  const { feedItems } = snapshot.facts;
  return {
    resource: 'articles',
    record(record) {
      const { locale, publishedAt } = readWatched(WatchedArticle, record, snapshot, 'articles');
      locales.set(locale, (locales.get(locale) ?? 0) + 1);
      if (newest === null || publishedAt > newest) newest = publishedAt;
    },
    result: () => ({
      dataset: 'articles',
      newestPublishedAt: newest,
      locales,
      ...(feedItems ? { feedItems: new Map(Object.entries(feedItems)) } : {}),
    }),
  };
}

function check(before: ArticlesWatch, after: ArticlesWatch): RuleResult[] {
  const moved =
    before.newestPublishedAt !== null && (after.newestPublishedAt === null || after.newestPublishedAt < before.newestPublishedAt);
  const observed = `${before.newestPublishedAt ?? 'none'} -> ${after.newestPublishedAt ?? 'none'}`;
  return [
    fixed(
      'drift.articles.newest',
      observed,
      'the newest article never gets older',
      moved ? 'fail' : 'pass',
      moved
        ? `the newest article got older (${observed}): the newest articles are missing from the sources`
        : 'the newest article is as new or newer',
    ),
    ...localeChecks(before.locales, after.locales),
    ...feedChecks(before.feedItems, after.feedItems),
  ];
}

/** A locale that had articles and has none: every reader of that locale gets an empty list. */
function localeChecks(before: ReadonlyMap<string, number> | undefined, after: ReadonlyMap<string, number> | undefined): RuleResult[] {
  return emptiedGroups('drift.articles.locales', before, after, {
    none: (kept) => `${kept} locale(s), none gone`,
    gone: 'locale(s) gone',
    limit: 'a locale with articles never loses them all',
    pass: 'every locale that had articles still has some',
    fail: (list) => `no article left in ${list}: a folder, feed or source of that locale is missing from the sources`,
  });
}

/**
 * A feed that gave articles and gives none now answered an empty channel, or is an error page saved
 * under its name (a rejection of the whole file, which alone only warns): its articles leave
 * together, however small a share of the dataset they are. A feed rolls its oldest items off every
 * day, but never down to none while its source publishes.
 */
function feedChecks(before: ReadonlyMap<string, number> | undefined, after: ReadonlyMap<string, number> | undefined): RuleResult[] {
  return emptiedGroups('drift.articles.feeds', before, after, {
    none: (kept) => `${kept} feed(s) with articles, none emptied`,
    gone: 'feed(s) emptied',
    limit: 'a feed that gave articles never gives none',
    pass: 'every source whose feed gave articles still gets some from it',
    fail: (list) => `no article left from the feed of ${list}: the feed is empty, unreadable or missing from the sources`,
  });
}

/**
 * Groups of articles (by locale, by source feed) that had some and have none now: a rule without a
 * threshold, naming them. No rule when either side lacks the counts (a bundle that predates them).
 */
function emptiedGroups(
  rule: string,
  before: ReadonlyMap<string, number> | undefined,
  after: ReadonlyMap<string, number> | undefined,
  text: { none: (kept: number) => string; gone: string; limit: string; pass: string; fail: (list: string) => string },
): RuleResult[] {
  if (!before || !after) return [];
  const gone = [...before].filter(([name, count]) => count > 0 && (after.get(name) ?? 0) === 0);
  if (gone.length === 0) return [fixed(rule, text.none(after.size), text.limit, 'pass', text.pass)];
  const list = gone.map(([name, count]) => `${name} (${count} article(s) before)`).join(', ');
  return [fixed(rule, `${gone.length} ${text.gone}: ${gone.map(([name]) => name).join(', ')}`, text.limit, 'fail', text.fail(list))];
}

export const ARTICLES_DRIFT = {
  override: THRESHOLDS.override,
  defaults: DEFAULTS,
  keyed: ['articles'],
  watch,
  check,
} satisfies DatasetDrift<ArticlesDriftThresholds, ArticlesWatch>;
