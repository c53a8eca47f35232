import { firstParagraphText, plainText } from './html-content.js';

const DESCRIPTION_MAX = 200;

/**
 * An article's description: the one its editor wrote, else the first paragraph of its content,
 * shortened to about 200 characters. Cut at a word boundary when the text has spaces near the
 * limit; CJK text has none, so it is cut at the limit itself. An ellipsis marks the cut. A written
 * description is text unless its format makes it HTML (an RSS description): "x<y" in front matter
 * or a JSON Feed summary is kept, not read as a tag.
 */
export function describeArticle(written: string | undefined, writtenIsHtml: boolean, sanitizedContent: string): string {
  const text =
    written === undefined || written.trim() === ''
      ? firstParagraphText(sanitizedContent)
      : writtenIsHtml
        ? plainText(written)
        : written.replace(/\s+/g, ' ').trim();
  return truncateText(text, DESCRIPTION_MAX);
}

export function truncateText(text: string, max: number): string {
  const chars = Array.from(text); // code points, so that a cut never splits a surrogate pair
  if (chars.length <= max) return text;
  const head = chars.slice(0, max).join('');
  const lastSpace = head.lastIndexOf(' ');
  const cut = lastSpace >= max * 0.75 ? head.slice(0, lastSpace) : head;
  return `${cut.replace(/[\s,;:.\u3001\u3002\uff0c]+$/u, '')}…`;
}
