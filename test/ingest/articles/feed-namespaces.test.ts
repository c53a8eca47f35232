import { describe, expect, it } from 'vitest';
import { readAtomFeed } from '../../../src/ingest/articles/atom-feed.js';
import { sanitizeArticleHtml } from '../../../src/ingest/articles/html-content.js';
import { readRssFeed } from '../../../src/ingest/articles/rss-feed.js';
import { feedFile as file, FEED_SOURCE as SOURCE } from './feed-source.js';

/**
 * Feeds from real publishing tools mix in other vocabularies (Media RSS, iTunes, an `atom:link` in
 * RSS) whose elements share local names with the format's own: they must stay apart.
 */

describe('feed elements of other namespaces', () => {
  it("keep Media RSS title and description and an atom:link apart from the RSS item's own", () => {
    const batch = readRssFeed(
      file(`<?xml version="1.0"?>
<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/" xmlns:atom="http://www.w3.org/2005/Atom"
     xmlns:c="http://purl.org/rss/1.0/modules/content/" xmlns:d="http://purl.org/dc/elements/1.1/">
  <channel><title>Wire</title>
    <item>
      <title>Rates on hold</title>
      <media:title>Photo: the board room</media:title>
      <atom:link rel="self" href="https://www.harborwire.example/feed"/>
      <link>https://www.harborwire.example/2026/11/rates-on-hold</link>
      <description>Short summary</description>
      <media:description>A caption</media:description>
      <c:encoded><![CDATA[<p>The full story.</p>]]></c:encoded>
      <d:creator>Ana Park</d:creator>
      <pubDate>Fri, 20 Nov 2026 09:17:00 GMT</pubDate>
    </item>
  </channel>
</rss>`),
      SOURCE,
    );
    expect(batch.rejections).toEqual([]);
    expect(batch.drafts).toHaveLength(1);
    expect(batch.drafts[0]).toMatchObject({
      title: 'Rates on hold',
      description: 'Short summary',
      author: 'Ana Park',
      itemId: 'https://www.harborwire.example/2026/11/rates-on-hold',
      html: '<p>The full story.</p>',
    });
  });

  it("keep a Media RSS content element apart from the Atom entry's content", () => {
    const batch = readAtomFeed(
      file(`<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
  <title>Wire</title><id>urn:wire</id><updated>2026-11-20T09:00:00Z</updated>
  <entry>
    <title>Rates on hold</title><id>urn:wire:1</id><published>2026-11-20T09:00:00Z</published>
    <author><name>Ana Park</name></author>
    <media:content url="https://www.harborwire.example/board.jpg" medium="image"/>
    <content type="html">&lt;p&gt;The full story.&lt;/p&gt;</content>
  </entry>
</feed>`),
      SOURCE,
    );
    expect(batch.rejections).toEqual([]);
    expect(batch.drafts[0]).toMatchObject({ title: 'Rates on hold', html: '<p>The full story.</p>' });
  });

  it('resolve relative links and images of an Atom entry against its xml:base, nested as RFC 4287 says', () => {
    const batch = readAtomFeed(
      file(`<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://atom.example/blog/">
  <title>Wire</title><id>urn:wire</id><updated>2026-11-20T09:00:00Z</updated>
  <entry xml:base="posts/">
    <title>Charts</title><id>urn:wire:2</id><published>2026-11-20T09:00:00Z</published>
    <content type="html">&lt;p&gt;&lt;a href="chart.html"&gt;chart&lt;/a&gt; &lt;img src="img/chart.png" alt="c"&gt; &lt;a href="https://other.example/x"&gt;x&lt;/a&gt; &lt;a href="#n"&gt;n&lt;/a&gt;&lt;/p&gt;</content>
  </entry>
</feed>`),
      SOURCE,
    );
    const draft = batch.drafts[0]!;
    expect(draft.baseUrl).toBe('https://atom.example/blog/posts/');
    const { html } = sanitizeArticleHtml(draft.html, draft.baseUrl);
    expect(html).toContain('href="https://atom.example/blog/posts/chart.html"');
    expect(html).toContain('src="https://atom.example/blog/posts/img/chart.png"');
    expect(html).toContain('href="https://other.example/x"');
    expect(html).toContain('href="#n"');
    // Without a base, relative links stay as written (Markdown articles link within their site).
    expect(sanitizeArticleHtml('<a href="chart.html">c</a>').html).toContain('href="chart.html"');
  });
});
