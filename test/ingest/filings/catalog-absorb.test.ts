import { deserialize, serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { CompactFilingCatalog } from '../../../src/ingest/filings/catalog.js';
import { FilingIntake } from '../../../src/ingest/filings/filing-intake.js';
import type { RawHoldingRow } from '../../../src/ingest/filings/raw-holding-row.js';
import { filingMeta, holdingRow } from '../../helpers/filing-meta.js';

const row = holdingRow;

type Filing = { accession: string; rows: RawHoldingRow[]; discard?: boolean };

/** The same filings staged into one catalog, or split between two and absorbed: what each one returns. */
function fill(catalog: CompactFilingCatalog, filings: Filing[]): void {
  for (const filing of filings) {
    const id = catalog.stage(filing.accession);
    for (const r of filing.rows) catalog.addRow(id, r);
    if (filing.discard) catalog.discard(id);
    else catalog.commit(id, filingMeta(filing.accession));
  }
}

function contents(catalog: CompactFilingCatalog) {
  return [...catalog.filings()].map((meta) => {
    const visited: { cusip: string; positionId: number; value: number; issuerName: string }[] = [];
    catalog.eachRow(meta.accessionNumber, (r) =>
      visited.push({ cusip: r.cusip, positionId: r.positionId, value: r.value, issuerName: r.issuerName }),
    );
    return { meta, rows: catalog.rows(meta.accessionNumber), visited };
  });
}

const earlier: Filing[] = [
  { accession: 'E-1', rows: [row('APPLE INC', '037833100', 10, 1000), row('MICROSOFT CORP', '594918104', 5, 2_000_000.5)] },
];
const later: Filing[] = [
  // Rows past one chunk (65,536), so that the later catalog brings two chunks of its own.
  {
    accession: 'L-1',
    rows: Array.from({ length: 70_000 }, (_, i) =>
      row(`ISSUER ${i % 97}`, i % 2 ? '037833100' : `C${i % 97}`, i, i * 3, { putCall: i % 5 ? null : 'put' }),
    ),
  },
  { accession: 'L-bad', rows: [row('NEVER SHOWN', 'X00000000', 1, 1)], discard: true },
  // Values that are no int32 live in the side tables, by row position.
  { accession: 'L-2', rows: [row('MICROSOFT CORP', '594918104', 3_000_000_000, 5_000_000_000), row('NEW NAME', 'N00000001', -0, 0.25)] },
];

/** Every filing in one catalog, and the same split: the earlier ones in `main`, the later in `worker`, to be absorbed. */
function catalogs() {
  const one = new CompactFilingCatalog();
  fill(one, [...earlier, ...later]);
  const main = new CompactFilingCatalog();
  fill(main, earlier);
  const worker = new CompactFilingCatalog();
  fill(worker, later);
  return { one, main, worker };
}

describe('CompactFilingCatalog.absorb (a data set read in a worker thread)', () => {
  it('keeps what it takes in shared memory, also a transfer that went through V8 serialization (the derivation cache)', () => {
    const { one, main, worker } = catalogs();
    const revived = deserialize(serialize(worker.shareCommitted())) as ReturnType<CompactFilingCatalog['shareCommitted']>;
    expect(revived.issuerIds[0]!.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    main.absorb(revived);
    expect(contents(main)).toEqual(contents(one));
    const rows = main.shareRows();
    for (const column of [rows.issuerIds, rows.titleIds, rows.cusipIds, rows.amounts, rows.values, rows.flags]) {
      for (const chunk of column) expect(chunk.buffer).toBeInstanceOf(SharedArrayBuffer);
    }
  });

  it('returns the same filings, in the same order, with the same rows and position ids as one catalog filled in order', () => {
    const { one, main, worker } = catalogs();
    main.absorb(worker.shareCommitted());

    expect(contents(main)).toEqual(contents(one));
    expect(main.filingCount).toBe(3);
    expect(main.rowCount).toBe(one.rowCount);
    expect(main.has('L-bad')).toBe(false);
    // A CUSIP keeps one position id across both catalogs: quarter-over-quarter matching relies on it.
    const ids = new Set(contents(main).flatMap((f) => f.visited.filter((r) => r.cusip === '037833100').map((r) => r.positionId >> 3)));
    expect(ids.size).toBe(1);
  });

  it('takes rows staged after it in the absorbed last chunk, and refuses an accession it has already', () => {
    const main = new CompactFilingCatalog();
    const worker = new CompactFilingCatalog();
    fill(worker, later);
    main.absorb(worker.shareCommitted());
    fill(main, [{ accession: 'A-after', rows: [row('APPLE INC', '037833100', 1, 2)] }]);
    expect(main.rows('A-after')).toEqual([
      { issuerName: 'APPLE INC', titleOfClass: 'COM', cusip: '037833100', putCall: null, amountType: 'SH', amount: 1, value: 2 },
    ]);
    expect(main.rows('L-2')[0]).toMatchObject({ amount: 3_000_000_000, value: 5_000_000_000 });

    const again = new CompactFilingCatalog();
    fill(again, [{ accession: 'L-2', rows: [] }]);
    expect(() => main.absorb(again.shareCommitted())).toThrow(/L-2 is already in the catalog/);
  });
});

describe('CompactFilingCatalog.fromShared (the derivation workers read the catalog)', () => {
  it('reads the same rows and position ids from the very columns, which are in shared memory, and takes no filing', () => {
    const main = new CompactFilingCatalog();
    fill(main, [...earlier, ...later]);
    const shared = main.shareRows();
    expect(shared.issuerIds.every((column) => column.buffer instanceof SharedArrayBuffer)).toBe(true);
    // As a worker receives it: the columns shared, the rest copied.
    const reader = CompactFilingCatalog.fromShared(structuredClone(shared));
    for (const meta of main.filings()) {
      const visited: unknown[] = [];
      reader.eachRow(meta.accessionNumber, (r) => visited.push({ ...r }));
      expect(reader.rows(meta.accessionNumber)).toEqual(main.rows(meta.accessionNumber));
      expect(visited).toEqual(
        contents(main)
          .find((f) => f.meta === meta)!
          .visited.map((v) => expect.objectContaining(v)),
      );
    }
    expect(() => reader.stage('X-1')).toThrow('a catalog shared for reading takes no filing');
    expect(() => reader.absorb(main.shareCommitted())).toThrow('a catalog shared for reading takes no filing');
  });
});

describe('FilingIntake.absorb', () => {
  const totals = { tableEntryTotal: null, tableValueTotal: null };
  const at = (accession: string) => ({
    accession: { source: `s/${accession}`, location: 'row 1' },
    totals: { source: `s/${accession}`, location: `accession ${accession}` },
  });
  const facts = (accession: string) => {
    const { valueUnit, valueUnitReason, ...rest } = filingMeta(accession);
    return { ...rest, source: `s/${accession}` };
  };
  const accept = (intake: FilingIntake, accession: string, name: string) =>
    intake.accept(facts(accession), [row(name, '037833100', 1, 10)], totals, at(accession));

  it('gives the notes, rejections and counts of one intake reading both, in the same order', () => {
    const one = new FilingIntake(new CompactFilingCatalog());
    const main = new FilingIntake(new CompactFilingCatalog());
    const worker = new FilingIntake(new CompactFilingCatalog());
    for (const intake of [one, main]) {
      accept(intake, 'A-1', 'APPLE INC CUSIP 037833100');
      intake.reject('s/x', 'row 9', 'bad row');
    }
    for (const intake of [one, worker]) {
      accept(intake, 'B-1', 'APPLE INC CUSIP 037833100');
      accept(intake, 'B-2', 'WPP PLC ISIN#US92937A1025');
      intake.reject('s/y', 'row 2', 'another bad row');
    }
    const transfer = worker.exportTransfer();
    expect(main.conflictsWith(transfer)).toBe(false);
    main.absorb(transfer);
    one.finish();
    main.finish();
    expect(main.notes).toEqual(one.notes);
    expect(main.rejections).toEqual(one.rejections);
    expect(contents(main.catalog)).toEqual(contents(one.catalog));
    expect(main.notes.some((note) => note.message.includes('(2 row(s) in 2 filing(s); first in filing A-1)'))).toBe(true);
  });

  it('conflicts when the other intake looked for an accession committed here, and refuses to absorb it', () => {
    const main = new FilingIntake(new CompactFilingCatalog());
    const worker = new FilingIntake(new CompactFilingCatalog());
    accept(main, 'A-1', 'APPLE INC');
    // The worker did not know A-1 was taken: it accepted its own copy.
    accept(worker, 'A-1', 'APPLE INC');
    const transfer = worker.exportTransfer();
    expect(main.conflictsWith(transfer)).toBe(true);
    expect(() => main.absorb(transfer)).toThrow(/committed here/);
  });
});
