import type { FastifyInstance } from 'fastify';
import { FixedAsset } from './fixed-asset.js';
import type { Operation } from './operation.js';
import { openApiDocument } from './openapi.js';
import { PROFILE_PREFIX, type Profile } from './profile.js';

export interface DescriptionOptions {
  docsUrl: string;
  /** `servers` of the documents; when absent, the address the server listens on (known after listen). */
  publicUrl: string | undefined;
}

/** How long a client may keep a description: it changes only with a new server version or configuration. */
const DESCRIPTION_MAX_AGE_SECONDS = 300;

/**
 * `GET <prefix>/openapi.json`: the profile's OpenAPI description, public (no key; the public routes'
 * limit per address): it describes the contract and holds no data. Built once, on the first request
 * (the listening address is known by then), compressed once per encoding, and answered 304 to its ETag.
 */
export function registerApiDescription(
  scope: FastifyInstance,
  profile: Profile,
  operations: readonly Operation[],
  options: DescriptionOptions,
): void {
  let built: FixedAsset | null = null;
  const document = () => {
    built ??= new FixedAsset(
      `${PROFILE_PREFIX[profile]}/openapi.json`,
      'application/json; charset=utf-8',
      JSON.stringify(
        openApiDocument(profile, operations, { docsUrl: options.docsUrl, publicUrl: options.publicUrl ?? listeningUrl(scope) }),
      ),
    );
    return built;
  };
  scope.get('/openapi.json', { config: { access: { access: 'public' } } }, async (request, reply) => {
    reply.header('Cache-Control', `public, max-age=${DESCRIPTION_MAX_AGE_SECONDS}`);
    return document().send(request, reply);
  });
}

function listeningUrl(app: FastifyInstance): string {
  const address = app.server.address();
  if (address === null || typeof address === 'string') return 'http://127.0.0.1';
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
