/** One information-table row as filed: `value` still in the filer's unit (dollars or thousands). */
export interface RawHoldingRow {
  issuerName: string;
  titleOfClass: string;
  cusip: string;
  putCall: 'put' | 'call' | null;
  amountType: 'SH' | 'PRN';
  amount: number;
  /** As reported: whole dollars or thousands of dollars, decided per filing by decideValueUnit. */
  reportedValue: number;
}
