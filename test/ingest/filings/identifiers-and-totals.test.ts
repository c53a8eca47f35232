import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestFilings } from '../../../src/ingest/filings/index.js';
import { locateSecurityIdentifiers } from '../../../src/model/security-identifiers.js';
import { SILENT_PROGRESS } from '../../../src/model/progress.js';

/**
 * test/fixtures/filings/real-world: what filers really write. A full submission and a data set
 * whose names carry CUSIPs, ISINs and FIGIs in the spellings seen in real filings
 * (`WPP PLC NEW ADR ISIN#US92937A1025`), and two data set filings whose summary page disagrees
 * with their information table (a transposed value total, an entry total one too high).
 */
const REAL_WORLD = path.resolve('test/fixtures/filings/real-world');
const TXT = 'filings/edgar/1612000/0001612000-26-000044.txt';
const DATASET = 'filings/datasets/2026q3_form13f';
const roots: string[] = [];

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

describe('identifiers typed into names', async () => {
  const result = await ingestFilings(REAL_WORLD, SILENT_PROGRESS);
  const names = (accession: string) => result.catalog.rows(accession).map((row) => [row.issuerName, row.titleOfClass]);

  it('takes them out of issuer names and titles, in a full submission and in a data set', () => {
    expect(names('0001612000-26-000044')).toEqual([
      ['WPP PLC NEW ADR', 'SPONSORED ADR'],
      ['WPP PLC NEW ADR', 'SPONSORED ADR'],
      ['APPLE INC', 'COM'],
      ['MICROSOFT CORP', 'COM'],
      ['TESLA INC', 'COM'],
      ['BERKSHIRE HATHAWAY INC DEL', 'CL B NEW'],
    ]);
    expect(names('0001613000-26-000051')).toEqual([
      ['ISHARES TR CORE S&P500 ETF', 'CORE S&P500 ETF'],
      ['ALPHABET INC CAP STK CL A', 'CAP STK CL A'],
      ['WPP PLC NEW ADR', 'SPONSORED ADR'],
    ]);
    // Positions are still keyed on the CUSIP column, which is never published.
    expect(result.catalog.rows('0001612000-26-000044')[0]!.cusip).toBe('92937A102');
  });

  it('leaves no identifier in any name it hands on, and leaves names without one alone (an LEI is not one)', () => {
    for (const meta of result.catalog.filings()) {
      expect(locateSecurityIdentifiers(meta.filerName)).toEqual([]);
      for (const row of result.catalog.rows(meta.accessionNumber)) {
        expect(locateSecurityIdentifiers(`${row.issuerName} ${row.titleOfClass}`)).toEqual([]);
      }
    }
    expect(result.catalog.meta('0001613000-26-000051')!.filerName).toBe('LAKESIDE PARTNERS LP (LEI 5493001KJTIIGC8Y1R12)');
  });

  it('notes each distinct name change once, with the rows and filings it was read in', () => {
    const changes = result.notes.filter((note) => note.message.includes('removed, never published'));
    expect(changes).toEqual([
      {
        source: TXT,
        message:
          'issuer name "WPP PLC NEW ADR ISIN#US92937A1025" read as "WPP PLC NEW ADR": ISIN removed, never published (3 row(s) in 2 filing(s); first in filing 0001612000-26-000044)',
      },
      {
        source: TXT,
        message:
          'issuer name "APPLE INC CUSIP: 037833100" read as "APPLE INC": CUSIP removed, never published (1 row(s) in 1 filing(s); first in filing 0001612000-26-000044)',
      },
      {
        source: TXT,
        message:
          'issuer name "MICROSOFT CORP (US5949181045)" read as "MICROSOFT CORP": ISIN removed, never published (1 row(s) in 1 filing(s); first in filing 0001612000-26-000044)',
      },
      {
        source: TXT,
        message:
          'title of class "COM/88160R101" read as "COM": CUSIP removed, never published (1 row(s) in 1 filing(s); first in filing 0001612000-26-000044)',
      },
      {
        source: DATASET,
        message:
          'issuer name "ISHARES TR CORE S&P500 ETF CUSIP464287200" read as "ISHARES TR CORE S&P500 ETF": CUSIP removed, never published (1 row(s) in 1 filing(s); first in filing 0001613000-26-000051)',
      },
      {
        source: DATASET,
        message:
          'issuer name "ALPHABET INC CAP STK CL A FIGI BBG009S39JX6" read as "ALPHABET INC CAP STK CL A": FIGI removed, never published (1 row(s) in 1 filing(s); first in filing 0001613000-26-000051)',
      },
    ]);
  });

  it('rejects a filing whose issuer name is nothing but an identifier, naming the row', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-names-'));
    roots.push(root);
    await cp(REAL_WORLD, root, { recursive: true });
    const infotable = path.join(root, DATASET, 'INFOTABLE.tsv');
    await writeFile(infotable, (await readFile(infotable, 'utf8')).replace('\tPROCTER AND GAMBLE CO\t', '\t742718109\t'));
    const bare = await ingestFilings(root, SILENT_PROGRESS);
    expect(bare.catalog.meta('0001615000-26-000053')).toBeUndefined();
    expect(bare.rejections).toEqual([
      {
        source: `${DATASET}/INFOTABLE.tsv`,
        location: 'row 9 (line 10)',
        reason: 'filing 0001615000-26-000053 rejected: issuer name "742718109" is only a security identifier; there is no name to publish',
      },
    ]);
  });
});

