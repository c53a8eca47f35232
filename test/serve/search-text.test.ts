import { describe, expect, it } from 'vitest';
import { indexArticles, selectProfileBArticles } from '../../src/serve/indexes/articles-index.js';
import { searchTerms } from '../../src/serve/search-text.js';
import { articles } from './helpers/records.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const EVERY_DAY = { startMs: -Infinity, endMs: Infinity };

describe('Profile B search text', () => {
  it('finds a Korean title whichever Unicode form the query is written in', () => {
    const records = articles(NOW).map((a) => (a.slug === 'ko-kr-fed-holds-rates-steady-1' ? { ...a, title: '한국은행 기준금리 동결' } : a));
    const index = indexArticles(records);
    for (const form of ['NFC', 'NFD'] as const) {
      const terms = searchTerms('한국은행 동결'.normalize(form));
      const found = selectProfileBArticles(index, { region: 'kr', terms, range: EVERY_DAY, sort: 'date_desc' });
      expect(found.map((a) => a.slug)).toEqual(['ko-kr-fed-holds-rates-steady-1']);
    }
  });

  it('splits on any whitespace and refuses a value without a term', () => {
    expect(searchTerms(' Oil\tSUPPLY ')).toEqual(['oil', 'supply']);
    expect(searchTerms(undefined)).toBeUndefined();
    expect(() => searchTerms(' \t ')).toThrow('q must contain a search term');
  });
});
