import type { FilingCatalog, FilingMeta, HoldingRow, ValueUnit } from '../../model/filing.js';
import type { RawHoldingRow } from './raw-holding-row.js';
import { toWholeDollars } from './value-unit.js';

/**
 * Compact, append-only storage for every information-table row of a build.
 *
 * Two full quarters are about 7 million rows; as JS objects they would take several GiB. Here a
 * row costs 21 bytes: issuer name, title and CUSIP are interned into string tables and stored as
 * int32 ids, the amount and reported value as int32 (the rare value that is no int32, a fraction or
 * a position above $2.1 billion, goes to a side table under a marker), put/call and SH/PRN packed
 * into one byte — in fixed-size typed-array chunks, so nothing is copied as the store grows.
 * HoldingRow objects exist only for the one filing `rows()` is asked for.
 *
 * A filing is staged first (rows appended under a staging id) and becomes visible only when it is
 * committed with its meta; a discarded filing's rows are never returned (and are reclaimed when
 * they are the last rows written). Each filing keeps the spans of row positions it owns: one span
 * when its rows are contiguous (the usual case), one per run when a data set interleaves filings.
 */

const CHUNK_BITS = 16;
const CHUNK_ROWS = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_ROWS - 1;

/** Marks an amount or value kept in the side table: not an int32, or int32's minimum itself. */
const WIDE = -0x80000000;

/** True when `value` is stored in an int32 column as it is (minus zero is not: it would read back as 0). */
function fitsInt32(value: number): boolean {
  return (value | 0) === value && value !== WIDE && !Object.is(value, -0);
}

function emptyRawRow(): RawHoldingRow {
  return { issuerName: '', titleOfClass: '', cusip: '', putCall: null, amountType: 'SH', amount: 0, reportedValue: 0 };
}

const PUT = 1;
const CALL = 2;
const PRN = 4;

class StringTable {
  private readonly ids = new Map<string, number>();

  /** `values` given: a table to read, whose ids are those of the catalog it was shared from (fromShared). */
  constructor(readonly values: string[] = []) {}

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

/**
 * The committed filings of a catalog, as they are posted to another thread: the row columns live in
 * shared memory (a data set's worker fills them, the main thread takes them in, the derivation's
 * workers read them), the string tables and filings are copied.
 */
export interface CatalogTransfer {
  issuers: string[];
  titles: string[];
  cusips: string[];
  issuerIds: Int32Array[];
  titleIds: Int32Array[];
  cusipIds: Int32Array[];
  amounts: Int32Array[];
  values: Int32Array[];
  flags: Uint8Array[];
  wideAmounts: [number, number][];
  wideValues: [number, number][];
  rowTotal: number;
  /** In commit order. */
  filings: { accession: string; spans: number[]; rowCount: number; meta: FilingMeta }[];
}

/**
 * What reading a catalog's rows in another thread needs (fromShared): the columns (shared), the
 * string tables, and per committed filing its rows and value unit; none of its other facts, which
 * at 3x were tens of MB copied into every thread that reads.
 */
export interface CatalogRows extends Omit<CatalogTransfer, 'filings'> {
  filings: { accession: string; spans: number[]; valueUnit: ValueUnit }[];
}

/** A security's issuer name, title and CUSIP as ids of one catalog's string tables. */
export interface InternedSecurity {
  readonly issuerId: number;
  readonly titleId: number;
  readonly cusipId: number;
}

interface StagedFiling {
  accession: string;
  /** Row positions owned, as inclusive [first, last] pairs in the order written. */
  spans: number[];
  rowCount: number;
  meta: FilingMeta | null;
  /** How its values are read, from its meta once committed (a catalog shared for reading has no meta). */
  valueUnit: ValueUnit | null;
  discarded: boolean;
}

export class CompactFilingCatalog implements FilingCatalog {
  private issuers = new StringTable();
  private titles = new StringTable();
  private cusips = new StringTable();
  private readonly issuerIds: Int32Array[] = [];
  private readonly titleIds: Int32Array[] = [];
  private readonly cusipIds: Int32Array[] = [];
  private readonly amounts: Int32Array[] = [];
  private readonly values: Int32Array[] = [];
  private readonly flags: Uint8Array[] = [];
  /** Amounts and values that are no int32, by row position (the column holds WIDE). */
  private readonly wideAmounts = new Map<number, number>();
  private readonly wideValues = new Map<number, number>();
  private rowTotal = 0;
  private readonly staged: StagedFiling[] = [];
  private readonly committed = new Map<string, number>();
  /** Made by fromShared: its columns are shared with the catalog it came from, which may not change them under it. */
  private readOnly = false;

