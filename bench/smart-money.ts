import { execa } from 'execa';
import { mkdir, mkdtemp, readdir, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ResourceEntry } from '../src/model/manifest.js';
import { FolderStore } from '../src/publish/folder-store.js';
import { bundleSize } from './bundle-size.js';
import { crossCheck, type AnchorCounts } from './smart-money-cross-check.js';
import { type DailyRebuildResult, formatDailyRebuild, measureDailyRebuild } from './daily-rebuild.js';
import { flushDirtyPages, measureProcess, mib, type ProcessMeasurement, seconds } from './measure.js';

const NOW = '2026-11-22T12:00:00.000Z';
/** A quarter before NOW: the sample then holds the quarter before NOW's two (2026 Q1 and Q2, against Q2 and Q3). */
const QUARTER_EARLIER = '2026-08-22T12:00:00.000Z';
const MEMORY_BUDGET = 1024 * 1024 * 1024;

/** What one side of a comparison cost, measured the same way for both (measure.ts). */
export interface RunFigures {
  wallMs: number;
  /** User + system CPU, all threads. */
  cpuMs: number;
  peakRssBytes: number;
  /** What it left on disk: pdsnap's store (the bundle and the derivation cache it keeps for the next build), DuckDB's JSON files. */
  bytesWritten: number;
}

/** pdsnap and its DuckDB twin over the same input, one after the other, and whether they agree. */
export interface Comparison {
  /** `zip`: the data-set ZIPs (both sides inflate them); `tsv`: the same data sets extracted to folders. */
  input: 'zip' | 'tsv';
  pdsnap: RunFigures;
  duckdb: RunFigures;
  snapshotId: string;
  mismatches: string[];
  counts: AnchorCounts;
}

export interface SmartMoneyBenchResult {
  filers: number;
  infotableRows: number;
  generateMs: number;
  investors: number;
  trades: number;
  zip: Comparison;
  tsv: Comparison;
  /** Both builds under the 1 GiB budget. */
  withinBudget: boolean;
  /** Parts of the ZIP build and of the TSV build with different digests (none: the same records). */
  recordDifferences: string[];
  /** The TSV build's bundle: all of it, its canonical NDJSON parts, its serving index. */
  bundle: { bytes: number; ndjsonBytes: number; servingIndexBytes: number };
  /** pdsnap diff between the build and a copy with 1% of trades changed, 1% removed and 1% of investors removed. */
  diff: DiffMeasurement;
  /** pdsnap diff between the build of the quarter before and this one: every record differs. */
  newQuarterDiff: DiffMeasurement;
  /** The days after the TSV build: its inputs unchanged, then a day's EDGAR filings added. */
  daily: DailyRebuildResult;
}

/** The run of median wall time of DIFF_RUNS, and every run's wall time in the order they ran. */
export interface DiffMeasurement {
  wallMs: number;
  cpuMs: number;
  peakRssBytes: number;
  summary: string;
  runsWallMs: number[];
}

/**
 * Runs of each diff. This machine's speed drifts by a quarter within minutes (the same run took
 * 9 s and 13 s an hour apart); a median of three says what a diff costs, and every run is printed.
 */
const DIFF_RUNS = 3;

