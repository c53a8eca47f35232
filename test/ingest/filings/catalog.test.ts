import { describe, expect, it } from 'vitest';
import { CompactFilingCatalog } from '../../../src/ingest/filings/catalog.js';
import type { RawHoldingRow } from '../../../src/ingest/filings/raw-holding-row.js';
import { filingMeta, holdingRow } from '../../helpers/filing-meta.js';

const meta = filingMeta;

const row = holdingRow;

describe('CompactFilingCatalog', () => {
  it('materializes rows equal to what was added, with put/call and PRN flags', () => {
    const catalog = new CompactFilingCatalog();
    const rows = [
      row('APPLE INC', '512347105', 200000, 45600000),
      row('APPLE INC', '512347105', 50000, 11400000, { putCall: 'call' }),
      row('APPLE INC', '512347105', 20000, 4560000, { putCall: 'put' }),
      row('APPLE INC', '512347AB1', 5000000, 5100000, { amountType: 'PRN', titleOfClass: 'NOTE 1.250% 3/1' }),
      row('BERKSHIRE HATHAWAY INC DEL', '084670108', 3, 2_100_000.4),
    ];
    const id = catalog.stage('0001523000-26-000412');
    for (const r of rows) catalog.addRow(id, r);
    catalog.commit(id, meta('0001523000-26-000412'));
    expect(catalog.rows('0001523000-26-000412')).toEqual(
      rows.map(({ reportedValue, ...rest }) => ({ ...rest, value: Math.round(reportedValue) })),
    );
    expect([...catalog.filings()].map((m) => m.accessionNumber)).toEqual(['0001523000-26-000412']);
  });

  it('converts thousands to whole dollars when rows are materialized', () => {
    const catalog = new CompactFilingCatalog();
    const id = catalog.stage('0001534000-24-000019');
    catalog.addRow(id, row('APPLE INC', '512347105', 100000, 19259));
    catalog.commit(id, meta('0001534000-24-000019', 'thousands'));
    expect(catalog.rows('0001534000-24-000019')[0]!.value).toBe(19_259_000);
  });

  it('keeps each filing whole when rows of several filings arrive interleaved, across chunk boundaries', () => {
    const catalog = new CompactFilingCatalog();
    const a = catalog.stage('A');
    const b = catalog.stage('B');
    for (let i = 0; i < 70_000; i++) catalog.addRow(i % 3 === 0 ? b : a, row(`ISSUER ${i % 50}`, `C${i % 50}`, i, i * 2));
    catalog.commit(a, meta('A'));
    catalog.commit(b, meta('B'));
    const rowsA = catalog.rows('A');
    const rowsB = catalog.rows('B');
    expect(rowsA.length + rowsB.length).toBe(70_000);
    expect(rowsB.every((r) => r.amount % 3 === 0)).toBe(true);
    const { reportedValue: _, ...second } = row('ISSUER 2', 'C2', 2, 4);
    expect(rowsA[1]).toEqual({ ...second, value: 4 });
    expect(catalog.rowCount).toBe(70_000);
  });

  it('never returns anything of a discarded filing, and reclaims its rows when they are last', () => {
    const catalog = new CompactFilingCatalog();
    const good = catalog.stage('GOOD');
    catalog.addRow(good, row('APPLE INC', '512347105', 1, 228));
    catalog.commit(good, meta('GOOD'));
    const bad = catalog.stage('BAD');
    catalog.addRow(bad, row('MICROSOFT CORP', '622988103', 1, 431));
    catalog.discard(bad);
    expect(catalog.has('BAD')).toBe(false);
    expect(() => catalog.rows('BAD')).toThrow(/no filing BAD/);
    const next = catalog.stage('NEXT');
    catalog.addRow(next, row('NVIDIA CORPORATION', '733551105', 1, 121));
    catalog.commit(next, meta('NEXT'));
    expect(catalog.rows('NEXT').map((r) => r.issuerName)).toEqual(['NVIDIA CORPORATION']);
    expect(catalog.rows('GOOD').map((r) => r.issuerName)).toEqual(['APPLE INC']);
    expect(catalog.rowCount).toBe(2);
  });

  it('keeps amounts and values that are no int32 exactly: fractions, billions, int32 minimum, minus zero', () => {
    const catalog = new CompactFilingCatalog();
    const odd = [2_100_000.4, 2 ** 31, 98_765_432_109, -(2 ** 31), -0, 2 ** 31 - 1, -(2 ** 31) + 1, 0.5];
    const id = catalog.stage('WIDE');
    for (const [i, amount] of odd.entries()) catalog.addRow(id, row(`ISSUER ${i}`, `C${i}`, amount, odd[odd.length - 1 - i]!));
    catalog.commit(id, meta('WIDE'));
    const raw: RawHoldingRow[] = [];
    catalog.forEachStagedRow(id, (r) => raw.push({ ...r }));
    expect(raw.map((r) => r.amount)).toEqual(odd);
    expect(Object.is(raw[4]!.amount, -0)).toBe(true);
    expect(raw.map((r) => r.reportedValue)).toEqual([...odd].reverse());
    // Only the values outside int32 (and its minimum, the marker) take the side table.
    expect(catalog.wideCount).toBe(12);
  });

  it('forgets the wide values of a discarded filing whose rows it reclaims', () => {
    const catalog = new CompactFilingCatalog();
    const bad = catalog.stage('BAD');
    catalog.addRow(bad, row('BIG CORP', '111111111', 5e12, 7.25));
    catalog.discard(bad);
    expect(catalog.wideCount).toBe(0);
    const next = catalog.stage('NEXT');
    catalog.addRow(next, row('SMALL CORP', '222222222', 10, 20));
    catalog.commit(next, meta('NEXT'));
    expect(catalog.rows('NEXT').map((r) => [r.amount, r.value])).toEqual([[10, 20]]);
  });

  it('refuses to commit the same accession twice', () => {
    const catalog = new CompactFilingCatalog();
    catalog.commit(catalog.stage('X'), meta('X'));
    expect(() => catalog.commit(catalog.stage('X'), meta('X'))).toThrow(/already in the catalog/);
  });
});
