import type { LoadedSource } from '../source-files.js';
import type { DraftBatch } from './article-draft.js';
import { readAtomFeed } from './atom-feed.js';
import { sniffFeedFormat } from './feed-format.js';
import { readJsonFeed } from './json-feed.js';
import { readRssFeed } from './rss-feed.js';
import type { RegisteredSource } from './source-registry.js';

const READERS = { rss: readRssFeed, atom: readAtomFeed, jsonfeed: readJsonFeed } as const;

/** A syndication feed declared by a registered source, in its declared (or sniffed) format. */
export function readFeed(file: Pick<LoadedSource, 'relativePath' | 'content'>, feedSource: RegisteredSource): DraftBatch {
  const format = feedSource.feed?.format ?? sniffFeedFormat(file.content.toString('utf8'));
  if (format === undefined) {
    return {
      drafts: [],
      rejections: [
        { source: file.relativePath, location: 'document', reason: 'not a recognised feed: expected RSS 2.0, Atom 1.0 or JSON Feed 1.1' },
      ],
      notes: [],
    };
  }
  return READERS[format](file, feedSource);
}
