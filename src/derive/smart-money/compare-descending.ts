/** Larger numbers first: the Smart Money derivation's order of reported values and counts. */
export function compareDescending(a: number, b: number): number {
  return b - a;
}
