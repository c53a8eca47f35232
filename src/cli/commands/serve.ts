import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Command } from 'commander';
import { isQuiet, printNotice, withVerbosityOptions } from '../verbosity.js';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_KEY_FILE_MAX_AGE_MS, DEFAULT_KEYS_FILE, DEFAULT_USAGE_DB } from '../../serve/access/index.js';
import { requirePrivateFile } from '../../lib/private-file.js';
import { isBucketLocation } from '../../publish/s3-location.js';
import { openStore } from '../../publish/open-store.js';
import { buildServer } from '../../serve/app.js';
import { isOrigin } from '../../serve/cors.js';
import { DEFAULT_PUBLIC_RATE_PER_SECOND } from '../../serve/public-route-limit.js';
import { defaultCursorSecretFile, loadOrCreateCursorSecret } from '../../serve/cursor-secret.js';
import { UsageError } from '../errors.js';
import { startupError } from '../startup-error.js';
import { DEFAULT_STORE, DirOption, DurationOption, NowOption, parseOptions, StoreOption, STORE_HELP } from '../options.js';
import { withPathDefaults } from '../path-options.js';
import { requireExisting } from '../required-path.js';
import { STATE_OPTION_HELP, openStateForCommand, stateLocationOf } from '../state-option.js';

const DEFAULT_DOCS_URL = 'https://docs.example.com/api';

/**
 * A duration like every other duration option. It took a number of milliseconds until 2026-12-06;
 * a plain number is refused with what to write instead, never read in another unit.
 */
const ReloadIntervalOption = z
  .string()
  .optional()
  .superRefine((value, ctx) => {
    if (value !== undefined && /^\d+$/.test(value.trim()))
      ctx.addIssue({
        code: 'custom',
        message: `"${value}" is not a duration (this option took milliseconds until 2026-12-06): write it like 2s or 500ms, or 0s for never`,
      });
  })
  .pipe(DurationOption('2s'));

const Options = z.object({
  store: StoreOption(DEFAULT_STORE),
  host: z.string().min(1).default('127.0.0.1'),
  port: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a port number')
    .default('8080')
    .transform(Number)
    .refine((n) => n <= 65535, 'must be at most 65535'),
  keys: DirOption(DEFAULT_KEYS_FILE),
  usageDb: DirOption(DEFAULT_USAGE_DB),
  docsUrl: z.url().default(DEFAULT_DOCS_URL),
  publicUrl: z.url({ protocol: /^https?$/ }).optional(),
  corsOrigin: z
    .string()
    .optional()
    .transform((list) => (list === undefined ? [] : list.split(',').map((o) => o.trim())))
    .refine(
      (origins) => origins.every(isOrigin),
      'must be a comma-separated list of origins such as https://app.example.com (scheme, host and port only)',
    ),
  cursorSecretFile: z.string().optional(),
  cache: z.string().optional(),
  state: z.string().optional(),
  config: z.string().optional(),
  now: z.string().optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  drainDelay: DurationOption('5s'),
  shutdownTimeout: DurationOption('10s'),
  metricsHost: z.string().min(1).default('127.0.0.1'),
  metricsPort: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a port number')
    .transform(Number)
    .refine((n) => n <= 65535, 'must be at most 65535')
    .optional(),
  publicRate: z
    .string()
    .regex(/^\d{1,6}$/, 'must be a whole number of requests a second (0: no limit)')
    .default(String(DEFAULT_PUBLIC_RATE_PER_SECOND))
    .transform(Number),
  reloadInterval: ReloadIntervalOption,
});

