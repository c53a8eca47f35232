import { describe, expect, it } from 'vitest';
import { deriveArticles } from '../../src/derive/articles.js';
import type { Article, IngestedArticle } from '../../src/model/article.js';
import type { Sourced } from '../../src/model/dataset-build.js';

/** The build time every test derives at. */
const NOW = new Date('2026-11-22T12:00:00.000Z');

function article(
  slug: string,
  locale: Article['locale'],
  publishedAt: string,
  source: string,
  location = 'front matter',
): Sourced<Article> {
  return {
    source,
    location,
    record: {
      slug,
      title: slug,
      description: '',
      category: 'markets',
      locale,
      publishedAt,
      author: 'Desk',
      image: '',
      rights: { license: 'CC BY 4.0', holder: 'Desk', reuse: 'free' },
      attribution: { source: 'Desk', text: 'Desk' },
      content: '<p>x</p>',
    },
  };
}

describe('deriveArticles', () => {
  it('keeps the newest of a duplicate slug within a locale and rejects the other, naming both sources', () => {
    const older = article('rates-outlook', 'en-US', '2026-11-20T08:00:00.000Z', 'articles/a.md');
    const newer = article('rates-outlook', 'en-US', '2026-11-21T08:00:00.000Z', 'articles/z.md');
    const { records, rejections } = deriveArticles([older, newer], NOW);
    expect(records).toEqual([newer.record]);
    expect(rejections).toEqual([
      {
        source: 'articles/a.md',
        location: 'front matter',
        reason: 'duplicate slug "rates-outlook" in en-US: kept the article from articles/z.md (front matter)',
      },
    ]);
  });

  it('breaks a publishedAt tie by source path, whatever the input order', () => {
    const a = article('same', 'en-US', '2026-11-21T08:00:00.000Z', 'articles/a.md');
    const b = article('same', 'en-US', '2026-11-21T08:00:00.000Z', 'articles/b.md');
    expect(deriveArticles([b, a], NOW).records[0]).toBe(a.record);
    expect(deriveArticles([a, b], NOW).records[0]).toBe(a.record);
    expect(deriveArticles([b, a], NOW).rejections[0]!.source).toBe('articles/b.md');
  });

  it('allows the same slug in different locales', () => {
    const { records, rejections } = deriveArticles(
      [
        article('boj-decision', 'en-US', '2026-11-21T08:00:00.000Z', 'articles/en.md'),
        article('boj-decision', 'ja-JP', '2026-11-21T08:00:00.000Z', 'articles/ja.md'),
      ],
      NOW,
    );
    expect(records).toHaveLength(2);
    expect(rejections).toEqual([]);
  });

  it('orders records by publishedAt descending, then locale, then slug', () => {
    const { records } = deriveArticles(
      [
        article('b', 'en-US', '2026-11-20T00:00:00.000Z', 's1'),
        article('z', 'ja-JP', '2026-11-21T00:00:00.000Z', 's2'),
        article('y', 'en-US', '2026-11-21T00:00:00.000Z', 's3'),
        article('a', 'en-US', '2026-11-21T00:00:00.000Z', 's4'),
      ],
      NOW,
    );
    expect(records.map((r) => `${r.publishedAt.slice(0, 10)} ${r.locale} ${r.slug}`)).toEqual([
      '2026-11-21 en-US a',
      '2026-11-21 en-US y',
      '2026-11-21 ja-JP z',
      '2026-11-20 en-US b',
    ]);
  });

  it('reports the latest publishedAt as the freshness fact, and none for no articles', () => {
    const { facts } = deriveArticles(
      [article('old', 'en-US', '2026-10-01T00:00:00.000Z', 's1'), article('new', 'ko-KR', '2026-11-21T23:59:59.999Z', 's2')],
      NOW,
    );
    expect(facts).toEqual({ latestPublishedAt: '2026-11-21T23:59:59.999Z', feedItems: {} });
    expect(deriveArticles([], NOW).facts).toEqual({ feedItems: {} });
  });

  it('rejects an article published after the build time instead of publishing it early', () => {
    const due = article('due', 'en-US', '2026-11-21T08:00:00.000Z', 'articles/due.md');
    const early = article('embargoed', 'en-US', '2062-01-01T00:00:00.000Z', 'articles/embargoed.md');
    const { records, rejections, facts } = deriveArticles([early, due], NOW);
    expect(records).toEqual([due.record]);
    expect(rejections).toEqual([
      {
        source: 'articles/embargoed.md',
        location: 'front matter',
        reason: 'publishedAt 2062-01-01T00:00:00.000Z is after the build time 2026-11-22T12:00:00.000Z; publish it when it is due',
      },
    ]);
    // The freshness fact comes from what is published, so a future date cannot keep the data set fresh.
    expect(facts).toEqual({ latestPublishedAt: '2026-11-21T08:00:00.000Z', feedItems: {} });
  });

  it('publishes an article dated exactly at the build time, and rejects one 1 ms later', () => {
    const { records, rejections } = deriveArticles(
      [
        article('on-time', 'en-US', '2026-11-22T12:00:00.000Z', 'articles/a.md'),
        article('too-soon', 'en-US', '2026-11-22T12:00:00.001Z', 'articles/b.md'),
      ],
      NOW,
    );
    expect(records.map((r) => r.slug)).toEqual(['on-time']);
    expect(rejections.map((r) => r.source)).toEqual(['articles/b.md']);
  });

  it('does not let a future duplicate displace the article that is due', () => {
    const due = article('outlook', 'en-US', '2026-11-21T08:00:00.000Z', 'articles/a.md');
    const future = article('outlook', 'en-US', '2026-12-01T08:00:00.000Z', 'articles/b.md');
    const { records, rejections } = deriveArticles([due, future], NOW);
    expect(records).toEqual([due.record]);
    expect(rejections).toEqual([
      expect.objectContaining({ source: 'articles/b.md', reason: expect.stringMatching(/is after the build time/) }),
    ]);
  });

  describe('feed items', () => {
    const item = (slug: string, publishedAt: string, location: string, id: string, sourceId = 'wire'): IngestedArticle => ({
      ...article(slug, 'en-US', publishedAt, `articles/feeds/${sourceId}.xml`, location),
      feedItem: { sourceId, id },
    });

    it('counts the published articles of each source feed for drift, leaving out what was not published', () => {
      const { facts } = deriveArticles(
        [
          item('a', '2026-11-20T08:00:00.000Z', 'item 1', 'urn:a'),
          item('b', '2026-11-20T09:00:00.000Z', 'item 2', 'urn:b'),
          item('later', '2026-12-20T09:00:00.000Z', 'item 3', 'urn:later'),
          item('c', '2026-11-19T09:00:00.000Z', 'item 1', 'urn:c', 'other'),
          article('written', 'en-US', '2026-11-21T08:00:00.000Z', 'articles/en-US/written.md'),
        ],
        NOW,
      );
      expect(facts.feedItems).toEqual({ wire: 2, other: 1 });
    });

    it("leaves an editor's article its slug and gives a namesake feed item the title slug plus a hash of its guid", () => {
      const written = article('north-west', 'en-US', '2026-11-21T08:00:00.000Z', 'articles/en-US/north-west.md');
      const fromFeed = item('north-west', '2026-11-20T08:00:00.000Z', 'item 1', 'https://host/?p=1');
      const { records, notes, rejections } = deriveArticles([fromFeed, written], NOW);
      expect(rejections).toEqual([]);
      expect(records.map((r) => r.slug)).toEqual(['north-west', expect.stringMatching(/^north-west-[0-9a-f]{8}$/)]);
      expect(notes).toEqual([
        {
          source: 'articles/feeds/wire.xml',
          message: expect.stringMatching(
            /^item 1: slug "north-west" is already taken by articles\/en-US\/north-west.md \(front matter\); published as "north-west-[0-9a-f]{8}"/,
          ),
        },
      ]);
    });

    it('keeps the most recent of two items with the same guid and rejects the other, whatever their slugs', () => {
      const first = item('old-title', '2026-11-20T08:00:00.000Z', 'item 2', 'urn:x');
      const edited = item('new-title', '2026-11-20T09:00:00.000Z', 'item 1', 'urn:x');
      const { records, rejections } = deriveArticles([first, edited], NOW);
      expect(records.map((r) => r.slug)).toEqual(['new-title']);
      expect(deriveArticles([first, edited], NOW).facts.feedItems).toEqual({ wire: 1 });
      expect(rejections).toEqual([
        {
          source: 'articles/feeds/wire.xml',
          location: 'item 2',
          reason: 'duplicate feed item "urn:x" of source wire: kept the item from articles/feeds/wire.xml (item 1)',
        },
      ]);
    });
  });
});
