import { describe, expect, it } from 'vitest';
import {
  ContentCheck,
  evaluateContentRules,
  findSecurityIdentifiers,
  findSlugProblems,
  identifiersInText,
  largestConsensusPage,
  MAX_CONSENSUS_PAGE_BYTES,
  describeFinding,
} from '../../src/model/content-rules.js';
import { article } from '../helpers/records.js';
import { consensusRow, investor, trade } from '../validate/records.js';

const SNAPSHOT = { id: 'smart-money-20261122T000000Z-3f2a9c1b7d4e', generatedAt: '2026-11-22T00:00:00.000Z' };

// Check digits and token boundaries in detail: test/model/security-identifiers.test.ts.
describe('security identifiers', () => {
  it.each(['037833100', '594918104', '88160R101', '02079K305'])('knows %s as a CUSIP by its check digit', (cusip) => {
    expect(identifiersInText(`ISSUER ${cusip}`)).toEqual([`CUSIP ${cusip}`]);
  });
  it.each(['037833101', '123456788', 'BERKSHIRE', 'ABCDEFGH'])('does not take %s for a CUSIP', (token) => {
    expect(identifiersInText(`ISSUER ${token}`)).toEqual([]);
  });
  it('checks ISIN check digits', () => {
    expect(identifiersInText('US0378331005')).toEqual(['ISIN US0378331005']);
    expect(identifiersInText('US0378331006')).toEqual([]);
  });

  it('reports a repeated name in every record and field that carries it, though it is judged once', () => {
    const name = 'APPLE INC CUSIP:037833100';
    const first = investor('example-capital');
    first.positions[0]!.issuerName = name;
    first.positions.push({ ...first.positions[0]!, issuerName: name });
    const second = investor('other-capital');
    second.positions[0]!.issuerName = name;
    const clean = investor('clean-capital');
    expect(findSecurityIdentifiers({ investors: [first, clean, second] }).map((f) => `${f.index} ${f.field}`)).toEqual([
      '0 positions[0].issuerName',
      '0 positions[2].issuerName',
      '2 positions[0].issuerName',
    ]);
    expect(findSlugProblems('smart-money', { trades: [trade('Bad Slug'), trade('Bad Slug')] })).toHaveLength(2);
  });

  it('reports a repeated top-level value in every consecutive record, checked one record at a time', () => {
    // Consecutive trades repeat their investor and periods: a clean repeat is skipped, never a finding.
    const named = (issuerName: string, investorName: string) => ({ ...trade('example-capital'), issuerName, investorName });
    const check = new ContentCheck('smart-money');
    const records = [
      named('APPLE INC', 'EXAMPLE CAPITAL LLC'),
      named('APPLE INC CUSIP:037833100', 'EXAMPLE CAPITAL LLC'),
      named('APPLE INC CUSIP:037833100', 'EXAMPLE CAPITAL LLC'),
      named('APPLE INC', 'EXAMPLE CAPITAL LLC 594918104'),
      named('APPLE INC', 'EXAMPLE CAPITAL LLC 594918104'),
      named('APPLE INC', 'EXAMPLE CAPITAL LLC'),
    ];
    for (const record of records) check.inspect('trades', record);
    const [identifiers] = check.results(SNAPSHOT);
    expect(identifiers!.status).toBe('fail');
    expect(identifiers!.observed).toBe('4 found');
    const expected = findSecurityIdentifiers({ trades: records }).map(describeFinding);
    expect(expected).toEqual([
      'trades record 1 field issuerName: CUSIP 037833100 in the text',
      'trades record 2 field issuerName: CUSIP 037833100 in the text',
      'trades record 3 field investorName: CUSIP 594918104 in the text',
      'trades record 4 field investorName: CUSIP 594918104 in the text',
    ]);
    expect(identifiers!.message).toContain(expected.join('; '));
  });

  it.each([
    ['WPP PLC NEW ADR ISIN#US92937A1025', 'ISIN US92937A1025'],
    ['APPLE INC CUSIP:037833100', 'CUSIP 037833100'],
    ['COM/88160R101', 'CUSIP 88160R101'],
    ['ETF cusip=464287200', 'CUSIP 464287200'],
    ['ISHARES TR CORE S&P500 ETF CUSIP464287200', 'CUSIP 464287200'],
  ])('catches an identifier glued to # : / = or letters in %j', (name, what) => {
    const holder = investor('example-capital');
    holder.positions[0]!.issuerName = name;
    expect(findSecurityIdentifiers({ 'investors.json': [holder] })).toEqual([
      { resource: 'investors.json', index: 0, field: 'positions[0].issuerName', reason: `${what} in the text` },
    ]);
  });

  it('finds a CUSIP hidden in an issuer name, naming the record and the field', () => {
    const holder = investor('example-capital');
    holder.positions[1]!.issuerName = 'MICROSOFT CORP 594918104';
    const findings = findSecurityIdentifiers({ investors: [investor('other-fund'), holder] });
    expect(findings).toEqual([
      { resource: 'investors', index: 1, field: 'positions[1].issuerName', reason: 'CUSIP 594918104 in the text' },
    ]);
  });

  it('finds a value that is nothing but a CUSIP, the shortest identifier, and passes shorter ones', () => {
    const findings = findSecurityIdentifiers({ consensus: [{ issuerName: '594918104', title: 'COM', code: '59491810' }] });
    expect(findings).toEqual([{ resource: 'consensus', index: 0, field: 'issuerName', reason: 'CUSIP 594918104 in the text' }]);
  });

  it('finds FIGIs and ISINs in text, in brackets or HTML', () => {
    expect(identifiersInText('Apple (BBG000B9XRY4) rose')).toEqual(['FIGI BBG000B9XRY4']);
    expect(identifiersInText('<td>US0378331005</td>')).toEqual(['ISIN US0378331005']);
    expect(identifiersInText('CUSIP: 037833100.')).toEqual(['CUSIP 037833100']);
  });

  it('ignores ordinary words, numbers with a wrong check digit and numbers inside links', () => {
    expect(identifiersInText('BERKSHIRE HATHAWAY INC DEL CL B')).toEqual([]);
    expect(identifiersInText('Shares rose to 123456788 units')).toEqual([]);
    expect(identifiersInText('https://example.com/story/037833100')).toEqual([]);
  });

  it.each(['cusip', 'FIGI', 'ticker', 'symbol', 'isin'])('refuses a field named %s anywhere in a record', (key) => {
    const row = { ...consensusRow(1), extra: { [key]: 'x' } };
    const findings = findSecurityIdentifiers({ consensus: [row] });
    expect(findings).toEqual([{ resource: 'consensus', index: 0, field: `extra.${key}`, reason: `a field named "${key}"` }]);
  });

  it('passes clean records and fails the rule with the places found', () => {
    const clean = evaluateContentRules('articles', { articles: [article('clean-story')] }, SNAPSHOT);
    expect(clean.find((r) => r.rule === 'content.identifiers')?.status).toBe('pass');
    const leaky = article('leaky-story');
    leaky.content = '<p>Apple Inc. (CUSIP 037833100) reported.</p>';
    const rule = evaluateContentRules('articles', { articles: [leaky] }, SNAPSHOT).find((r) => r.rule === 'content.identifiers');
    expect(rule).toMatchObject({ status: 'fail', observed: '1 found' });
    expect(rule?.message).toContain('articles record 0 field content: CUSIP 037833100 in the text');
  });
});

