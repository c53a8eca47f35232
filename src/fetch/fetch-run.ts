import { stat } from 'node:fs/promises';
import path from 'node:path';
import { type FetchLedger, readFetchLedger } from '../ingest/fetch-ledger.js';
import { parseInvestorRegistry } from '../ingest/filings/investor-registry.js';
import { loadSource, UnreadableSource } from '../ingest/source-files.js';
import { formatBytes } from '../lib/byte-size.js';
import { decodeSourceText } from '../ingest/source-text.js';
import { withFileLock, LockError } from '../lib/file-lock.js';
import type { DatasetName } from '../model/dataset.js';
import type { Progress } from '../model/progress.js';
import { hostKey } from './address-guard.js';
import type { DownloadCaps } from './atomic-download.js';
import { submissionIsWhole } from './content-checks.js';
import {
  filingsToFetch,
  FORM_13F_TYPES,
  form13fDatasetTarget,
  formIndexTarget,
  indexQuarters,
  quarterName,
  submissionTarget,
} from './edgar-plan.js';
import { FetchConfigError } from './fetch-errors.js';
import type { FetchedSource, FetchOutcome, FetchReport } from './fetch-report.js';
import type { FetchTarget } from './fetch-target.js';
import { type FetchContext, fetchTarget } from './fetcher.js';
import { feedTargets } from './feed-targets.js';
import { FormIndexError, type FormIndexRow, readFormIndexFile } from './form-index.js';
import { createHttpClient, type HttpTimeouts } from './http-client.js';
import { LedgerWriter } from './ledger-writer.js';
import { readSecSettings, type SecSettings } from './sec-settings.js';
import { SecTraffic, WaitBudget } from './sec-traffic.js';
import { REAL_TIMER, type Timer } from './timer.js';
import { inPool } from '../lib/in-pool.js';

export interface FetchRunOptions {
  sourcesRoot: string;
  now: Date;
  datasets: DatasetName[];
  /** --filers; undefined: tracked when filings/investors.yaml exists, else all. */
  filers: 'tracked' | 'all' | undefined;
  /** `fetch.form13fDatasets` of the config file. */
  form13fDatasets: string[];
  maxWaitMs: number;
  dryRun: boolean;
  caps: DownloadCaps;
  timeouts: HttpTimeouts;
  retries: number;
  env: NodeJS.ProcessEnv;
  /** The User-Agent of requests to anyone but SEC (`pdsnap/<version>`), unless a source sets its own. */
  userAgent: string;
  wallClock: () => Date;
  progress: Progress;
  timer?: Timer;
}

/** Feeds and exports fetched at once: a handful of hosts, none of them SEC. */
const FEED_CONCURRENCY = 4;
const REGISTRY_FILE = 'filings/investors.yaml';
/** The lock that keeps two runs of fetch from writing the same sources (a dot: build never reads it). */
const LOCK_FOLDER = '.fetch.lock';

/**
 * `pdsnap fetch` (docs/sources-fetch.md): reads the configuration whole before any request (an
 * error there is a FetchConfigError), then brings every file up to date. One source failing never
 * stops the others; the report says what became of each.
 */
export async function runFetch(options: FetchRunOptions): Promise<FetchReport> {
  const plan = await planFetch(options);
  if (options.dryRun) return dryRunReport(options, plan);
  try {
    return await withFileLock(path.join(options.sourcesRoot, LOCK_FOLDER), { waitMs: 0 }, () => fetchPlanned(options, plan));
  } catch (error) {
    if (error instanceof LockError && error.holder !== undefined) {
      throw new FetchConfigError(
        `another pdsnap fetch (pid ${error.holder.pid} on ${error.holder.host}, since ${error.holder.startedAt}) is fetching into ${options.sourcesRoot}; run again once it is done`,
      );
    }
    throw error;
  }
}

interface Plan {
  sec: SecSettings | null;
  filers: 'tracked' | 'all';
  /** The registry's CIKs with --filers tracked; null: every filer. */
  trackedCiks: ReadonlySet<string> | null;
  feeds: FetchTarget[];
  notes: string[];
}

