import { nextUtcMonthStart, secondsUntil, unixSeconds, windowEndSeconds } from './utc-windows.js';

/** Tiers of docs/spec.md, Tiers. */
export const TIER_NAMES = ['member', 'premium'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export interface TierLimits {
  requestsPerMinute: number;
  includedPerMonth: number;
  /** Overage price in US cents per 1,000 requests; integers keep the bill free of float drift. */
  overageCentsPer1000: number;
  hardCapPerMonth: number;
  /** The name Profile B publishes in X-Quota-Tier (the member tier is called `free` there). */
  publicName: 'free' | 'premium';
}

export const TIERS: Readonly<Record<TierName, TierLimits>> = {
  member: { requestsPerMinute: 60, includedPerMonth: 10_000, overageCentsPer1000: 200, hardCapPerMonth: 20_000, publicName: 'free' },
  premium: { requestsPerMinute: 300, includedPerMonth: 100_000, overageCentsPer1000: 100, hardCapPerMonth: 500_000, publicName: 'premium' },
};

/** Admitted requests of one key so far: in the current UTC month and in the current 60-second window. */
export interface UsageCounts {
  month: number;
  window: number;
}

export type LimitCode = 'rate_limited' | 'quota_exceeded';

export type AdmissionDecision =
  | { allowed: true; counts: UsageCounts }
  | { allowed: false; code: LimitCode; message: string; retryAfterSeconds: number; counts: UsageCounts };

/**
 * Decides one request of an authenticated key, given what it has used before it: hard cap first
 * (a key over its monthly cap is refused whatever its minute looks like, with the longer wait),
 * then the per-minute window. An admitted request is counted in both; a refused one in neither,
 * so `counts` is what the response headers should report.
 *
 * `billed` false: a request refused for its scope (403), which is never billed but must not be free
 * of every limit either: it is judged by the per-minute window alone and counted in it only.
 */
export function decideAdmission(tier: TierName, before: UsageCounts, now: Date, billed = true): AdmissionDecision {
  const limits = TIERS[tier];
  // The state stores apply the same two comparisons where they count (usage-store.ts in SQL,
  // redis-state.ts in Lua): under the hard cap (billed requests only) and under the per-minute limit.
  if (billed && before.month >= limits.hardCapPerMonth) {
    const reset = nextUtcMonthStart(now);
    return {
      allowed: false,
      code: 'quota_exceeded',
      message: `Monthly request quota of ${limits.hardCapPerMonth} reached; it resets at ${reset.toISOString()}`,
      retryAfterSeconds: secondsUntil(now, unixSeconds(reset)),
      counts: before,
    };
  }
  if (before.window >= limits.requestsPerMinute) {
    const retryAfterSeconds = secondsUntil(now, windowEndSeconds(now));
    return {
      allowed: false,
      code: 'rate_limited',
      message: `Rate limit of ${limits.requestsPerMinute} requests per minute reached; retry in ${retryAfterSeconds} s`,
      retryAfterSeconds,
      counts: before,
    };
  }
  return { allowed: true, counts: { month: before.month + (billed ? 1 : 0), window: before.window + 1 } };
}
