import { EARLIEST_YEAR, LATEST_YEAR } from './source-limits.js';

/**
 * Why a year cannot be a source date, or undefined. Every date reader of ingest asks this, so that
 * `0026-11-21` is rejected everywhere instead of becoming 1926 (JavaScript maps years 0-99 to the
 * 1900s) and `0000` or `20026` never reach a published instant.
 */
export function yearProblem(year: number): string | undefined {
  if (!Number.isInteger(year) || year < EARLIEST_YEAR || year > LATEST_YEAR) {
    return `year ${year} is outside ${EARLIEST_YEAR}-${LATEST_YEAR}`;
  }
  return undefined;
}
