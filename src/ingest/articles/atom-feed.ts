import type { LoadedSource } from '../source-files.js';
import { type ArticleDraft, type DraftBatch, marksMarketSnapshot } from './article-draft.js';
import { escapeXml } from '../../lib/escape-xml.js';
import { attribute, FEED_NAMESPACES, parseFeedXml, rawText, xmlText } from './feed-xml.js';
import { plainText } from './html-content.js';
import { identifyingLinkStems } from './slug.js';
import type { RegisteredSource } from './source-registry.js';

/** Atom 1.0 (RFC 4287): feed/entry with id, title, link, published|updated, author/name, category@term, summary, content. */
export function readAtomFeed(file: Pick<LoadedSource, 'relativePath' | 'content'>, feedSource: RegisteredSource): DraftBatch {
  const parsed = parseFeedXml(file.content.toString('utf8'), ['title', 'summary', 'content'], [FEED_NAMESPACES.atom]);
  if ('reason' in parsed) return rejectFile(file.relativePath, parsed.location, parsed.reason);
  const feed = parsed.root.feed as Record<string, unknown> | undefined;
  if (typeof feed !== 'object' || feed === null) {
    return rejectFile(file.relativePath, 'document', 'not an Atom 1.0 document (no feed element)');
  }
  const feedAuthor = authorOf(feed.author);
  const feedBase = attribute(feed, 'xml:base');
  const entries = Array.isArray(feed.entry) ? feed.entry : [];
  const fieldsOf = (entry: unknown) => (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
  const linksOf = (fields: Record<string, unknown>) => (Array.isArray(fields.link) ? fields.link : []);
  const alternateOf = (fields: Record<string, unknown>) =>
    attribute(
      linksOf(fields).find((l) => (attribute(l, 'rel') ?? 'alternate') === 'alternate'),
      'href',
    );
  const stems = identifyingLinkStems(entries.map((entry) => alternateOf(fieldsOf(entry))));
  const drafts = entries.map((entry, index): ArticleDraft => {
    const fields = fieldsOf(entry);
    const id = plainTextOf(fields.id);
    const enclosure = linksOf(fields).find((l) => attribute(l, 'rel') === 'enclosure' && attribute(l, 'type')?.startsWith('image/'));
    const href = alternateOf(fields);
    const categories = (Array.isArray(fields.category) ? fields.category : [])
      .map((c) => attribute(c, 'term')?.trim())
      .filter((c): c is string => !!c);
    const titleHtml = atomHtml(fields.title);
    const title = titleHtml === undefined ? undefined : plainText(titleHtml);
    const summary = atomHtml(fields.summary);
    // Out-of-line content (content@src) is not fetched: there is no network; the summary stands in.
    const content = attribute(fields.content, 'src') === undefined ? atomHtml(fields.content) : undefined;
    // xml:base nests: the content's is relative to the entry's, the entry's to the feed's.
    const base = [attribute(entry, 'xml:base'), attribute(fields.content ?? fields.summary, 'xml:base')].reduce(resolveBase, feedBase);
    return {
      source: file.relativePath,
      location: `entry ${index + 1}${id === undefined ? '' : ` (${id})`}`,
      feedSource,
      title,
      description: summary,
      descriptionIsHtml: true,
      date: plainTextOf(fields.published) ?? plainTextOf(fields.updated),
      author: authorOf(fields.author) ?? feedAuthor,
      categories: categories.filter((c) => !marksMarketSnapshot([c])),
      slugCandidates: [title, stems[index]].filter((c): c is string => c !== undefined),
      ...((id ?? href) ? { itemId: id ?? href } : {}),
      image: attribute(enclosure, 'href'),
      html: content ?? summary ?? '',
      ...(base === undefined ? {} : { baseUrl: base }),
      ...(marksMarketSnapshot(categories) ? { exclusion: 'provider market snapshot' } : {}),
    };
  });
  return { drafts, rejections: [], notes: [] };
}

function resolveBase(base: string | undefined, inner: string | undefined): string | undefined {
  if (inner === undefined) return base;
  try {
    return new URL(inner, base).href;
  } catch {
    return base;
  }
}

/** An Atom text construct as HTML: type text (default) is escaped, html is decoded, xhtml is markup already. */
function atomHtml(node: unknown): string | undefined {
  const raw = rawText(node);
  if (raw === undefined || raw.trim() === '') return undefined;
  const type = attribute(node, 'type') ?? 'text';
  if (type === 'xhtml') return raw.trim();
  if (type === 'html') return xmlText(raw);
  return `<p>${escapeXml(xmlText(raw))}</p>`;
}

function plainTextOf(node: unknown): string | undefined {
  const text = rawText(node)?.trim();
  return text === '' ? undefined : text;
}

function authorOf(value: unknown): string | undefined {
  const names = (Array.isArray(value) ? value : [])
    .map((author) => (typeof author === 'object' && author !== null ? plainTextOf((author as { name?: unknown }).name) : undefined))
    .filter((name): name is string => name !== undefined);
  return names.length > 0 ? names.join(', ') : undefined;
}

function rejectFile(source: string, location: string, reason: string): DraftBatch {
  return { drafts: [], rejections: [{ source, location, reason }], notes: [] };
}
