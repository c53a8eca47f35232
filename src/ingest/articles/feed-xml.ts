import { readXml } from '../xml-reader.js';
import { escapeXml } from '../../lib/escape-xml.js';

/** Elements that repeat in RSS and Atom, always read as arrays so one item is not a special case. */
const REPEATED = new Set(['item', 'entry', 'category', 'link', 'author', 'enclosure']);

/** Namespaces whose elements the readers take as the format's own, whatever prefix a feed binds them to. */
export const FEED_NAMESPACES = {
  content: 'http://purl.org/rss/1.0/modules/content/',
  dublinCore: 'http://purl.org/dc/elements/1.1/',
  atom: 'http://www.w3.org/2005/Atom',
} as const;

/**
 * Parses a feed document with the one XML reader configuration (no entity declarations, a depth
 * limit). Text constructs that may hold HTML are kept raw and decoded by xmlText/atomHtml, so that
 * markup inside them is never mistaken for feed structure. The prefixes bound to `ownNamespaces`
 * are dropped (`content:encoded` -> `encoded`, `dc:creator` -> `creator`); every other prefix stays,
 * so that Media RSS, iTunes or an `atom:link` inside RSS never collide with the format's own
 * elements (`media:title` beside `title`).
 */
export function parseFeedXml(
  text: string,
  rawElements: string[],
  ownNamespaces: readonly string[],
): { root: Record<string, unknown> } | { location: string; reason: string } {
  const droppedPrefixes = new Set<string>();
  for (const [, prefix, uri] of text.matchAll(NAMESPACE_DECLARATION)) if (ownNamespaces.includes(uri!)) droppedPrefixes.add(prefix!);
  const read = readXml(text, { rawElements, arrays: REPEATED, attributes: true, removeNamespacePrefix: true, droppedPrefixes });
  if (read.ok) return { root: read.root };
  const location = read.column === undefined ? `line ${read.line}` : `line ${read.line}, column ${read.column}`;
  return { location, reason: read.kind === 'syntax' ? `not well-formed XML: ${read.reason}` : read.reason };
}

const NAMESPACE_DECLARATION = /\bxmlns:([A-Za-z_][\w.-]*)\s*=\s*["']([^"']*)["']/g;

/** The raw text of an element (a string, or `#text` beside attributes). */
export function rawText(node: unknown): string | undefined {
  if (typeof node === 'string') return node;
  if (typeof node === 'number') return String(node);
  if (typeof node === 'object' && node !== null && '#text' in node) return rawText((node as { '#text': unknown })['#text']);
  return undefined;
}

export function attribute(node: unknown, name: string): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const value = (node as Record<string, unknown>)[`@_${name}`];
  return typeof value === 'string' ? value : undefined;
}

/** Decodes the raw text of a kept-raw element: CDATA sections verbatim, XML entities decoded elsewhere. */
export function xmlText(raw: string): string {
  let out = '';
  const cdata = /<!\[CDATA\[([\s\S]*?)\]\]>/g;
  let last = 0;
  for (const match of raw.matchAll(cdata)) {
    out += decodeXmlEntities(raw.slice(last, match.index));
    out += match[1];
    last = match.index + match[0].length;
  }
  return (out + decodeXmlEntities(raw.slice(last))).trim();
}

const XML_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeXmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
    return XML_ENTITIES[name] ?? whole; // HTML entities (&nbsp;) stay for the HTML layer
  });
}

/** Plain text as HTML paragraphs (blank lines separate them). */
export function textToHtml(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '')
    .map((paragraph) => `<p>${escapeXml(paragraph)}</p>`)
    .join('\n');
}

/** An XML root element's local name, without parsing: enough to tell RSS from Atom. */
export function xmlRootName(text: string): string | undefined {
  const match = /<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)[\s>/]/.exec(text.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/gi, ''));
  return match?.[2];
}
