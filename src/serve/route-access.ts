import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Scope } from './access/index.js';

/**
 * What a route needs before its handler may run. Every route declares one; access is decided from
 * the route that matched, never from the URL text, so no spelling of a request target (escapes,
 * dot segments, absolute form) can reach a handler without the checks its route declares.
 */
export type RouteAccess =
  /** No key; a limit per client address (public-route-limit.ts): the API's documentation and descriptions. */
  | { access: 'public' }
  /** No key, no limit: the orchestrator's probes of the process, which must always answer. */
  | { access: 'probe' }
  /** A key with this scope, counted against its limits. */
  | { access: 'key'; scope: Scope };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

/**
 * Fails closed by construction: registering a route without a declared access rule throws at
 * start-up, so such a route can never be reached.
 */
export function requireDeclaredAccess(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const access = (route.config as { access?: RouteAccess } | undefined)?.access;
    if (access?.access !== 'public' && access?.access !== 'probe' && access?.access !== 'key') {
      throw new Error(`route ${String(route.method)} ${route.url} declares no access rule (config.access): refusing to register it`);
    }
  });
}

/** The access rule of the route a request matched; undefined for the not-found handler. */
export function accessOf(request: FastifyRequest): RouteAccess | undefined {
  return request.routeOptions.config.access;
}
