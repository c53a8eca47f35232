import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The clock and the waits of fetching, in milliseconds: the rate limiter, the backoff between
 * attempts and the waits SEC asks for all go through one, so that tests can run them on a clock of
 * their own instead of the wall clock.
 */
export interface Timer {
  /** A monotonic time in ms. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const REAL_TIMER: Timer = {
  now: () => performance.now(),
  sleep: (ms) => (ms > 0 ? sleep(ms) : Promise.resolve()),
};
