/**
 * How a server asks a client to slow down. 429 Too Many Requests, with `Retry-After` in seconds or
 * as an HTTP date; SEC also answers 403 with a page titled "Request Rate Threshold Exceeded",
 * which asks for ten minutes without requests (docs/sources-fetch.md, SEC's fair-access policy).
 */

export const SEC_RATE_PAGE_MARKER = 'Request Rate Threshold Exceeded';
/** What SEC's 403 page asks for; also the wait of a 429 that says nothing. */
export const SEC_RATE_PAGE_WAIT_MS = 10 * 60_000;
/** However little a server asks for, the next request waits at least this long: never a tight loop. */
export const MIN_RATE_WAIT_MS = 1_000;
/** How much of a 403 body is read to recognise SEC's page. */
export const RATE_PAGE_READ_BYTES = 64 * 1024;

/** The wait `Retry-After` asks for, in ms (at least MIN_RATE_WAIT_MS), or null when it is absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, wallClockMs: number): number | null {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value === undefined || value === '') return null;
  if (/^\d+$/.test(value)) return Math.max(MIN_RATE_WAIT_MS, Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(MIN_RATE_WAIT_MS, at - wallClockMs);
}

export function isSecRatePage(body: string): boolean {
  return body.includes(SEC_RATE_PAGE_MARKER);
}
