import { createServer, type Server } from 'node:http';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { destination } from 'pino';
import { type Access, type StateStore, createAccess } from './access/index.js';
import { CursorCodec } from './cursor.js';
import { clientErrorResponder, MAX_HEADER_BYTES } from './client-error.js';
import { frameworkErrorResponder, installErrorHandling } from './error-handler.js';
import { expectationFailedResponder } from './expectation.js';
import { registerApiDescription } from './api-description.js';
import { registerCompression } from './compression.js';
import { installCors } from './cors.js';
import { registerDocsPage } from './docs-page/routes.js';
import { compileParameterValidator, type JsonSchema } from './parameter-validation.js';
import { FailedAuthThrottle } from './failed-auth-throttle.js';
import { MAX_HEADER_COUNT } from './header-count.js';
import { type Lifecycle, registerHealthRoutes } from './health-routes.js';
import { ServerMetrics } from './metrics.js';
import { parseQueryString } from './query-string.js';
import { profilePlugin } from './profile-plugin.js';
import { installPublicRouteLimit, PublicRouteLimit } from './public-route-limit.js';
import { PROFILE_PREFIX, type Profile } from './profile.js';
import { installRequestHooks, newRequestId } from './request-hooks.js';
import { cachingSerializerCompiler } from './response-serializer.js';
import { PROFILE_A_OPERATIONS } from './routes/profile-a-operations.js';
import { PROFILE_B_OPERATIONS } from './routes/profile-b-operations.js';
import { requireDeclaredAccess } from './route-access.js';
import { SnapshotRegistry } from './snapshots.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The served snapshots; `reload()` picks up newly published ones at once. */
    snapshots: SnapshotRegistry;
    /** Draining: set on SIGTERM, fails /readyz at once and asks clients to close their connections. */
    lifecycle: Lifecycle;
    metrics: ServerMetrics;
    /** Loads the snapshots and starts polling, when buildServer was told to leave that for after listen. */
    loadSnapshots(): Promise<void>;
  }
  interface FastifyRequest {
    /** Id of the authenticated key (never the key itself), for the request log. */
    keyId: string | null;
    /** UTC month the request was counted in, once admitted. */
    admittedMonth: string | null;
  }
}

