import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { HOSTILE_CASES, NOW, REPO_ROOT, SAMPLE_SOURCES, type Dataset, type HostileCase } from '../test/helpers/hostile-inputs.js';

/**
 * `npm run bench -- hostile`: builds the sample tree once per hostile case (test/helpers/hostile-inputs.ts)
 * and prints, per case, the exit code, outcome, records kept against the untouched sample, wall
 * time and peak RSS of the build, and what the report says about the planted file.
 * BENCH_CLI runs another pdsnap build (e.g. an older one, for before/after figures);
 * BENCH_CASES=a,b runs some cases only; BENCH_TIMEOUT_S kills a build that runs longer (default 300).
 */

export interface HostileRun {
  id: string;
  exitCode: number | null;
  outcome: string;
  records: number;
  baseline: number;
  seconds: number;
  peakRssMiB: number;
  said: string;
}

interface Report {
  datasets: {
    outcome: string;
    records: Record<string, number>;
    rejected: { source: string; location: string; reason: string }[];
    notes: { source: string; message: string }[];
    reason: string | null;
  }[];
}

const PEAK_RSS = pathToFileURL(path.join(REPO_ROOT, 'dist/preload/peak-rss.js')).href;

export async function runBuild(cli: string, sources: string, dataset: Dataset, args: string[] = [], timeoutMs = 300_000) {
  const store = await mkdtemp(path.join(tmpdir(), 'pdsnap-hostile-store-'));
  const rssFile = path.join(store, 'peak-rss');
  const started = performance.now();
  const child = spawn(
    'node',
    ['--import', PEAK_RSS, cli, 'build', '--datasets', dataset, '--sources', sources, '--store', store, '--now', NOW, '--json', ...args],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, PDSNAP_PEAK_RSS_FILE: rssFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.resume();
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  const peakRss = Number(await readFile(rssFile, 'utf8').catch(() => 'NaN'));
  let report: Report | null = null;
  try {
    report = JSON.parse(stdout) as Report;
  } catch {
    report = null;
  }
  await rm(store, { recursive: true, force: true });
  return { exitCode, seconds, peakRssBytes: peakRss, report };
}

const total = (records: Record<string, number>) => Object.values(records).reduce((a, b) => a + b, 0);

export async function benchHostile(cli: string, only?: string[], timeoutMs = 300_000): Promise<HostileRun[]> {
  const cases = HOSTILE_CASES.filter((c) => !only || only.includes(c.id));
  const baselines = new Map<Dataset, { records: number; seen: Set<string> }>();
  const runs: HostileRun[] = [];
  for (const hostile of cases) {
    if (!baselines.has(hostile.dataset)) {
      const { report } = await runBuild(cli, SAMPLE_SOURCES, hostile.dataset);
      const dataset = report!.datasets[0]!;
      baselines.set(hostile.dataset, {
        records: total(dataset.records),
        seen: new Set([...dataset.rejected.map(describe), ...dataset.notes.map(describeNote)]),
      });
    }
    runs.push(await runCase(cli, hostile, baselines.get(hostile.dataset)!, timeoutMs));
  }
  return runs;
}

async function runCase(
  cli: string,
  hostile: HostileCase,
  baseline: { records: number; seen: Set<string> },
  timeoutMs: number,
): Promise<HostileRun> {
  const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-hostile-'));
  const sources = path.join(root, 'sources');
  await cp(SAMPLE_SOURCES, sources, { recursive: true });
  const undo = await hostile.plant(sources, path.join(root, 'outside'));
  try {
    const { exitCode, seconds, peakRssBytes, report } = await runBuild(cli, sources, hostile.dataset, hostile.args, timeoutMs);
    const dataset = report?.datasets[0];
    const said = dataset
      ? [dataset.reason, ...dataset.rejected.map(describe), ...dataset.notes.map(describeNote)].filter(
          (line): line is string => !!line && !baseline.seen.has(line),
        )
      : [exitCode === null ? `killed after ${timeoutMs / 1000} s` : 'no report'];
    return {
      id: hostile.id,
      exitCode,
      outcome: dataset?.outcome ?? '-',
      records: dataset ? total(dataset.records) : 0,
      baseline: baseline.records,
      seconds,
      peakRssMiB: peakRssBytes / 1024 / 1024,
      said: said.slice(0, 2).join(' | ').slice(0, 240),
    };
  } finally {
    if (undo) await undo();
    await rm(root, { recursive: true, force: true });
  }
}

const describe = (r: { source: string; location: string; reason: string }) => `${r.source}  ${r.location}: ${r.reason}`;
const describeNote = (n: { source: string; message: string }) => `${n.source}: ${n.message}`;

export function formatHostile(runs: HostileRun[]): string {
  const lines = ['| case | exit | outcome | records (sample) | time | peak RSS | what the report says |', '|---|---|---|---|---|---|---|'];
  for (const run of runs) {
    lines.push(
      `| ${run.id} | ${run.exitCode ?? 'killed'} | ${run.outcome} | ${run.records} (${run.baseline}) | ${run.seconds.toFixed(1)} s | ${Number.isNaN(run.peakRssMiB) ? '-' : `${Math.round(run.peakRssMiB)} MiB`} | ${run.said.replace(/\|/g, '\\|')} |`,
    );
  }
  return lines.join('\n');
}
