/**
 * Checks a filing's information table against its cover page summary (tableEntryTotal,
 * tableValueTotal). Returns the reason the filing must be rejected, or null.
 *
 * The entry total must match exactly: a missing or extra row means the table is not the one the
 * filer certified. The value total is compared in the filer's own unit, allowing the filer's
 * rounding: one unit per row (rows rounded before summing) or 0.1% of the total, whichever is
 * larger. A total written in the other unit (thousands vs dollars, a common slip on the summary
 * page alone) is accepted too: the rows are what is used, and they were counted exactly.
 */
export function tableTotalsProblem(
  rowCount: number,
  reportedValueSum: number,
  tableEntryTotal: number | null,
  tableValueTotal: number | null,
): string | null {
  if (tableEntryTotal !== null && tableEntryTotal !== rowCount) {
    return `cover page tableEntryTotal is ${tableEntryTotal} but the information table has ${rowCount} rows`;
  }
  if (tableValueTotal !== null && rowCount > 0) {
    const matches = (total: number) =>
      Math.abs(reportedValueSum - total) <= Math.max(rowCount, total * 0.001);
    if (!matches(tableValueTotal) && !matches(tableValueTotal * 1000) && !matches(tableValueTotal / 1000)) {
      return `cover page tableValueTotal is ${tableValueTotal} but the information table's values sum to ${reportedValueSum}`;
    }
  }
  return null;
}
