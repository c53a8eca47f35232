import { describe, expect, it } from 'vitest';
import { readJsonFeed } from '../../../src/ingest/articles/json-feed.js';
import type { RegisteredSource } from '../../../src/ingest/articles/source-registry.js';

const SOURCE = {
  id: 'harbor-wire',
  locale: 'en-US',
  rights: { license: 'Syndication Agreement', holder: 'Harbor Wire Media LLC', reuse: 'with-attribution' },
  attribution: { source: 'Harbor Wire', url: 'https://www.harborwire.example/', text: 'Used under license.' },
} as RegisteredSource;

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
    const batch = readJsonFeed({ relativePath: 'articles/feeds/wire.json', content: Buffer.from(JSON.stringify(feed)) }, SOURCE);
    expect(batch.drafts.map((d) => d.html)).toEqual(['<p>The text.</p>', '<p>The html.</p>']);
  });
});