/** Everything that can be wrong before a request is made; throws FetchConfigError. */
async function planFetch(options: FetchRunOptions): Promise<Plan> {
  const notes: string[] = [];
  const smartMoney = options.datasets.includes('smart-money');
  const sec = smartMoney ? readSecSettings(options.env) : null;
  let filers: 'tracked' | 'all' = 'all';
  let trackedCiks: ReadonlySet<string> | null = null;
  if (smartMoney) {
    const registry = await readRegistryCiks(options.sourcesRoot, notes);
    if (options.filers === 'tracked' && registry === null) {
      throw new FetchConfigError(
        `--filers tracked fetches the investors of ${REGISTRY_FILE}, and there is no such file under ${options.sourcesRoot}`,
      );
    }
    filers = options.filers ?? (registry === null ? 'all' : 'tracked');
    trackedCiks = filers === 'tracked' ? registry : null;
  }
  const feeds = await feedTargets(options.sourcesRoot, options.datasets, options.env);
  notes.push(...feeds.notes);
  return { sec, filers, trackedCiks, feeds: feeds.targets, notes };
}

/** The CIKs of filings/investors.yaml, read as build reads it; null when there is no registry. */
async function readRegistryCiks(sourcesRoot: string, notes: string[]): Promise<Set<string> | null> {
  let text: string;
  try {
    const loaded = await loadSource(sourcesRoot, path.join(sourcesRoot, REGISTRY_FILE));
    const decoded = decodeSourceText(loaded.content);
    if (!decoded.ok) throw new FetchConfigError(`${REGISTRY_FILE}: ${decoded.reason}`);
    text = decoded.text;
  } catch (error) {
    if (error instanceof UnreadableSource && / \(ENOENT\)$/.test(error.reason)) return null;
    if (error instanceof UnreadableSource) throw new FetchConfigError(error.message);
    throw error;
  }
  try {
    const { entries, rejections } = parseInvestorRegistry(text, REGISTRY_FILE);
    for (const r of rejections) notes.push(`${r.source} ${r.location}: ${r.reason}; its filings are not fetched`);
    return new Set(entries.map((entry) => entry.cik));
  } catch (error) {
    if (error instanceof UnreadableSource) throw new FetchConfigError(error.message);
    throw error;
  }
}