  /**
   * A catalog to read in another thread (derivation's workers) from what `shareRows` gave: the very
   * columns (shared memory, not copied) and ids of the catalog it came from. It answers rows
   * (rows, eachRow) only: it knows no filing's facts.
   */
  static fromShared(shared: CatalogRows): CompactFilingCatalog {
    const catalog = new CompactFilingCatalog();
    catalog.readOnly = true;
    catalog.issuers = new StringTable(shared.issuers);
    catalog.titles = new StringTable(shared.titles);
    catalog.cusips = new StringTable(shared.cusips);
    catalog.issuerIds.push(...shared.issuerIds);
    catalog.titleIds.push(...shared.titleIds);
    catalog.cusipIds.push(...shared.cusipIds);
    catalog.amounts.push(...shared.amounts);
    catalog.values.push(...shared.values);
    catalog.flags.push(...shared.flags);
    for (const [position, amount] of shared.wideAmounts) catalog.wideAmounts.set(position, amount);
    for (const [position, value] of shared.wideValues) catalog.wideValues.set(position, value);
    catalog.rowTotal = shared.rowTotal;
    for (const filing of shared.filings) {
      catalog.staged.push({
        accession: filing.accession,
        spans: filing.spans,
        rowCount: 0,
        meta: null,
        valueUnit: filing.valueUnit,
        discarded: false,
      });
      catalog.committed.set(filing.accession, catalog.staged.length - 1);
    }
    return catalog;
  }

  /** Starts a filing; its rows are invisible until commit. */
  stage(accession: string): number {
    if (this.readOnly) throw new Error('a catalog shared for reading takes no filing');
    this.staged.push({ accession, spans: [], rowCount: 0, meta: null, valueUnit: null, discarded: false });
    return this.staged.length - 1;
  }

  addRow(stagingId: number, row: RawHoldingRow): void {
    const security = this.internSecurity(row.issuerName, row.titleOfClass, row.cusip);
    this.addInternedRow(stagingId, security, row.putCall, row.amountType, row.amount, row.reportedValue);
  }

  /** The ids of a security's strings, for addInternedRow: a caller that meets it again keeps them. */
  internSecurity(issuerName: string, titleOfClass: string, cusip: string): InternedSecurity {
    return { issuerId: this.issuers.intern(issuerName), titleId: this.titles.intern(titleOfClass), cusipId: this.cusips.intern(cusip) };
  }

  /** addRow for a security interned before (by this catalog). */
  addInternedRow(
    stagingId: number,
    security: InternedSecurity,
    putCall: RawHoldingRow['putCall'],
    amountType: RawHoldingRow['amountType'],
    amount: number,
    reportedValue: number,
  ): void {
    const filing = this.stagedFiling(stagingId);
    if (filing.meta || filing.discarded) throw new Error(`filing ${filing.accession} is no longer staged`);
    const position = this.rowTotal;
    const chunk = position >>> CHUNK_BITS;
    if (chunk === this.issuerIds.length) this.addChunk();
    const offset = position & CHUNK_MASK;
    this.issuerIds[chunk]![offset] = security.issuerId;
    this.titleIds[chunk]![offset] = security.titleId;
    this.cusipIds[chunk]![offset] = security.cusipId;
    this.amounts[chunk]![offset] = this.narrow(this.wideAmounts, position, amount);
    this.values[chunk]![offset] = this.narrow(this.wideValues, position, reportedValue);
    this.flags[chunk]![offset] = (putCall === 'put' ? PUT : putCall === 'call' ? CALL : 0) | (amountType === 'PRN' ? PRN : 0);
    this.rowTotal = position + 1;
    const spans = filing.spans;
    if (spans.length > 0 && spans[spans.length - 1] === position - 1) spans[spans.length - 1] = position;
    else spans.push(position, position);
    filing.rowCount += 1;
  }

  stagedRowCount(stagingId: number): number {
    return this.stagedFiling(stagingId).rowCount;
  }

  /**
   * The staged rows with values as reported (before the unit decision), for checks before commit:
   * one row object, reused from row to row (a full quarter is millions of rows).
   */
  forEachStagedRow(stagingId: number, visit: (row: Readonly<RawHoldingRow>) => void): void {
    const row = emptyRawRow();
    const spans = this.stagedFiling(stagingId).spans;
    for (let i = 0; i < spans.length; i += 2) {
      for (let position = spans[i]!; position <= spans[i + 1]!; position++) visit(this.readRaw(row, position));
    }
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
    filing.valueUnit = meta.valueUnit;
    this.committed.set(filing.accession, stagingId);
  }