describe('cover page totals that do not add up', async () => {
  const result = await ingestFilings(REAL_WORLD, SILENT_PROGRESS);

  it('publishes both filings from their information table, and notes each disagreement and the count', () => {
    expect(result.rejections).toEqual([]);
    expect(result.catalog.rows('0001614000-26-000052').map((row) => row.value)).toEqual([22_800_000, 36_300_000, 9_360_000]);
    expect(result.catalog.rows('0001615000-26-000053')).toHaveLength(3);
    expect(result.totalsDisagreements).toBe(2);
    const summary = `${DATASET}/SUMMARYPAGE.tsv`;
    expect(result.notes).toContainEqual({
      source: summary,
      message:
        "filing 0001614000-26-000052: cover page tableValueTotal is 86460000 but the information table's values sum to 68460000; published from the information table (--strict rejects it)",
    });
    expect(result.notes).toContainEqual({
      source: summary,
      message:
        'filing 0001615000-26-000053: cover page tableEntryTotal is 4 but the information table has 3 rows; published from the information table (--strict rejects it)',
    });
    expect(result.notes).toContainEqual({
      source: 'filings',
      message: 'cover page totals: 2 filing(s) disagree with their information table and were published from the table (noted above)',
    });
  });

  it('takes a value total written in thousands for a table in dollars as agreeing, without a note', () => {
    // SUMMARYPAGE says 48975 for rows that sum to 48,975,000 dollars: a unit slip on the summary page alone.
    expect(result.notes.some((note) => note.message.startsWith('filing 0001613000-26-000051'))).toBe(false);
    expect(result.catalog.meta('0001613000-26-000051')?.valueUnit).toBe('dollars');
  });

  it('under --strict, rejects them whole and publishes the rest', async () => {
    const strict = await ingestFilings(REAL_WORLD, SILENT_PROGRESS, { strictTotals: true });
    expect(strict.rejections.map((r) => [r.location, r.reason])).toEqual([
      [
        'accession 0001614000-26-000052',
        "filing 0001614000-26-000052 rejected: cover page tableValueTotal is 86460000 but the information table's values sum to 68460000 (--strict)",
      ],
      [
        'accession 0001615000-26-000053',
        'filing 0001615000-26-000053 rejected: cover page tableEntryTotal is 4 but the information table has 3 rows (--strict)',
      ],
    ]);
    expect([...strict.catalog.filings()].map((meta) => meta.accessionNumber)).toEqual(['0001612000-26-000044', '0001613000-26-000051']);
  });
});
