import { describe, expect, it } from 'vitest';
import { ARTICLES_DRIFT, type ArticlesWatch } from '../../../src/validate/drift/articles.js';
import { notPassing } from './not-passing.js';

const snapshot = (feedItems?: Record<string, number>) => ({
  label: 'articles-20261122T120000Z-000000000000',
  generatedAt: '2026-11-22T12:00:00.000Z',
  facts: feedItems ? { feedItems } : {},
});

/** What the watch reads of an article, and a field it does not. */
const article = (locale: string, publishedAt: string) => ({ slug: 'a-story', locale, publishedAt, title: 'A story' });

describe('the articles watch', () => {
  it('counts articles per locale, keeps the newest publishedAt, and takes the feed counts from the facts', () => {
    const watch = ARTICLES_DRIFT.watch(snapshot({ wire: 2 }));
    expect(watch.resource).toBe('articles');
    for (const record of [
      article('en-US', '2026-11-21T10:00:00.000Z'),
      article('ja-JP', '2026-11-22T09:00:00.000Z'),
      article('en-US', '2026-11-20T10:00:00.000Z'),
    ])
      watch.record(record);
    expect(watch.result()).toEqual({
      dataset: 'articles',
      newestPublishedAt: '2026-11-22T09:00:00.000Z',
      locales: new Map([
        ['en-US', 2],
        ['ja-JP', 1],
      ]),
      feedItems: new Map([['wire', 2]]),
    });
  });

  it('knows no newest article of an empty snapshot, and no feed counts of a bundle that predates them', () => {
    expect(ARTICLES_DRIFT.watch(snapshot()).result()).toEqual({ dataset: 'articles', newestPublishedAt: null, locales: new Map() });
  });

  it('names the snapshot and the field of a record without what it reads', () => {
    const watch = ARTICLES_DRIFT.watch(snapshot());
    expect(() => watch.record({ slug: 'a-story', publishedAt: '2026-11-21T10:00:00.000Z' })).toThrow(
      'articles-20261122T120000Z-000000000000: a record of articles lacks what drift reads: locale: ',
    );
  });
});

describe('the articles checks', () => {
  const watch = (newest: string | null, locales?: Record<string, number>, feeds?: Record<string, number>): ArticlesWatch => ({
    dataset: 'articles',
    newestPublishedAt: newest,
    ...(locales ? { locales: new Map(Object.entries(locales)) } : {}),
    ...(feeds ? { feedItems: new Map(Object.entries(feeds)) } : {}),
  });
  const today = watch('2026-11-22T09:00:00.000Z', { 'en-US': 40, 'zh-CN': 2 }, { wire: 20, desk: 3 });

  it.each([
    ['a normal day', watch('2026-11-23T09:00:00.000Z', { 'en-US': 41, 'zh-CN': 1 }, { wire: 19, desk: 1 }), {}],
    [
      'the newest article older',
      watch('2026-11-21T09:00:00.000Z', { 'en-US': 40, 'zh-CN': 2 }, { wire: 20, desk: 3 }),
      { 'drift.articles.newest': 'fail' },
    ],
    [
      'no article at all',
      watch(null, {}, {}),
      { 'drift.articles.newest': 'fail', 'drift.articles.locales': 'fail', 'drift.articles.feeds': 'fail' },
    ],
    ['a locale emptied', watch('2026-11-22T09:00:00.000Z', { 'en-US': 42 }, { wire: 20, desk: 3 }), { 'drift.articles.locales': 'fail' }],
    ['a feed emptied', watch('2026-11-22T09:00:00.000Z', { 'en-US': 40, 'zh-CN': 2 }, { wire: 20 }), { 'drift.articles.feeds': 'fail' }],
  ])('%s', (_, after, failing) => {
    const results = ARTICLES_DRIFT.check(today, after);
    expect(results.map((r) => r.rule)).toEqual(['drift.articles.newest', 'drift.articles.locales', 'drift.articles.feeds']);
    expect(notPassing(results)).toEqual(failing);
  });

  it('judges no locale or feed that one side did not count', () => {
    expect(ARTICLES_DRIFT.check(watch('2026-11-22T09:00:00.000Z'), today).map((r) => r.rule)).toEqual(['drift.articles.newest']);
  });

  it('names the feed emptied and how many articles it gave', () => {
    const emptied = ARTICLES_DRIFT.check(today, watch('2026-11-22T09:00:00.000Z', { 'en-US': 40, 'zh-CN': 2 }, { wire: 20 }));
    expect(emptied.find((r) => r.rule === 'drift.articles.feeds')).toMatchObject({
      observed: '1 feed(s) emptied: desk',
      message: 'no article left from the feed of desk (3 article(s) before): the feed is empty, unreadable or missing from the sources',
    });
  });
});
