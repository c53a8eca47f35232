import autocannon from 'autocannon';
import { execa, type ResultPromise } from 'execa';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKey } from '../src/serve/access/key-store.js';

export interface LoadResult {
  label: string;
  path: string;
  bodyBytes: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  total: number;
}

const DURATION_S = 10;
const CONNECTIONS = 10;
/** Premium keys allow 300 requests a minute each; rotating over many keeps the run on the 200 path. */
const KEY_COUNT = 400;

/** Starts a server child process and resolves with its base URL from the "listening on" line. */
async function startChild(command: string, args: string[], cwd: string): Promise<{ base: string; child: ResultPromise }> {
  const child = execa(command, args, { cwd, reject: false, stdout: 'ignore' });
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

async function load(label: string, base: string, urlPath: string, headers: () => Record<string, string>): Promise<LoadResult> {
  const first = await fetch(base + urlPath, { headers: headers() });
  const bodyBytes = (await first.arrayBuffer()).byteLength;
  if (first.status !== 200) throw new Error(`${label}: warm-up answered ${first.status}`);
  const result = await autocannon({
    url: base + urlPath,
    connections: CONNECTIONS,
    duration: DURATION_S,
    requests: [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, ...headers() } }) }],
  });
  return {
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
 * Loads the real `pdsnap serve` (a child process, logs at info to /dev/null) on loopback with an
 * authenticated Profile A list page and a Profile B list page, and a bare Fastify route that returns
 * a body of the same size, so the cost of pdsnap's request path can be read off side by side.
 */
export async function benchServer(cli: string, repoRoot: string): Promise<LoadResult[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-bench-serve-'));
  const now = new Date();
  const children: ResultPromise[] = [];
  try {
    const sources = path.join(dir, 'sources');
    const store = path.join(dir, 'store');
    await execa('node', [cli, 'sample', '--out', sources, '--now', now.toISOString()], { cwd: repoRoot });
    await execa('node', [cli, 'build', '--sources', sources, '--store', store, '--now', now.toISOString(), '--quiet'], { cwd: repoRoot });
    const keysFile = path.join(dir, 'keys.json');
    const scopes = ['articles:read', 'calendar:read', 'smart-money:read'] as const;
    const secrets: string[] = [];
    for (let i = 0; i < KEY_COUNT; i++) {
      secrets.push((await createKey(keysFile, { name: `bench-${i}`, scopes: [...scopes], tier: 'premium' }, now)).secret);
    }
    let next = 0;
    const bearer = () => ({ authorization: `Bearer ${secrets[next++ % secrets.length]}` });

    const serve = await startChild(
      'node',
      [cli, 'serve', '--store', store, '--port', '0', '--keys', keysFile, '--usage-db', path.join(dir, 'usage.sqlite'), '--reload-interval', '0'],
      repoRoot,
    );
    children.push(serve.child);
    const a = await load('Profile A  GET /v1/articles?limit=20', serve.base, '/v1/articles?limit=20', bearer);
    const b = await load('Profile B  GET /api/v1/articles?limit=20', serve.base, '/api/v1/articles?limit=20', bearer);

    const bodyFile = path.join(dir, 'body.json');
    await writeFile(bodyFile, Buffer.alloc(a.bodyBytes, ' ').fill('{"data":[]}', 0, 11));
    const bare = await startChild('node', [path.join(path.dirname(cli), '../../bench/bare-server.js'), bodyFile], repoRoot);
    children.push(bare.child);
    const baseline = await load(`bare Fastify, same-size body`, bare.base, '/bare', () => ({}));
    return [a, b, baseline];
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.allSettled(children);
    await rm(dir, { recursive: true, force: true });
  }
}

export function formatServer(results: LoadResult[]): string {
  const rows = results.map(
    (r) =>
      `  ${r.label.padEnd(40)} ${String(r.bodyBytes).padStart(7)} B  ${r.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${String(r.p50Ms).padStart(3)} ms  p99 ${String(r.p99Ms).padStart(3)} ms  non-2xx ${r.non2xx}/${r.total}`,
  );
  return [`Server on loopback, ${CONNECTIONS} connections, ${DURATION_S} s each (autocannon)`, ...rows].join('\n');
}
