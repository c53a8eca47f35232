import autocannon from 'autocannon';
import { execa, type ResultPromise } from 'execa';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { type AuthTimingResult, formatAuthTiming, measureAuthTiming } from './auth-timing.js';
import { fixedRateInChild } from './fixed-rate.js';
import { cpuSecondsOf, percentiles, readRequestLog } from './measure.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type KeyRecord, serializeKeyFile } from '../src/serve/access/key-record.js';
import { generateKeySecret } from '../src/serve/access/key-secret.js';
import { median } from '../src/lib/median.js';
import { openRedisState } from '../src/serve/access/redis-state.js';
import type { StateStore } from '../src/serve/access/state-store.js';

export interface LoadResult {
  label: string;
  /** Requests per second asked for; undefined = as fast as the server answers. */
  rate?: number;
  path: string;
  bodyBytes: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  total: number;
  /** The server process's CPU time (all threads) per request of an autocannon series, in µs. */
  cpuMicrosPerRequest?: number;
  /** For a fixed-rate series: the server's own latency of the same requests (its access log). */
  server?: { p50Ms: number; p99Ms: number };
  /** req/s of the bare route's series run right after this one, on the same machine a moment later. */
  pairedBare?: number;
  /** For a series run while the docs routes were hammered: what the hammer got. */
  hammer?: { total: number; non2xx: number; requestsPerSecond: number };
}

/** Headers for each request, rotating over the key secrets (kept, for a client in another process). */
export type RotatingHeaders = (() => Record<string, string>) & { secrets: readonly string[] };

const NO_KEY: RotatingHeaders = Object.assign(() => ({}), { secrets: [] });

const DURATION_S = 10;
const WARM_UP_S = 2;
const CONNECTIONS = 10;
/**
 * Premium keys allow 300 requests a minute each; rotating over 10,000 of them (3,000,000 a minute)
 * keeps every run on the 200 path, never the 429 one. 2,000 were too few once a machine answered
 * 15,000 requests a second: the series of one minute used up the keys' windows and a third of the
 * gzip series was 429s.
 */
const KEY_COUNT = 10_000;

/**
 * Starts a server process and resolves with its base URL from the "listening on" line; its log
 * lines (stdout) go to `logFile` when given, else nowhere.
 */
export async function startChild(
  command: string,
  args: string[],
  cwd: string,
  logFile?: string,
): Promise<{ base: string; child: ResultPromise }> {
  // The log file is the child's own standard output: it writes there itself. Through execa's
  // `{ file }`, the benchmark process copied every line (CPU taken from the load generator beside
  // it), and the copy ended at execa's 100 MB maxBuffer, which dropped the latest requests' lines.
  const logFd = logFile === undefined ? undefined : openSync(logFile, 'w');
  // execa hands any file descriptor to the child as it is; its types list only the numbers 3 to 9.
  const child = execa(command, args, { cwd, reject: false, stdout: (logFd ?? 'ignore') as 'ignore' });
  if (logFd !== undefined) closeSync(logFd);
  const base = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', () => reject(new Error(`server exited early: ${seen}`)));
  });
  return { base, child };
}

/** One GET; the status and the body's size on the wire (fetch would decompress it). */
function wireGet(url: string, headers: Record<string, string>): Promise<{ status: number; bytes: number; encoding: string | undefined }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes, encoding: response.headers['content-encoding'] }));
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** A server process under load: where it listens, and its process (for its CPU time). */
interface Target {
  base: string;
  child: ResultPromise;
}