/**
 * Generates two full-size quarterly Form 13F data sets and compares a Smart Money build (the real
 * CLI, in a child process) with the same derivation in DuckDB (bench/duckdb-smart-money.ts), twice:
 * from the ZIPs, and from the same data sets extracted to folders of TSVs.
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
    const zipSources = path.join(dir, 'zip-sources');
    const zipDatasets = path.join(sources, 'filings', 'datasets');
    await mkdir(path.join(zipSources, 'filings'), { recursive: true });
    await symlink(zipDatasets, path.join(zipSources, 'filings', 'datasets'));
    // The same data sets extracted, as a user who downloaded and unpacked them has them (not timed).
    const tsvSources = path.join(dir, 'tsv-sources');
    const tsvDatasets = path.join(tsvSources, 'filings', 'datasets');
    await mkdir(tsvDatasets, { recursive: true });
    for (const zip of (await readdir(zipDatasets)).filter((name) => name.endsWith('.zip')).sort()) {
      await execa('unzip', ['-q', '-o', path.join(zipDatasets, zip), '-d', tsvDatasets]);
    }

    const zip = await compare('zip', zipSources, zipDatasets);
    const tsv = await compare('tsv', tsvSources, tsvDatasets);
    const zipManifest = (await new FolderStore(path.join(dir, 'store-zip')).openBundle(zip.snapshotId)).manifest;
    const { manifest: tsvManifest, ...bundle } = await bundleSize(path.join(dir, 'store-tsv'), tsv.snapshotId);
    const recordDifferences = partDifferences(zipManifest.files, tsvManifest.files);

    const daily = await measureDailyRebuild(cli, repoRoot, {
      sources: tsvSources,
      edgarFrom: path.join(sources, 'filings', 'edgar'),
      store: path.join(dir, 'store-tsv'),
      builtAt: NOW,
    });
    const newQuarterDiff = await measureNewQuarterDiff(cli, repoRoot, dir, path.join(dir, 'store-zip'), filers);
    process.stderr.write('publishing a changed copy of the snapshot and diffing the two...\n');
    const diff = await measureChangedCopyDiff(cli, repoRoot, path.join(dir, 'store-zip'), zip.snapshotId, NOW);
    return {
      filers,
      infotableRows,
      generateMs: generate.wallMs,
      investors: zip.counts.investors,
      trades: Object.values(zip.counts.trades).reduce((sum, n) => sum + n, 0),
      zip,
      tsv,
      withinBudget: zip.pdsnap.peakRssBytes < MEMORY_BUDGET && tsv.pdsnap.peakRssBytes < MEMORY_BUDGET,
      recordDifferences,
      bundle,
      diff,
      newQuarterDiff,
      daily,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  /** The build over `sourcesDir`, then DuckDB over the same data sets, then the cross-check of the two. */
  async function compare(input: 'zip' | 'tsv', sourcesDir: string, datasetsDir: string): Promise<Comparison> {
    const store = path.join(dir, `store-${input}`);
    process.stderr.write(`building smart-money from the data sets (${input})...\n`);
    await flushDirtyPages();
    const build = await measureProcess('node', smartMoneyBuildArgs(cli, sourcesDir, store, NOW), repoRoot);
    if (build.exitCode !== 0) throw new Error(`build failed (exit ${build.exitCode}): ${build.stderr}\n${build.stdout.slice(0, 2000)}`);
    const snapshotId = JSON.parse(build.stdout).datasets[0].snapshotId as string;
    process.stderr.write(`the same derivation in DuckDB (2 threads, ${input})...\n`);
    const work = path.join(dir, `duckdb-${input}`);
    await flushDirtyPages();
    const anchor = await measureProcess(
      'node',
      [path.join(repoRoot, 'dist/bench/duckdb-smart-money.js'), datasetsDir, work, NOW, input],
      repoRoot,
    );
    if (anchor.exitCode !== 0) throw new Error(`DuckDB derivation failed (exit ${anchor.exitCode}): ${anchor.stderr}`);
    const counts = JSON.parse(anchor.stdout) as AnchorCounts;
    const mismatches = await crossCheck(new FolderStore(store), snapshotId, counts);
    return {
      input,
      pdsnap: { ...figures(build), bytesWritten: await folderBytes(store) },
      duckdb: { ...figures(anchor), bytesWritten: await folderBytes(path.join(work, 'out')) },
      snapshotId,
      mismatches,
      counts,
    };
  }
}

/** `pdsnap build` of every filer's Smart Money from `sources` into `store` at `now`, its report on stdout. */
function smartMoneyBuildArgs(cli: string, sources: string, store: string, now: string): string[] {
  return [
    cli,
    'build',
    '--datasets',
    'smart-money',
    '--all-filers',
    '--sources',
    sources,
    '--store',
    store,
    '--now',
    now,
    '--json',
    '--quiet',
  ];
}

function figures(run: ProcessMeasurement): Omit<RunFigures, 'bytesWritten'> {
  return { wallMs: run.wallMs, cpuMs: run.cpuMs, peakRssBytes: run.peakRssBytes };
}

/** Bytes of every file under a folder. */
async function folderBytes(folder: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return bytes;
}

