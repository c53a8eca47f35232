/**
 * Orderings shared by the Smart Money derivation. Text is compared by UTF-16 code units
 * (compareText), so the same input sorts the same way on every machine: byte-identical bundles
 * depend on it.
 */
import { compareText } from '../../lib/text-order.js';

export { compareText };

/** Larger numbers first. */
export function compareDescending(a: number, b: number): number {
  return b - a;
}
