/**
 * Orders text by UTF-16 code units. localeCompare would follow the machine's locale and ICU build,
 * and anything that feeds a digest or a published order must sort the same way everywhere.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
