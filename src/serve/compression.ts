import negotiate from '@fastify/accept-negotiator';
import type { FastifyInstance } from 'fastify';
import { CompressedAnswers } from './compressed-answers.js';
import { addVary } from './conditional.js';
import { type Encoding, encodedTag, TAGGED_ENCODINGS } from './etag.js';

export { BROTLI_QUALITY } from './compressed-answers.js';

/**
 * Bodies smaller than this go out as they are: below about one TCP segment, compressing saves no
 * round trip and costs CPU (and a 200-byte error envelope barely shrinks).
 */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * The content coding for a request's Accept-Encoding: brotli or gzip by the client's q-values,
 * brotli on a tie (@fastify/accept-negotiator); null when it accepts neither. `*` and `x-gzip` mean
 * gzip, as HTTP/1.1 clients have long sent them (RFC 9110 section 12.5.3).
 */
export function negotiatedEncoding(acceptEncoding: string | string[] | undefined): Encoding | null {
  if (acceptEncoding === undefined) return null;
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding;
  return negotiate(header.toLowerCase().replace(/\*|x-gzip/g, 'gzip'), [...TAGGED_ENCODINGS]);
}

/**
 * Compresses answers as the client's Accept-Encoding asks, from a cache of compressed answers per
 * ETag and encoding (compressed-answers.ts), so that a page costs its compression once. Only
 * answers with an ETag of at least COMPRESSION_THRESHOLD_BYTES are compressed: every data answer,
 * and the fixed assets, which compress themselves once at a higher quality (fixed-asset.ts); errors
 * and probes, which carry no tag, are small. A HEAD request uses a compressed answer already made
 * and never compresses: without one it answers with the identity representation's headers.
 *
 * A compressed answer is another representation of the same content, so its ETag gets the
 * encoding (`W/"<tag>-br"`, see etag.ts). An instance hook, so it runs before the route-level one
 * that drops the body of a HEAD answer: HEAD gets the headers GET would send (RFC 9110 9.3.2).
 */
export function registerCompression(app: FastifyInstance, answers = new CompressedAnswers()): void {
  app.addHook('onSend', async (request, reply, payload) => {
    // Compressed already (a fixed asset), or no body (304).
    if (reply.hasHeader('Content-Encoding') || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
    const etag = reply.getHeader('ETag');
    if (typeof etag !== 'string') return payload;
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    if (body.length < COMPRESSION_THRESHOLD_BYTES) return payload;
    const encoding = negotiatedEncoding(request.headers['accept-encoding']);
    if (encoding === null) return payload;
    const encoded = answers.encode(body, encoding, etag, variableTailStart(body, request.id), request.method === 'HEAD');
    if (encoded === null) return payload;
    addVary(reply, 'accept-encoding');
    reply.headers({ 'Content-Encoding': encoding, 'Content-Length': encoded.length, ETag: encodedTag(etag, encoding) });
    return encoded;
  });
}

/**
 * Where the part of a body that differs from request to request starts: a Profile A body ends with
 * its request id (`…"requestId":"req_…"}`, the envelope's last property); every other body is the
 * same for its tag from its first byte to its last.
 */
function variableTailStart(body: Buffer, requestId: string): number {
  const at = body.length - requestId.length - 2;
  return at > 0 && body.toString('latin1', at, at + requestId.length) === requestId ? at : body.length;
}
