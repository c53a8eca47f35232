/**
 * Orderings shared by the Smart Money derivation. Text is compared by UTF-16 code units, not
 * with localeCompare, so the same input sorts the same way on every machine and ICU build:
 * byte-identical bundles depend on it.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Larger numbers first. */
export function compareDescending(a: number, b: number): number {
  return b - a;
}