async function load(
  label: string,
  target: Target,
  urlPath: string,
  headers: RotatingHeaders | (() => Record<string, string>),
  rate?: number,
  serverLog?: string,
  method: 'GET' | 'HEAD' = 'GET',
): Promise<LoadResult> {
  const { base } = target;
  const first = await wireGet(base + urlPath, headers());
  const bodyBytes = first.bytes;
  if (first.status !== 200) throw new Error(`${label}: warm-up answered ${first.status}`);
  const asked = headers()['accept-encoding'];
  if (asked !== undefined && first.encoding !== asked) throw new Error(`${label}: asked for ${asked}, got ${first.encoding ?? 'identity'}`);
  if (rate) {
    const secrets = 'secrets' in headers ? headers.secrets : [];
    const from = Date.now();
    const result = await fixedRateInChild(base + urlPath, secrets, rate, DURATION_S);
    const server = serverLog === undefined ? undefined : await serverLatency(serverLog, from, Date.now());
    return { label, rate, path: urlPath, bodyBytes, ...result, ...(server ? { server } : {}) };
  }
  const series = (duration: number) =>
    autocannon({
      url: base + urlPath,
      connections: CONNECTIONS,
      duration,
      method,
      requests: [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, ...headers() } }) }],
    });
  // Not counted: the first seconds of a process run its code before the JIT has compiled it, which
  // is start-up, not the request path (the same for every target, the bare route's included).
  await series(WARM_UP_S);
  const cpuBefore = await cpuSecondsOf(target.child.pid);
  const result = await series(DURATION_S);
  const cpuAfter = await cpuSecondsOf(target.child.pid);
  const cpuMicrosPerRequest =
    cpuBefore === undefined || cpuAfter === undefined || result.requests.total === 0
      ? undefined
      : Math.round(((cpuAfter - cpuBefore) * 1e6) / result.requests.total);
  return {
    ...(cpuMicrosPerRequest === undefined ? {} : { cpuMicrosPerRequest }),
    label,
    path: urlPath,
    bodyBytes,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

/**
 * p50 and p99 of the latency the server logged (`latencyMs` of its request lines) for the requests
 * it answered between two instants; undefined when the log holds none (logging off).
 */
async function serverLatency(logFile: string, fromMs: number, untilMs: number): Promise<{ p50Ms: number; p99Ms: number } | undefined> {
  // The log is written asynchronously: give the last lines a moment to reach the file.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const window = (await readRequestLog(logFile)).filter(({ time }) => time !== undefined && time >= fromMs && time <= untilMs);
  if (window.length === 0) return undefined;
  const { p50Ms, p99Ms } = percentiles(window.map((entry) => entry.latencyMs));
  return { p50Ms, p99Ms };
}

/** The fixed rate at which p99 latency is measured (the target: under 10 ms). */
const FIXED_RATE = 1000;

/**
 * The share of the bare route is measured in this many rounds, each a Profile A series followed at
 * once by a bare-route series. One bare series at the end of the run, as before 2026-12-05, was
 * minutes away from the series it was compared with: on this shared 2-core machine the bare route
 * alone moved between 15,400 and 25,700 req/s within ten minutes, and the printed share with it.
 */
const SHARE_ROUNDS = 3;

/** Profile A series and bare-route series in turn, SHARE_ROUNDS times; the Profile A rows carry their pair. */
async function loadPaired(label: string, target: Target, urlPath: string, headers: RotatingHeaders, bare: Target): Promise<LoadResult[]> {
  const rows: LoadResult[] = [];
  for (let round = 1; round <= SHARE_ROUNDS; round++) {
    const measured = await load(`${label} (${round}/${SHARE_ROUNDS})`, target, urlPath, headers);
    const baseline = await load(`bare Fastify, after ${label.split(/\s+/)[0]} (${round}/${SHARE_ROUNDS})`, bare, '/bare', NO_KEY);
    rows.push({ ...measured, pairedBare: baseline.requestsPerSecond }, baseline);
  }
  return rows;
}

/** What the server benchmark measured: its load series, and the timing of failed authentications. */
export interface ServerBenchResults {
  loads: LoadResult[];
  authTiming: AuthTimingResult | null;
}

/** Parts of the server benchmark; BENCH_SERVER_PARTS names some of them (default: all). */
const SERVER_PARTS = ['load', 'compression', 'public', 'auth', 'redis'] as const;
type ServerPart = (typeof SERVER_PARTS)[number];

function serverParts(): Set<ServerPart> {
  const named = process.env.BENCH_SERVER_PARTS?.split(',').map((p) => p.trim());
  if (named === undefined) return new Set(SERVER_PARTS);
  const unknown = named.filter((p) => !(SERVER_PARTS as readonly string[]).includes(p));
  if (unknown.length > 0) throw new Error(`BENCH_SERVER_PARTS: unknown part ${unknown.join(', ')} (parts: ${SERVER_PARTS.join(', ')})`);
  return new Set(named as ServerPart[]);
}

/** The Redoc bundle, 1.1 MB: the largest answer a request without a key can ask for. */
const DOCS_BUNDLE = '/docs/redoc.standalone.js';
/** The docs routes hammered at this rate over HAMMER_CONNECTIONS (the four curl loops made about 42 a second). */
const HAMMER_RATE = 50;
const HAMMER_CONNECTIONS = 4;
/** The keyed page's rate beside the hammer: low enough that a shared 2-core machine keeps up with it alone. */
const KEYED_RATE = 100;
/** Failed authentications per class (unknown key id, existing id with a wrong secret). */
const AUTH_TRIES = 3000;

/**
 * Loads the real `pdsnap serve` (a child process, logs at info to a file of its own) on loopback
 * with an authenticated Profile A list page and a Profile B list page, once over the file state
 * (keys file, SQLite) and once over Redis (a redis-server of its own in the temporary folder, when
 * the machine has one), each as fast as it answers and at a fixed 1,000 requests a second; and a
 * bare Fastify route that returns a body of the same size, loaded right after each Profile A
 * series (loadPaired), so the cost of pdsnap's request path can be read off side by side. Then
 * compressed pages, what requests without a key cost (the Redoc bundle; a keyed page while the
 * docs routes are hammered), and the timing of failed authentications by class.
 */
export async function benchServer(cli: string, repoRoot: string): Promise<ServerBenchResults> {
  const parts = serverParts();
  const dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-bench-serve-'));
  const now = new Date();
  const children: ResultPromise[] = [];
  const results: LoadResult[] = [];
  let authTiming: AuthTimingResult | null = null;
  try {
    const sources = path.join(dir, 'sources');
    const store = path.join(dir, 'store');
    await execa('node', [cli, 'sample', '--out', sources, '--now', now.toISOString()], { cwd: repoRoot });
    await execa('node', [cli, 'build', '--sources', sources, '--store', store, '--now', now.toISOString(), '--quiet'], { cwd: repoRoot });

    const keysFile = path.join(dir, 'keys.json');
    const fileKeys = await writeKeysFile(keysFile, now);
    // The default reload interval (a look at three pointer files every 2 s): the option's unit changed once.
    const serveArgs = ['serve', '--store', store, '--port', '0'];
    const fileArgs = [cli, ...serveArgs, '--keys', keysFile, '--usage-db', path.join(dir, 'usage.sqlite')];
    const fileLog = path.join(dir, 'file-serve.log');
    const fileServe = await startChild('node', fileArgs, repoRoot, fileLog);
    children.push(fileServe.child);
    // The baseline: a bare Fastify route returning a body of the Profile A page's size, from the
    // start, so that each Profile A series is compared with a bare series run right after it.
    const bodyFile = path.join(dir, 'body.json');
    const bodyBytes = (await wireGet(`${fileServe.base}/v1/articles?limit=20`, fileKeys())).bytes;
    await writeFile(bodyFile, Buffer.alloc(bodyBytes, ' ').fill('{"data":[]}', 0, 11));
    // Beside this module (dist/bench), wherever the CLI being measured lives.
    const bare = await startChild('node', [fileURLToPath(new URL('./bare-server.js', import.meta.url)), bodyFile], repoRoot);
    children.push(bare.child);
    if (parts.has('load')) {
      results.push(
        ...(await loadPaired('file   Profile A  GET /v1/articles?limit=20', fileServe, '/v1/articles?limit=20', fileKeys, bare)),
      );
      results.push(await load('file   Profile B  GET /api/v1/articles?limit=20', fileServe, '/api/v1/articles?limit=20', fileKeys));
      results.push(await load('file   Profile A, fixed rate', fileServe, '/v1/articles?limit=20', fileKeys, FIXED_RATE, fileLog));
    }
    if (parts.has('compression')) {
      // The largest consensus page (10 rows of 10 top holders: its size does not grow with the
      // number of filers) and the largest article page, as they are and as brotli and gzip.
      for (const [name, urlPath] of [
        ['consensus', '/v1/smart-money/consensus?limit=10'],
        ['articles ', '/v1/articles?limit=100'],
      ] as const) {
        for (const encoding of ['identity', 'br', 'gzip'] as const) {
          const withEncoding = encoding === 'identity' ? fileKeys : () => ({ ...fileKeys(), 'accept-encoding': encoding });
          results.push(await load(`file   ${name} ${encoding.padEnd(8)}`, fileServe, urlPath, withEncoding));
        }
      }
    }
    if (parts.has('public')) {
      // The same server without the documentation routes' limit, where the build has one: what the assets themselves cost.
      const unlimitedLog = path.join(dir, 'unlimited-serve.log');
      const unlimited = (await hasOption(cli, 'serve', '--public-rate'))
        ? await startChild('node', [...fileArgs, '--public-rate', '0'], repoRoot, unlimitedLog)
        : null;
      if (unlimited) children.push(unlimited.child);
      results.push(...(await loadPublic(fileServe, unlimited && { ...unlimited, log: unlimitedLog }, fileKeys, fileLog)));
      unlimited?.child.kill('SIGTERM');
    }
    if (parts.has('auth')) authTiming = await measureAuthTiming(fileServe.base, fileKeys.secrets, AUTH_TRIES, fileLog);
    fileServe.child.kill('SIGTERM');

    const redis = parts.has('redis') ? await startRedis(dir, repoRoot) : null;
    if (redis) {
      children.push(redis.child);
      const redisState = await openRedisState(redis.url);
      const redisKeys = await createKeys(redisState, now);
      const redisLog = path.join(dir, 'redis-serve.log');
      const redisServe = await startChild('node', [cli, ...serveArgs, '--state', redis.url], repoRoot, redisLog);
      children.push(redisServe.child);
      results.push(
        ...(await loadPaired('redis  Profile A  GET /v1/articles?limit=20', redisServe, '/v1/articles?limit=20', redisKeys, bare)),
      );
      results.push(await load('redis  Profile B  GET /api/v1/articles?limit=20', redisServe, '/api/v1/articles?limit=20', redisKeys));
      results.push(await load('redis  Profile A, fixed rate', redisServe, '/v1/articles?limit=20', redisKeys, FIXED_RATE, redisLog));
      redisServe.child.kill('SIGTERM');
    } else if (parts.has('redis')) {
      process.stderr.write('bench: no redis-server on this machine; the Redis rows are left out\n');
    }

    if (parts.has('load')) results.push(await load(`bare Fastify, fixed rate`, bare, '/bare', NO_KEY, FIXED_RATE));
    return { loads: results, authTiming };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.allSettled(children);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What requests without a key cost: the Redoc bundle as brotli and gzip and by HEAD, each as fast
 * as the server answers (its CPU per request), from `unlimited` (the server without the
 * documentation routes' limit) when there is one; then a keyed page at KEYED_RATE with the docs
 * routes idle and while they are hammered at HAMMER_RATE, on the server as configured by default
 * and, when there is one, on `unlimited` too.
 */
async function loadPublic(
  target: Target,
  unlimited: (Target & { log: string }) | null,
  keys: RotatingHeaders,
  serverLog: string,
): Promise<LoadResult[]> {
  const rows: LoadResult[] = [];
  const assets = unlimited ?? target;
  for (const encoding of ['br', 'gzip'] as const) {
    const headers = () => ({ 'accept-encoding': encoding });
    rows.push(await load(`file   docs bundle ${encoding.padEnd(8)} (no key)`, assets, DOCS_BUNDLE, headers));
  }
  rows.push(await loadHead('file   docs bundle br HEAD  (no key)', assets, DOCS_BUNDLE, { 'accept-encoding': 'br' }));
  const keyed = '/v1/articles?limit=20';
  rows.push(await load(`file   Profile A at ${KEYED_RATE}/s, docs idle`, target, keyed, keys, KEYED_RATE, serverLog));
  for (const [server, log, which] of [
    [target, serverLog, ''],
    ...(unlimited ? [[unlimited, unlimited.log, ', no docs limit'] as const] : []),
  ] as const) {
    const hammer = autocannon({
      url: server.base + DOCS_BUNDLE,
      connections: HAMMER_CONNECTIONS,
      overallRate: HAMMER_RATE,
      // Longer than the keyed series, which starts a moment later; stopped when it is done.
      duration: DURATION_S + 30,
      headers: { 'accept-encoding': 'br' },
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const hammered = await load(
      `file   Profile A at ${KEYED_RATE}/s, docs at ${HAMMER_RATE}/s${which}`,
      server,
      keyed,
      keys,
      KEYED_RATE,
      log,
    );
    (hammer as unknown as { stop(): void }).stop();
    const docs = await hammer;
    rows.push({ ...hammered, hammer: { total: docs.requests.total, non2xx: docs.non2xx, requestsPerSecond: docs.requests.average } });
  }
  return rows;
}

/** Whether a build of pdsnap has an option (an earlier build loaded through BENCH_CLI may not). */
async function hasOption(cli: string, command: string, option: string): Promise<boolean> {
  const help = await execa('node', [cli, 'help', command], { reject: false });
  return String(help.stdout).includes(option);
}

/**
 * HEAD requests as fast as answered over CONNECTIONS keep-alive connections (autocannon waits for
 * the body a HEAD answer announces and never gets), with the server's CPU per request.
 */
async function loadHead(label: string, target: Target, urlPath: string, headers: Record<string, string>): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const head = () =>
    new Promise<number>((resolve, reject) => {
      request(target.base + urlPath, { agent, method: 'HEAD', headers }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      })
        .on('error', reject)
        .end();
    });
  const run = async (durationS: number) => {
    const until = performance.now() + durationS * 1000;
    let total = 0;
    let non2xx = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < until) {
          const status = await head();
          total += 1;
          if (status < 200 || status >= 300) non2xx += 1;
        }
      }),
    );
    return { total, non2xx };
  };
  try {
    await run(WARM_UP_S);
    const cpuBefore = await cpuSecondsOf(target.child.pid);
    const started = performance.now();
    const { total, non2xx } = await run(DURATION_S);
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = await cpuSecondsOf(target.child.pid);
    return {
      label,
      path: urlPath,
      bodyBytes: 0,
      requestsPerSecond: total / seconds,
      p50Ms: 0,
      p99Ms: 0,
      non2xx,
      total,
      ...(cpuBefore === undefined || cpuAfter === undefined || total === 0
        ? {}
        : { cpuMicrosPerRequest: Math.round(((cpuAfter - cpuBefore) * 1e6) / total) }),
    };
  } finally {
    agent.destroy();
  }
}

