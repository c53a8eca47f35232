/**
 * This instance's estimate of Redis's own clock, so that an admission script can tell, by the clock
 * it runs on, that it started too late for the request that sent it to still be waiting.
 *
 * The estimate is an offset between a monotonic local clock and Redis's TIME, measured with one
 * round trip and taken as read at the trip's end: Redis read its clock somewhere within the trip,
 * so the estimate is never ahead of Redis, only behind it by up to the trip. Behind, a call looks
 * later than it is and may be refused (counting nothing); ahead, a call that started too late
 * would count for a request already answered 503. A TIME call held up by the stall that makes
 * calls late gives an estimate far behind, every call then starts "late", and the first such answer
 * has the clock measured again. It is measured again after every reconnection and at least every
 * RESYNC_INTERVAL_MS, in the background.
 */
export class RedisClock {
  private offsetMs: number | null = null;
  private measuredAtMs = -Infinity;
  private measuring: Promise<void> | null = null;

  constructor(
    /** Redis's TIME: seconds and microseconds. */
    private readonly readTime: () => Promise<ReadonlyArray<string | number>>,
    private readonly monotonicMs: () => number = () => performance.now(),
  ) {}

  /** Measures the offset now; concurrent calls share one round trip. */
  measure(): Promise<void> {
    this.measuring ??= this.roundTrip().finally(() => {
      this.measuring = null;
    });
    return this.measuring;
  }

  /** Forgets the estimate: the next read measures before it answers. */
  invalidate(): void {
    this.offsetMs = null;
  }

  /** Redis's clock now, in ms since the epoch, as far as this instance can tell (never ahead of it). */
  async nowOnRedisMs(): Promise<number> {
    if (this.offsetMs === null) await this.measure();
    else if (this.monotonicMs() - this.measuredAtMs > RESYNC_INTERVAL_MS) {
      // The current estimate serves meanwhile; a failure shows in the admission calls themselves.
      this.measure().catch(() => {});
    }
    return this.monotonicMs() + (this.offsetMs as number);
  }

  private async roundTrip(): Promise<void> {
    const time = await this.readTime();
    const received = this.monotonicMs();
    const redisMs = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
    if (time.length !== 2 || !Number.isFinite(redisMs)) throw new Error(`Redis TIME answered ${time.join(' ')}`);
    this.offsetMs = redisMs - received;
    this.measuredAtMs = received;
  }
}

/** A monotonic clock and a wall clock drift apart only slowly, but a wall clock can be stepped. */
export const RESYNC_INTERVAL_MS = 60_000;