  /** Drops a staged filing as a whole: nothing of it is ever returned. */
  discard(stagingId: number): void {
    const filing = this.stagedFiling(stagingId);
    if (filing.meta) throw new Error(`filing ${filing.accession} is already committed`);
    filing.discarded = true;
    // Reclaim the space when the filing's rows are the last ones written (the XML path always).
    const spans = filing.spans;
    if (spans.length === 2 && spans[1] === this.rowTotal - 1) {
      for (let position = spans[0]!; position < this.rowTotal; position++) {
        this.wideAmounts.delete(position);
        this.wideValues.delete(position);
      }
      this.rowTotal = spans[0]!;
    }
    filing.rowCount = 0;
    filing.spans = [];
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
    if (this.readOnly) throw new Error("a catalog shared for reading has its filings' rows only");
    for (const id of this.committed.values()) yield this.staged[id]!.meta!;
  }

  meta(accession: string): FilingMeta | undefined {
    const id = this.committed.get(accession);
    return id === undefined ? undefined : this.staged[id]!.meta!;
  }

  rows(accession: string): HoldingRow[] {
    const id = this.committed.get(accession);
    if (id === undefined) throw new Error(`no filing ${accession} in the catalog`);
    const unit = this.staged[id]!.valueUnit!;
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
    const unit = this.staged[id]!.valueUnit!;
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
    // Plain loops over the spans, not the positionsOf generator: an iterator step per row cost
    // as much as reading the row (millions of rows per build).
    const spans = this.staged[id]!.spans;
    for (let span = 0; span < spans.length; span += 2) {
      const last = spans[span + 1]!;
      for (let position = spans[span]!; position <= last; position++) {
        const chunk = position >>> CHUNK_BITS;
        const offset = position & CHUNK_MASK;
        const flags = this.flags[chunk]![offset]!;
        const cusipId = this.cusipIds[chunk]![offset]!;
        row.issuerName = this.issuers.values[this.issuerIds[chunk]![offset]!]!;
        row.titleOfClass = this.titles.values[this.titleIds[chunk]![offset]!]!;
        row.cusip = this.cusips.values[cusipId]!;
        row.putCall = flags & PUT ? 'put' : flags & CALL ? 'call' : null;
        row.amountType = flags & PRN ? 'PRN' : 'SH';
        row.amount = this.amountAt(position, chunk, offset);
        row.value = toWholeDollars(this.valueAt(position, chunk, offset), unit);
        row.positionId = cusipId * 8 + flags;
        visit(row);
      }
    }
  }

  /**
   * Everything committed, for another thread: to take in (absorb, the data set's worker no longer
   * writes), or to read (fromShared, while this catalog no longer changes). Posted, the columns are
   * shared and the rest copied.
   */
  shareCommitted(): CatalogTransfer {
    return {
      issuers: this.issuers.values,
      titles: this.titles.values,
      cusips: this.cusips.values,
      issuerIds: this.issuerIds,
      titleIds: this.titleIds,
      cusipIds: this.cusipIds,
      amounts: this.amounts,
      values: this.values,
      flags: this.flags,
      wideAmounts: [...this.wideAmounts],
      wideValues: [...this.wideValues],
      rowTotal: this.rowTotal,
      filings: [...this.committed.values()].map((id) => {
        const filing = this.staged[id]!;
        return { accession: filing.accession, spans: filing.spans, rowCount: filing.rowCount, meta: filing.meta! };
      }),
    };
  }

  /** shareCommitted for threads that only read rows (fromShared): without the filings' facts. */
  shareRows(): CatalogRows {
    const { filings, ...rest } = this.shareCommitted();
    return { ...rest, filings: filings.map(({ accession, spans, meta }) => ({ accession, spans, valueUnit: meta.valueUnit })) };
  }

  /**
   * Appends the committed filings of another catalog (exportCommitted), in its commit order, as if
   * they had been staged and committed here: its chunks are taken over whole, from the next chunk
   * boundary on, and its string ids are mapped to this catalog's, once per distinct string.
   */
  absorb(other: CatalogTransfer): void {
    if (this.readOnly) throw new Error('a catalog shared for reading takes no filing');
    for (const filing of other.filings) {
      if (this.committed.has(filing.accession)) throw new Error(`filing ${filing.accession} is already in the catalog`);
    }
    const base = this.issuerIds.length * CHUNK_ROWS;
    const remap = (table: StringTable, values: string[]) => Int32Array.from(values, (value) => table.intern(value));
    const issuerMap = remap(this.issuers, other.issuers);
    const titleMap = remap(this.titles, other.titles);
    const cusipMap = remap(this.cusips, other.cusips);
    for (let chunk = 0; chunk < other.issuerIds.length; chunk++) {
      const rows = Math.min(CHUNK_ROWS, other.rowTotal - chunk * CHUNK_ROWS);
      const issuers = inSharedMemory(other.issuerIds[chunk]!);
      const titles = inSharedMemory(other.titleIds[chunk]!);
      const cusips = inSharedMemory(other.cusipIds[chunk]!);
      for (let offset = 0; offset < rows; offset++) {
        issuers[offset] = issuerMap[issuers[offset]!]!;
        titles[offset] = titleMap[titles[offset]!]!;
        cusips[offset] = cusipMap[cusips[offset]!]!;
      }
      this.issuerIds.push(issuers);
      this.titleIds.push(titles);
      this.cusipIds.push(cusips);
      this.amounts.push(inSharedMemory(other.amounts[chunk]!));
      this.values.push(inSharedMemory(other.values[chunk]!));
      this.flags.push(inSharedMemory(other.flags[chunk]!));
    }
    for (const [position, amount] of other.wideAmounts) this.wideAmounts.set(base + position, amount);
    for (const [position, value] of other.wideValues) this.wideValues.set(base + position, value);
    this.rowTotal = base + other.rowTotal;
    for (const filing of other.filings) {
      this.staged.push({
        accession: filing.accession,
        spans: filing.spans.map((position) => base + position),
        rowCount: filing.rowCount,
        meta: filing.meta,
        valueUnit: filing.meta.valueUnit,
        discarded: false,
      });
      this.committed.set(filing.accession, this.staged.length - 1);
    }
  }