const SCOPES = ['articles:read', 'calendar:read', 'smart-money:read'] as const;

/** Rotates over the secrets, one per request. */
function rotating(secrets: string[]): RotatingHeaders {
  let next = 0;
  return Object.assign(() => ({ authorization: `Bearer ${secrets[next++ % secrets.length]}` }), { secrets });
}

/**
 * The keys file of KEY_COUNT premium keys, written at once: records exactly as `keys create` makes
 * them, without its lock and rewrite per key (which would make this quadratic).
 */
export async function writeKeysFile(file: string, now: Date, count = KEY_COUNT): Promise<RotatingHeaders> {
  const secrets: string[] = [];
  const records: KeyRecord[] = [];
  for (let i = 0; i < count; i++) {
    const generated = generateKeySecret();
    secrets.push(generated.secret);
    records.push({
      id: generated.id,
      name: `bench-${i}`,
      scopes: [...SCOPES],
      tier: 'premium',
      createdAt: now.toISOString(),
      revokedAt: null,
      secretSha256: generated.secretSha256,
    });
  }
  // Mode 0600, as `keys create` writes it: serve refuses a keys file that others can read.
  await writeFile(file, serializeKeyFile(records), { mode: 0o600 });
  return rotating(secrets);
}

/** Premium keys made through the state's own key directory. */
async function createKeys(state: StateStore, now: Date): Promise<RotatingHeaders> {
  const secrets: string[] = [];
  try {
    for (let i = 0; i < KEY_COUNT; i++) {
      secrets.push((await state.keys.create({ name: `bench-${i}`, scopes: [...SCOPES], tier: 'premium' }, now)).secret);
    }
  } finally {
    await state.close();
  }
  return rotating(secrets);
}

