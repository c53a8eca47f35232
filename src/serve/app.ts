import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { type Access, type StateStore, createAccess } from './access/index.js';
import { CursorCodec } from './cursor.js';
import { frameworkErrorResponder, installErrorHandling } from './error-handler.js';
import { etagOf, matchesIfNoneMatch } from './etag.js';
import { openApiDocument } from './openapi.js';
import { compileParameterValidator, type JsonSchema } from './parameter-validation.js';
import { installRequestHooks, newRequestId, type RouteConfig } from './request-hooks.js';
import { cachingSerializerCompiler } from './response-serializer.js';
import { PROFILE_A_OPERATIONS } from './routes/profile-a-operations.js';
import { PROFILE_B_OPERATIONS } from './routes/profile-b-operations.js';
import { registerOperation } from './routes/register-operation.js';
import { SnapshotRegistry } from './snapshots.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The served snapshots; `reload()` picks up newly published ones at once. */
    snapshots: SnapshotRegistry;
  }
  interface FastifyRequest {
    /** Id of the authenticated key (never the key itself), for the request log. */
    keyId: string | null;
    /** UTC month the request was counted in, once admitted. */
    admittedMonth: string | null;
  }
}

export interface ServerOptions {
  storeDir: string;
  keysFile: string;
  usageDbFile: string;
  /** Keys and usage somewhere else than keysFile/usageDbFile (Redis); closed with the server. */
  stateStore?: StateStore;
  /** How old the keys file cache may get without a change notification (ms); 0 = every lookup. */
  keysMaxAgeMs?: number;
  /** Base of the documentation site: error docsUrls are {docsUrl}/errors#<code>. */
  docsUrl: string;
  /** Signs cursors; at least 32 characters (see cursor-secret.ts). */
  cursorSecret: string;
  /** The clock of limits, freshness and futureDays; injected by tests and --now. */
  now?: () => Date;
  /** false (tests), or a pino level and, for tests of the log itself, where to write it. */
  logger?: false | { level: string; stream?: { write(line: string): void } };
  /** How often current pointers are polled; 0 turns polling off (tests call snapshots.reload()). */
  reloadIntervalMs?: number;
}

export const ALL_OPERATIONS = [...PROFILE_A_OPERATIONS, ...PROFILE_B_OPERATIONS];

/**
 * Builds the server for both profiles over the store's current bundles, loaded and verified before
 * this returns. Not yet listening: call listen(); close() stops polling and closes the usage db.
 */
export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const now = options.now ?? (() => new Date());
  let app: FastifyInstance | null = null;
  const reporting = {
    now,
    onKeysReloadError: (error: Error) => app?.log.error({ err: error }, 'a changed key cannot be read; it is not used'),
    onStateError: (error: Error) => app?.log.error({ err: error }, 'state store failed; requests answer 503 until it recovers'),
  };
  const access = createAccess(
    options.stateStore
      ? { ...reporting, store: options.stateStore }
      : { ...reporting, keysFile: options.keysFile, usageDbFile: options.usageDbFile, keysMaxAgeMs: options.keysMaxAgeMs ?? 0 },
  );
  try {
    app = await assemble(options, now, access);
    return app;
  } catch (error) {
    await access.close();
    throw error;
  }
}

async function assemble(options: ServerOptions, now: () => Date, access: Access): Promise<FastifyInstance> {
  const cursors = new CursorCodec(options.cursorSecret);
  const app = Fastify({
    logger: options.logger
      ? {
          level: options.logger.level,
          ...(options.logger.stream ? { stream: options.logger.stream } : {}),
          // Belt and braces: no log line of ours carries headers, and none ever may carry a key.
          redact: ['req.headers.authorization', 'req.headers["x-api-key"]'],
        }
      : false,
    // Fastify's own request lines are off: request-hooks.ts writes one line per request instead.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    genReqId: newRequestId,
    requestIdHeader: false,
    // Long enough that an overlong slug reaches validation (400) instead of missing the route.
    routerOptions: { maxParamLength: 4096 },
    frameworkErrors: frameworkErrorResponder(options.docsUrl, (profile) => access.headersForUnauthenticated(profile)),
  });

  const snapshots = new SnapshotRegistry(options.storeDir, app.log);
  app.addHook('onClose', async () => {
    await snapshots.close();
    await access.close();
  });
  await snapshots.reload();

  app.decorate('snapshots', snapshots);
  app.decorateRequest('keyId', null);
  app.decorateRequest('admittedMonth', null);
  app.setValidatorCompiler(({ schema }) => compileParameterValidator(schema as JsonSchema));
  app.setSerializerCompiler(cachingSerializerCompiler);
  installRequestHooks(app, access);
  installErrorHandling(app, options.docsUrl);

  for (const op of ALL_OPERATIONS) registerOperation(app, op, { snapshots, cursors, now });

  const document = openApiDocument(ALL_OPERATIONS, options.docsUrl);
  const documentTag = etagOf(['openapi', document], false);
  const publicRoute: RouteConfig = { public: true };
  app.get('/v1/openapi.json', { config: publicRoute }, async (request, reply) => {
    reply.header('ETag', documentTag);
    if (matchesIfNoneMatch(request.headers['if-none-match'], documentTag)) return reply.code(304).send();
    return document;
  });
  // Last, so that a failure above leaves no timer behind.
  snapshots.startPolling(options.reloadIntervalMs ?? 2000);
  return app;
}
