import { describe, expect, it } from 'vitest';
import { RESYNC_INTERVAL_MS, RedisClock } from '../../../src/serve/access/redis-clock.js';

/**
 * A local monotonic clock the test moves by hand, and a Redis whose clock runs `redisAheadMs` ahead
 * of it. Each TIME call is answered when the test says so, with Redis's clock read at that moment
 * (as a Redis that held the call would read it: at the end of the trip).
 */
function fixture(redisAheadMs = 5_000) {
  let localMs = 1_000;
  const calls: Array<(fail?: Error) => void> = [];
  const clock = new RedisClock(
    () =>
      new Promise((resolve, reject) => {
        calls.push((fail) => {
          if (fail) return reject(fail);
          const redisMs = localMs + redisAheadMs;
          resolve([String(Math.floor(redisMs / 1000)), String((redisMs % 1000) * 1000)]);
        });
      }),
    () => localMs,
  );
  return {
    clock,
    calls,
    advance: (ms: number) => (localMs += ms),
    redisNow: () => localMs + redisAheadMs,
  };
}

describe('RedisClock', () => {
  it('is never ahead of Redis, also when Redis read its clock at the end of a long round trip', async () => {
    const { clock, calls, advance, redisNow } = fixture();
    const read = clock.nowOnRedisMs();
    // The TIME call is held 1.9 s (a paused Redis) and read when it goes on: the middle of the trip
    // would put the estimate 950 ms ahead, and a call 1.9 s late would then pass for 0.95 s late.
    advance(1_900);
    calls.shift()?.();
    expect(await read).toBe(redisNow());
    advance(500);
    expect(await clock.nowOnRedisMs()).toBe(redisNow());
    expect(calls).toHaveLength(0);
  });

  it('measures once for concurrent reads, again after invalidate, and in the background once a minute', async () => {
    const { clock, calls, advance, redisNow } = fixture(-2_000);
    const reads = [clock.nowOnRedisMs(), clock.nowOnRedisMs(), clock.nowOnRedisMs()];
    expect(calls).toHaveLength(1);
    calls.shift()?.();
    expect(await Promise.all(reads)).toEqual([redisNow(), redisNow(), redisNow()]);

    clock.invalidate();
    const afterInvalidate = clock.nowOnRedisMs();
    expect(calls).toHaveLength(1);
    calls.shift()?.();
    expect(await afterInvalidate).toBe(redisNow());

    // Past the interval the old estimate answers at once, and one measure starts beside it.
    advance(RESYNC_INTERVAL_MS + 1);
    expect(await clock.nowOnRedisMs()).toBe(redisNow());
    expect(calls).toHaveLength(1);
    calls.shift()?.();
  });

  it('lets a failed measure fail its read, and measures again on the next', async () => {
    const { clock, calls, redisNow } = fixture();
    const failing = clock.nowOnRedisMs();
    calls.shift()?.(new Error('Connection is closed.'));
    await expect(failing).rejects.toThrow('Connection is closed.');
    const next = clock.nowOnRedisMs();
    expect(calls).toHaveLength(1);
    calls.shift()?.();
    expect(await next).toBe(redisNow());
  });

  it('refuses a TIME answer that is not two numbers', async () => {
    const clock = new RedisClock(async () => ['soon']);
    await expect(clock.nowOnRedisMs()).rejects.toThrow('Redis TIME answered soon');
  });
});
