import type { FilingCatalog, FilingMeta, HoldingRow } from '../../model/filing.js';
import type { RawHoldingRow } from './raw-holding-row.js';
import { toWholeDollars } from './value-unit.js';

/**
 * Compact, append-only storage for every information-table row of a build.
 *
 * Two full quarters are about 7 million rows; as JS objects they would take several GiB. Here a
 * row costs 33 bytes: issuer name, title and CUSIP are interned into string tables and stored as
 * int32 ids, the amount and reported value as float64, put/call and SH/PRN packed into one byte,
 * and the owning filing as an int32 — in fixed-size typed-array chunks, so nothing is copied as the
 * store grows. HoldingRow objects exist only for the one filing `rows()` is asked for.
 *
 * A filing is staged first (rows appended under a staging id) and becomes visible only when it is
 * committed with its meta; a discarded filing's rows are never returned (and are reclaimed when
 * they are the last rows written). Rows of a filing are normally contiguous; when a data set
 * interleaves filings, an index of their row positions is built on demand.
 */

const CHUNK_BITS = 16;
const CHUNK_ROWS = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_ROWS - 1;

const PUT = 1;
const CALL = 2;
const PRN = 4;

class StringTable {
  private readonly ids = new Map<string, number>();
  readonly values: string[] = [];

  intern(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    return id;
  }
}

interface StagedFiling {
  accession: string;
  firstRow: number;
  lastRow: number;
  rowCount: number;
  meta: FilingMeta | null;
  discarded: boolean;
}

export class CompactFilingCatalog implements FilingCatalog {
  private readonly issuers = new StringTable();
  private readonly titles = new StringTable();
  private readonly cusips = new StringTable();
  private readonly issuerIds: Int32Array[] = [];
  private readonly titleIds: Int32Array[] = [];
  private readonly cusipIds: Int32Array[] = [];
  private readonly filingIds: Int32Array[] = [];
  private readonly amounts: Float64Array[] = [];
  private readonly values: Float64Array[] = [];
  private readonly flags: Uint8Array[] = [];
  private rowTotal = 0;
  private readonly staged: StagedFiling[] = [];
  private readonly committed = new Map<string, number>();
  /** Row positions of filings whose rows are not contiguous; built lazily, dropped on any write. */
  private scatteredIndex: Map<number, Int32Array> | null = null;

  /** Starts a filing; its rows are invisible until commit. */
  stage(accession: string): number {
    this.staged.push({ accession, firstRow: -1, lastRow: -1, rowCount: 0, meta: null, discarded: false });
    return this.staged.length - 1;
  }

  addRow(stagingId: number, row: RawHoldingRow): void {
    const filing = this.stagedFiling(stagingId);
    if (filing.meta || filing.discarded) throw new Error(`filing ${filing.accession} is no longer staged`);
    const position = this.rowTotal;
    const chunk = position >>> CHUNK_BITS;
    if (chunk === this.issuerIds.length) this.addChunk();
    const offset = position & CHUNK_MASK;
    this.issuerIds[chunk]![offset] = this.issuers.intern(row.issuerName);
    this.titleIds[chunk]![offset] = this.titles.intern(row.titleOfClass);
    this.cusipIds[chunk]![offset] = this.cusips.intern(row.cusip);
    this.filingIds[chunk]![offset] = stagingId;
    this.amounts[chunk]![offset] = row.amount;
    this.values[chunk]![offset] = row.reportedValue;
    this.flags[chunk]![offset] = (row.putCall === 'put' ? PUT : row.putCall === 'call' ? CALL : 0) | (row.amountType === 'PRN' ? PRN : 0);
    this.rowTotal = position + 1;
    if (filing.firstRow < 0) filing.firstRow = position;
    filing.lastRow = position;
    filing.rowCount += 1;
    this.scatteredIndex = null;
  }

  stagedRowCount(stagingId: number): number {
    return this.stagedFiling(stagingId).rowCount;
  }

  /** The staged rows with values as reported (before the unit decision), for checks before commit. */
  *stagedRows(stagingId: number): Iterable<RawHoldingRow> {
    for (const position of this.positionsOf(stagingId)) yield this.rawRowAt(position);
  }

  /** Makes the filing visible. Its meta's valueUnit decides how rows() converts reported values. */
  commit(stagingId: number, meta: FilingMeta): void {
    const filing = this.stagedFiling(stagingId);
    if (filing.meta || filing.discarded) throw new Error(`filing ${filing.accession} is no longer staged`);
    if (meta.accessionNumber !== filing.accession) {
      throw new Error(`staged ${filing.accession} but committed as ${meta.accessionNumber}`);
    }
    if (this.committed.has(filing.accession)) throw new Error(`filing ${filing.accession} is already in the catalog`);
    filing.meta = meta;
    this.committed.set(filing.accession, stagingId);
  }

  /** Drops a staged filing as a whole: nothing of it is ever returned. */
  discard(stagingId: number): void {
    const filing = this.stagedFiling(stagingId);
    if (filing.meta) throw new Error(`filing ${filing.accession} is already committed`);
    filing.discarded = true;
    // Reclaim the space when the filing's rows are the last ones written (the XML path always).
    if (filing.rowCount > 0 && filing.lastRow === this.rowTotal - 1 && this.isContiguous(filing)) {
      this.rowTotal = filing.firstRow;
    }
    filing.rowCount = 0;
    filing.firstRow = filing.lastRow = -1;
  }

  has(accession: string): boolean {
    return this.committed.has(accession);
  }

  get filingCount(): number {
    return this.committed.size;
  }

  /** Rows of committed filings. */
  get rowCount(): number {
    let total = 0;
    for (const id of this.committed.values()) total += this.staged[id]!.rowCount;
    return total;
  }

