import { randomFillSync } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Access, Scope } from './access/index.js';
import { ApiError } from './api-error.js';
import { profileOfUrl } from './profile.js';

/** Per-route settings the hooks read. */
export interface RouteConfig {
  /** Needs no key and counts against no limit (the OpenAPI description). */
  public?: boolean;
  scope?: Scope;
}

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
 * The fixed hook order: request id, then authentication, then rate limit and quota (whose headers
 * are set before anything can fail, so they ride on every response, errors included), then
 * Fastify's querystring validation and the handler.
 */
export function installRequestHooks(app: FastifyInstance, access: Access): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });

  app.addHook('onRequest', async (request, reply) => {
    const profile = profileOfUrl(request.url);
    const config = (request.routeOptions.config ?? {}) as RouteConfig;
    if (profile === null || config.public) {
      reply.headers(access.headersForUnauthenticated(profile ?? 'A'));
      return;
    }
    const outcome = await access.authenticate(profile, request.headers, config.scope);
    if (!outcome.ok) {
      reply.headers(outcome.headers);
      throw new ApiError(outcome.status, outcome.code, outcome.message);
    }
    request.keyId = outcome.key.id;
    const admission = await access.admit(profile, outcome.key.id, outcome.key.tier);
    reply.headers(admission.headers);
    if (!admission.allowed) throw new ApiError(admission.status, admission.code, admission.message);
    request.admittedMonth = admission.month;
  });

  // A 5xx is the server's fault: the client is not billed for it.
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode >= 500 && request.keyId !== null && request.admittedMonth !== null) {
      await access.release(request.keyId, request.admittedMonth);
    }
  });

  // One structured line per request: never the key, never the Authorization header.
  app.addHook('onResponse', async (request, reply) => {
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
