import { describe, expect, it } from 'vitest';
import { SlidingWindowLimiter } from '../../src/fetch/sliding-window-limiter.js';
import type { Timer } from '../../src/fetch/timer.js';

/** A clock of the test's own: a wait moves it on at once, so seconds of pacing take no time. */
function virtualTimer(): Timer & { advance(ms: number): void } {
  let now = 0;
  return {
    now: () => now,
    sleep: async (ms) => {
      now += Math.max(0, ms);
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

/** The most starts within any window [t, t + 1000) that begins at a start. */
function mostInOneSecond(starts: readonly number[]): number {
  let most = 0;
  for (const [i, t] of starts.entries()) most = Math.max(most, starts.slice(i).filter((s) => s < t + 1000).length);
  return most;
}

async function startAll(limiter: SlidingWindowLimiter, timer: Timer, count: number): Promise<number[]> {
  const starts: number[] = [];
  await Promise.all(
    Array.from({ length: count }, () =>
      limiter.acquire().then(() => {
        starts.push(timer.now());
      }),
    ),
  );
  return starts;
}

describe('the SEC rate limiter', () => {
  it('starts at most 8 requests in any second when 100 ask at once', async () => {
    const timer = virtualTimer();
    const limiter = new SlidingWindowLimiter(8, timer);
    const starts = await startAll(limiter, timer, 100);
    expect(starts).toHaveLength(100);
    expect(mostInOneSecond(starts)).toBe(8);
    expect(limiter.highestRate).toBe(8);
    expect(limiter.started).toBe(100);
    // The window is kept 100 ms longer than a second: 8 starts per 1.1 s.
    expect(starts.at(-1)).toBeGreaterThanOrEqual((100 / 8 - 1) * 1100);
  });

  it('lets no burst through after a pause: 20 asking after 10 s of quiet are spread like any others', async () => {
    const timer = virtualTimer();
    const limiter = new SlidingWindowLimiter(10, timer);
    const first = await startAll(limiter, timer, 10);
    timer.advance(10_000);
    const second = await startAll(limiter, timer, 20);
    expect(mostInOneSecond([...first, ...second])).toBe(10);
    // Spread over the window, not sent together: at least 100 ms between two starts.
    const all = [...first, ...second];
    for (let i = 1; i < all.length; i++) expect(all[i]! - all[i - 1]!).toBeGreaterThanOrEqual(100);
  });

  it('starts nothing during a pause that SEC asked for, then goes on at the same rate', async () => {
    const timer = virtualTimer();
    const limiter = new SlidingWindowLimiter(8, timer);
    await startAll(limiter, timer, 3);
    limiter.pauseUntil(timer.now() + 600_000);
    const after = await startAll(limiter, timer, 16);
    expect(Math.min(...after)).toBeGreaterThanOrEqual(600_000);
    expect(mostInOneSecond(after)).toBe(8);
  });

  it('keeps the later of two pauses', () => {
    const limiter = new SlidingWindowLimiter(8, virtualTimer());
    limiter.pauseUntil(5_000);
    limiter.pauseUntil(2_000);
    expect(limiter.pauseEnd).toBe(5_000);
  });

  it('refuses every start once stopped, those already waiting included', async () => {
    const timer = virtualTimer();
    const limiter = new SlidingWindowLimiter(2, timer);
    await startAll(limiter, timer, 2);
    limiter.pauseUntil(60_000);
    const waiting = limiter.acquire();
    limiter.stop(new Error('SEC asked for too long a pause'));
    await expect(waiting).rejects.toThrow('SEC asked for too long a pause');
    await expect(limiter.acquire()).rejects.toThrow('SEC asked for too long a pause');
    expect(limiter.started).toBe(2);
  });

  it('refuses a limit below one', () => {
    expect(() => new SlidingWindowLimiter(0, virtualTimer())).toThrow(/at least 1/);
  });
});
