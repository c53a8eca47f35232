import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CursorCodec, queryFingerprint } from '../src/serve/cursor.js';
import { measureProcess, mib, percentiles, readRequestLog, seconds } from './measure.js';
import { bundleSize } from './bundle-size.js';
import { measureChangedCopyDiff, type SmartMoneyBenchResult } from './smart-money.js';
import { JsonClient } from './json-client.js';
import { startChild, writeKeysFile } from './server.js';

export interface ScaleResult {
  factor: number;
  filers: number;
  infotableRows: number;
  buildMs: number;
  buildRssBytes: number;
  bundleBytes: number;
  servingIndexBytes: number;
  investors: number;
  trades: number;
  validateMs: number;
  validateRssBytes: number;
  validateExit: number | undefined;
  /** `pdsnap diff` from the build to a changed copy of it (as in the Smart Money benchmark). */
  diff: SmartMoneyBenchResult['diff'];
  serveReadyMs: number;
  serveRssBytes: number;
  /** Latency seen by the client, and by the server itself (its access log's latencyMs, by request id). */
  deep: { label: string; requests: number; p50Ms: number; p99Ms: number; server: { p50Ms: number; p99Ms: number } }[];
}

const DEEP_INVESTORS = 50;
const DEEP_TRADE_PAGES = 300;

/**
 * The whole path at full size and beyond: two generated quarters of `filers` filers each
 * (`pdsnap sample --scale`: most positions change share counts, about 10 % are sold and about as
 * many are new, as in a real quarter), then `build`, `validate`, `serve` start-up and deep pages,
 * each in a child process of the real CLI whose peak RSS (VmHWM) is read from /proc.
 */
