import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import { asCodeBlocks, isCodeSnippetWrapper } from './code-blocks.js';
import { trackingPixelHost } from './tracking-pixels.js';

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
};

/**
 * Wrappers left with nothing inside once their content is sanitized away (`<p></p>` where a
 * stripped `div` or a removed pixel was, `<p>&nbsp;</p>` spacers) are removed too. A block is
 * empty with white space only; an inline element only with nothing at all, since a space inside
 * `<strong> </strong>` still separates two words. Table cells are kept: they hold the table's shape.
 */
const EMPTY_BLOCKS = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'figure',
  'figcaption',
  'ul',
  'ol',
  'li',
  'pre',
  'caption',
]);
const EMPTY_INLINES = new Set(['a', 'em', 'strong', 'b', 'i', 'del', 's', 'sup', 'sub', 'code']);

/** What sanitising made of an article's HTML. */
export interface SanitizedContent {
  html: string;
  /** One entry per tracking pixel removed: the host it called, '' for a relative address. */
  trackingPixels: string[];
  /** Nothing left to read or see: no text and no image. */
  empty: boolean;
}

/**
 * Sanitized article HTML (ARTICLE_HTML), without tracking pixels (tracking-pixels.ts) or empty
 * wrappers, with every code block as `<pre><code>` (code-blocks.ts). With `baseUrl` (an Atom
 * entry's xml:base), relative links and images are resolved against it first, as RFC 4287 asks:
 * published as they are, they would point into the site of whoever shows the article.
 */
export function sanitizeArticleHtml(html: string, baseUrl?: string): SanitizedContent {
  const base = baseUrl !== undefined && /^https?:\/\//i.test(baseUrl) ? baseUrl : undefined;
  const resolved = (value: string | undefined): string | undefined => {
    if (base === undefined || value === undefined || /^[a-z][a-z0-9+.-]*:/i.test(value) || value.startsWith('#')) return value;
    try {
      return new URL(value, base).href;
    } catch {
      return value;
    }
  };
  const trackingPixels: string[] = [];
  // sanitize-html tells a frame only of its direct image children: the output positions of every
  // kept image tell a wrapper whether one is inside it (`<p><a><img></a></p>`).
  const imagesAt: number[] = [];
  // The source elements open around the current one, and whether each is the code block (the one
  // outermost `pre` or code-snippet wrapper): a code block inside it is no block of its own.
  const open: { tag: string; codeBlock: boolean }[] = [];
  let codeBlocksOpen = 0;

  const clean = sanitizeHtml(html, {
    ...ARTICLE_HTML,
    onOpenTag: (tag, attribs) => {
      const codeBlock = codeBlocksOpen === 0 && (tag === 'pre' || isCodeSnippetWrapper(tag, attribs));
      if (codeBlock) codeBlocksOpen++;
      open.push({ tag, codeBlock });
    },
    onCloseTag: (tag) => {
      const at = open.findLastIndex((element) => element.tag === tag);
      if (at === -1) return;
      for (const element of open.splice(at)) if (element.codeBlock) codeBlocksOpen--;
    },
    transformTags: {
      // Links leave the publisher's site: no opener access, no referrer, no endorsement.
      a: (tagName, attribs) => ({
        tagName,
        attribs: { ...attribs, ...(attribs.href ? { href: resolved(attribs.href)! } : {}), rel: LINK_REL },
      }),
      img: (tagName, attribs) => {
        const pixelHost = trackingPixelHost(attribs);
        if (pixelHost === undefined) return { tagName, attribs: { ...attribs, ...(attribs.src ? { src: resolved(attribs.src)! } : {}) } };
        trackingPixels.push(pixelHost);
        return { tagName, attribs: {} }; // no src: removed below
      },
      div: (tagName, attribs) => (open.at(-1)?.codeBlock ? { tagName: 'pre', attribs: {} } : { tagName, attribs }),
      // A pre inside the code block is stripped: its text stays in the one block.
      pre: (tagName, attribs) => (open.at(-1)?.codeBlock ? { tagName, attribs } : { tagName: 'div', attribs: {} }),
    },
    exclusiveFilter: (frame) => {
      let remove: boolean;
      if (frame.tag === 'img') {
        // An image whose src was refused (javascript:, data:) or taken (a tracking pixel) would be an empty box.
        remove = !frame.attribs.src;
        if (!remove) imagesAt.push(frame.tagPosition);
      } else {
        // frame.tag is the source's name: a div that gets here is a code-snippet wrapper written as pre.
        const tag = frame.tag === 'div' ? 'pre' : frame.tag;
        const hasImage = (imagesAt.at(-1) ?? -1) >= frame.tagPosition;
        remove = !hasImage && ((EMPTY_BLOCKS.has(tag) && frame.text.trim() === '') || (EMPTY_INLINES.has(tag) && frame.text === ''));
      }
      // A removed frame takes everything written since it opened with it.
      if (remove) while ((imagesAt.at(-1) ?? -1) >= frame.tagPosition) imagesAt.pop();
      return remove;
    },
  });
  const out = asCodeBlocks(clean).trim();
  // sanitize-html escapes < and > in text and attribute values: every <…> left is a tag.
  const empty = out.replace(/<[^>]*>/g, '').trim() === '' && !out.includes('<img ');
  return { html: out, trackingPixels, empty };
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
