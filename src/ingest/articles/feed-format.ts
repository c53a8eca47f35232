import type { FeedFormat } from './source-registry.js';
import { xmlRootName } from './feed-xml.js';

/** RSS 2.0 (`<rss>`), Atom 1.0 (`<feed>`), JSON Feed (a JSON object); anything else is unknown. */
export function sniffFeedFormat(text: string): FeedFormat | undefined {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('{')) return 'jsonfeed';
  if (!start.startsWith('<')) return undefined;
  const root = xmlRootName(start);
  if (root === 'rss') return 'rss';
  if (root === 'feed') return 'atom';
  return undefined;
}