async function fetchPlanned(options: FetchRunOptions, plan: Plan): Promise<FetchReport> {
  const timer = options.timer ?? REAL_TIMER;
  const trusted = new Set(
    [...(plan.sec ? [plan.sec.baseUrl] : []), ...plan.feeds.map((t) => t.url)].map((url) => hostKey(new URL(url).hostname)),
  );
  const budget = new WaitBudget(options.maxWaitMs);
  const ledger = await readFetchLedger(options.sourcesRoot);
  const ctx: FetchContext = {
    sourcesRoot: options.sourcesRoot,
    client: createHttpClient(trusted, options.timeouts, options.env),
    trusted,
    sec: plan.sec ? new SecTraffic(plan.sec.baseUrl, plan.sec.maxRps, timer, budget) : null,
    budget,
    timer,
    wallClock: options.wallClock,
    caps: options.caps,
    timeouts: options.timeouts,
    retries: options.retries,
    ledger,
    ledgerWriter: new LedgerWriter(options.sourcesRoot),
    userAgent: { sec: plan.sec?.userAgent ?? options.userAgent, other: options.userAgent },
    stats: { requests: 0, bytes: 0 },
  };
  const started = timer.now();
  const files: FetchedSource[] = [];
  const quarters = plan.sec ? indexQuarters(options.now) : [];
  try {
    if (plan.sec !== null) {
      const sec = plan.sec;
      const step = options.progress.step('fetch: EDGAR form indexes', quarters.length);
      const current = quarterName(quarters.at(-1)!);
      const indexes = await inPool(
        quarters.map((q) => formIndexTarget(sec.baseUrl, q, quarterName(q) === current)),
        sec.maxRps,
        async (target) => {
          const result = await fetchTarget(target, ctx);
          step.advance(1);
          return result;
        },
      );
      step.done(`${ctx.stats.requests} request(s)`);
      files.push(...indexes);
      const rows = await filingsOfIndexes(
        options.sourcesRoot,
        indexes.filter((index) => index.sha256 !== null).map((index) => index.path),
        plan.notes,
      );
      const filings = filingsToFetch(rows, plan.trackedCiks).map((row) => submissionTarget(sec.baseUrl, row));
      const { present, missing } = await splitPresent(options.sourcesRoot, filings, ledger);
      const datasets = options.form13fDatasets.map((name) => form13fDatasetTarget(sec.baseUrl, name));
      const secTargets = [...datasets, ...missing];
      const step2 = options.progress.step('fetch: files', secTargets.length + plan.feeds.length);
      const show = () => step2.show?.(progressLine(ctx, timer.now() - started));
      ctx.onRequest = show;
      const run = (target: FetchTarget) =>
        fetchTarget(target, ctx).then((result) => {
          step2.advance(1);
          show();
          return result;
        });
      const [secResults, feedResults] = await Promise.all([inPool(secTargets, sec.maxRps, run), inPool(plan.feeds, FEED_CONCURRENCY, run)]);
      step2.done(progressLine(ctx, timer.now() - started));
      files.push(...secResults.slice(0, datasets.length), ...present, ...secResults.slice(datasets.length), ...feedResults);
    } else {
      const step = options.progress.step('fetch: files', plan.feeds.length);
      files.push(
        ...(await inPool(plan.feeds, FEED_CONCURRENCY, async (target) => {
          const result = await fetchTarget(target, ctx);
          step.advance(1);
          return result;
        })),
      );
      step.done(progressLine(ctx, timer.now() - started));
    }
  } finally {
    await ctx.client.close();
    await ctx.ledgerWriter.close();
  }
  return report(options, plan, files, {
    quarters: quarters.map(quarterName),
    requests: ctx.stats.requests,
    secRequests: ctx.sec?.limiter.started ?? 0,
    highestSecRate: ctx.sec?.limiter.highestRate ?? 0,
    waitedMs: budget.waitedMs,
    bytes: ctx.stats.bytes,
  });
}

/** The 13F rows of the copies of the indexes on disk: fetched now, unchanged, or the last good one of a failed fetch. */
async function filingsOfIndexes(sourcesRoot: string, indexPaths: readonly string[], notes: string[]): Promise<FormIndexRow[]> {
  const rows: FormIndexRow[] = [];
  for (const indexPath of indexPaths) {
    try {
      const read = await readFormIndexFile(path.join(sourcesRoot, indexPath), (form) => FORM_13F_TYPES.has(form));
      rows.push(...read.rows);
      for (const problem of read.problems) notes.push(`${indexPath}, line ${problem.line}: ${problem.reason}; not fetched`);
    } catch (error) {
      if (!(error instanceof FormIndexError)) throw error;
      notes.push(`${indexPath}: ${error.message}; its filings are not fetched`);
    }
  }
  return rows;
}

/**
 * The filings already on disk (a whole full submission, a `.nc`, or a filing folder of the same
 * accession), reported unchanged without a request, and those to fetch. A submission cut short by
 * hand is fetched again.
 */
async function splitPresent(
  sourcesRoot: string,
  filings: FetchTarget[],
  ledger: FetchLedger,
): Promise<{ present: FetchedSource[]; missing: FetchTarget[] }> {
  const present: FetchedSource[] = [];
  const missing: FetchTarget[] = [];
  for (const target of filings) {
    const file = path.join(sourcesRoot, target.path);
    const stem = file.replace(/\.txt$/, '');
    const found = await firstPresent([
      { file, whole: () => submissionIsWhole(file) },
      { file: `${stem}.nc`, whole: () => submissionIsWhole(`${stem}.nc`) },
      { file: stem, whole: async () => true },
    ]);
    if (found === null) {
      missing.push(target);
      continue;
    }
    const entry = found.file === file ? ledger.get(target.path)?.findLast((e) => e.bytes === found.bytes) : undefined;
    present.push({
      kind: target.kind,
      url: target.url,
      path: target.path,
      outcome: 'unchanged',
      status: null,
      bytes: found.file === stem ? null : found.bytes,
      sha256: entry?.sha256 ?? null,
      reason: found.file === file ? null : `on disk as ${path.relative(sourcesRoot, found.file).split(path.sep).join('/')}`,
    });
  }
  return { present, missing };
}

