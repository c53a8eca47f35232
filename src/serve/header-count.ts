/**
 * How many header fields a request may send: Node's own default for `server.maxHeadersCount`,
 * stated (and set) so that it is documented. Node keeps only that many of a request's header lines
 * and drops the rest without a word, and 2,000 short lines fit in the 16 KiB header limit, so a
 * second Authorization, Host or Transfer-Encoding could hide behind 2,000 fillers. A request that
 * reaches the count is refused (431), since what it sent past it cannot be known.
 */
export const MAX_HEADER_COUNT = 2000;

/** Whether the header lines Node kept (a flat name, value list) are as many as it keeps: some may be missing. */
export function headerCountReached(rawHeaders: readonly string[]): boolean {
  return rawHeaders.length >= 2 * MAX_HEADER_COUNT;
}

export const HEADER_COUNT_MESSAGE = `a request may send fewer than ${MAX_HEADER_COUNT} header fields`;
