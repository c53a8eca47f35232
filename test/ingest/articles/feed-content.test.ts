import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ingestArticles } from '../../../src/ingest/articles/index.js';
import type { Article } from '../../../src/model/article.js';
import type { IngestResult, Sourced } from '../../../src/model/dataset-build.js';

/**
 * What real feeds carry besides articles: a WordPress blog through FeedBurner (a 1×1 pixel and
 * "flare" buttons in every item, an item that is only a pixel, a code snippet in a
 * `<div class="codesnip">`, wrappers left empty) and a desk through FeedPress (a pixel per item,
 * one item that is only a pixel inside a paragraph).
 */
const TRACKERS = path.resolve('test/fixtures/articles/trackers');
const QUAYSIDE = 'articles/feeds/quayside-notes.xml';
const LEDGER = 'articles/feeds/harbor-ledger.rss';

describe('ingestArticles on feeds with tracking pixels, code snippets and empty wrappers', () => {
  let result: IngestResult<Sourced<Article>>;
  const content = (slug: string) => result.records.find((entry) => entry.record.slug === slug)!.record.content;
  beforeAll(async () => {
    result = await ingestArticles(TRACKERS);
  });

  it('publishes every item with content and no tracker address in it', () => {
    expect(result.records.map((entry) => entry.record.slug).sort()).toEqual([
      'antwerp-container-volumes-recover-in-october',
      'freight-rates-ease-for-a-third-week',
      'querying-the-berth-schedule-from-a-shell',
    ]);
    for (const entry of result.records) expect(entry.record.content).not.toMatch(/feedburner|feedpress|width="1"/);
  });

  it('rejects an item whose whole content was a pixel, naming the file, the item and what was removed', () => {
    expect(result.rejections).toEqual([
      { source: LEDGER, location: 'item 2', reason: 'empty content after sanitising (1 tracking pixel(s) removed)' },
      { source: QUAYSIDE, location: 'item 3', reason: 'empty content after sanitising (1 tracking pixel(s) removed)' },
    ]);
  });

  it('notes per feed how many pixels it lost, from which hosts', () => {
    expect(result.notes.filter((note) => note.message.includes('tracking pixel'))).toEqual([
      {
        source: LEDGER,
        message: 'removed 2 tracking pixel(s) from 2 item(s) (images from feedpress.me: 2)',
        routine: 'file(s) with tracking pixels removed',
      },
      {
        source: QUAYSIDE,
        // Items 1 and 2 carry a pixel each, item 1 two flare buttons too; item 3 is only a pixel.
        message: 'removed 5 tracking pixel(s) from 3 item(s) (images from feeds.feedburner.com: 5)',
        routine: 'file(s) with tracking pixels removed',
      },
    ]);
  });

  it('removes the paragraphs that stripped wrappers leave empty, and keeps the figure', () => {
    expect(content('antwerp-container-volumes-recover-in-october')).toBe(
      '<p>Container throughput at Antwerp-Bruges rose 4% on the year in October, the port said on Friday, as vessels diverted from the Red Sea returned to their usual rotations.</p>\n' +
        '<figure><img src="https://quayside-notes.example/wp-content/uploads/2026/11/antwerp-cranes.jpg" alt="Cranes at the Europa Terminal" width="1024" height="683" /></figure>',
    );
  });

  it('keeps the codesnip as a <pre><code> block with its lines', () => {
    expect(content('querying-the-berth-schedule-from-a-shell')).toBe(
      '<p>The port community system publishes the berth schedule as JSON. To list the vessels due alongside today:</p>\n' +
        '<pre><code>curl -s https://api.quayside-notes.example/berths/today \\\n\u00a0\u00a0| jq -r \'.[] | .vessel + " " + .berth\'\n</code></pre>\n' +
        '<p>Each line names a vessel and its berth.</p>',
    );
  });
});
