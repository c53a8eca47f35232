import type { FastifyInstance } from 'fastify';
import { addVary } from './conditional.js';
import { etagOf, matchingTag } from './etag.js';
import type { Operation } from './operation.js';
import { openApiDocument } from './openapi.js';
import type { Profile } from './profile.js';

export interface DescriptionOptions {
  docsUrl: string;
  /** `servers` of the documents; when absent, the address the server listens on (known after listen). */
  publicUrl: string | undefined;
}

/** How long a client may keep a description: it changes only with a new server version or configuration. */
const DESCRIPTION_MAX_AGE_SECONDS = 300;

/**
 * `GET <prefix>/openapi.json`: the profile's OpenAPI description, public (no key, no limit): it
 * describes the contract and holds no data. Built once, on the first request (the listening address
 * is known by then), and answered 304 to its ETag.
 */
export function registerApiDescription(
  scope: FastifyInstance,
  profile: Profile,
  operations: readonly Operation[],
  options: DescriptionOptions,
): void {
  let built: { body: string; etag: string } | null = null;
  const document = () => {
    if (!built) {
      const body = JSON.stringify(
        openApiDocument(profile, operations, { docsUrl: options.docsUrl, publicUrl: options.publicUrl ?? listeningUrl(scope) }),
      );
      built = { body, etag: etagOf(['openapi', body], false) };
    }
    return built;
  };
  scope.get('/openapi.json', { config: { access: { access: 'public' } } }, async (request, reply) => {
    const { body, etag } = document();
    reply.headers({ ETag: etag, 'Cache-Control': `public, max-age=${DESCRIPTION_MAX_AGE_SECONDS}` });
    addVary(reply, 'accept-encoding');
    const held = matchingTag(request.headers['if-none-match'], etag);
    if (held !== null) return reply.header('ETag', held).code(304).send();
    return reply.type('application/json; charset=utf-8').send(body);
  });
}

function listeningUrl(app: FastifyInstance): string {
  const address = app.server.address();
  if (address === null || typeof address === 'string') return 'http://127.0.0.1';
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
