import { randomFillSync } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Access } from './access/index.js';
import { ApiError, ParameterProblem, TransportProblem } from './api-error.js';
import { HEADER_COUNT_MESSAGE, headerCountReached } from './header-count.js';
import type { Lifecycle } from './health-routes.js';
import type { ServerMetrics } from './metrics.js';
import { requestTargetProblem } from './request-target.js';
import { hasUnknownTransferCoding } from './transfer-coding.js';

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
 * uri-host [ ":" port ] (RFC 3986): a bracketed IP literal (with a zone id, `%25eth0` or, as Node's
 * own client sends it, `%eth0`) or a reg-name, which also covers IPv4; empty is allowed.
 */
const HOST_VALUE = /^(?:\[[0-9A-Za-z:.\-_~%!$&'()*+,;=]+\]|[0-9A-Za-z.\-_~%!$&'()*+,;=]*)(?::[0-9]*)?$/;

/**
 * Why the request's Host is refused, or null. RFC 9112 section 3.2: an HTTP/1.1 request without
 * Host, any request with more than one, or with a value that is no host is answered 400. Node keeps
 * the first of repeated Host headers, so the count is read from the raw list.
 */
export function hostProblem(rawHeaders: readonly string[], httpVersion: string): string | null {
  let value: string | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue;
    if (value !== undefined) return 'a request must send one Host header, not several';
    value = rawHeaders[i + 1]!;
  }
  if (value === undefined) return httpVersion === '1.1' ? 'an HTTP/1.1 request must send a Host header' : null;
  return HOST_VALUE.test(value) ? null : 'the Host header is not a host name or address';
}

/**
 * Hooks every request passes, whichever route it matched: its request id first, a refusal of a
 * header section that reached MAX_HEADER_COUNT, a Host check (the HTTP server leaves it to us so
 * that the refusal wears an error envelope), and checks of the request
 * target and transfer codings (which the HTTP parser lets through), then, after the answer,
 * the release of a 5xx from the bill and one log line. Authentication belongs to each profile's
 * plugin (profile-plugin.ts), decided by the matched route.
 */
export function installRequestHooks(app: FastifyInstance, access: Access, metrics: ServerMetrics, lifecycle: Lifecycle): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    // First: every check below reads the header list, which is not whole once it reached the count.
    // The connection is closed after the answer, whatever framing headers were past the count.
    if (headerCountReached(request.raw.rawHeaders)) {
      reply.header('Connection', 'close');
      throw new TransportProblem(431, HEADER_COUNT_MESSAGE);
    }
    const problem = hostProblem(request.raw.rawHeaders, request.raw.httpVersion);
    if (problem !== null) throw new ParameterProblem('Host', problem);
    const targetProblem = requestTargetProblem(request.raw.url ?? '');
    if (targetProblem !== null) throw new ParameterProblem('request target', targetProblem);
    if (hasUnknownTransferCoding(request.raw.rawHeaders))
      throw new TransportProblem(501, 'the only transfer coding implemented is chunked');
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
