import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

// Editors may embed HTML in Markdown (tables, figures); it is allowed here because everything
// is sanitized afterwards, exactly like feed HTML.
const markdown = new MarkdownIt({ html: true, linkify: true, typographer: false });

export function renderMarkdown(body: string): string {
  return markdown.render(body);
}

const LINK_REL = 'noopener noreferrer nofollow';

/**
 * What article content may contain: editorial structure only. No scripts, styles, frames, forms,
 * event handlers or inline styles (except table cell alignment, which markdown-it writes), and
 * URLs only with http(s)/mailto schemes or relative; images only http(s) or relative.
 */
const ARTICLE_HTML: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'p',
    'br',
    'hr',
    'ul',
    'ol',
    'li',
    'a',
    'em',
    'strong',
    'b',
    'i',
    'del',
    's',
    'sup',
    'sub',
    'code',
    'pre',
    'blockquote',
    'table',
    'thead',
    'tbody',
    'tfoot',
    'tr',
    'th',
    'td',
    'caption',
    'img',
    'figure',
    'figcaption',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    ol: ['start'],
    th: ['style', 'colspan', 'rowspan', 'scope'],
    td: ['style', 'colspan', 'rowspan'],
    code: ['class'],
  },
  allowedClasses: { code: [/^language-[a-z0-9+#-]+$/] },
  allowedStyles: { '*': { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // An image whose src was refused (javascript:, data:) would be an empty box: drop it.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
  transformTags: {
    // Links leave the publisher's site: no opener access, no referrer, no endorsement.
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: LINK_REL } }),
  },
};

/**
 * Sanitized article HTML. With `baseUrl` (an Atom entry's xml:base), relative links and images are
 * resolved against it first, as RFC 4287 asks: published as they are, they would point into the
 * site of whoever shows the article.
 */
export function sanitizeArticleHtml(html: string, baseUrl?: string): string {
  if (baseUrl === undefined || !/^https?:\/\//i.test(baseUrl)) return sanitizeHtml(html, ARTICLE_HTML).trim();
  const resolved = (value: string | undefined) => {
    if (value === undefined || /^[a-z][a-z0-9+.-]*:/i.test(value) || value.startsWith('#')) return value;
    try {
      return new URL(value, baseUrl).href;
    } catch {
      return value;
    }
  };
  const withBase: sanitizeHtml.IOptions = {
    ...ARTICLE_HTML,
    transformTags: {
      a: (tagName, attribs) => ({
        tagName,
        attribs: { ...attribs, ...(attribs.href ? { href: resolved(attribs.href)! } : {}), rel: LINK_REL },
      }),
      img: (tagName, attribs) => ({ tagName, attribs: { ...attribs, ...(attribs.src ? { src: resolved(attribs.src)! } : {}) } }),
    },
  };
  return sanitizeHtml(html, withBase).trim();
}

const TEXT_ONLY: sanitizeHtml.IOptions = { allowedTags: [], allowedAttributes: {} };

// sanitize-html re-escapes only these when it writes text back out.
const BASIC_ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The text of an HTML fragment, entities decoded and whitespace collapsed (titles, descriptions). */
export function plainText(html: string): string {
  return (
    sanitizeHtml(html.replace(/<\/(p|li|h[1-6]|div|blockquote)>|<br\s*\/?>/gi, '$& '), TEXT_ONLY)
      .replace(/&(amp|lt|gt|quot|#39);/g, (entity) => BASIC_ENTITIES[entity] ?? entity)
      // A line break inside Chinese or Japanese text is not a word space: join the lines.
      .replace(
        /(?<=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef])[ \t]*\n\s*(?=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef])/gu,
        '',
      )
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** The first paragraph of sanitized content, as plain text. */
export function firstParagraphText(html: string): string {
  for (const match of html.matchAll(/<p>([\s\S]*?)<\/p>/g)) {
    const text = plainText(match[1]!);
    if (text !== '') return text;
  }
  return '';
}
