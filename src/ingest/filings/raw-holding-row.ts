import type { HoldingRow } from '../../model/filing.js';

/** One information-table row as filed: `value` still in the filer's unit (dollars or thousands). */
export type RawHoldingRow = Omit<HoldingRow, 'value'> & {
  /** As reported: whole dollars or thousands of dollars, decided per filing by decideValueUnit. */
  reportedValue: number;
};
