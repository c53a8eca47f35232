import { JsonTextError, parseJsonText } from '../json-text.js';
import type { LoadedSource } from '../source-files.js';
import { type ArticleDraft, type DraftBatch, marksMarketSnapshot } from './article-draft.js';
import { JSON_FEED_VERSION } from './feed-format.js';
import { textToHtml } from './feed-xml.js';
import { textOf } from './field-text.js';
import { identifyingLinkStems } from './slug.js';
import type { RegisteredSource } from './source-registry.js';

/** JSON Feed 1.1 (and 1.0): items with id, url, title, content_html|content_text, summary, date_published, authors, tags, image. */
export function readJsonFeed(file: Pick<LoadedSource, 'relativePath' | 'content'>, feedSource: RegisteredSource): DraftBatch {
  const reject = (location: string, reason: string): DraftBatch => ({
    drafts: [],
    rejections: [{ source: file.relativePath, location, reason }],
    notes: [],
  });
  let feed: unknown;
  try {
    feed = parseJsonText(file.content.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    const line = error instanceof JsonTextError ? error.line : undefined;
    return reject(line === undefined ? 'document' : `line ${line}`, `invalid JSON: ${(error as Error).message}`);
  }
  const version = (feed as { version?: unknown } | null)?.version;
  if (typeof version !== 'string' || !version.startsWith(JSON_FEED_VERSION)) {
    return reject('document', 'not a JSON Feed (version must be https://jsonfeed.org/version/1.1)');
  }
  const items = (feed as { items?: unknown }).items;
  if (!Array.isArray(items)) return reject('document', 'a JSON Feed needs an items array');
  const feedAuthor = (feed as { authors?: unknown; author?: unknown }).authors ?? (feed as { author?: unknown }).author;

  const fieldsOf = (item: unknown) => (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
  const stems = identifyingLinkStems(items.map((item) => textOf(fieldsOf(item).url)));
  const drafts = items.map((item, index): ArticleDraft => {
    const fields = fieldsOf(item);
    const id = textOf(fields.id);
    const url = textOf(fields.url);
    const title = textOf(fields.title);
    const tags = Array.isArray(fields.tags) ? fields.tags : [];
    // content_html first; an empty one (some exporters write "" beside the text) is no content.
    const html =
      typeof fields.content_html === 'string' && fields.content_html.trim() !== ''
        ? fields.content_html
        : typeof fields.content_text === 'string'
          ? textToHtml(fields.content_text)
          : '';
    return {
      source: file.relativePath,
      location: `item ${index + 1}${id === undefined ? '' : ` (${id})`}`,
      feedSource,
      title,
      description: fields.summary,
      date: fields.date_published ?? fields.date_modified,
      // 1.1 writes `authors` (a list); 1.0 wrote `author` (one object).
      author: fields.authors ?? fields.author ?? feedAuthor,
      categories: tags.filter((t) => !marksMarketSnapshot([t])),
      slugCandidates: [title, stems[index]].filter((c): c is string => c !== undefined),
      ...((id ?? url) ? { itemId: id ?? url } : {}),
      image: fields.image,
      html,
      ...(marksMarketSnapshot(tags) ? { exclusion: 'provider market snapshot' } : {}),
    };
  });
  return { drafts, rejections: [], notes: [] };
}
