import type { Timer } from './timer.js';

/**
 * At most `limit` requests started in any window of one second, bursts included: the start of a
 * request waits until the request `limit` places before it started more than a window ago. SEC's
 * fair-access rule counts requests per second, whenever they come; a token bucket would let a full
 * bucket through at once after a pause, on top of the requests of the second before.
 *
 * What counts is what the server sees, and a request reaches it a little later than it starts, by
 * an amount that varies. So the window is kept longer than a second (`guardMs`), and starts are
 * spread evenly over it (at least window / limit apart) rather than sent in bursts: a burst that
 * arrives late would fall into the same second as the next burst, doubling the count; a single
 * request arriving late adds at most one.
 *
 * `pauseUntil` stops every start until then (SEC asked to slow down); `stop` ends all starts with
 * an error (SEC asked for a longer pause than the run may wait). Starts are granted in the order
 * asked for.
 */
export class SlidingWindowLimiter {
  /** The start times of the last `limit` requests, oldest first. */
  private readonly lastStarts: number[] = [];
  /** Starts less than a window ago: the rate reached, for the report. */
  private readonly recentStarts: number[] = [];
  private queue: Promise<void> = Promise.resolve();
  private pausedUntil = Number.NEGATIVE_INFINITY;
  private stopError: Error | null = null;
  private highest = 0;
  private count = 0;

  constructor(
    readonly limit: number,
    private readonly timer: Timer,
    readonly windowMs = 1000,
    readonly guardMs = 100,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`a rate limit must be a whole number of at least 1, not ${limit}`);
  }

  /** Waits until one more request may start, and counts it as started; rejects once stopped. */
  acquire(): Promise<void> {
    const turn = this.queue.then(() => this.waitForSlot());
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** No request starts before `until` (the timer's time); a later pause already set is kept. */
  pauseUntil(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  /** When the current pause ends (the timer's time), or -Infinity when there is none. */
  get pauseEnd(): number {
    return this.pausedUntil;
  }

  /** Every request not yet started fails with `error`. */
  stop(error: Error): void {
    this.stopError ??= error;
  }

  get stopped(): Error | null {
    return this.stopError;
  }

  /** Requests started so far. */
  get started(): number {
    return this.count;
  }

  /** The most requests started within any one window (of exactly `windowMs`) so far. */
  get highestRate(): number {
    return this.highest;
  }

  private async waitForSlot(): Promise<void> {
    for (;;) {
      if (this.stopError) throw this.stopError;
      const now = this.timer.now();
      if (now < this.pausedUntil) {
        await this.timer.sleep(this.pausedUntil - now);
        continue;
      }
      const free = Math.max(
        this.lastStarts.length === this.limit ? this.lastStarts[0]! + this.windowMs + this.guardMs : Number.NEGATIVE_INFINITY,
        this.lastStarts.length > 0 ? this.lastStarts.at(-1)! + this.windowMs / this.limit : Number.NEGATIVE_INFINITY,
      );
      if (now < free) {
        await this.timer.sleep(free - now);
        continue;
      }
      this.record(now);
      return;
    }
  }

  private record(now: number): void {
    this.count += 1;
    this.lastStarts.push(now);
    if (this.lastStarts.length > this.limit) this.lastStarts.shift();
    this.recentStarts.push(now);
    while (this.recentStarts[0]! <= now - this.windowMs) this.recentStarts.shift();
    this.highest = Math.max(this.highest, this.recentStarts.length);
  }
}
