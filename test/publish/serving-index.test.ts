import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/lib/sqlite.js';
import { compileCanonical } from '../../src/publish/compiled-canonical.js';
import { InvestorDetail } from '../../src/model/smart-money.js';
import { LINES_PER_BLOCK, ServingIndexWriter, servingFactsCollector } from '../../src/publish/serving-index.js';
import { tempDir } from '../helpers/cli.js';

const investorJson = compileCanonical(InvestorDetail);

/** An investor of the given positions, as derivation makes it. */
function investor(slug: string, names: string[]): InvestorDetail {
  return {
    slug,
    name: `Name of ${slug} «Ünïcödé»`,
    category: 'unclassified',
    period: '2026-09-30',
    filedAt: '2026-11-14',
    reportedValueTotal: 1000 * names.length,
    positionCount: names.length,
    positionsShown: names.length,
    positions: names.map((issuerName) => ({
      issuerName,
      titleOfClass: 'COM',
      kind: 'equity',
      shares: 10,
      reportedValue: 1000,
      weight: 0.5,
    })),
  };
}

/** Trades of (investor, action) pairs, as the index receives them: their facts, then one line each. */
function writeTrades(writer: ServingIndexWriter, trades: ReadonlyArray<readonly [string, string]>, part = 0): void {
  const facts = servingFactsCollector('trades')!;
  for (const [investorSlug, action] of trades) facts.add({ investorSlug, action }, Buffer.from('{}\n'));
  writer.facts(facts.take());
  trades.forEach((_, i) => {
    writer.line('trades', part, i * 3, 3);
  });
}

describe('ServingIndexWriter trade runs (layout 4)', () => {
  it("records one run of ords per investor and action, in the bundle's order", async () => {
    const directory = await tempDir('serving-index');
    const writer = new ServingIndexWriter(directory);
    writeTrades(writer, [
      ['a', 'new'],
      ['a', 'new'],
      ['a', 'sold'],
      ['b', 'added'],
      ['c', 'new'],
      ['c', 'trimmed'],
      ['c', 'trimmed'],
    ]);
    const entry = writer.finish();
    expect(entry.schema).toBe(4);
    const db = openSqlite(`${directory}/${entry.path}`, { readonly: true });
    try {
      const runs = db.prepare('SELECT investor_slug, action, first_ord, last_ord FROM trade_runs ORDER BY first_ord').all();
      expect(runs.map((run) => Object.values(run as object).map(String))).toEqual([
        ['a', 'new', '1', '2'],
        ['a', 'sold', '3', '3'],
        ['b', 'added', '4', '4'],
        ['c', 'new', '5', '5'],
        ['c', 'trimmed', '6', '7'],
      ]);
    } finally {
      db.close();
    }
  });

  it.each([
    [
      'an investor coming back after another',
      [
        ['a', 'new'],
        ['b', 'new'],
        ['a', 'sold'],
      ],
      'trade 3 (a, sold)',
    ],
    [
      'an action coming back within an investor',
      [
        ['a', 'new'],
        ['a', 'sold'],
        ['a', 'new'],
      ],
      'trade 3 (a, new)',
    ],
  ] as const)('refuses %s: the ranges would hide trades from its pages', async (_case, trades, named) => {
    const writer = new ServingIndexWriter(await tempDir('serving-index'));
    try {
      expect(() => writeTrades(writer, trades)).toThrow(`${named} comes apart from that investor's earlier trades`);
    } finally {
      writer.abandon();
    }
  });

  it('refuses to finish when the lines written and the facts handed over do not match', async () => {
    const writer = new ServingIndexWriter(await tempDir('serving-index'));
    const facts = servingFactsCollector('trades')!;
    facts.add({ investorSlug: 'a', action: 'new' }, Buffer.from('{}\n'));
    facts.add({ investorSlug: 'a', action: 'new' }, Buffer.from('{}\n'));
    writer.facts(facts.take());
    writer.line('trades', 0, 0, 3);
    try {
      expect(() => writer.finish()).toThrow('the facts handed over do not match the lines written');
    } finally {
      writer.abandon();
    }
  });
});

describe('ServingIndexWriter line blocks', () => {
  it('groups consecutive lines of one part into blocks of at most LINES_PER_BLOCK, never across parts', async () => {
    const directory = await tempDir('serving-index');
    const writer = new ServingIndexWriter(directory);
    const size = LINES_PER_BLOCK.consensus;
    // Part 0 holds size + 3 lines of 10 bytes, part 1 two lines of 20 bytes.
    for (let i = 0; i < size + 3; i++) writer.line('consensus', 0, i * 10, 10);
    for (let i = 0; i < 2; i++) writer.line('consensus', 1, i * 20, 20);
    const entry = writer.finish();
    const db = openSqlite(`${directory}/${entry.path}`, { readonly: true });
    try {
      const blocks = db
        .prepare("SELECT first_ord, last_ord, part, start, bytes FROM line_blocks WHERE resource = 'consensus' ORDER BY first_ord")
        .all();
      expect(blocks.map((block) => Object.values(block as object).map(Number))).toEqual([
        [1, size, 0, 0, size * 10],
        [size + 1, size + 3, 0, size * 10, 30],
        [size + 4, size + 5, 1, 0, 40],
      ]);
    } finally {
      db.close();
    }
  });
});

describe('the facts of an investor line', () => {
  it('say where its positions are in bytes, so that the line without them is the list item', () => {
    const record = investor('alder-point', ['Société Générale', 'Emoji 🚀 Corp', 'トヨタ自動車']);
    const json = investorJson(record);
    const line = Buffer.from(`${json}\n`);
    const facts = servingFactsCollector('investors')!;
    facts.add(record, line);
    const taken = facts.take();
    expect('investors' in taken).toBe(true);
    const [row] = (taken as { investors: Array<{ positionsStart: number; positionsEnd: number; slug: string; total: number }> }).investors;
    expect(row).toMatchObject({ slug: 'alder-point', category: 'unclassified', total: 3000 });
    const item = Buffer.concat([line.subarray(0, row!.positionsStart), line.subarray(row!.positionsEnd, line.length - 1)]).toString();
    const { positions: _positions, ...summary } = record;
    expect(JSON.parse(item)).toEqual(summary);
    expect(item).toBe(JSON.stringify(Object.fromEntries(Object.entries(summary).sort(([a], [b]) => (a < b ? -1 : 1)))));
  });

  it('refuse a line whose positions are not where the canonical JSON puts them', () => {
    const record = investor('alder-point', ['A']);
    const facts = servingFactsCollector('investors')!;
    expect(() => facts.add(record, Buffer.from(`${JSON.stringify(record)}\n`))).toThrow(
      'investor alder-point: its canonical JSON does not have its positions where the serving index expects them',
    );
  });
});