export async function benchScaleAt(cli: string, repoRoot: string, factor: number, baseFilers: number): Promise<ScaleResult> {
  const filers = Math.round(baseFilers * factor);
  const dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-bench-scale-'));
  const now = new Date();
  try {
    const sources = path.join(dir, 'sources');
    const store = path.join(dir, 'store');
    process.stderr.write(`scale ${factor}x: generating two quarters of ${filers} filers...\n`);
    const generate = await measureProcess(
      'node',
      [cli, 'sample', '--out', sources, '--now', now.toISOString(), '--scale', String(filers), '--json'],
      repoRoot,
    );
    if (generate.exitCode !== 0) throw new Error(`sample failed: ${generate.stderr}`);
    const infotableRows = JSON.parse(generate.stdout).form13fRows as number;

    process.stderr.write(`scale ${factor}x: build...\n`);
    const build = await measureProcess(
      'node',
      [cli, 'build', '--all-filers', '--sources', sources, '--store', store, '--now', now.toISOString(), '--json', '--quiet'],
      repoRoot,
    );
    if (build.exitCode !== 0) throw new Error(`build failed (exit ${build.exitCode}): ${build.stderr}\n${build.stdout.slice(0, 2000)}`);
    const report = JSON.parse(build.stdout).datasets.find((d: { dataset: string }) => d.dataset === 'smart-money');
    const bundle = await bundleSize(store, report.snapshotId);

    process.stderr.write(`scale ${factor}x: validate...\n`);
    const validateAt = new Date(now.getTime() + 3_600_000).toISOString();
    const validate = await measureProcess(
      'node',
      [cli, 'validate', '--datasets', 'smart-money', '--store', store, '--now', validateAt, '--json'],
      repoRoot,
    );

    process.stderr.write(`scale ${factor}x: serve...\n`);
    const served = await measureServe(cli, repoRoot, store, dir, now, report.records.trades);
    // After serve, whose deep pages are computed from this build's trade count.
    process.stderr.write(`scale ${factor}x: publishing a changed copy and diffing the two...\n`);
    const diff = await measureChangedCopyDiff(cli, repoRoot, store, report.snapshotId, now.toISOString());
    return {
      factor,
      filers,
      infotableRows,
      buildMs: build.wallMs,
      buildRssBytes: build.peakRssBytes,
      bundleBytes: bundle.bytes,
      servingIndexBytes: bundle.servingIndexBytes,
      investors: report.records.investors,
      trades: report.records.trades,
      validateMs: validate.wallMs,
      validateRssBytes: validate.peakRssBytes,
      validateExit: validate.exitCode,
      diff,
      ...served,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `serve` on a built store, in a child process: the time from spawning it to a /readyz that names
 * every dataset, then the deep pages, then its peak RSS. `dir` receives its keys and usage files.
 */
export async function measureServe(
  cli: string,
  repoRoot: string,
  store: string,
  dir: string,
  now: Date,
  trades: number,
): Promise<Pick<ScaleResult, 'serveReadyMs' | 'serveRssBytes' | 'deep'>> {
  const keysFile = path.join(dir, 'keys.json');
  const keys = await writeKeysFile(keysFile, now, 100);
  const logFile = path.join(dir, 'serve.log');
  const started = performance.now();
  const serve = await startChild(
    'node',
    [
      cli,
      'serve',
      '--store',
      store,
      '--port',
      '0',
      '--reload-interval',
      '0s',
      '--keys',
      keysFile,
      '--usage-db',
      path.join(dir, 'usage.sqlite'),
    ],
    repoRoot,
    logFile,
  );
  let deep: Awaited<ReturnType<typeof deepPages>>;
  let serveReadyMs: number;
  let serveRssBytes: number;
  try {
    const readyz = await waitReady(serve.base);
    serveReadyMs = performance.now() - started;
    deep = await deepPages(serve.base, keys, readyz, path.join(dir, 'cursor-secret'), trades);
    serveRssBytes = await peakRss(serve.child.pid!);
  } finally {
    serve.child.kill('SIGTERM');
    await serve.child.catch(() => {});
  }
  // After the server has stopped, so that every line of its log is written.
  const latencyById = await serverLatencies(logFile);
  const serverSide = (ids: string[]) => {
    const ms = ids.map((id) => latencyById.get(id));
    if (ms.some((value) => value === undefined)) throw new Error(`the server logged no latency for some of ${ids.length} requests`);
    const { p50Ms, p99Ms } = percentiles(ms as number[]);
    return { p50Ms, p99Ms };
  };
  return {
    serveReadyMs,
    serveRssBytes,
    deep: deep.map(({ requestIds, ...series }) => ({ ...series, server: serverSide(requestIds) })),
  };
}

/** latencyMs of every request the server logged, by request id. */
async function serverLatencies(logFile: string): Promise<Map<string, number>> {
  const byId = new Map<string, number>();
  for (const entry of await readRequestLog(logFile)) if (entry.requestId !== undefined) byId.set(entry.requestId, entry.latencyMs);
  return byId;
}

/** Polls /readyz until every dataset is loaded; returns its answer. */
async function waitReady(base: string): Promise<{ datasets: Record<string, { snapshotId: string }> }> {
  for (;;) {
    const answer = await fetch(`${base}/readyz`);
    if (answer.status === 200) return (await answer.json()) as { datasets: Record<string, { snapshotId: string }> };
    await answer.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Deep pages, one request at a time so each latency is the server's own: the detail and every
 * trades page (by cursor) of the last investors of the list, and trades pages at cursors deep in
 * the last tenth of the trades (cursors signed with the server's own secret, as it would sign them).
 */
async function deepPages(
  base: string,
  keys: () => Record<string, string>,
  readyz: { datasets: Record<string, { snapshotId: string }> },
  secretFile: string,
  trades: number,
): Promise<(Omit<ScaleResult['deep'][number], 'server'> & { requestIds: string[] })[]> {
  const client = new JsonClient(base);
  const call = async (url: string) => {
    const started = performance.now();
    const answer = await client.get(url, keys());
    const body = answer.body as { data: { slug?: string }[]; page?: { nextCursor: string | null } };
    if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}: ${JSON.stringify(body)}`);
    return { ms: performance.now() - started, body, requestId: answer.requestId };
  };
  const timed = () => ({ ms: [] as number[], requestIds: [] as string[] });
  const record = <A extends { ms: number; requestId: string }>(series: ReturnType<typeof timed>, answer: A): A => {
    series.ms.push(answer.ms);
    series.requestIds.push(answer.requestId);
    return answer;
  };
  const slugs: string[] = [];
  for (let url: string | null = '/v1/smart-money/investors?limit=100'; url; ) {
    const { body } = await call(url);
    slugs.push(...body.data.map((i) => i.slug!));
    url = body.page?.nextCursor ? `/v1/smart-money/investors?limit=100&cursor=${body.page.nextCursor}` : null;
  }
  const detail = timed();
  const byInvestor = timed();
  for (const slug of slugs.slice(-DEEP_INVESTORS)) {
    record(detail, await call(`/v1/smart-money/investors/${slug}`));
    const first = `/v1/smart-money/trades?limit=100&investorSlug=${slug}`;
    for (let url: string | null = first; url; ) {
      const answer = await call(url);
      const { body } = record(byInvestor, answer);
      url = body.page?.nextCursor ? `${first}&cursor=${body.page.nextCursor}` : null;
    }
  }
  const codec = new CursorCodec((await readFile(secretFile, 'utf8')).trim());
  const binding = {
    snapshotId: readyz.datasets['smart-money']!.snapshotId,
    operationId: 'listSmartMoneyTrades',
    queryHash: queryFingerprint({}),
  };
  const deepTrades = timed();
  for (let i = 0; i < DEEP_TRADE_PAGES; i++) {
    const position = trades - Math.floor(((i + 1) * trades) / 10 / DEEP_TRADE_PAGES);
    record(deepTrades, await call(`/v1/smart-money/trades?limit=100&cursor=${codec.encode(binding, position)}`));
  }
  client.close();
  const series = (label: string, { ms, requestIds }: ReturnType<typeof timed>) => ({ label, ...percentiles(ms), requestIds });
  return [
    series('investor detail, last 50 investors', detail),
    series('trades by investor, every page, last 50', byInvestor),
    series('trades pages in the last tenth, by cursor', deepTrades),
  ];
}

async function peakRss(pid: number): Promise<number> {
  const match = /VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

export function formatScale(results: ScaleResult[]): string {
  const lines = ['Smart Money end to end at scale (two quarters; each step a child process of the real CLI)'];
  for (const r of results) {
    lines.push(
      `${r.factor}x: ${r.filers} filers per quarter, ${r.infotableRows} INFOTABLE rows -> ${r.investors} investors, ${r.trades} trade rows`,
      `  build                ${seconds(r.buildMs).padStart(8)}   peak RSS ${mib(r.buildRssBytes)}`,
      `  bundle               ${mib(r.bundleBytes).padStart(8)}   (serving index ${mib(r.servingIndexBytes)})`,
      `  validate             ${seconds(r.validateMs).padStart(8)}   peak RSS ${mib(r.validateRssBytes)}   exit ${r.validateExit}`,
      `  serve ready          ${seconds(r.serveReadyMs).padStart(8)}   peak RSS ${mib(r.serveRssBytes)} (after the deep pages)`,
      `  diff                 ${seconds(r.diff.wallMs).padStart(8)}   peak RSS ${mib(r.diff.peakRssBytes)}   ${r.diff.summary}`,
      ...r.deep.map(
        (d) =>
          `  ${d.label.padEnd(44)} ${String(d.requests).padStart(5)} requests  p50 ${d.p50Ms} ms  p99 ${d.p99Ms} ms` +
          `  (in the server: p50 ${d.server.p50Ms} ms  p99 ${d.server.p99Ms} ms)`,
      ),
    );
  }
  return lines.join('\n');
}
