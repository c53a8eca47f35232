import { ParameterProblem } from './api-error.js';

/**
 * Text as Profile B's `q` search compares it. NFKC first: the same words arrive in several Unicode
 * spellings (Hangul and accented letters decomposed by macOS input, full-width Latin letters and
 * digits from Japanese and Korean keyboards), and a search that only matched the published bytes
 * would find nothing for them. Then lower case, so the search ignores case.
 */
export function searchableText(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/**
 * The terms of a `q` value: its whitespace-separated words, compared as searchableText. A value
 * with no term (only spaces) is refused like an empty one, rather than read as "no filter".
 */
export function searchTerms(q: string | undefined): string[] | undefined {
  if (q === undefined) return undefined;
  const terms = searchableText(q).split(/\s+/).filter(Boolean);
  if (terms.length === 0) throw new ParameterProblem('q', 'q must contain a search term, not only spaces');
  return terms;
}
