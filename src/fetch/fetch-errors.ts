/**
 * A configuration that cannot be fetched with (no SEC identity, a header naming an unset variable,
 * an unreadable registry): found before any request, and a usage error of the command (exit 3).
 */
export class FetchConfigError extends Error {
  override readonly name = 'FetchConfigError';
}

/**
 * Why one attempt at a download failed. `retry` says whether another attempt may succeed (a 5xx, a
 * timeout, a reset, a body cut short) or not (a refused address, a body over its cap, a 404).
 */
export class AttemptFailed extends Error {
  override readonly name = 'AttemptFailed';
  constructor(
    message: string,
    readonly retry: boolean,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}
