import type { FastifyInstance } from 'fastify';

/** Headers a browser script may read beyond the CORS-safelisted ones. */
const EXPOSED = [
  'ETag',
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'X-Quota-Limit',
  'X-Quota-Remaining',
  'X-Quota-Reset',
  'X-Quota-Tier',
  'X-Quota-Included',
  'X-Quota-Used',
].join(', ');

/** Request headers a page may send: the two ways to give a key and the conditional ones. */
const ALLOWED_HEADERS = 'Authorization, X-API-Key, If-None-Match, If-Modified-Since';

/**
 * Cross-origin access for the exact origins of `serve --cors-origin` (none by default). A page that
 * holds an API key exposes it to its users, so CORS is off unless an operator names the origins.
 *
 * Written here rather than with @fastify/cors: that plugin registers an OPTIONS route for every path
 * with no access rule, which route-access.ts refuses by design, and would make OPTIONS answer on
 * every path. Here a preflight from an allowed origin is answered in a hook with headers only (no
 * data, no key checked: the actual request is authenticated as usual); any other OPTIONS request is
 * a 404 as before. Credentials mode is never allowed: keys travel in headers, never in cookies.
 */
export function installCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  app.addHook('onRequest', async (request, reply) => {
    // The answer depends on Origin for every request once CORS is on: caches must key by it.
    reply.header('Vary', 'Origin');
    const origin = request.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return;
    reply.header('Access-Control-Allow-Origin', origin);
    const method = request.headers['access-control-request-method'];
    if (request.method !== 'OPTIONS' || method === undefined) {
      reply.header('Access-Control-Expose-Headers', EXPOSED);
      return;
    }
    if (method !== 'GET' && method !== 'HEAD') return;
    return reply
      .code(204)
      .headers({
        'Access-Control-Allow-Methods': 'GET, HEAD',
        'Access-Control-Allow-Headers': ALLOWED_HEADERS,
        'Access-Control-Max-Age': '600',
        'Cache-Control': 'no-store',
      })
      .send();
  });
}

/** An origin as a browser sends it: scheme, host and optional port, nothing else. */
export function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}
