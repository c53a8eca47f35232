import type { FilingCatalog, HoldingRow } from '../../model/filing.js';
import type { PositionKind } from '../../model/smart-money.js';

/**
 * One position of an investor after aggregation, as the derivation works with it. `key` holds the
 * CUSIP and exists only to match positions across quarters and investors: it must never be copied
 * into a published record (the record builders pick published fields one by one).
 */
export interface AggregatedPosition {
  /** `${CUSIP}|${put|call|-}|${SH|PRN}`; internal only. */
  key: string;
  issuerName: string;
  titleOfClass: string;
  kind: PositionKind;
  /** Shares, or principal amount for kind "principal"; whole number. */
  shares: number;
  /** Reported value in whole US dollars. */
  reportedValue: number;
}

/** The position key of docs/spec.md, Position key and aggregation: (CUSIP, putCall, SH/PRN). Options never share a key with equity. */
function positionKey(row: Pick<HoldingRow, 'cusip' | 'putCall' | 'amountType'>): string {
  return `${row.cusip.trim().toUpperCase()}|${row.putCall ?? '-'}|${row.amountType}`;
}

function positionKind(row: Pick<HoldingRow, 'putCall' | 'amountType'>): PositionKind {
  if (row.putCall !== null) return row.putCall;
  return row.amountType === 'PRN' ? 'principal' : 'equity';
}

interface Group {
  key: string;
  kind: PositionKind;
  amount: number;
  value: number;
  /** The row whose filed names are shown: largest value, the first one on ties. */
  shown: HoldingRow;
}

/**
 * Aggregates information-table rows per position key (a filer lists one security once per
 * investment discretion / other manager), summing amounts and values. The names shown are the
 * filed ones of the group's largest row. Sums are rounded to whole numbers once, after adding,
 * because a few filers report fractional share amounts. Output is in first-seen order.
 */
export function aggregatePositions(rows: readonly HoldingRow[]): AggregatedPosition[] {
  const groups = new Map<string, Group>();
  for (const row of rows) {
    const key = positionKey(row);
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, { key, kind: positionKind(row), amount: row.amount, value: row.value, shown: row });
      continue;
    }
    group.amount += row.amount;
    group.value += row.value;
    if (row.value > group.shown.value) group.shown = row;
  }
  return [...groups.values()].map((group) => ({
    key: group.key,
    issuerName: group.shown.issuerName,
    titleOfClass: group.shown.titleOfClass,
    kind: group.kind,
    shares: Math.round(group.amount),
    reportedValue: Math.round(group.value),
  }));
}

/**
 * The key string of each positionId of a catalog, made once: every investor and quarter holding a
 * security then shares one string, which Map lookups (consensus tallies, trades across quarters)
 * hash once and compare by reference, instead of a new string per position hashed and compared
 * character by character each time.
 */
const keysByCatalog = new WeakMap<object, Map<number, string>>();

function positionKeys(catalog: object): Map<number, string> {
  let keys = keysByCatalog.get(catalog);
  if (keys === undefined) {
    keys = new Map();
    keysByCatalog.set(catalog, keys);
  }
  return keys;
}

/**
 * Where each position of the aggregation under way is, by positionId: `slot[id]` is its index when
 * `stamp[id]` is the current aggregation's number. Per catalog, reused by every aggregation of it
 * (a few per investor): an array look-up per row instead of a hash map made per aggregation.
 */
interface PositionIndex {
  slot: Int32Array;
  stamp: Int32Array;
  generation: number;
}

const indexesByCatalog = new WeakMap<object, PositionIndex>();

function positionIndex(catalog: object): PositionIndex {
  let index = indexesByCatalog.get(catalog);
  if (index === undefined) {
    index = { slot: new Int32Array(1024), stamp: new Int32Array(1024), generation: 0 };
    indexesByCatalog.set(catalog, index);
  }
  return index;
}

function grow(index: PositionIndex, id: number): void {
  let length = index.slot.length;
  while (length <= id) length *= 2;
  const slot = new Int32Array(length);
  slot.set(index.slot);
  const stamp = new Int32Array(length);
  stamp.set(index.stamp);
  index.slot = slot;
  index.stamp = stamp;
}

/**
 * aggregatePositions over the rows of some filings of a catalog, in order, with the same result;
 * through catalog.eachRow where the catalog has it, so that no row becomes an object and no key
 * string is made per row (one per security, shared by every position of it). The positions are
 * made as the rows come and summed in place (rounded once, at the end), found again by positionId
 * in an index reused across aggregations.
 */
export function aggregateCatalogPositions(
  catalog: Pick<FilingCatalog, 'rows' | 'eachRow'>,
  accessionNumbers: readonly string[],
): AggregatedPosition[] {
  if (catalog.eachRow === undefined) {
    const rows: HoldingRow[] = [];
    for (const accession of accessionNumbers) for (const row of catalog.rows(accession)) rows.push(row);
    return aggregatePositions(rows);
  }
  const keys = positionKeys(catalog);
  const index = positionIndex(catalog);
  const generation = ++index.generation;
  const positions: AggregatedPosition[] = [];
  /** The value of the row whose names each position shows: its largest, the first one on ties. */
  const shownValues: number[] = [];
  for (const accession of accessionNumbers) {
    catalog.eachRow(accession, (row) => {
      const id = row.positionId;
      if (id >= index.slot.length) grow(index, id);
      if (index.stamp[id] !== generation) {
        let key = keys.get(id);
        if (key === undefined) {
          key = positionKey(row);
          keys.set(id, key);
        }
        index.stamp[id] = generation;
        index.slot[id] = positions.length;
        // shares and reportedValue hold the unrounded sums until the end.
        positions.push({
          key,
          issuerName: row.issuerName,
          titleOfClass: row.titleOfClass,
          kind: positionKind(row),
          shares: row.amount,
          reportedValue: row.value,
        });
        shownValues.push(row.value);
        return;
      }
      const at = index.slot[id]!;
      const position = positions[at]!;
      position.shares += row.amount;
      position.reportedValue += row.value;
      if (row.value > shownValues[at]!) {
        shownValues[at] = row.value;
        position.issuerName = row.issuerName;
        position.titleOfClass = row.titleOfClass;
      }
    });
  }
  for (const position of positions) {
    position.shares = Math.round(position.shares);
    position.reportedValue = Math.round(position.reportedValue);
  }
  return positions;
}
