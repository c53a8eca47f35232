import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseInvestorRegistry } from '../../../src/ingest/filings/investor-registry.js';

describe('investors.yaml registry', () => {
  const text = readFileSync('test/fixtures/filings/edgar-good/filings/investors.yaml', 'utf8');
  const { entries, rejections } = parseInvestorRegistry(text, 'filings/investors.yaml');

  it('keeps valid entries with CIKs normalized to no leading zeros', () => {
    expect(entries.map((entry) => [entry.cik, entry.slug, entry.category])).toEqual([
      ['1523000', 'harborview-capital', 'hedge-fund'],
      ['1527817', 'granite-peak-partners', 'hedge-fund'],
      ['1541000', 'tamarack-hill-endowment', 'endowment'],
      ['1657123', 'vantage-hollow', 'asset-manager'],
    ]);
  });

  it('rejects an entry with a bad slug and one repeating a CIK, naming each entry', () => {
    expect(rejections).toHaveLength(2);
    expect(rejections[0]).toMatchObject({ source: 'filings/investors.yaml', location: 'investors[3].slug' });
    expect(rejections[1]).toEqual({
      source: 'filings/investors.yaml',
      location: 'investors[4]',
      reason: 'cik 1523000 is already listed at investors[0]',
    });
  });

  it('refuses a file that is not YAML, or not a list, as unreadable: the dataset fails naming it', () => {
    expect(() => parseInvestorRegistry('investors:\n  - cik: "1"\n   slug: [unclosed', 'filings/investors.yaml')).toThrow(
      /^filings\/investors\.yaml, line \d+: not valid YAML/,
    );
    expect(() => parseInvestorRegistry('investors: 3\n', 'filings/investors.yaml')).toThrow(
      /^filings\/investors\.yaml: expected a list of investors/,
    );
  });

  it('takes a CUSIP, ISIN or FIGI out of a registry name, with a note, and rejects a name that is only one', () => {
    const text = [
      'investors:',
      '  - { cik: "1612000", slug: northgate-global, name: "Northgate Global Advisors (CUSIP: 037833100)", category: hedge-fund }',
      '  - { cik: "1613000", slug: lakeside-partners, name: "US0378331005", category: hedge-fund }',
      '  - { cik: "1614000", slug: summit-lane, name: "Summit Lane Capital", category: hedge-fund }',
    ].join('\n');
    const parsed = parseInvestorRegistry(text, 'filings/investors.yaml');
    expect(parsed.entries.map((entry) => entry.name)).toEqual(['Northgate Global Advisors', 'Summit Lane Capital']);
    expect(parsed.notes).toEqual([
      {
        source: 'filings/investors.yaml',
        message:
          'investors[0].name "Northgate Global Advisors (CUSIP: 037833100)" read as "Northgate Global Advisors": CUSIP removed, never published',
      },
    ]);
    expect(parsed.rejections).toEqual([
      { source: 'filings/investors.yaml', location: 'investors[1].name', reason: 'name "US0378331005" is only a security identifier' },
    ]);
  });
});

describe('investors.yaml text', () => {
  it('rejects an entry whose name holds a NUL character, naming the field', () => {
    const { entries, rejections } = parseInvestorRegistry(
      '- cik: "1"\n  slug: a\n  name: "A\\0B"\n  category: fund\n',
      'filings/investors.yaml',
    );
    expect(entries).toEqual([]);
    expect(rejections).toEqual([
      { source: 'filings/investors.yaml', location: 'investors[0].name', reason: 'name contains a NUL character (U+0000)' },
    ]);
  });
});
