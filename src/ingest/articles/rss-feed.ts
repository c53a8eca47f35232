import type { LoadedSource } from '../source-files.js';
import { type ArticleDraft, type DraftBatch, marksMarketSnapshot } from './article-draft.js';
import { attribute, FEED_NAMESPACES, parseFeedXml, rawText, xmlText } from './feed-xml.js';
import { plainText } from './html-content.js';
import { identifyingLinkStems } from './slug.js';
import type { RegisteredSource } from './source-registry.js';

/** RSS 2.0: channel/item with title, link, guid, pubDate, author|dc:creator, category, description, content:encoded. */
export function readRssFeed(file: Pick<LoadedSource, 'relativePath' | 'content'>, feedSource: RegisteredSource): DraftBatch {
  const parsed = parseFeedXml(
    file.content.toString('utf8'),
    ['title', 'description', 'encoded'],
    [FEED_NAMESPACES.content, FEED_NAMESPACES.dublinCore],
  );
  if ('reason' in parsed) return rejectFile(file.relativePath, parsed.location, parsed.reason);
  const rss = parsed.root.rss as { channel?: { item?: unknown[] } } | undefined;
  if (typeof rss !== 'object' || rss === null || typeof rss.channel !== 'object' || rss.channel === null) {
    return rejectFile(file.relativePath, 'document', 'not an RSS 2.0 document (no rss/channel element)');
  }
  const items = Array.isArray(rss.channel.item) ? rss.channel.item : [];
  const fieldsOf = (item: unknown) => (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
  const links = items.map((item) => textField(arrayOf(fieldsOf(item).link)[0]));
  const stems = identifyingLinkStems(links);
  const drafts = items.map((item, index): ArticleDraft => {
    const fields = fieldsOf(item);
    const title = textField(fields.title);
    const link = links[index];
    const guid = textField(arrayOf(fields.guid)[0]);
    const categories = arrayOf(fields.category)
      .map((c) => rawText(c)?.trim())
      .filter((c): c is string => !!c);
    const description = textField(fields.description);
    const encoded = textField(fields.encoded);
    const image = arrayOf(fields.enclosure).find((e) => attribute(e, 'type')?.startsWith('image/'));
    const snapshot = marksMarketSnapshot(categories);
    return {
      source: file.relativePath,
      location: `item ${index + 1}`,
      feedSource,
      title: title === undefined ? undefined : plainText(title),
      description,
      descriptionIsHtml: true,
      date: textField(fields.pubDate) ?? textField(fields.date),
      author: textField(fields.creator) ?? rssAuthorName(textField(arrayOf(fields.author)[0])),
      categories: categories.filter((c) => !marksMarketSnapshot([c])),
      slugCandidates: [title === undefined ? undefined : plainText(title), stems[index]].filter((c): c is string => c !== undefined),
      ...((guid ?? link) ? { itemId: guid ?? link } : {}),
      image: attribute(image, 'url'),
      html: encoded ?? description ?? '',
      ...(snapshot ? { exclusion: 'provider market snapshot' } : {}),
    };
  });
  return { drafts, rejections: [], notes: [] };
}

function textField(node: unknown): string | undefined {
  const raw = rawText(node);
  if (raw === undefined) return undefined;
  const text = xmlText(raw);
  return text === '' ? undefined : text;
}

/** RSS `author` is an e-mail address, conventionally "desk@example.com (Ana Park)": keep the name. */
function rssAuthorName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const named = /\(([^)]+)\)\s*$/.exec(value);
  if (named) return named[1]!.trim();
  return value.includes('@') ? undefined : value;
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

function rejectFile(source: string, location: string, reason: string): DraftBatch {
  return { drafts: [], rejections: [{ source, location, reason }], notes: [] };
}
