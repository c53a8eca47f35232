import { POSITION_CAP } from '../../model/smart-money.js';
import { compareText } from '../../lib/text-order.js';
import { compareDescending } from './compare-descending.js';

export interface Rankable {
  key: string;
  issuerName: string;
  reportedValue: number;
}

/** Largest reported value first, ties by issuer name, then by key, so the order is total. */
function compareByReportedValue(a: Rankable, b: Rankable): number {
  return compareDescending(a.reportedValue, b.reportedValue) || compareText(a.issuerName, b.issuerName) || compareText(a.key, b.key);
}

/**
 * The 250-row cap of docs/spec.md, Caps: the largest positions by reported value, in that order.
 * Never mutates its input.
 */
export function capPositions<T extends Rankable>(positions: readonly T[], cap: number = POSITION_CAP): T[] {
  return [...positions].sort(compareByReportedValue).slice(0, Math.max(0, cap));
}
