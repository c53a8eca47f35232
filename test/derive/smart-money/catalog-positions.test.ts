import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregateCatalogPositions, aggregatePositions } from '../../../src/derive/smart-money/positions.js';
import { CompactFilingCatalog } from '../../../src/ingest/filings/catalog.js';
import type { RawHoldingRow } from '../../../src/ingest/filings/raw-holding-row.js';
import { filingMeta } from '../../helpers/filing-meta.js';

const meta = filingMeta;

const rawRow: fc.Arbitrary<RawHoldingRow> = fc.record({
  issuerName: fc.constantFrom('APPLE INC', 'Apple Inc', 'BERKSHIRE HATHAWAY INC DEL', 'ÉLAN'),
  titleOfClass: fc.constantFrom('COM', 'CL A', ''),
  cusip: fc.constantFrom('512347105', '084670108', '512347AB1'),
  putCall: fc.constantFrom(null, 'put' as const, 'call' as const),
  amountType: fc.constantFrom('SH' as const, 'PRN' as const),
  amount: fc.oneof(fc.integer({ min: 0, max: 10_000_000 }), fc.double({ min: 0, max: 1e9, noNaN: true })),
  reportedValue: fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.constantFrom(0.5, 1.5, 2_100_000.4)),
});

describe('aggregateCatalogPositions', () => {
  it('gives aggregatePositions of the materialized rows, in the same order, for the compact catalog', () => {
    fc.assert(
      fc.property(
        fc.array(rawRow, { maxLength: 40 }),
        fc.array(rawRow, { maxLength: 10 }),
        fc.constantFrom('dollars' as const, 'thousands' as const),
        (base, addition, unit) => {
          const catalog = new CompactFilingCatalog();
          const first = catalog.stage('0001523000-26-000001');
          const second = catalog.stage('0001523000-26-000002');
          // Interleaved staging, so that the scattered-row path is taken too.
          base.forEach((row, i) => {
            catalog.addRow(first, row);
            if (addition[i]) catalog.addRow(second, addition[i]!);
          });
          for (const row of addition.slice(base.length)) catalog.addRow(second, row);
          catalog.commit(first, meta('0001523000-26-000001', unit));
          catalog.commit(second, meta('0001523000-26-000002', 'dollars'));
          const accessions = ['0001523000-26-000001', '0001523000-26-000002'];
          const expected = aggregatePositions(accessions.flatMap((accession) => catalog.rows(accession)));
          expect(aggregateCatalogPositions(catalog, accessions)).toEqual(expected);
          expect(catalog.eachRow).toBeDefined();
        },
      ),
      { numRuns: 300 },
    );
  });
});
