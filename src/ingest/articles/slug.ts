import { ARTICLE_SLUG_MAX } from '../../model/article.js';
import { SLUG_PATTERN } from '../../model/primitives.js';
import { sha256Hex } from '../../lib/file-digest.js';

export function isValidSlug(value: string, maxLength = ARTICLE_SLUG_MAX): boolean {
  return value.length <= maxLength && SLUG_PATTERN.test(value);
}

// Latin letters that Unicode does not decompose into a base letter plus an accent.
const LATIN_LIGATURES: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };

/**
 * Lowercase, hyphenated ASCII form of a Latin-script text: accents are folded ("Café" -> "cafe").
 * Other scripts are not transliterated: a text with any non-Latin letter gives "" (rather than the
 * digits left over from "10年国債入札"), so the caller falls back to its next candidate. Cut at a
 * hyphen so that a long title never ends mid-word.
 */
export function slugify(text: string, maxLength = ARTICLE_SLUG_MAX): string {
  if (/(?!\p{Script=Latin})\p{L}/u.test(text)) return '';
  const ascii = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[ßæœøłđðþı]/g, (letter) => LATIN_LIGATURES[letter] ?? letter)
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (ascii.length <= maxLength) return ascii;
  const cut = ascii.slice(0, maxLength + 1);
  const lastHyphen = cut.lastIndexOf('-');
  return (lastHyphen > 0 ? cut.slice(0, lastHyphen) : ascii.slice(0, maxLength)).replace(/-+$/, '');
}

/**
 * The slug of last resort, for an article with no slug, no usable file name or link, and a title
 * in a script that slugify cannot keep. Derived from what identifies the article (locale, title,
 * publication instant), never from file position, so that moving the file keeps the slug.
 */
export function hashSlug(locale: string, title: string, publishedAt: string): string {
  const digest = sha256Hex(`${locale}\n${title}\n${publishedAt}`);
  return `article-${digest.slice(0, 8)}`;
}

/** `2026-11-21-ecb-holds-rates.md` -> { date: '2026-11-21', stem: 'ecb-holds-rates' } (Jekyll). */
export function splitDatedFileName(fileName: string): { date?: string; stem: string } {
  const base = fileName.replace(/\.[^.]+$/, '');
  const m = /^(\d{4}-\d{2}-\d{2})-(.+)$/.exec(base);
  return m ? { date: m[1]!, stem: m[2]! } : { stem: base };
}

/** The last path segment of an item link, without extension: a publisher's own slug, usually. */
export function linkStem(link: string): string | undefined {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return undefined;
  }
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const last = segments.at(-1);
  if (last === undefined) return undefined;
  return decodeURIComponentSafe(last).replace(/\.(html?|php|aspx?)$/i, '');
}

/**
 * The link stems of a feed's items, only where the link's path identifies its item: a link with
 * a query or a fragment (`/north-west/?p=6133`, `/live#update-4`) is told apart by those, not
 * by its path, and a path that two items of the feed share names neither. Undefined elsewhere.
 */
export function identifyingLinkStems(links: ReadonlyArray<string | undefined>): Array<string | undefined> {
  const pathOf = (link: string | undefined): string | undefined => {
    if (link === undefined) return undefined;
    try {
      const url = new URL(link);
      return url.search === '' && url.hash === '' ? `${url.origin}${url.pathname.replace(/\/+$/, '')}` : undefined;
    } catch {
      return undefined;
    }
  };
  const paths = links.map(pathOf);
  const uses = new Map<string, number>();
  for (const p of paths) if (p !== undefined) uses.set(p, (uses.get(p) ?? 0) + 1);
  return links.map((link, index) => {
    const p = paths[index];
    return p === undefined || uses.get(p)! > 1 ? undefined : linkStem(link!);
  });
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