  /** Committed filings in the order they were committed (deterministic: sources are read sorted). */
  *filings(): Iterable<FilingMeta> {
    for (const id of this.committed.values()) yield this.staged[id]!.meta!;
  }

  meta(accession: string): FilingMeta | undefined {
    const id = this.committed.get(accession);
    return id === undefined ? undefined : this.staged[id]!.meta!;
  }

  rows(accession: string): HoldingRow[] {
    const id = this.committed.get(accession);
    if (id === undefined) throw new Error(`no filing ${accession} in the catalog`);
    const unit = this.staged[id]!.meta!.valueUnit;
    const out: HoldingRow[] = [];
    for (const position of this.positionsOf(id)) {
      const raw = this.rawRowAt(position);
      out.push({
        issuerName: raw.issuerName,
        titleOfClass: raw.titleOfClass,
        cusip: raw.cusip,
        putCall: raw.putCall,
        amountType: raw.amountType,
        amount: raw.amount,
        value: toWholeDollars(raw.reportedValue, unit),
      });
    }
    return out;
  }

  /** rows() without an object per row: one reused row, and an id per CUSIP, put/call and SH/PRN. */
  eachRow(accession: string, visit: (row: Readonly<HoldingRow> & { positionId: number }) => void): void {
    const id = this.committed.get(accession);
    if (id === undefined) throw new Error(`no filing ${accession} in the catalog`);
    const unit = this.staged[id]!.meta!.valueUnit;
    const row = {
      issuerName: '',
      titleOfClass: '',
      cusip: '',
      putCall: null as 'put' | 'call' | null,
      amountType: 'SH' as 'SH' | 'PRN',
      amount: 0,
      value: 0,
      positionId: 0,
    };
    for (const position of this.positionsOf(id)) {
      const chunk = position >>> CHUNK_BITS;
      const offset = position & CHUNK_MASK;
      const flags = this.flags[chunk]![offset]!;
      const cusipId = this.cusipIds[chunk]![offset]!;
      row.issuerName = this.issuers.values[this.issuerIds[chunk]![offset]!]!;
      row.titleOfClass = this.titles.values[this.titleIds[chunk]![offset]!]!;
      row.cusip = this.cusips.values[cusipId]!;
      row.putCall = flags & PUT ? 'put' : flags & CALL ? 'call' : null;
      row.amountType = flags & PRN ? 'PRN' : 'SH';
      row.amount = this.amounts[chunk]![offset]!;
      row.value = toWholeDollars(this.values[chunk]![offset]!, unit);
      row.positionId = cusipId * 8 + flags;
      visit(row);
    }
  }

  /** Bytes held by the row columns, for benchmarks and the docs. */
  get rowStorageBytes(): number {
    return this.issuerIds.length * CHUNK_ROWS * 33;
  }

  private stagedFiling(stagingId: number): StagedFiling {
    const filing = this.staged[stagingId];
    if (!filing) throw new Error(`unknown staging id ${stagingId}`);
    return filing;
  }

  private isContiguous(filing: StagedFiling): boolean {
    return filing.rowCount === 0 || filing.lastRow - filing.firstRow + 1 === filing.rowCount;
  }

  private *positionsOf(stagingId: number): Iterable<number> {
    const filing = this.stagedFiling(stagingId);
    if (filing.rowCount === 0) return;
    if (this.isContiguous(filing)) {
      for (let position = filing.firstRow; position <= filing.lastRow; position++) yield position;
      return;
    }
    yield* this.scatteredPositions().get(stagingId)!;
  }

  /** One pass over all rows, collecting positions for the (rare) filings whose rows are interleaved. */
  private scatteredPositions(): Map<number, Int32Array> {
    if (this.scatteredIndex) return this.scatteredIndex;
    const index = new Map<number, { positions: Int32Array; filled: number }>();
    this.staged.forEach((filing, id) => {
      if (!filing.discarded && !this.isContiguous(filing)) {
        index.set(id, { positions: new Int32Array(filing.rowCount), filled: 0 });
      }
    });
    for (let position = 0; position < this.rowTotal; position++) {
      const entry = index.get(this.filingIds[position >>> CHUNK_BITS]![position & CHUNK_MASK]!);
      if (entry) entry.positions[entry.filled++] = position;
    }
    this.scatteredIndex = new Map([...index].map(([id, entry]) => [id, entry.positions]));
    return this.scatteredIndex;
  }

  private rawRowAt(position: number): RawHoldingRow {
    const chunk = position >>> CHUNK_BITS;
    const offset = position & CHUNK_MASK;
    const flags = this.flags[chunk]![offset]!;
    return {
      issuerName: this.issuers.values[this.issuerIds[chunk]![offset]!]!,
      titleOfClass: this.titles.values[this.titleIds[chunk]![offset]!]!,
      cusip: this.cusips.values[this.cusipIds[chunk]![offset]!]!,
      putCall: flags & PUT ? 'put' : flags & CALL ? 'call' : null,
      amountType: flags & PRN ? 'PRN' : 'SH',
      amount: this.amounts[chunk]![offset]!,
      reportedValue: this.values[chunk]![offset]!,
    };
  }

  private addChunk(): void {
    this.issuerIds.push(new Int32Array(CHUNK_ROWS));
    this.titleIds.push(new Int32Array(CHUNK_ROWS));
    this.cusipIds.push(new Int32Array(CHUNK_ROWS));
    this.filingIds.push(new Int32Array(CHUNK_ROWS));
    this.amounts.push(new Float64Array(CHUNK_ROWS));
    this.values.push(new Float64Array(CHUNK_ROWS));
    this.flags.push(new Uint8Array(CHUNK_ROWS));
  }
}