/** `pdsnap serve`: both API profiles over the store's current bundles, until SIGINT or SIGTERM. */
export function serveCommand(): Command {
  return withVerbosityOptions(new Command('serve'))
    .description('serve Profile A (/v1) and Profile B (/api/v1) from the current snapshots')
    .option('--store <dir|s3-url>', STORE_HELP)
    .option('--config <file>', 'config file with paths (default: pdsnap.config.yaml when present, or PDSNAP_CONFIG)')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--port <n>', 'port to listen on; 0 picks a free one (default 8080)')
    .option(
      '--cache <dir>',
      'with an s3:// store: where the bundles served are downloaded (current and previous); default: a temp folder removed at exit',
    )
    .option('--keys <file>', `API keys file (default ${DEFAULT_KEYS_FILE})`)
    .option('--usage-db <file>', `usage database (default ${DEFAULT_USAGE_DB})`)
    .option('--state <file|redis-url>', STATE_OPTION_HELP)
    .option('--docs-url <url>', `documentation base for error docsUrl (default ${DEFAULT_DOCS_URL})`)
    .option(
      '--public-url <url>',
      'where clients reach this server, for the servers of the OpenAPI descriptions (default: the listening address)',
    )
    .option('--cors-origin <origins>', 'comma-separated origins whose web pages may call the API (CORS); default none')
    .option(
      '--cursor-secret-file <file>',
      'secret that signs cursors; created (mode 0600) when absent (default: cursor-secret beside the keys file, or kept in Redis with --state redis://)',
    )
    .option('--now <iso>', 'fixed clock for limits, freshness and futureDays (demos and tests)')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (default info)')
    .option(
      '--drain-delay <dur>',
      'after SIGTERM, keep answering this long while /readyz fails, so a load balancer stops sending (default 5s; SIGINT skips it)',
    )
    .option('--shutdown-timeout <dur>', 'then wait at most this long for requests in flight before closing their connections (default 10s)')
    .option('--metrics-port <n>', 'serve Prometheus metrics at /metrics on this port (default: no metrics server)')
    .option('--metrics-host <host>', 'address of the metrics server (default 127.0.0.1: not reachable from outside)')
    .option(
      '--public-rate <n>',
      `requests a second per client address on /docs and the OpenAPI descriptions, in bursts of ten seconds' worth; 0 = no limit (default ${DEFAULT_PUBLIC_RATE_PER_SECOND})`,
    )
    .option('--reload-interval <dur>', 'how often to look for newly published snapshots, like 2s or 500ms; 0s = never (default 2s)')
    .action(async (raw) => {
      const options = parseOptions(Options, await withPathDefaults(raw, ['store', 'keys', 'usageDb']));
      // --quiet: warnings and errors only, unless --log-level says otherwise.
      const logLevel = options.logLevel ?? (isQuiet() ? 'warn' : 'info');
      const fixedNow = options.now === undefined ? undefined : parseOptions(z.object({ now: NowOption }), { now: options.now }).now;
      const fileOptions = (['keys', 'usageDb'] as const)
        .filter((o) => raw[o] !== undefined)
        .map((o) => (o === 'keys' ? '--keys' : '--usage-db'));
      const location = stateLocationOf(options.state, fileOptions);
      let app: FastifyInstance | undefined;
      const opened =
        location.kind === 'redis'
          ? await openStateForCommand(
              location,
              { keysFile: options.keys, usageDbFile: options.usageDb },
              {
                // Outages after start: logged once each way; requests answer 503 meanwhile.
                onConnectionChange: ({ up, message }) => (up ? app?.log.info(message) : app?.log.error(message)),
              },
            )
          : null;
      if (!opened) await requireExisting(options.keys, 'file', '--keys: the API keys file', 'create one with pdsnap keys create');
      if (isBucketLocation(options.store)) await requireBucket(options.store);
      else await requireExisting(options.store, 'folder', '--store: the bundle store', 'build into it first, or name the right folder');
      try {
        // The keys file lists every key (name, scopes, hash): its user's alone, as the cursor secret is.
        if (!opened) await requirePrivateFile(options.keys);
        if (opened?.kind === 'redis') await opened.store.measureClock();
        const cursorSecret =
          opened?.kind === 'redis' && options.cursorSecretFile === undefined
            ? await opened.store.cursorSecret()
            : await loadOrCreateCursorSecret(path.resolve(options.cursorSecretFile ?? defaultCursorSecretFile(options.keys)));
        app = await buildServer({
          storeDir: options.store,
          ...(options.cache === undefined ? {} : { storeCacheDir: path.resolve(options.cache) }),
          keysFile: options.keys,
          usageDbFile: options.usageDb,
          ...(opened ? { stateStore: opened.store } : { keysMaxAgeMs: DEFAULT_KEY_FILE_MAX_AGE_MS }),
          docsUrl: options.docsUrl,
          ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
          corsOrigins: options.corsOrigin,
          publicRatePerSecond: options.publicRate,
          cursorSecret,
          ...(fixedNow ? { now: () => new Date(fixedNow.getTime()) } : {}),
          logger: logLevel === 'silent' ? false : { level: logLevel },
          reloadIntervalMs: options.reloadInterval,
          // Bind first, then load: a busy port is found before any bundle is read.
          loadSnapshots: false,
        });
      } catch (error) {
        // Closing twice is harmless: buildServer closes a store it was given when it fails.
        await opened?.store.close().catch(() => {});
        // A setting or file the operator can fix is a usage error; a bug keeps its stack (PDSNAP_DEBUG).
        throw startupError(error, 'cannot start the server');
      }
      let address: string;
      try {
        address = await app.listen({ host: options.host, port: options.port });
      } catch (error) {
        await app.close();
        throw new UsageError(`cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
      }
      // Listened for before the address is printed: whoever reads it may signal at once.
      const signalled = untilSignal(['SIGINT', 'SIGTERM']);
      const metricsServer =
        options.metricsPort === undefined ? null : await startMetricsServer(app, options.metricsHost, options.metricsPort);
      await app.loadSnapshots();
      const served = Object.entries(app.snapshots.currentIds()).map(([d, id]) => `${d}=${id}`);
      process.stderr.write(
        `pdsnap serve: listening on ${address} (Profile A ${address}/v1, Profile B ${address}/api/v1, reference ${address}/docs)\n`,
      );
      printNotice(`pdsnap serve: snapshots ${served.length > 0 ? served.join(' ') : 'none (every operation answers 503)'}`);
      printNotice(`pdsnap serve: keys and usage in ${opened ? opened.store.description : `${options.keys} and ${options.usageDb}`}`);
      const signal = await signalled;
      await shutDown(app, signal, options.drainDelay, options.shutdownTimeout);
      metricsServer?.close();
    });
}

/**
 * The shutdown sequence. SIGTERM (an orchestrator): /readyz fails at once and answers carry
 * `Connection: close`, the server keeps answering for the drain delay while the load balancer takes
 * it out, then stops accepting and finishes requests in flight; connections still open after the
 * shutdown timeout are closed. SIGINT (a person at a terminal) skips the drain delay. A second
 * signal skips whatever wait is left.
 */
async function shutDown(app: FastifyInstance, signal: NodeJS.Signals, drainMs: number, timeoutMs: number): Promise<void> {
  app.lifecycle.draining = true;
  const again = untilSignal(['SIGINT', 'SIGTERM']);
  if (signal === 'SIGTERM' && drainMs > 0) {
    process.stderr.write(`pdsnap serve: SIGTERM, draining for ${drainMs / 1000}s (/readyz answers 503)\n`);
    // Unreferenced: a second signal ends the wait, and the timer must not hold the process after it.
    await Promise.race([sleep(drainMs, undefined, { ref: false }), again]);
  }
  process.stderr.write(`pdsnap serve: ${signal}, finishing requests in flight and shutting down\n`);
  // close() stops accepting, lets requests in flight finish, then closes the usage database.
  const closing = app.close();
  // Unreferenced: once everything is closed, this timer must not hold the process for its full length.
  const deadline = sleep(timeoutMs, undefined, { ref: false }).then(() => 'timeout' as const);
  const ended = await Promise.race([closing.then(() => 'closed' as const), deadline, again.then(() => 'signal' as const)]);
  if (ended !== 'closed') {
    process.stderr.write(
      ended === 'timeout'
        ? `pdsnap serve: requests still in flight after ${timeoutMs / 1000}s; closing their connections\n`
        : 'pdsnap serve: a second signal: closing the connections still open\n',
    );
    app.server.closeAllConnections();
    await closing;
  }
}

/** /metrics on its own address, so that it is never reachable through the public port. */
async function startMetricsServer(app: FastifyInstance, host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/metrics') {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    app.metrics.text().then(
      (text) => response.writeHead(200, { 'Content-Type': app.metrics.registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new UsageError(`cannot listen for metrics on ${host}:${port}: ${error.message}`)));
    server.listen(port, host, resolve);
  });
  const address = server.address();
  printNotice(`pdsnap serve: metrics on http://${host}:${typeof address === 'object' && address ? address.port : port}/metrics`);
  server.unref();
  return server;
}

/** A bucket store that must exist and answer, before anything starts: exit 3 naming it. */
async function requireBucket(location: string): Promise<void> {
  let store;
  try {
    store = openStore(location);
    if (!(await store.exists())) throw new UsageError(`--store: the bucket of ${location} does not exist`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--store: ${location} cannot be reached: ${(error as Error).message}`);
  } finally {
    await store?.close();
  }
}

function untilSignal(signals: NodeJS.Signals[]): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    // Left in place once it has fired: a third signal while the server closes must not kill it by
    // the signal's default action (exit code lost, log lines not yet written lost with it).
    for (const s of signals) process.on(s, resolve);
  });
}
