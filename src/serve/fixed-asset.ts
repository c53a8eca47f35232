import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { COMPRESSION_THRESHOLD_BYTES, negotiatedEncoding } from './compression.js';
import { addVary } from './conditional.js';
import { type Encoding, encodedTag, etagOf, matchingTag } from './etag.js';

/**
 * Brotli quality of the fixed assets, which are compressed once per encoding: on the 1.1 MB Redoc
 * bundle 9 took 0.17 s for 297 KB, 11 took 1.8 s for 273 KB, and 2 (what answers use) 19 ms for
 * 341 KB; gzip at level 9 took 27 ms for 328 KB.
 */
const FIXED_BROTLI_QUALITY = 9;
const FIXED_GZIP_LEVEL = 9;

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * A body that never changes while the server runs (the reference page and its scripts, an API
 * description): compressed once per encoding on its first request, on the thread pool (the event
 * loop keeps answering meanwhile, and a request that comes meanwhile waits for the same work), and
 * kept. So a request without a key costs what sending bytes costs, however large the asset. A HEAD
 * request never compresses: before the first GET of an encoding it answers with the identity
 * representation's headers.
 */
export class FixedAsset {
  readonly body: Buffer;
  readonly etag: string;
  private readonly encoded = new Map<Encoding, Promise<Buffer>>();
  private readonly made = new Map<Encoding, Buffer>();

  constructor(
    /** Its path, or another name: named in its ETag with its bytes. */
    readonly name: string,
    readonly type: string,
    body: string,
  ) {
    this.body = Buffer.from(body);
    this.etag = etagOf([name, body], false);
  }

  /**
   * Answers the request: 304 to a matching If-None-Match, else the asset in the encoding the client
   * accepts. The caller sets the route's own headers (Cache-Control...) first.
   */
  async send(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    reply.header('ETag', this.etag);
    addVary(reply, 'accept-encoding');
    const held = matchingTag(request.headers['if-none-match'], this.etag);
    if (held !== null) return reply.header('ETag', held).code(304).send();
    reply.type(this.type);
    const encoding = this.body.length < COMPRESSION_THRESHOLD_BYTES ? null : negotiatedEncoding(request.headers['accept-encoding']);
    if (encoding === null) return reply.send(this.body);
    const bytes = request.method === 'HEAD' ? this.made.get(encoding) : await this.compressed(encoding);
    if (bytes === undefined) return reply.send(this.body);
    return reply.headers({ 'Content-Encoding': encoding, ETag: encodedTag(this.etag, encoding) }).send(bytes);
  }

  private compressed(encoding: Encoding): Promise<Buffer> {
    let pending = this.encoded.get(encoding);
    if (pending === undefined) {
      pending = (
        encoding === 'br'
          ? brotli(this.body, {
              params: { [constants.BROTLI_PARAM_QUALITY]: FIXED_BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: this.body.length },
            })
          : gzipped(this.body, { level: FIXED_GZIP_LEVEL })
      ).then((bytes) => {
        this.made.set(encoding, bytes);
        return bytes;
      });
      // A failure is not kept: the next request tries again.
      pending.catch(() => this.encoded.delete(encoding));
      this.encoded.set(encoding, pending);
    }
    return pending;
  }
}
