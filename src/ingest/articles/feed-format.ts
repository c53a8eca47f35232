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

/** What a JSON Feed's required top-level `version` starts with (1.0: `…/version/1`, 1.1: `…/version/1.1`). */
export const JSON_FEED_VERSION = 'https://jsonfeed.org/version/';

/**
 * A JSON file that is a JSON Feed, told by its top-level `version`, whatever its name or folder:
 * it is a feed, not a JSON article, and needs a declaring source for its rights.
 */
export function isJsonFeed(text: string): boolean {
  // A JSON article never names the version URL: most files are never parsed here.
  if (!text.includes(JSON_FEED_VERSION)) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
  const version = (parsed as { version?: unknown }).version;
  return typeof version === 'string' && version.startsWith(JSON_FEED_VERSION);
}
