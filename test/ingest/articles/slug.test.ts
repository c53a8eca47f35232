import { describe, expect, it } from 'vitest';
import { hashSlug, identifyingLinkStems, isValidSlug, linkStem, slugify, splitDatedFileName } from '../../../src/ingest/articles/slug.js';

describe('slugs', () => {
  it('slugify lowercases, hyphenates and folds Latin accents', () => {
    expect(slugify('Fed minutes: "Patience" on cuts')).toBe('fed-minutes-patience-on-cuts');
    expect(slugify('Café Straße Økonomi')).toBe('cafe-strasse-okonomi');
    expect(slugify("China's November credit data")).toBe('chinas-november-credit-data');
  });

  it('slugify gives nothing for text in a script it cannot transliterate, not leftover digits', () => {
    expect(slugify('10年国債入札、応札倍率3.2倍')).toBe('');
    expect(slugify('한국은행 기준금리 동결')).toBe('');
  });

  it('slugify cuts a long title at a hyphen within the limit', () => {
    const slug = slugify('word '.repeat(100));
    expect(slug.length).toBeLessThanOrEqual(200);
    expect(slug.endsWith('word')).toBe(true);
    expect(isValidSlug(slug)).toBe(true);
  });

  it('isValidSlug enforces the pattern and the 200-character limit', () => {
    expect(isValidSlug('ecb-holds-rates')).toBe(true);
    expect(isValidSlug('Rates_Outlook!')).toBe(false);
    expect(isValidSlug('double--hyphen')).toBe(false);
    expect(isValidSlug('-leading')).toBe(false);
    expect(isValidSlug('a'.repeat(201))).toBe(false);
  });

  it('the hash slug is stable and depends on locale, title and instant only', () => {
    const slug = hashSlug('ja-JP', '日銀短観', '2026-11-16T23:50:00.000Z');
    expect(slug).toMatch(/^article-[0-9a-f]{8}$/);
    expect(hashSlug('ja-JP', '日銀短観', '2026-11-16T23:50:00.000Z')).toBe(slug);
    expect(hashSlug('zh-CN', '日銀短観', '2026-11-16T23:50:00.000Z')).not.toBe(slug);
  });

  it('a Jekyll file name gives its date and slug stem', () => {
    expect(splitDatedFileName('2026-11-20-fed-minutes.md')).toEqual({ date: '2026-11-20', stem: 'fed-minutes' });
    expect(splitDatedFileName('treasury-recap.md')).toEqual({ stem: 'treasury-recap' });
  });

  it('a feed item link gives its last path segment without extension', () => {
    expect(linkStem('https://x.example/markets/2026/11/21/oil-slips.html')).toBe('oil-slips');
    expect(linkStem('https://x.example/')).toBeUndefined();
    expect(linkStem('not a url')).toBeUndefined();
  });

  it('uses a link stem only where the link path identifies its item', () => {
    expect(
      identifyingLinkStems([
        'https://host.example/north-west/?p=6133', // told apart by the query, not the path
        'https://host.example/north-west/?p=6134',
        'https://host.example/live#update-4', // told apart by the fragment
        'https://host.example/2026/11/20/oil-slips/', // a permalink
        'https://host.example/markets/latest', // a path two items share
        'https://host.example/markets/latest/',
        undefined,
        'not a url',
      ]),
    ).toEqual([undefined, undefined, undefined, 'oil-slips', undefined, undefined, undefined, undefined]);
  });
});
