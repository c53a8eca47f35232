/**
 * This instance's estimate of Redis's own clock, so that an admission script can tell, by the clock
 * it runs on, that it started too late for the request that sent it to still be waiting.
 *
 * The estimate is an offset between a monotonic local clock and Redis's TIME, measured with one
 * round trip (the middle of the trip is taken as the instant TIME was read, so the error is at most
 * half the round trip). It is measured again after every reconnection, at least every
 * RESYNC_INTERVAL_MS, and whenever a script reports that it ran late: a Redis host whose clock was
 * stepped forward would otherwise see every script as late, and the next sync mends that.
 */
export class RedisClock {
  private offsetMs: number | null = null;
  private syncedAtMs = -Infinity;
  private syncing: Promise<void> | null = null;

  constructor(
    /** Redis's TIME: seconds and microseconds. */
    private readonly readTime: () => Promise<ReadonlyArray<string | number>>,
    private readonly monotonicMs: () => number = () => performance.now(),
  ) {}

  /** Measures the offset now; concurrent calls share one round trip. */
  sync(): Promise<void> {
    this.syncing ??= this.measure().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  /** The next read measures again before answering. */
  invalidate(): void {
    this.syncedAtMs = -Infinity;
  }

  /** Redis's clock now, in ms since the epoch, as far as this instance can tell. */
  async nowOnRedisMs(): Promise<number> {
    if (this.offsetMs === null || this.monotonicMs() - this.syncedAtMs > RESYNC_INTERVAL_MS) await this.sync();
    return this.monotonicMs() + (this.offsetMs as number);
  }

  private async measure(): Promise<void> {
    const sent = this.monotonicMs();
    const time = await this.readTime();
    const received = this.monotonicMs();
    const redisMs = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
    if (time.length !== 2 || !Number.isFinite(redisMs)) throw new Error(`Redis TIME answered ${time.join(' ')}`);
    this.offsetMs = redisMs - (sent + received) / 2;
    this.syncedAtMs = received;
  }
}

/** A monotonic clock and a wall clock drift apart only slowly, but a wall clock can be stepped. */
export const RESYNC_INTERVAL_MS = 60_000;
