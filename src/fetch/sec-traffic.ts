import { formatDuration } from '../lib/duration.js';
import { SlidingWindowLimiter } from './sliding-window-limiter.js';
import type { Timer } from './timer.js';

/**
 * The waits a run accepts in all (`--max-wait`): when a server asks for a pause, pdsnap pauses if
 * the pause still fits, and otherwise stops asking that server, naming why.
 */
export class WaitBudget {
  private spent = 0;
  constructor(readonly maxWaitMs: number) {}

  get waitedMs(): number {
    return this.spent;
  }

  /** Takes `ms` from the budget when it fits, and says whether it did. */
  take(ms: number): boolean {
    if (this.spent + ms > this.maxWaitMs) return false;
    this.spent += ms;
    return true;
  }
}

/** Thrown to every SEC request not yet started once a run has stopped asking SEC. */
export class SecStopped extends Error {
  override readonly name = 'SecStopped';
}

/**
 * Every request toward SEC (the base of PDSNAP_SEC_URL, and any *.sec.gov host a redirect or a feed
 * leads to) passes here: one sliding-window limiter for the whole process, and one pause for every
 * request when SEC asks for it.
 */
export class SecTraffic {
  readonly limiter: SlidingWindowLimiter;
  private readonly host: string;

  constructor(
    baseUrl: string,
    maxRps: number,
    private readonly timer: Timer,
    private readonly budget: WaitBudget,
  ) {
    this.limiter = new SlidingWindowLimiter(maxRps, timer);
    this.host = new URL(baseUrl).host.toLowerCase();
  }

  isSec(url: URL): boolean {
    const host = url.host.toLowerCase();
    return host === this.host || url.hostname === 'sec.gov' || url.hostname.endsWith('.sec.gov');
  }

  /** Waits for the limiter; rejects with SecStopped once the run stopped asking SEC. */
  beforeRequest(): Promise<void> {
    return this.limiter.acquire();
  }

  get stoppedReason(): string | null {
    return this.limiter.stopped?.message ?? null;
  }

  /**
   * SEC asked for `ms` without requests (`why` in its words). Every request waits that long when it
   * fits the budget (true); otherwise pdsnap stops asking SEC for the rest of the run (false).
   */
  askedToWait(ms: number, why: string): boolean {
    const now = this.timer.now();
    const extension = now + ms - Math.max(now, this.limiter.pauseEnd);
    if (extension <= 0) return true;
    if (!this.budget.take(extension)) {
      this.limiter.stop(
        new SecStopped(
          `${why}: SEC asks for ${formatDuration(ms)} without requests, more than the ${formatDuration(this.budget.maxWaitMs - this.budget.waitedMs)} left of --max-wait ${formatDuration(this.budget.maxWaitMs)}; stopped asking SEC`,
        ),
      );
      return false;
    }
    this.limiter.pauseUntil(now + ms);
    return true;
  }
}
