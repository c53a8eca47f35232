/**
 * Compares a filing's information table with its cover page summary (tableEntryTotal,
 * tableValueTotal). Returns what disagrees, or null.
 *
 * Filers make slips on the summary page; the information table is what every 13F tool reads, so
 * a disagreement does not stop the filing (FilingIntake publishes the table and notes it; only
 * `--strict` rejects). The entry total must match exactly. The value total is compared in the
 * filer's own unit, allowing the filer's rounding: one unit per row (rows rounded before
 * summing) or 0.1% of the total, whichever is larger. A total written in the other unit
 * (thousands vs dollars, a common slip on the summary page alone) agrees too.
 */
export function tableTotalsDisagreement(
  rowCount: number,
  reportedValueSum: number,
  tableEntryTotal: number | null,
  tableValueTotal: number | null,
): string | null {
  const found: string[] = [];
  if (tableEntryTotal !== null && tableEntryTotal !== rowCount) {
    found.push(`cover page tableEntryTotal is ${tableEntryTotal} but the information table has ${rowCount} rows`);
  }
  if (tableValueTotal !== null && rowCount > 0) {
    const matches = (total: number) => Math.abs(reportedValueSum - total) <= Math.max(rowCount, total * 0.001);
    if (!matches(tableValueTotal) && !matches(tableValueTotal * 1000) && !matches(tableValueTotal / 1000)) {
      found.push(`cover page tableValueTotal is ${tableValueTotal} but the information table's values sum to ${reportedValueSum}`);
    }
  }
  return found.length === 0 ? null : found.join('; ');
}
