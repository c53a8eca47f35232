/**
 * Clock arithmetic for the limits: fixed 60-second windows aligned to the Unix clock and UTC
 * calendar months. Pure: the instant always comes in as an argument.
 */

export const WINDOW_SECONDS = 60;

/** Start of the fixed window holding `now`, in Unix seconds: floor(epochSeconds / 60) * 60. */
export function windowStartSeconds(now: Date): number {
  return Math.floor(now.getTime() / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS;
}

/** End of the fixed window holding `now` (= start of the next one), in Unix seconds. */
export function windowEndSeconds(now: Date): number {
  return windowStartSeconds(now) + WINDOW_SECONDS;
}

/** The month last asked for, kept: every request of a month asks for the same one. */
let lastMonth = { fromMs: 0, untilMs: -1, text: '' };

/** The UTC calendar month of `now` as YYYY-MM, the key of the monthly quota. */
export function utcMonth(now: Date): string {
  const ms = now.getTime();
  // Written so that an invalid date (NaN) is never inside: toISOString below refuses it, as before.
  if (!(ms >= lastMonth.fromMs && ms < lastMonth.untilMs)) {
    const fromMs = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    lastMonth = { fromMs, untilMs: nextUtcMonthStart(now).getTime(), text: now.toISOString().slice(0, 7) };
  }
  return lastMonth.text;
}

/** First instant of the UTC month after the one holding `now`. */
export function nextUtcMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

export function unixSeconds(instant: Date): number {
  return Math.floor(instant.getTime() / 1000);
}

/**
 * Whole seconds a client should wait until `targetSeconds`; rounded up so that a client that
 * waits exactly this long never arrives early, and at least 1 because Retry-After: 0 invites a
 * tight retry loop.
 */
export function secondsUntil(now: Date, targetSeconds: number): number {
  return Math.max(1, Math.ceil((targetSeconds * 1000 - now.getTime()) / 1000));
}