/** Parts listed differently by two manifests of the same records. */
function partDifferences(a: readonly ResourceEntry[], b: readonly ResourceEntry[]): string[] {
  const key = (file: ResourceEntry) => `${file.path} ${file.bytes} ${file.sha256}`;
  const theirs = new Set(b.map(key));
  const ours = new Set(a.map(key));
  return [...a.filter((file) => !theirs.has(key(file))), ...b.filter((file) => !ours.has(key(file)))].map((file) => file.path);
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
  const build = await measureProcess('node', smartMoneyBuildArgs(cli, only, quarterStore, QUARTER_EARLIER), repoRoot);
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

/**
 * `pdsnap diff smart-money --json` (previous -> current) in a child process, DIFF_RUNS times: wall,
 * CPU and peak RSS of the median run, and what it found (the same every run, or this throws).
 */
async function measureDiff(cli: string, repoRoot: string, store: string): Promise<DiffMeasurement> {
  await flushDirtyPages();
  const runs: Omit<DiffMeasurement, 'runsWallMs'>[] = [];
  for (let run = 0; run < DIFF_RUNS; run += 1) {
    const diff = await measureProcess('node', [cli, 'diff', 'smart-money', '--store', store, '--json'], repoRoot);
    if (diff.exitCode !== 0) throw new Error(`diff failed (exit ${diff.exitCode}): ${diff.stderr}`);
    const resources = JSON.parse(diff.stdout).resources as Array<Record<string, number | string>>;
    const summary = resources.map((r) => `${r.resource} ${r.before}->${r.after}: +${r.added} -${r.removed} ~${r.changed}`).join('; ');
    if (runs.length > 0 && summary !== runs[0]!.summary)
      throw new Error(`two runs of the same diff disagree:\n${runs[0]!.summary}\n${summary}`);
    runs.push({ wallMs: diff.wallMs, cpuMs: diff.cpuMs, peakRssBytes: diff.peakRssBytes, summary });
  }
  const median = [...runs].sort((a, b) => a.wallMs - b.wallMs)[Math.floor(DIFF_RUNS / 2)]!;
  return { ...median, runsWallMs: runs.map((run) => run.wallMs) };
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
    `  published           ${r.investors} investors, ${r.trades} trade rows`,
    `  records             ${r.recordDifferences.length === 0 ? 'the same parts from ZIPs and from TSV folders' : `DIFFER between the ZIP and the TSV build: ${r.recordDifferences.join(', ')}`}`,
    `  bundle              ${mib(r.bundle.bytes)}: NDJSON parts ${mib(r.bundle.ndjsonBytes)}, serving index ${mib(r.bundle.servingIndexBytes)} (${(r.bundle.bytes / r.bundle.ndjsonBytes).toFixed(2)}x the NDJSON; target at most 1.15x)`,
    formatComparison(r.zip, 'the data-set ZIPs (DuckDB unzips them, numbers rows over the whole table)', { time: 1.0, memory: 0.6 }),
    formatComparison(r.tsv, 'the extracted TSV folders (DuckDB reads them typed, projected, no window over the whole table)', {
      time: 1.0,
      stretch: 0.7,
      memory: 0.3,
    }),
    `  build peak RSS budget 1024 MiB: ${r.withinBudget ? 'within' : 'EXCEEDED'}`,
    formatDiff('diff, changed copy', r.diff),
    formatDiff('diff, new quarter', r.newQuarterDiff),
    formatDailyRebuild(r.daily),
  ].join('\n');
}

function formatDiff(name: string, d: DiffMeasurement): string {
  return [
    `  ${name.padEnd(19)} ${seconds(d.wallMs)} wall, ${seconds(d.cpuMs)} CPU, peak RSS ${mib(d.peakRssBytes)} (goals 10 s, 300 MiB); median of ${d.runsWallMs.length} runs: ${d.runsWallMs.map(seconds).join(', ')}`,
    `                      ${d.summary}`,
  ].join('\n');
}

function formatComparison(c: Comparison, what: string, targets: { time: number; stretch?: number; memory: number }): string {
  const row = (name: string, f: RunFigures) =>
    `    ${name.padEnd(7)} ${seconds(f.wallMs).padStart(8)} ${seconds(f.cpuMs).padStart(8)} ${mib(f.peakRssBytes).padStart(10)} ${mib(f.bytesWritten).padStart(10)}`;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  const stretch = targets.stretch === undefined ? '' : `, stretch ${targets.stretch.toFixed(1)}x`;
  return [
    `  from ${what}`,
    `    ${''.padEnd(7)} ${'wall'.padStart(8)} ${'CPU'.padStart(8)} ${'peak RSS'.padStart(10)} ${'written'.padStart(10)}`,
    row('pdsnap', c.pdsnap),
    row('DuckDB', c.duckdb),
    `    pdsnap/DuckDB: wall ${ratio(c.pdsnap.wallMs, c.duckdb.wallMs)} (target at most ${targets.time.toFixed(1)}x${stretch}), CPU ${ratio(c.pdsnap.cpuMs, c.duckdb.cpuMs)}, peak RSS ${ratio(c.pdsnap.peakRssBytes, c.duckdb.peakRssBytes)} (target at most ${targets.memory.toFixed(1)}x)`,
    `    cross-check ${c.mismatches.length === 0 ? `agree: ${c.counts.consensus.length} consensus rows, trades ${JSON.stringify(c.counts.trades)}, ${c.counts.investors} investors, ${c.counts.positionsShown} positions shown` : `MISMATCH: ${c.mismatches.join('; ')}`}`,
  ].join('\n');
}