export interface ServerOptions {
  /** A store folder or s3://bucket/prefix. */
  storeDir: string;
  /** A bucket store's local copies of the bundles served (current and previous); default: a temp folder. */
  storeCacheDir?: string;
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
  /** false: return before loading any snapshot (call app.loadSnapshots() after listen, so a busy port fails first). */
  loadSnapshots?: boolean;
  /** Where clients reach this deployment, for the OpenAPI `servers`; default: the listening address. */
  publicUrl?: string;
  /** Exact origins whose pages may call the API from a browser (CORS); none by default. */
  corsOrigins?: readonly string[];
  /** Requests a second per client address on the public documentation routes; 0 = no limit. Default: DEFAULT_PUBLIC_RATE_PER_SECOND. */
  publicRatePerSecond?: number;
  /** The monotonic clock (ms) of the public routes' limit and of the retries of refused snapshots; injected by tests. */
  monotonicMs?: () => number;
  /** More routes inside a profile's plugin, behind its hooks; each must declare its access. Tests add failing routes this way. */
  profileRoutes?: Partial<Record<Profile, (scope: FastifyInstance) => void>>;
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

/**
 * The log on standard output, written asynchronously and in batches: lines are written once 4 KiB
 * of them are waiting, or at the latest LOG_FLUSH_MS after they were made, instead of one write per
 * line (a write per line cost about 5 µs of a request's 60 under load). pino flushes what is left
 * when the process exits; a SIGKILL loses what is not written yet: the last LOG_FLUSH_MS of lines
 * while standard output keeps up, more when its reader is slow.
 */
function standardOutput() {
  // Bounded: when nothing reads standard output, lines past 16 MiB are dropped (and counted on
  // stderr) instead of piling up in memory; a blocking write used to stall the server instead.
  const stream = destination({
    dest: 1,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_MS,
    maxLength: LOG_BUFFER_MAX_BYTES,
  });
  let dropped = 0;
  stream.on('drop', () => {
    dropped += 1;
    if (dropped === 1 || dropped % 10_000 === 0) {
      process.stderr.write(`pdsnap serve: standard output is not read; ${dropped} log line(s) dropped so far\n`);
    }
  });
  return stream;
}

const LOG_BUFFER_MAX_BYTES = 16 * 1024 * 1024;
const LOG_BATCH_BYTES = 4096;
/** The longest a log line waits in the batch. */
const LOG_FLUSH_MS = 200;

async function assemble(options: ServerOptions, now: () => Date, access: Access): Promise<FastifyInstance> {
  const cursors = new CursorCodec(options.cursorSecret);
  const app = Fastify<Server>({
    logger: options.logger
      ? {
          level: options.logger.level,
          stream: options.logger.stream ?? standardOutput(),
          // Belt and braces: no log line of ours carries headers, and none ever may carry a key.
          redact: ['req.headers.authorization', 'req.headers["x-api-key"]'],
        }
      : false,
    // Fastify's own request lines are off: request-hooks.ts writes one line per request instead.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    genReqId: newRequestId,
    requestIdHeader: false,
    // A request that arrives on an open connection while the server closes is answered like any
    // other (with Connection: close), not with Fastify's bare 503 outside the profiles' envelope: the
    // usage store and snapshots stay open until the last connection is done (serve.ts, shutDown).
    return503OnClosing: false,
    // maxParamLength (routerOptions): long enough that an overlong slug reaches validation (400) instead of missing the route.
    // Node refuses a request without Host before any hook could give it an envelope: we check it
    // ourselves (request-hooks.ts). Header size: Node's 16 KiB, and header count: Node's 2,000
    // (refused once reached, request-hooks.ts), stated here so they are documented.
    // A client that never finishes its request is cut off: 20 s for the headers, 30 s in all (408).
    // An Expect other than 100-continue is refused in the envelope, not with Node's bare 417.
    serverFactory: (handler) => {
      const server = createServer(
        {
          requireHostHeader: false,
          maxHeaderSize: MAX_HEADER_BYTES,
          headersTimeout: 20_000,
          requestTimeout: 30_000,
          connectionsCheckingInterval: 1_000,
        },
        handler,
      );
      server.maxHeadersCount = MAX_HEADER_COUNT;
      return server.on(
        'checkExpectation',
        expectationFailedResponder(options.docsUrl, (profile) => access.headersForUnauthenticated(profile)),
      );
    },
    routerOptions: { maxParamLength: 4096, querystringParser: parseQueryString },
    clientErrorHandler: clientErrorResponder(
      options.docsUrl,
      (profile) => access.headersForUnauthenticated(profile),
      (error, requestId) => app.log.debug({ err: error, requestId }, 'client error'),
    ),
    frameworkErrors: frameworkErrorResponder(options.docsUrl, (profile) => access.headersForUnauthenticated(profile)),
  });

  const snapshots = new SnapshotRegistry(options.storeDir, app.log, options.storeCacheDir, options.monotonicMs);
  app.addHook('onClose', async () => {
    await snapshots.close();
    await access.close();
  });
  const metrics = new ServerMetrics(() => snapshots.statuses(), now);
  snapshots.onReload = (dataset, outcome) => metrics.snapshotReload(dataset, outcome);
  const lifecycle: Lifecycle = { draining: false };
  const reloadIntervalMs = options.reloadIntervalMs ?? 2000;
  const startSnapshots = async () => {
    await snapshots.reload();
    snapshots.startPolling(reloadIntervalMs);
  };

  app.decorate('snapshots', snapshots);
  app.decorate('lifecycle', lifecycle);
  app.decorate('metrics', metrics);
  app.decorate('loadSnapshots', startSnapshots);
  app.decorateRequest('keyId', null);
  app.decorateRequest('admittedMonth', null);
  app.setValidatorCompiler(({ schema }) => compileParameterValidator(schema as JsonSchema));
  app.setSerializerCompiler(cachingSerializerCompiler);
  requireDeclaredAccess(app);
  installRequestHooks(app, access, metrics, lifecycle);
  installPublicRouteLimit(app, new PublicRouteLimit(options.publicRatePerSecond, options.monotonicMs));
  installCors(app, options.corsOrigins ?? []);
  registerCompression(app);
  // Paths outside both profiles: Profile A's envelope, the versioned description.
  installErrorHandling(app, 'A', options.docsUrl);

  const deps = { snapshots, cursors, now, access, throttle: new FailedAuthThrottle(), docsUrl: options.docsUrl, reloadIntervalMs };
  const description = { docsUrl: options.docsUrl, publicUrl: options.publicUrl };
  for (const [profile, operations] of [
    ['A', PROFILE_A_OPERATIONS],
    ['B', PROFILE_B_OPERATIONS],
  ] as const) {
    const registerRoutes = (scope: FastifyInstance) => {
      registerApiDescription(scope, profile, operations, description);
      options.profileRoutes?.[profile]?.(scope);
    };
    await app.register(profilePlugin(profile, operations, { ...deps, registerRoutes }), { prefix: PROFILE_PREFIX[profile] });
  }
  registerDocsPage(app);
  registerHealthRoutes(app, lifecycle, () => snapshots.statuses());
  // Last, so that a failure above leaves no timer behind.
  if (options.loadSnapshots !== false) await startSnapshots();
  return app;
}
