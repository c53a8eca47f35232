import path from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_KEY_FILE_MAX_AGE_MS, DEFAULT_KEYS_FILE, DEFAULT_USAGE_DB } from '../../serve/access/index.js';
import { buildServer } from '../../serve/app.js';
import { defaultCursorSecretFile, loadOrCreateCursorSecret } from '../../serve/cursor-secret.js';
import { UsageError } from '../errors.js';
import { DEFAULT_STORE, DirOption, NowOption, parseOptions } from '../options.js';
import { STATE_OPTION_HELP, openStateForCommand, stateLocationOf } from '../state-option.js';

export const DEFAULT_DOCS_URL = 'https://docs.example.com/api';

const Options = z.object({
  store: DirOption(DEFAULT_STORE),
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
  cursorSecretFile: z.string().optional(),
  state: z.string().optional(),
  now: z.string().optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  reloadInterval: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of milliseconds')
    .default('2000')
    .transform(Number),
});

/** `pdsnap serve`: both API profiles over the store's current bundles, until SIGINT or SIGTERM. */
export function serveCommand(): Command {
  return new Command('serve')
    .description('serve Profile A (/v1) and Profile B (/api/v1) from the current snapshots')
    .option('--store <dir>', `bundle store (default ${DEFAULT_STORE})`)
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--port <n>', 'port to listen on; 0 picks a free one (default 8080)')
    .option('--keys <file>', `API keys file (default ${DEFAULT_KEYS_FILE})`)
    .option('--usage-db <file>', `usage database (default ${DEFAULT_USAGE_DB})`)
    .option('--state <file|redis-url>', STATE_OPTION_HELP)
    .option('--docs-url <url>', `documentation base for error docsUrl (default ${DEFAULT_DOCS_URL})`)
    .option('--cursor-secret-file <file>', 'secret that signs cursors; created (mode 0600) when absent (default: cursor-secret beside the keys file, or kept in Redis with --state redis://)')
    .option('--now <iso>', 'fixed clock for limits, freshness and futureDays (demos and tests)')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (default info)')
    .option('--reload-interval <ms>', 'how often to look for newly published snapshots; 0 = never (default 2000)')
    .action(async (raw) => {
      const options = parseOptions(Options, raw);
      const fixedNow = options.now === undefined ? undefined : parseOptions(z.object({ now: NowOption }), { now: options.now }).now;
      const fileOptions = (['keys', 'usageDb'] as const).filter((o) => raw[o] !== undefined).map((o) => (o === 'keys' ? '--keys' : '--usage-db'));
      const location = stateLocationOf(options.state, fileOptions);
      let app: FastifyInstance | undefined;
      const opened =
        location.kind === 'redis'
          ? await openStateForCommand(location, { keysFile: options.keys, usageDbFile: options.usageDb }, {
              // Outages after start: logged once each way; requests answer 503 meanwhile.
              onConnectionChange: ({ up, message }) => (up ? app?.log.info(message) : app?.log.error(message)),
            })
          : null;
      try {
        const cursorSecret =
          opened?.kind === 'redis' && options.cursorSecretFile === undefined
            ? await opened.store.cursorSecret()
            : await loadOrCreateCursorSecret(path.resolve(options.cursorSecretFile ?? defaultCursorSecretFile(options.keys)));
        app = await buildServer({
          storeDir: options.store,
          keysFile: options.keys,
          usageDbFile: options.usageDb,
          ...(opened ? { stateStore: opened.store } : { keysMaxAgeMs: DEFAULT_KEY_FILE_MAX_AGE_MS }),
          docsUrl: options.docsUrl,
          cursorSecret,
          ...(fixedNow ? { now: () => new Date(fixedNow.getTime()) } : {}),
          logger: options.logLevel === 'silent' ? false : { level: options.logLevel },
          reloadIntervalMs: options.reloadInterval,
        });
      } catch (error) {
        // Closing twice is harmless: buildServer closes a store it was given when it fails.
        await opened?.store.close().catch(() => {});
        throw new UsageError(`cannot start the server: ${(error as Error).message}`);
      }
      let address: string;
      try {
        address = await app.listen({ host: options.host, port: options.port });
      } catch (error) {
        await app.close();
        throw new UsageError(`cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
      }
      const served = Object.entries(app.snapshots.currentIds()).map(([d, id]) => `${d}=${id}`);
      process.stderr.write(`pdsnap serve: listening on ${address} (Profile A ${address}/v1, Profile B ${address}/api/v1)\n`);
      process.stderr.write(`pdsnap serve: snapshots ${served.length > 0 ? served.join(' ') : 'none (every operation answers 503)'}\n`);
      process.stderr.write(`pdsnap serve: keys and usage in ${opened ? opened.store.description : `${options.keys} and ${options.usageDb}`}\n`);
      const signal = await untilSignal(['SIGINT', 'SIGTERM']);
      process.stderr.write(`pdsnap serve: ${signal}, finishing requests in flight and shutting down\n`);
      // close() stops accepting, lets requests in flight finish, then closes the usage database.
      await app.close();
    });
}

function untilSignal(signals: NodeJS.Signals[]): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      for (const s of signals) process.off(s, handler);
      resolve(signal);
    };
    for (const s of signals) process.on(s, handler);
  });
}
