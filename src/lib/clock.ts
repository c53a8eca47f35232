import { nowRefusal, nowValueMs } from './time.js';

/**
 * The machine's clock, the one place pdsnap reads it. `PDSNAP_CLOCK` replaces it, read as `--now` is
 * (an ISO 8601 instant with a zone, or a calendar date as its start in UTC): a test and operations
 * hook, so that the checks that compare `--now` with the clock can be exercised without waiting for
 * a date (docs/command-line.md, The clock and --now).
 */
export const CLOCK_ENV = 'PDSNAP_CLOCK';

/**
 * How far `--now` (of build) may run ahead of the clock, and how far a snapshot's generatedAt may run
 * ahead of validate's and gate's now: clocks of two hosts disagree by seconds, not by minutes.
 */
export const CLOCK_SKEW_MS = 5 * 60_000;

export function clockNow(): Date {
  const fixed = process.env[CLOCK_ENV];
  if (fixed === undefined || fixed === '') return new Date();
  const ms = nowValueMs(fixed);
  if (ms === null) {
    throw new Error(`${CLOCK_ENV}=${nowRefusal(fixed)}`);
  }
  return new Date(ms);
}

/**
 * The host's own clock, which PDSNAP_CLOCK does not replace: read only to refuse a build whose
 * clock runs ahead of it (cli/future-now.ts), since a PDSNAP_CLOCK left set to a rehearsal date
 * would otherwise date real snapshots in the future.
 */
export function hostNow(): Date {
  return new Date();
}
