import { randomFillSync } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Access } from './access/index.js';
import { ApiError, ParameterProblem } from './api-error.js';
import type { Lifecycle } from './health-routes.js';
import type { ServerMetrics } from './metrics.js';

const ID_BYTES = 12;
/** Random bytes for 256 ids, drawn from the CSPRNG at once: one call per 256 requests instead of one each. */
const idPool = Buffer.alloc(ID_BYTES * 256);
let idOffset = idPool.length;

/** Request ids are generated, never taken from the client, so a log line always names one request. */
export function newRequestId(): string {
  if (idOffset === idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  const id = idPool.toString('hex', idOffset, idOffset + ID_BYTES);
  idOffset += ID_BYTES;
  return `req_${id}`;
}

/**
 * Hooks every request passes, whichever route it matched: its request id first, a Host check (the
 * HTTP server leaves it to us so that the refusal wears an error envelope), then, after the answer,
 * the release of a 5xx from the bill and one log line. Authentication belongs to each profile's
 * plugin (profile-plugin.ts), decided by the matched route.
 */
export function installRequestHooks(app: FastifyInstance, access: Access, metrics: ServerMetrics, lifecycle: Lifecycle): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      throw new ParameterProblem('Host', 'an HTTP/1.1 request must send a Host header');
    }
  });

  // While draining, every answer asks its client to reconnect, which a load balancer sends elsewhere.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (lifecycle.draining) reply.header('Connection', 'close');
    return payload;
  });

  app.addHook('onError', async (_request, _reply, error) => {
    if (error instanceof ApiError && error.status === 429) metrics.rateLimited(error.code);
  });

  // A 5xx is the server's fault: the client is not billed for it.
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode >= 500 && request.keyId !== null && request.admittedMonth !== null) {
      await access.release(request.keyId, request.admittedMonth);
    }
  });

  // One structured line per request: never the key, never the Authorization header.
  app.addHook('onResponse', async (request, reply) => {
    metrics.observeRequest(request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? null,
        status: reply.statusCode,
        latencyMs: Math.round(reply.elapsedTime * 100) / 100,
        keyId: request.keyId,
      },
      'request completed',
    );
  });
}
