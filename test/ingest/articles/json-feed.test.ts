import { describe, expect, it } from 'vitest';
import { isJsonFeed } from '../../../src/ingest/articles/feed-format.js';
import { readJsonFeed } from '../../../src/ingest/articles/json-feed.js';
import { FEED_SOURCE as SOURCE, feedFile } from './feed-source.js';

describe('JSON Feed content', () => {
  it('falls back to content_text when an exporter wrote content_html empty beside it', () => {
    const feed = {
      version: 'https://jsonfeed.org/version/1.1',
      title: 'Wire',
      items: [
        { id: '1', title: 'Empty HTML', content_html: '', content_text: 'The text.', date_published: '2026-11-20T09:00:00Z' },
        { id: '2', title: 'HTML', content_html: '<p>The html.</p>', content_text: 'ignored', date_published: '2026-11-20T09:00:00Z' },
      ],
    };
    const batch = readJsonFeed(feedFile(JSON.stringify(feed), 'wire.json'), SOURCE);
    expect(batch.drafts.map((d) => d.html)).toEqual(['<p>The text.</p>', '<p>The html.</p>']);
  });
});

describe('isJsonFeed', () => {
  it('tells a JSON Feed from a JSON article by its top-level version only', () => {
    expect(isJsonFeed('{"version":"https://jsonfeed.org/version/1","title":"x","items":[]}')).toBe(true);
    expect(isJsonFeed('\uFEFF{"items":[],"version":"https://jsonfeed.org/version/1.1"}')).toBe(true);
    // An article that mentions the URL, or nests it, is still an article; so is a truncated file.
    expect(isJsonFeed('{"title":"Feeds","body":"See https://jsonfeed.org/version/1.1"}')).toBe(false);
    expect(isJsonFeed('[{"version":"https://jsonfeed.org/version/1.1"}]')).toBe(false);
    expect(isJsonFeed('{"meta":{"version":"https://jsonfeed.org/version/1.1"}}')).toBe(false);
    expect(isJsonFeed('{"version":"https://jsonfeed.org/version/1.1",')).toBe(false);
  });
});