describe('consensus page size', () => {
  /** The bytes a server would send for one page, with the longest cursor and request id. */
  function encodedPage(rows: unknown[]): number {
    return Buffer.byteLength(
      JSON.stringify({
        data: rows,
        page: { limit: 10, nextCursor: 'c'.repeat(2048) },
        snapshot: SNAPSHOT,
        requestId: 'r'.repeat(36),
      }),
    );
  }

  it('measures a 10-row page exactly as the envelope encodes', () => {
    const rows = Array.from({ length: 10 }, (_, i) => consensusRow(i + 1));
    expect(largestConsensusPage(rows, SNAPSHOT)).toEqual({ bytes: encodedPage(rows), firstRow: 0, rows: 10 });
  });

  it('finds the largest of every 10-row window, wherever a cursor starts a page', () => {
    const rows = Array.from({ length: 25 }, (_, i) =>
      consensusRow(i + 1, i >= 12 && i < 22 ? ['a-much-longer-investor-slug-for-this-holder'] : ['short']),
    );
    const largest = largestConsensusPage(rows, SNAPSHOT);
    expect(largest.firstRow).toBe(12);
    expect(largest.bytes).toBe(encodedPage(rows.slice(12, 22)));
  });

  it('fails a page of 10 rows whose holder lists push it past 512 KiB, and passes one just under', () => {
    const slugs = (n: number) => Array.from({ length: n }, (_, i) => `investor-${String(i).padStart(6, '0')}-capital-management`);
    const huge = Array.from({ length: 10 }, (_, i) => consensusRow(i + 1, slugs(1_500)));
    expect(encodedPage(huge)).toBeGreaterThan(MAX_CONSENSUS_PAGE_BYTES);
    const over = evaluateContentRules('smart-money', { consensus: huge }, SNAPSHOT).find((r) => r.rule === 'content.consensus-page-size');
    expect(over?.status).toBe('fail');
    const fits = Array.from({ length: 10 }, (_, i) => consensusRow(i + 1, slugs(1_200)));
    expect(encodedPage(fits)).toBeLessThanOrEqual(MAX_CONSENSUS_PAGE_BYTES);
    const under = evaluateContentRules('smart-money', { consensus: fits }, SNAPSHOT).find((r) => r.rule === 'content.consensus-page-size');
    expect(under?.status).toBe('pass');
    expect(under?.observed).toBe(`${encodedPage(fits)} bytes (rows 1-10)`);
  });
});

describe('slugs', () => {
  it('accepts lowercase hyphenated slugs up to their length limits', () => {
    expect(findSlugProblems('articles', { articles: [article('a'.repeat(200))] })).toEqual([]);
    expect(findSlugProblems('smart-money', { investors: [investor('b'.repeat(160))] })).toEqual([]);
  });

  it.each([
    ['articles', 'articles', { ...article('x'), slug: 'a'.repeat(201) }, 'slug', /201 characters; at most 200/],
    ['articles', 'articles', { ...article('x'), slug: 'Fed-Holds' }, 'slug', /does not match/],
    ['smart-money', 'investors', investor('c'.repeat(161)), 'slug', /161 characters; at most 160/],
    ['smart-money', 'trades', trade('bad--slug'), 'investorSlug', /does not match/],
    ['smart-money', 'consensus', consensusRow(1, ['ok', '-leading']), 'topHolders[1]', /does not match/],
  ] as const)('%s: flags %s field with a bad slug', (dataset, resource, record, field, reason) => {
    const findings = findSlugProblems(dataset, { [resource]: [record] });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ resource, index: 0, field });
    expect(findings[0]?.reason).toMatch(reason);
  });

  it('has no slug rule for the calendar, which has no slugs', () => {
    expect(evaluateContentRules('calendar', { events: [] }, SNAPSHOT).map((r) => r.rule)).toEqual(['content.identifiers']);
  });
});
