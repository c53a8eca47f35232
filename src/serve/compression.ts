import { constants } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance, onSendHookHandler } from 'fastify';
import { encodedTag, TAGGED_ENCODINGS } from './etag.js';

/**
 * Bodies smaller than this go out as they are: below about one TCP segment, compressing saves no
 * round trip and costs CPU (and a 200-byte error envelope barely shrinks).
 */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * Brotli quality for answers, which are compressed on every request. Quality 2 took a third of
 * quality 4's time on a 39 KB page of 100 trades (0.37 against 1.35 ms) for 9% more bytes (4,250
 * against 3,881), and less time than gzip's fastest level (docs/performance.md, Compression).
 */
export const BROTLI_QUALITY = 2;

/**
 * Bodies up to this size are compressed inline, as one call, instead of through a stream on the
 * thread pool (the plugin's ceiling on a 2-core machine is 8 KiB). Every answer is a bounded page
 * (a consensus page, the largest, stays under 512 KiB), and at BROTLI_QUALITY a 39 KB page takes
 * about 0.4 ms inline, less than the stream's own setup and hand-offs cost per request.
 */
const INLINE_COMPRESSION_MAX_BYTES = 512 * 1024;

/**
 * Compression negotiated from Accept-Encoding by @fastify/compress: brotli (BROTLI_QUALITY) or gzip
 * (level 6), above the threshold only. Register it before any route: it attaches itself to routes
 * as they are registered.
 *
 * A compressed answer is another representation of the same content, so its ETag is rewritten
 * after compression (`W/"<tag>-br"`, see etag.ts); every route gets this as its last onSend hook
 * (route-level hooks run after the instance's, and this one is added after the plugin's).
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    encodings: [...TAGGED_ENCODINGS],
    threshold: COMPRESSION_THRESHOLD_BYTES,
    syncThreshold: INLINE_COMPRESSION_MAX_BYTES,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
  });
  app.addHook('onRoute', (route) => {
    const existing = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    const hooks = [...existing, tagEncodedRepresentation];
    // Fastify's own HEAD route drops the body in an onSend hook that it puts before the plugin's,
    // so HEAD went out uncompressed, with another ETag and length than GET. It goes last: HEAD
    // answers with GET's headers (RFC 9110 9.3.2). test/serve/compression.test.ts checks it.
    const dropsBody = (hook: unknown) => typeof hook === 'function' && hook.name === 'headRouteOnSendHandler';
    route.onSend = route.method === 'HEAD' ? [...hooks.filter((h) => !dropsBody(h)), ...hooks.filter(dropsBody)] : hooks;
  });
}

const tagEncodedRepresentation: onSendHookHandler = async (_request, reply, payload) => {
  const encoding = reply.getHeader('Content-Encoding');
  const etag = reply.getHeader('ETag');
  if (typeof encoding === 'string' && encoding !== 'identity' && typeof etag === 'string') reply.header('ETag', encodedTag(etag, encoding));
  return payload;
};
