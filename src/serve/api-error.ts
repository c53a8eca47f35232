/** Every error code of both profiles' error tables (docs/spec.md, Error codes). */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_cursor'
  | 'invalid_api_key'
  | 'insufficient_scope'
  | 'not_found'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'internal_error'
  | 'snapshot_unavailable'
  | 'invalid_params'
  | 'invalid_region'
  | 'unauthorized'
  | 'invalid_key';

/** A failure whose status, code and message are meant for the client as they are. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A bad query or path parameter, named. Profile-neutral: the error handler turns it into
 * invalid_request (A), invalid_params or invalid_region (B).
 */
export class ParameterProblem extends Error {
  override readonly name = 'ParameterProblem';
  readonly statusCode = 400;
  constructor(
    readonly parameter: string,
    message: string,
    /** What is wrong: its value, or that it is repeated or unknown. */
    readonly kind: 'value' | 'repeated' | 'unknown' = 'value',
  ) {
    super(message);
  }
}

/** A cursor that this server did not issue for this snapshot, operation and query: invalid_cursor. */
export class CursorProblem extends Error {
  override readonly name = 'CursorProblem';
}

/**
 * A request refused for how it was sent, not for what it asks: a transfer coding other than chunked
 * (501, not implemented) or a header section as long as the server reads (431). Answered with the
 * profile's code for a bad request (invalid_request, invalid_params).
 */
export class TransportProblem extends Error {
  override readonly name = 'TransportProblem';
  constructor(
    readonly statusCode: 431 | 501,
    message: string,
  ) {
    super(message);
  }
}
