import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FolderStore } from '../src/publish/folder-store.js';
import { crossCheck, type AnchorCounts } from './smart-money-cross-check.js';
import { measureProcess, mib, seconds } from './measure.js';

const NOW = '2026-11-22T12:00:00.000Z';
/** A quarter before NOW: the sample then holds the quarter before NOW's two (2026 Q1 and Q2, against Q2 and Q3). */
const QUARTER_EARLIER = '2026-08-22T12:00:00.000Z';
const MEMORY_BUDGET = 1024 * 1024 * 1024;

export interface SmartMoneyBenchResult {
  filers: number;
  infotableRows: number;
  generateMs: number;
  buildMs: number;
  peakRssBytes: number;
  investors: number;
  trades: number;
  withinBudget: boolean;
  /** The same derivation in DuckDB SQL, in the same run, and whether its outputs agree with pdsnap's. */
  duckdb: { wallMs: number; peakRssBytes: number; mismatches: string[]; counts: AnchorCounts };
  /** pdsnap diff between the build and a copy with 1% of trades changed, 1% removed and 1% of investors removed. */
  diff: DiffMeasurement;
  /** pdsnap diff between the build of the quarter before and this one: every record differs. */
  newQuarterDiff: DiffMeasurement;
}

export interface DiffMeasurement {
  wallMs: number;
  cpuMs: number;
  peakRssBytes: number;
  summary: string;
}

/**
 * Generates two full-size quarterly Form 13F data sets and times a Smart Money build over them in a
 * child process (the real CLI), recording its peak resident memory.
 */
