import { TIERS, type TierName, type UsageCounts } from './limits.js';
import { nextUtcMonthStart, unixSeconds, windowEndSeconds } from './utc-windows.js';

export type Profile = 'A' | 'B';

/**
 * The rate-limit and quota headers of one response, per profile (docs/spec.md, Response headers).
 * All resets are Unix timestamps in whole seconds; Retry-After is a number of seconds.
 *
 * Profile A: X-RateLimit-Limit/-Remaining/-Reset, X-Quota-Limit (the monthly hard cap),
 * X-Quota-Remaining (included requests left, 0 in overage), X-Quota-Reset (next UTC month start).
 * Profile B: X-RateLimit-Limit/-Remaining/-Reset, X-Quota-Tier (free|premium), X-Quota-Included,
 * X-Quota-Used, X-Quota-Remaining. Both: Retry-After when the request was refused with 429.
 */
export function limitHeaders(
  profile: Profile,
  tier: TierName,
  counts: UsageCounts,
  now: Date,
  retryAfterSeconds?: number,
): Record<string, string> {
  const limits = TIERS[tier];
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(limits.requestsPerMinute),
    'X-RateLimit-Remaining': String(Math.max(0, limits.requestsPerMinute - counts.window)),
    'X-RateLimit-Reset': String(windowEndSeconds(now)),
  };
  const includedLeft = String(Math.max(0, limits.includedPerMonth - counts.month));
  if (profile === 'A') {
    headers['X-Quota-Limit'] = String(limits.hardCapPerMonth);
    headers['X-Quota-Remaining'] = includedLeft;
    headers['X-Quota-Reset'] = String(unixSeconds(nextUtcMonthStart(now)));
  } else {
    headers['X-Quota-Tier'] = limits.publicName;
    headers['X-Quota-Included'] = String(limits.includedPerMonth);
    headers['X-Quota-Used'] = String(counts.month);
    headers['X-Quota-Remaining'] = includedLeft;
  }
  if (retryAfterSeconds !== undefined) headers['Retry-After'] = String(retryAfterSeconds);
  return headers;
}
