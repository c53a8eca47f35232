import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/lib/sqlite.js';
import { ServingIndexWriter } from '../../src/publish/serving-index.js';
import { tempDir } from '../helpers/cli.js';

const trade = (investorSlug: string, action: string) => ({ investorSlug, action });

describe('ServingIndexWriter trade runs (layout 3)', () => {
  it("records one run of ords per investor and action, in the bundle's order", async () => {
    const directory = await tempDir('serving-index');
    const writer = new ServingIndexWriter(directory);
    for (const [slug, action] of [
      ['a', 'new'],
      ['a', 'new'],
      ['a', 'sold'],
      ['b', 'added'],
      ['c', 'new'],
      ['c', 'trimmed'],
      ['c', 'trimmed'],
    ] as const)
      writer.add('trades', trade(slug, action), JSON.stringify(trade(slug, action)));
    const entry = writer.finish();
    expect(entry.schema).toBe(3);
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
  ])('refuses %s: the ranges would hide trades from its pages', async (_case, trades, named) => {
    const writer = new ServingIndexWriter(await tempDir('serving-index'));
    try {
      const add = ([slug, action]: string[]) => writer.add('trades', trade(slug!, action!), '{}');
      add(trades[0]!);
      add(trades[1]!);
      expect(() => add(trades[2]!)).toThrow(`${named} comes apart from that investor's earlier trades`);
    } finally {
      writer.abandon();
    }
  });
});