/** A redis-server of the benchmark's own on a free port, or null when the machine has none. */
async function startRedis(dir: string, cwd: string): Promise<{ url: string; child: ResultPromise } | null> {
  const found = await execa('redis-server', ['--version'], { reject: false });
  if (found.exitCode !== 0) return null;
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
  const child = execa('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], {
    cwd,
    reject: false,
  });
  for (let attempt = 0; attempt < 200; attempt++) {
    const ping = await execa('redis-cli', ['-p', String(port), 'ping'], { reject: false });
    if (String(ping.stdout).trim() === 'PONG') return { url: `redis://127.0.0.1:${port}/0`, child };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('bench: redis-server did not start');
}

export function formatServer({ loads: results, authTiming }: ServerBenchResults): string {
  const isBare = (r: LoadResult) => r.label.startsWith('bare') && r.rate === undefined;
  const bareMedian = median(results.filter(isBare).map((r) => r.requestsPerSecond));
  const percent = (value: number) => `${(100 * value).toFixed(0).padStart(3)} %`;
  const rows = results.map((r) => {
    // A paired series against the bare series right after it; any other against the bare series' median.
    const share =
      r.pairedBare !== undefined
        ? `  ${percent(r.requestsPerSecond / r.pairedBare)} of the bare series after it`
        : bareMedian !== undefined && !isBare(r) && r.rate === undefined
          ? `  ${percent(r.requestsPerSecond / bareMedian)} of the bare median`
          : '';
    const rate = r.rate ? ` (at ${r.rate}/s)` : '';
    const server = r.server ? `  (server's own: p50 ${r.server.p50Ms} ms, p99 ${r.server.p99Ms} ms)` : '';
    const cpu = r.cpuMicrosPerRequest === undefined ? '' : `  server CPU ${r.cpuMicrosPerRequest} µs/req`;
    const hammer = r.hammer
      ? `  (docs hammer: ${r.hammer.requestsPerSecond.toFixed(0)} req/s, non-2xx ${r.hammer.non2xx}/${r.hammer.total})`
      : '';
    return `  ${r.label.padEnd(48)} ${String(r.bodyBytes).padStart(7)} B  ${r.requestsPerSecond.toFixed(0).padStart(6)} req/s${rate}  p50 ${String(r.p50Ms).padStart(3)} ms  p99 ${String(r.p99Ms).padStart(3)} ms  non-2xx ${r.non2xx}/${r.total}${share}${cpu}${server}${hammer}`;
  });
  return [
    `Server on loopback, ${DURATION_S} s each: autocannon with ${CONNECTIONS} connections as fast as answered (after ${WARM_UP_S} s not counted); "fixed rate": requests sent evenly by a client process of its own, latency from their scheduled instant`,
    ...rows,
    ...shareSummaries(results),
    ...(authTiming ? formatAuthTiming(authTiming) : []),
  ].join('\n');
}

/** One line per paired target: the median of its rounds' shares of the bare route, and each round's. */
function shareSummaries(results: LoadResult[]): string[] {
  const byTarget = new Map<string, number[]>();
  for (const r of results) {
    if (r.pairedBare === undefined) continue;
    const target = r.label.replace(/\s*\(\d+\/\d+\)$/, '');
    byTarget.set(target, [...(byTarget.get(target) ?? []), r.requestsPerSecond / r.pairedBare]);
  }
  return [...byTarget].map(([target, shares]) => {
    const each = shares.map((share) => `${(100 * share).toFixed(0)} %`).join(', ');
    return `  share of the bare route, ${target.replace(/\s+/g, ' ')}: median ${(100 * median(shares)!).toFixed(0)} % of ${shares.length} rounds (${each})`;
  });
}
