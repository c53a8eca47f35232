import { formatBytes } from '../lib/byte-size.js';
import { RefusedAddress } from './address-guard.js';
import { AttemptFailed } from './fetch-errors.js';
import type { HttpTimeouts } from './http-client.js';

/**
 * What is tried again, and after how long (docs/sources-fetch.md, Failures). A 5xx, a timeout, a
 * reset connection or a body cut short may be gone a moment later; a refused address, a body over
 * its cap or a 4xx will not be. Attempts are spaced by an exponential backoff with jitter, so that
 * many clients failing at once do not come back at once, and there is never a tight loop.
 */

/** Attempts after the first, unless the configuration says otherwise (`fetch.retries`). */
export const DEFAULT_RETRIES = 3;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

/** The wait before attempt `failures + 1`: half of base * 2^(failures-1), plus up to as much again at random. */
export function backoffMs(failures: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Statuses worth another attempt: the server's own trouble, not the request's. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408;
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms} ms`);

/** Any error of one attempt as an AttemptFailed: what happened in words, and whether to try again. */
export function attemptFailure(error: unknown, timeouts: HttpTimeouts): AttemptFailed {
  if (error instanceof AttemptFailed) return error;
  if (error instanceof RefusedAddress) return new AttemptFailed(error.message, false);
  const { code, name, message } = error as { code?: string; name?: string; message?: string };
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new AttemptFailed(`no connection within ${seconds(timeouts.connectMs)} (connect timeout)`, true);
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new AttemptFailed(`no answer within ${seconds(timeouts.idleMs)} (idle timeout)`, true);
    case 'UND_ERR_BODY_TIMEOUT':
      return new AttemptFailed(`no data for ${seconds(timeouts.idleMs)} in the middle of the body (idle timeout)`, true);
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_CLOSED':
      return new AttemptFailed('the connection was closed or reset before the answer ended', true);
    case 'ECONNREFUSED':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
    case 'EAI_AGAIN':
      return new AttemptFailed(`cannot connect (${code})`, true);
    case 'ENOTFOUND':
      return new AttemptFailed('the host name does not resolve (ENOTFOUND)', false);
    case 'Z_BUF_ERROR':
      return new AttemptFailed('the gzip body ended before its end (cut short)', true);
    case 'Z_DATA_ERROR':
      return new AttemptFailed('the body is not valid gzip', false);
    case 'ENOSPC':
    case 'EACCES':
    case 'EROFS':
      return new AttemptFailed(`cannot be written (${code})`, false);
  }
  if (name === 'TimeoutError' || code === 'UND_ERR_ABORTED') {
    return new AttemptFailed(`took longer than the total timeout of ${seconds(timeouts.totalMs)}`, true);
  }
  return new AttemptFailed(message ?? String(error), false);
}

/** A body past a cap: never retried, the next attempt would be as large. */
export function overCap(what: string, cap: number): AttemptFailed {
  return new AttemptFailed(`${what} is larger than the cap of ${formatBytes(cap)}; refused`, false);
}
