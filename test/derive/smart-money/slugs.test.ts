import { describe, expect, it } from 'vitest';
import { assignInvestorSlugs, slugFromName } from '../../../src/derive/smart-money/slugs.js';
import { SLUG_PATTERN } from '../../../src/model/primitives.js';
import { INVESTOR_SLUG_MAX } from '../../../src/model/smart-money.js';

describe('slugFromName', () => {
  it.each([
    ['BERKSHIRE HATHAWAY INC', 'berkshire-hathaway-inc'],
    ['Renaissance Technologies LLC', 'renaissance-technologies-llc'],
    ['Société Générale S.A.', 'societe-generale-s-a'],
    ["O'Shaughnessy Asset Management, LLC", 'oshaughnessy-asset-management-llc'],
    ['Smith & Wesson Capital', 'smith-and-wesson-capital'],
    ['  --  ', 'investor'],
    ['野村ホールディングス', 'investor'],
  ])('%s -> %s', (name, slug) => {
    expect(slugFromName(name)).toBe(slug);
  });

  it('never exceeds 160 characters nor ends with a hyphen when cut', () => {
    const slug = slugFromName(`${'a'.repeat(159)} b${'c'.repeat(50)}`);
    expect(slug.length).toBeLessThanOrEqual(INVESTOR_SLUG_MAX);
    expect(slug).toMatch(SLUG_PATTERN);
  });
});

describe('assignInvestorSlugs', () => {
  const candidates = [
    { cik: '200', name: 'Example Capital LLC' },
    { cik: '1000', name: 'EXAMPLE CAPITAL, LLC' },
    { cik: '30', name: 'Example Capital L.L.C.' },
    { cik: '40', name: 'Example Capital LLC 200' },
    { cik: '50', name: 'Other Partners LP' },
  ];

  it('gives every filer a unique valid slug; namesakes after the lowest CIK get -<cik>', () => {
    const slugs = assignInvestorSlugs(candidates);
    expect(Object.fromEntries(slugs)).toEqual({
      '30': 'example-capital-l-l-c',
      '40': 'example-capital-llc-200',
      '50': 'other-partners-lp',
      '200': 'example-capital-llc',
      '1000': 'example-capital-llc-1000',
    });
    const values = [...slugs.values()];
    expect(new Set(values).size).toBe(values.length);
    for (const slug of values) expect(slug).toMatch(SLUG_PATTERN);
  });

  it('resolves a suffixed slug that clashes with another filer name with a counter', () => {
    const slugs = assignInvestorSlugs([
      { cik: '1', name: 'Acme' },
      { cik: '2', name: 'Acme 9' },
      { cik: '9', name: 'Acme' },
    ]);
    expect(Object.fromEntries(slugs)).toEqual({ '1': 'acme', '2': 'acme-9', '9': 'acme-9-2' });
  });

  it('is stable: the same filers in another order get the same slugs', () => {
    expect(assignInvestorSlugs([...candidates].reverse())).toEqual(assignInvestorSlugs(candidates));
  });

  it('never hands out a reserved (registry) slug', () => {
    const slugs = assignInvestorSlugs([{ cik: '7', name: 'Berkshire Hathaway' }], new Set(['berkshire-hathaway']));
    expect(slugs.get('7')).toBe('berkshire-hathaway-7');
  });

  it('keeps suffixed slugs within 160 characters', () => {
    const long = 'x'.repeat(200);
    const slugs = assignInvestorSlugs([
      { cik: '1', name: long },
      { cik: '1234567890', name: long },
    ]);
    expect(slugs.get('1234567890')).toMatch(/-1234567890$/);
    for (const slug of slugs.values()) expect(slug.length).toBeLessThanOrEqual(INVESTOR_SLUG_MAX);
  });
});