export async function benchSmartMoney(cli: string, repoRoot: string, filers: number): Promise<SmartMoneyBenchResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-bench-'));
  try {
    const sources = path.join(dir, 'sources');
    process.stderr.write(`generating two Form 13F data sets with ${filers} filers each...\n`);
    const generate = await measureProcess(
      'node',
      [cli, 'sample', '--out', sources, '--now', NOW, '--scale', String(filers), '--json'],
      repoRoot,
    );
    if (generate.exitCode !== 0) throw new Error(`sample failed: ${generate.stderr}`);
    const infotableRows = JSON.parse(generate.stdout).form13fRows as number;
    // Both engines read the same input: the two data sets alone (the sample's few EDGAR filings and
    // its registry are left out, since the SQL reads the data-set TSVs only).
    const form13fSources = path.join(dir, 'datasets-only');
    await mkdir(path.join(form13fSources, 'filings'), { recursive: true });
    await symlink(path.join(sources, 'filings', 'datasets'), path.join(form13fSources, 'filings', 'datasets'));
    process.stderr.write(`building smart-money over ${infotableRows} information-table rows...\n`);
    const build = await measureProcess(
      'node',
      [
        cli,
        'build',
        '--datasets',
        'smart-money',
        '--all-filers',
        '--sources',
        form13fSources,
        '--store',
        path.join(dir, 'store'),
        '--now',
        NOW,
        '--json',
        '--quiet',
      ],
      repoRoot,
    );
    if (build.exitCode !== 0) throw new Error(`build failed (exit ${build.exitCode}): ${build.stderr}\n${build.stdout.slice(0, 2000)}`);
    const report = JSON.parse(build.stdout).datasets[0];
    const store = path.join(dir, 'store');
    process.stderr.write('the same derivation in DuckDB (2 threads)...\n');
    const anchor = await measureProcess(
      'node',
      [path.join(repoRoot, 'dist/bench/duckdb-smart-money.js'), path.join(sources, 'filings', 'datasets'), path.join(dir, 'duckdb'), NOW],
      repoRoot,
    );
    if (anchor.exitCode !== 0) throw new Error(`DuckDB derivation failed (exit ${anchor.exitCode}): ${anchor.stderr}`);
    const counts = JSON.parse(anchor.stdout) as AnchorCounts;
    const mismatches = await crossCheck(new FolderStore(store), report.snapshotId as string, counts);
    const newQuarterDiff = await measureNewQuarterDiff(cli, repoRoot, dir, store, filers);
    process.stderr.write('publishing a changed copy of the snapshot and diffing the two...\n');
    const diff = await measureChangedCopyDiff(cli, repoRoot, store, report.snapshotId as string, NOW);
    return {
      filers,
      infotableRows,
      generateMs: generate.wallMs,
      buildMs: build.wallMs,
      peakRssBytes: build.peakRssBytes,
      investors: report.records.investors,
      trades: report.records.trades,
      withinBudget: build.peakRssBytes < MEMORY_BUDGET,
      duckdb: { wallMs: anchor.wallMs, peakRssBytes: anchor.peakRssBytes, mismatches, counts },
      diff,
      newQuarterDiff,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The diff of a new quarter, as the first build after a quarter's data set arrives: the same
 * sample generated a quarter earlier (its two quarters are the one before NOW's two, same filers and
 * seed) and built into a store of its own, the build at NOW synced into it with the real `sync`, and
 * `pdsnap diff smart-money --json` timed from the one to the other. Every trade differs (its quarter,
 * and most figures), and so does every investor and consensus row.
 */
async function measureNewQuarterDiff(cli: string, repoRoot: string, dir: string, store: string, filers: number): Promise<DiffMeasurement> {
  process.stderr.write('generating and building the same sample a quarter earlier...\n');
  const sources = path.join(dir, 'sources-quarter-earlier');
  const generate = await measureProcess(
    'node',
    [cli, 'sample', '--out', sources, '--now', QUARTER_EARLIER, '--scale', String(filers), '--json'],
    repoRoot,
  );
  if (generate.exitCode !== 0) throw new Error(`sample failed: ${generate.stderr}`);
  const only = path.join(dir, 'datasets-only-quarter-earlier');
  await mkdir(path.join(only, 'filings'), { recursive: true });
  await symlink(path.join(sources, 'filings', 'datasets'), path.join(only, 'filings', 'datasets'));
  const quarterStore = path.join(dir, 'store-new-quarter');
  const build = await measureProcess(
    'node',
    [
      cli,
      'build',
      '--datasets',
      'smart-money',
      '--all-filers',
      '--sources',
      only,
      '--store',
      quarterStore,
      '--now',
      QUARTER_EARLIER,
      '--json',
      '--quiet',
    ],
    repoRoot,
  );
  if (build.exitCode !== 0) throw new Error(`build a quarter earlier failed (exit ${build.exitCode}): ${build.stderr}`);
  const sync = await measureProcess('node', [cli, 'sync', store, quarterStore, '--datasets', 'smart-money', '--json'], repoRoot);
  if (sync.exitCode !== 0) throw new Error(`sync failed (exit ${sync.exitCode}): ${sync.stderr}`);
  process.stderr.write('diffing the quarter before with this one...\n');
  return measureDiff(cli, repoRoot, quarterStore);
}

/**
 * Publishes a changed copy of a Smart Money snapshot (below) and times `pdsnap diff smart-money
 * --json` from the snapshot to the copy in a child process of the real CLI.
 */
export async function measureChangedCopyDiff(
  cli: string,
  repoRoot: string,
  store: string,
  snapshotId: string,
  builtAt: string,
): Promise<DiffMeasurement> {
  await publishChangedCopy(store, snapshotId, builtAt);
  return measureDiff(cli, repoRoot, store);
}

/** `pdsnap diff smart-money --json` (previous -> current) in a child process: wall, CPU, peak RSS and what it found. */
async function measureDiff(cli: string, repoRoot: string, store: string): Promise<DiffMeasurement> {
  const diff = await measureProcess('node', [cli, 'diff', 'smart-money', '--store', store, '--json'], repoRoot);
  if (diff.exitCode !== 0) throw new Error(`diff failed (exit ${diff.exitCode}): ${diff.stderr}`);
  const resources = JSON.parse(diff.stdout).resources as Array<Record<string, number | string>>;
  const summary = resources.map((r) => `${r.resource} ${r.before}->${r.after}: +${r.added} -${r.removed} ~${r.changed}`).join('; ');
  return { wallMs: diff.wallMs, cpuMs: diff.cpuMs, peakRssBytes: diff.peakRssBytes, summary };
}

/**
 * A second snapshot an hour later, made from the first record by record through the real store:
 * every 100th trade's reported value changed, every 100th trade (another one) and investor gone.
 */
async function publishChangedCopy(root: string, snapshotId: string, builtAt: string): Promise<void> {
  const store = new FolderStore(root);
  const bundle = await store.openBundle(snapshotId);
  const generatedAt = new Date(Date.parse(builtAt) + 3_600_000).toISOString();
  const { staged } = await store.stage('smart-money', async (sink) => {
    for (const resource of ['investors', 'consensus', 'trades']) {
      let index = 0;
      for await (const record of bundle.records(resource)) {
        index += 1;
        if (resource !== 'consensus' && index % 100 === 50) continue;
        const r = record as Record<string, unknown>;
        sink.add(resource, resource === 'trades' && index % 100 === 0 ? { ...r, reportedValueAfter: Number(r.reportedValueAfter) + 1 } : r);
      }
    }
  });
  const m = bundle.manifest;
  await store.commit(
    staged,
    { generatedAt, facts: { ...m.facts, generatedAt }, freshUntil: m.freshUntil, allowStale: false, sources: m.sources },
    new Date(generatedAt),
  );
}

export function formatSmartMoney(r: SmartMoneyBenchResult): string {
  return [
    `Smart Money build, 2 quarters x ${r.filers} filers (${r.infotableRows} INFOTABLE rows)`,
    `  generate data sets  ${seconds(r.generateMs)}`,
    `  build wall time     ${seconds(r.buildMs)}`,
    `  build peak RSS      ${mib(r.peakRssBytes)} (budget 1024 MiB: ${r.withinBudget ? 'within' : 'EXCEEDED'})`,
    `  published           ${r.investors} investors, ${r.trades} trade rows`,
    `  DuckDB wall time    ${seconds(r.duckdb.wallMs)} (pdsnap/DuckDB ${(r.buildMs / r.duckdb.wallMs).toFixed(2)}x; target at most 1.0x)`,
    `  DuckDB peak RSS     ${mib(r.duckdb.peakRssBytes)} (pdsnap/DuckDB ${(r.peakRssBytes / r.duckdb.peakRssBytes).toFixed(2)}x; target at most 0.6x)`,
    `  cross-check         ${r.duckdb.mismatches.length === 0 ? `agree: ${r.duckdb.counts.consensus.length} consensus rows, trades ${JSON.stringify(r.duckdb.counts.trades)}, ${r.duckdb.counts.investors} investors, ${r.duckdb.counts.positionsShown} positions shown` : `MISMATCH: ${r.duckdb.mismatches.join('; ')}`}`,
    `  diff, changed copy  ${seconds(r.diff.wallMs)} wall, ${seconds(r.diff.cpuMs)} CPU, peak RSS ${mib(r.diff.peakRssBytes)} (goals 10 s, 300 MiB)`,
    `                      ${r.diff.summary}`,
    `  diff, new quarter   ${seconds(r.newQuarterDiff.wallMs)} wall, ${seconds(r.newQuarterDiff.cpuMs)} CPU, peak RSS ${mib(r.newQuarterDiff.peakRssBytes)} (goals 10 s, 300 MiB)`,
    `                      ${r.newQuarterDiff.summary}`,
  ].join('\n');
}
