import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, CursorProblem, ParameterProblem, TransportProblem } from './api-error.js';
import { errorEnvelope } from './error-envelope.js';
import { profileNamedByPath, type Profile } from './profile.js';

const REGION_MESSAGE = 'region must be us, kr or jp';
const INTERNAL_MESSAGE = 'An unexpected error occurred; quote the X-Request-Id when reporting it';

/**
 * Maps any failure onto one profile's error: client mistakes keep their code and message; anything
 * unexpected is 500 internal_error with a fixed message, logged with its stack but never sent.
 */
function toApiError(error: unknown, profile: Profile): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof ParameterProblem) {
    if (profile === 'A') return new ApiError(400, 'invalid_request', error.message);
    if (error.parameter === 'region' && error.kind === 'value') return new ApiError(400, 'invalid_region', REGION_MESSAGE);
    return new ApiError(400, 'invalid_params', error.message);
  }
  if (error instanceof TransportProblem)
    return new ApiError(error.statusCode, profile === 'A' ? 'invalid_request' : 'invalid_params', error.message);
  if (error instanceof CursorProblem) {
    return profile === 'A' ? new ApiError(400, 'invalid_cursor', error.message) : new ApiError(400, 'invalid_params', error.message);
  }
  const fastifyError = error as Partial<FastifyError>;
  const status = fastifyError.statusCode;
  // Fastify's own request errors (bad content type, oversized URL parts...) are the client's mistake.
  if (typeof status === 'number' && status >= 400 && status < 500 && String(fastifyError.code ?? '').startsWith('FST_')) {
    if (status === 404) return new ApiError(404, 'not_found', 'Not found');
    const message = `request is invalid: ${fastifyError.message ?? ''}`.trim();
    return new ApiError(400, profile === 'A' ? 'invalid_request' : 'invalid_params', message);
  }
  return null;
}

/**
 * Requests Fastify refuses before routing (a URL that is not valid percent-encoding, a path part
 * longer than the router keeps): still an error envelope with the usual headers, never the URL
 * echoed back. They reach no route, so no key is checked and nothing is counted; the envelope is
 * that of the profile the path names (Profile A's when none), which decides the shape of this
 * refusal only, never access.
 */
export function frameworkErrorResponder(docsBase: string, limitHeaders: (profile: Profile) => Record<string, string>) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const profile = profileNamedByPath(request.url);
    const refusal = PRE_ROUTING_REFUSALS[error.code];
    let known: ApiError;
    if (refusal) {
      known = new ApiError(400, profile === 'A' ? 'invalid_request' : 'invalid_params', refusal);
    } else {
      request.log.error({ err: error }, 'framework error');
      known = new ApiError(500, 'internal_error', INTERNAL_MESSAGE);
    }
    reply
      .code(known.status)
      .headers({ ...limitHeaders(profile), 'X-Request-Id': request.id, 'Cache-Control': 'no-store' })
      .type('application/json; charset=utf-8')
      .send(errorEnvelope(profile, known.code, known.message, request.id, docsBase));
  };
}

const PRE_ROUTING_REFUSALS: Record<string, string> = {
  FST_ERR_BAD_URL: 'the URL is not valid percent-encoding',
  FST_ERR_MAX_PARAM_LENGTH: 'a path parameter is too long',
};

/**
 * The error and not-found handlers of one encapsulated context: a profile's plugin (its prefix's
 * errors and unknown paths), or the root (paths outside both profiles, in Profile A's envelope).
 * A profile passes its unauthenticated limit headers, for errors raised before its authentication
 * hook set any (a refused Host or request target): every answer of a profile carries them.
 */
export function installErrorHandling(
  scope: FastifyInstance,
  profile: Profile,
  docsBase: string,
  limitHeaders?: () => Record<string, string>,
): void {
  const send = (request: FastifyRequest, reply: FastifyReply, known: ApiError) => {
    // Normally set by the first hook already; repeated for errors raised before hooks ran.
    reply.header('X-Request-Id', request.id);
    reply.header('Cache-Control', 'no-store');
    if (limitHeaders && !reply.hasHeader('X-RateLimit-Limit')) reply.headers(limitHeaders());
    reply.code(known.status).type('application/json; charset=utf-8');
    return reply.send(errorEnvelope(profile, known.code, known.message, request.id, docsBase));
  };

  scope.setErrorHandler((error, request, reply) => {
    const known = toApiError(error, profile);
    if (known) return send(request, reply, known);
    request.log.error({ err: error }, 'internal error');
    return send(request, reply, new ApiError(500, 'internal_error', INTERNAL_MESSAGE));
  });

  scope.setNotFoundHandler((request) => {
    throw noOperation(request);
  });
}

/** 404 for a path that names no operation (the path, shortened, but never its query). */
export function noOperation(request: FastifyRequest): ApiError {
  const path = request.url.split('?')[0] ?? '';
  return new ApiError(404, 'not_found', `No operation ${request.method} ${path.slice(0, 200)}`);
}
