import { unixSeconds, windowEndSeconds, windowStartSeconds } from './access/utc-windows.js';

/**
 * Per client address, failed authentications in fixed 60-second windows. Past the limit, the
 * address is refused with 429 before its key is even looked up, until the window ends, so a flood
 * of guessed keys costs the server a map lookup each. In memory and per process: the limit holds per
 * server instance. The map is emptied at every new window and never holds more than MAX_ADDRESSES
 * (addresses beyond that are not tracked until the next window).
 */
export const FAILED_AUTH_LIMIT = 100;
const MAX_ADDRESSES = 100_000;

export class FailedAuthThrottle {
  private windowStart = -1;
  private readonly failures = new Map<string, number>();

  constructor(private readonly limit: number = FAILED_AUTH_LIMIT) {}

  /** Seconds until the address may try again, or 0 when it is not throttled. */
  retryAfterSeconds(address: string, now: Date): number {
    this.roll(now);
    if ((this.failures.get(address) ?? 0) < this.limit) return 0;
    return windowEndSeconds(now) - unixSeconds(now);
  }

  recordFailure(address: string, now: Date): void {
    this.roll(now);
    const count = this.failures.get(address);
    if (count === undefined && this.failures.size >= MAX_ADDRESSES) return;
    this.failures.set(address, (count ?? 0) + 1);
  }

  private roll(now: Date): void {
    const start = windowStartSeconds(now);
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.failures.clear();
    }
  }
}