async function firstPresent(
  candidates: { file: string; whole: () => Promise<boolean> }[],
): Promise<{ file: string; bytes: number } | null> {
  for (const candidate of candidates) {
    try {
      const info = await stat(candidate.file);
      if ((info.isFile() || info.isDirectory()) && (await candidate.whole())) return { file: candidate.file, bytes: info.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return null;
}

/** `--dry-run`: what a run would ask for, from the configuration and the copies of the indexes on disk; no request. */
async function dryRunReport(options: FetchRunOptions, plan: Plan): Promise<FetchReport> {
  const skipped = (target: FetchTarget): FetchedSource => ({
    kind: target.kind,
    url: target.url,
    path: target.path,
    outcome: 'skipped',
    status: null,
    bytes: null,
    sha256: null,
    reason: 'dry run',
  });
  const files: FetchedSource[] = [];
  const quarters = plan.sec ? indexQuarters(options.now) : [];
  if (plan.sec !== null) {
    const sec = plan.sec;
    const indexes = quarters.map((q) => formIndexTarget(sec.baseUrl, q, false));
    const onDisk: string[] = [];
    for (const index of indexes) if (await exists(path.join(options.sourcesRoot, index.path))) onDisk.push(index.path);
    const rows = await filingsOfIndexes(options.sourcesRoot, onDisk, plan.notes);
    const filings = filingsToFetch(rows, plan.trackedCiks).map((row) => submissionTarget(sec.baseUrl, row));
    const { present, missing } = await splitPresent(options.sourcesRoot, filings, await readFetchLedger(options.sourcesRoot));
    files.push(
      ...indexes.map(skipped),
      ...options.form13fDatasets.map((name) => skipped(form13fDatasetTarget(sec.baseUrl, name))),
      ...present,
      ...missing.map(skipped),
    );
    if (indexes.length > 0)
      plan.notes.push('dry run: the filings listed are those of the copies of the form indexes on disk; a run reads the indexes first');
  }
  files.push(...plan.feeds.map(skipped));
  return report(options, plan, files, {
    quarters: quarters.map(quarterName),
    requests: 0,
    secRequests: 0,
    highestSecRate: 0,
    waitedMs: 0,
    bytes: 0,
  });
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

interface RunFigures {
  quarters: string[];
  requests: number;
  secRequests: number;
  highestSecRate: number;
  waitedMs: number;
  bytes: number;
}

function report(options: FetchRunOptions, plan: Plan, files: FetchedSource[], figures: RunFigures): FetchReport {
  const counts: Record<FetchOutcome, number> = { fetched: 0, unchanged: 0, failed: 0, skipped: 0 };
  for (const file of files) counts[file.outcome] += 1;
  return {
    ok: counts.failed === 0,
    now: options.now.toISOString(),
    sources: options.sourcesRoot,
    dryRun: options.dryRun,
    datasets: options.datasets,
    sec: plan.sec
      ? {
          url: plan.sec.baseUrl,
          maxRps: plan.sec.maxRps,
          filers: plan.filers,
          quarters: figures.quarters,
          requests: figures.secRequests,
          highestRate: figures.highestSecRate,
          waitedMs: figures.waitedMs,
        }
      : null,
    requests: figures.requests,
    highestSecRate: figures.highestSecRate,
    bytes: figures.bytes,
    counts,
    notes: plan.notes,
    files,
  };
}

function progressLine(ctx: FetchContext, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (ctx.stats.requests * 1000) / elapsedMs : 0;
  return `${ctx.stats.requests} requests, ${formatBytes(ctx.stats.bytes)}, ${rate.toFixed(1)} req/s`;
}