  /** Bytes held by the row columns, for benchmarks and the docs (the side tables not counted). */
  get rowStorageBytes(): number {
    return this.issuerIds.length * CHUNK_ROWS * 21;
  }

  /** How many amounts and values live in the side tables. */
  get wideCount(): number {
    return this.wideAmounts.size + this.wideValues.size;
  }

  private stagedFiling(stagingId: number): StagedFiling {
    const filing = this.staged[stagingId];
    if (!filing) throw new Error(`unknown staging id ${stagingId}`);
    return filing;
  }

  private *positionsOf(stagingId: number): Iterable<number> {
    const spans = this.stagedFiling(stagingId).spans;
    for (let i = 0; i < spans.length; i += 2) {
      for (let position = spans[i]!; position <= spans[i + 1]!; position++) yield position;
    }
  }

  /** The int32 to store for `value` at `position`; a value that is no int32 goes to `wide`. */
  private narrow(wide: Map<number, number>, position: number, value: number): number {
    if (fitsInt32(value)) return value;
    wide.set(position, value);
    return WIDE;
  }

  private amountAt(position: number, chunk: number, offset: number): number {
    const stored = this.amounts[chunk]![offset]!;
    return stored === WIDE ? this.wideAmounts.get(position)! : stored;
  }

  private valueAt(position: number, chunk: number, offset: number): number {
    const stored = this.values[chunk]![offset]!;
    return stored === WIDE ? this.wideValues.get(position)! : stored;
  }

  private rawRowAt(position: number): RawHoldingRow {
    return this.readRaw(emptyRawRow(), position);
  }

  /** Sets `row` to the row at `position`, values as reported; returns it. */
  private readRaw(row: RawHoldingRow, position: number): RawHoldingRow {
    const chunk = position >>> CHUNK_BITS;
    const offset = position & CHUNK_MASK;
    const flags = this.flags[chunk]![offset]!;
    row.issuerName = this.issuers.values[this.issuerIds[chunk]![offset]!]!;
    row.titleOfClass = this.titles.values[this.titleIds[chunk]![offset]!]!;
    row.cusip = this.cusips.values[this.cusipIds[chunk]![offset]!]!;
    row.putCall = flags & PUT ? 'put' : flags & CALL ? 'call' : null;
    row.amountType = flags & PRN ? 'PRN' : 'SH';
    row.amount = this.amountAt(position, chunk, offset);
    row.reportedValue = this.valueAt(position, chunk, offset);
    return row;
  }

  /** Shared memory, so that the threads that read the rows later (the derivation's) see them without a copy. */
  private addChunk(): void {
    const shared = (bytesPerRow: number) => new SharedArrayBuffer(CHUNK_ROWS * bytesPerRow);
    this.issuerIds.push(new Int32Array(shared(4)));
    this.titleIds.push(new Int32Array(shared(4)));
    this.cusipIds.push(new Int32Array(shared(4)));
    this.amounts.push(new Int32Array(shared(4)));
    this.values.push(new Int32Array(shared(4)));
    this.flags.push(new Uint8Array(shared(1)));
  }
}

/**
 * A chunk as this catalog keeps it: in shared memory, so that derivation workers read it without a
 * copy. A worker's chunks are there already; a data set taken from the derivation cache comes back
 * from V8's deserializer in plain buffers, which a Worker would otherwise be given a copy of, each.
 */
function inSharedMemory<T extends Int32Array | Uint8Array>(chunk: T): T {
  if (chunk.buffer instanceof SharedArrayBuffer) return chunk;
  const copy = new (chunk.constructor as new (buffer: SharedArrayBuffer) => T)(new SharedArrayBuffer(chunk.byteLength));
  copy.set(chunk);
  return copy;
}
