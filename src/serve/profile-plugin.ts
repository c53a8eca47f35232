import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Access } from './access/index.js';
import { ApiError } from './api-error.js';
import { installErrorHandling } from './error-handler.js';
import type { FailedAuthThrottle } from './failed-auth-throttle.js';
import type { Operation } from './operation.js';
import { PROFILE_PREFIX, type Profile } from './profile.js';
import { accessOf } from './route-access.js';
import { type OperationDeps, registerOperation } from './routes/register-operation.js';

export interface ProfileDeps extends OperationDeps {
  access: Access;
  throttle: FailedAuthThrottle;
  docsUrl: string;
  /** More routes of this profile (its API description), registered inside the plugin behind its hooks. */
  registerRoutes?: (scope: FastifyInstance) => void;
}

/**
 * One profile as one encapsulated Fastify plugin, registered under its prefix: its operations, its
 * authentication hook, its error and not-found handlers. Whatever spelling of a request target the
 * router resolved to one of these routes, the route's own access rule is what is checked.
 */
export function profilePlugin(profile: Profile, operations: readonly Operation[], deps: ProfileDeps): FastifyPluginAsync {
  return async (scope) => {
    installErrorHandling(scope, profile, deps.docsUrl, () => deps.access.headersForUnauthenticated(profile));
    scope.addHook('onRequest', async (request, reply) => {
      const access = accessOf(request);
      if (access?.access === 'public') {
        reply.headers(deps.access.headersForUnauthenticated(profile));
        return;
      }
      // Past here: a keyed route, or this profile's not-found handler (an unknown path under the
      // prefix answers 404 only to a valid key, so the API's shape is not probed for free).
      if (access === undefined && !request.is404) throw new ApiError(404, 'not_found', 'Not found');
      reply.header('Cache-Control', 'private, no-store');
      const now = deps.now();
      const address = request.ip;
      const retryAfter = deps.throttle.retryAfterSeconds(address, now);
      if (retryAfter > 0) {
        reply.headers({ ...deps.access.headersForUnauthenticated(profile), 'Retry-After': String(retryAfter) });
        throw new ApiError(429, 'rate_limited', 'Too many failed authentication attempts from this address; retry after the window resets');
      }
      const outcome = await deps.access.authorize(profile, credentialHeaders(request), access?.access === 'key' ? access.scope : undefined);
      reply.headers(outcome.headers);
      if (outcome.key) request.keyId = outcome.key.id;
      if (!outcome.ok) {
        if (outcome.status === 401 && outcome.key === null) deps.throttle.recordFailure(address, now);
        throw new ApiError(outcome.status, outcome.code, outcome.message);
      }
      request.admittedMonth = outcome.month;
    });
    deps.registerRoutes?.(scope);
    for (const op of operations) registerOperation(scope, op, deps, PROFILE_PREFIX[profile]);
  };
}

/**
 * The credential headers exactly as sent. Node keeps only the first of repeated Authorization
 * headers and joins repeated X-API-Key values, so "sent twice" is read from the raw header list:
 * a repeated credential header is unusable (401), never guessed at.
 */
function credentialHeaders(request: FastifyRequest): Record<string, string[]> {
  const found: Record<string, string[]> = { authorization: [], 'x-api-key': [] };
  const raw = request.raw.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name === 'authorization' || name === 'x-api-key') found[name]!.push(raw[i + 1]!);
  }
  return found;
}
