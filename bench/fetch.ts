import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type RecordedRequest, startEdgarServer } from '../test/helpers/edgar-server.js';
import { cpuSecondsOf, seconds } from './measure.js';

/**
 * `npm run bench -- fetch`: `pdsnap fetch` of 600 Form 13F filings from the local EDGAR-shaped
 * server (test/helpers/edgar-server.ts) at the default rate, then the incremental run over the
 * same sources. The first run's time is the rate limit's, by design: 600 filings and 2 indexes at
 * 8 requests per 1.1 s. Prints each run's wall and CPU time and requests, and the highest rate
 * in any one second, as pdsnap counted it and as the server saw it.
 */

const NOW = '2026-11-22T12:00:00.000Z';
/** 299 managers file twice each, two of them an amendment more: 600 filings. */
const MANAGERS = 299;

export interface FetchRun {
  wallMs: number;
  cpuSeconds: number | undefined;
  exitCode: number | null;
  requests: number;
  filingRequests: number;
  fetched: number;
  unchanged: number;
  /** The most requests started within one second, as pdsnap counted them. */
  highestRate: number;
  /** The most requests the server read within one second. */
  observedRate: number;
}

export interface FetchBenchResult {
  filings: number;
  first: FetchRun;
  second: FetchRun;
}

export async function benchFetch(cli: string): Promise<FetchBenchResult> {
  const server = await startEdgarServer({ now: new Date(NOW), managers: MANAGERS });
  const dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-bench-fetch-'));
  const sources = path.join(dir, 'sources');
  await mkdir(path.join(sources, 'filings'), { recursive: true });
  try {
    const run = async (): Promise<FetchRun> => {
      const before = server.requests.length;
      const result = await fetchProcess(cli, sources, server.url);
      const requests = server.requests.slice(before);
      return {
        ...result,
        filingRequests: requests.filter((r) => r.path.startsWith('/Archives/edgar/data/')).length,
        observedRate: mostInOneSecond(requests),
      };
    };
    const first = await run();
    const second = await run();
    return { filings: server.submissions.length, first, second };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function fetchProcess(cli: string, sources: string, secUrl: string): Promise<Omit<FetchRun, 'filingRequests' | 'observedRate'>> {
  const started = performance.now();
  const child = spawn('node', [cli, 'fetch', '--sources', sources, '--now', NOW, '--datasets', 'smart-money', '--json'], {
    env: { ...process.env, PDSNAP_SEC_URL: secUrl, PDSNAP_SEC_USER_AGENT: 'Pdsnap Benchmark bench@pdsnap.example', PDSNAP_SEC_MAX_RPS: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  // The child's CPU time, read until it exits (the last reading misses at most one interval).
  let cpuSeconds: number | undefined;
  const poll = setInterval(() => {
    void cpuSecondsOf(child.pid).then((value) => {
      if (value !== undefined) cpuSeconds = value;
    });
  }, 50);
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearInterval(poll);
  const wallMs = performance.now() - started;
  const report = JSON.parse(stdout) as { requests: number; highestSecRate: number; counts: { fetched: number; unchanged: number } };
  return {
    wallMs,
    cpuSeconds,
    exitCode,
    requests: report.requests,
    highestRate: report.highestSecRate,
    fetched: report.counts.fetched,
    unchanged: report.counts.unchanged,
  };
}

function mostInOneSecond(requests: readonly RecordedRequest[]): number {
  const times = requests.map((r) => r.at).sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= 1000) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

export function formatFetch(result: FetchBenchResult): string {
  const line = (label: string, run: FetchRun) =>
    `  ${label.padEnd(18)} ${seconds(run.wallMs).padStart(7)} wall  ${run.cpuSeconds === undefined ? '?' : `${run.cpuSeconds.toFixed(1)} s`} CPU  ` +
    `${String(run.requests).padStart(4)} requests (${run.filingRequests} filing GETs)  fetched ${run.fetched}, unchanged ${run.unchanged}  ` +
    `highest rate ${run.highestRate}/s counted, ${run.observedRate}/s at the server  exit ${run.exitCode}`;
  return [
    `fetch: ${result.filings} Form 13F filings from a local EDGAR-shaped server at the default rate (8 per second at most)`,
    line('first run', result.first),
    line('incremental run', result.second),
  ].join('\n');
}
