import { Command } from 'commander';
import { z } from 'zod';
import { loadConfig } from '../config.js';
import { ExitCode, ExitWith, UsageError } from '../errors.js';
import { DatasetsOption, DEFAULT_SOURCES, DEFAULT_STORE, DirOption, NowOption, parseOptions, StoreOption, STORE_HELP } from '../options.js';
import { withPathDefaults } from '../path-options.js';
import { buildMarkdown } from '../markdown.js';
import { FormatOption, formatTable, printJson, printLine, printStatusLines } from '../output.js';
import { type BuildReport, runBuild } from '../pipeline/build.js';
import { stderrProgress } from '../progress.js';
import { refuseFutureNow } from '../future-now.js';
import { noteLines } from '../note-lines.js';
import { writeReportFile } from '../report-file.js';
import { requireExisting } from '../required-path.js';
import { escapeControl } from '../../lib/terminal-text.js';
import { boundHeapGrowth } from '../../lib/heap-growth.js';
import { wholeNumberFromEnv } from '../../lib/env-number.js';
import { isBucketLocation } from '../../publish/s3-location.js';
import { type KeyedCache, KeyedFileCache, NO_CACHE } from '../../lib/keyed-file-cache.js';
import path from 'node:path';

const Options = z.object({
  datasets: DatasetsOption,
  sources: DirOption(DEFAULT_SOURCES),
  store: StoreOption(DEFAULT_STORE),
  now: NowOption,
  config: z.string().optional(),
  strict: z.boolean().default(false),
  allowStale: z.boolean().default(false),
  allFilers: z.boolean().default(false),
  acceptDrift: z.string().trim().min(1, 'give the reason, e.g. --accept-drift "Q3 filings replace Q2"').optional(),
  promote: z.boolean().default(true),
  format: FormatOption,
  allowFutureNow: z.boolean().default(false),
  /** A folder, or false with --no-cache; absent: the store's own cache/ when it is a folder. */
  cache: z.union([z.string().min(1), z.literal(false)]).optional(),
  failOn: z.enum(['failed', 'rejected'], { error: 'expected "failed" (the default) or "rejected"' }).default('failed'),
  output: z.string().optional(),
  json: z.boolean().default(false),
  quiet: z.boolean().default(false),
  verbose: z.boolean().default(false),
});

export function buildCommand(): Command {
  return new Command('build')
    .description('ingest, derive, validate and publish snapshots of the datasets')
    .option('--datasets <list>', 'comma-separated: articles,calendar,smart-money (default: all)')
    .option('--sources <dir>', `source tree (default ${DEFAULT_SOURCES})`)
    .option('--store <dir|s3-url>', STORE_HELP)
    .option('--now <iso>', 'the build instant: generatedAt and the freshness clock (default: the clock)')
    .option('--config <file>', 'freshness limits overrides (default: pdsnap.config.yaml when present)')
    .option('--strict', 'fail a dataset when any source record is rejected')
    .option('--allow-stale', 'publish a snapshot that fails freshness; recorded in its manifest')
    .option('--all-filers', 'publish every 13F filer, not only those in filings/investors.yaml')
    .option('--accept-drift <reason>', 'publish although drift checks fail; the reason and the figures are recorded in the manifest')
    .option('--no-promote', 'publish candidates without moving the current pointers (then pdsnap diff, pdsnap promote)')
    .option('--format <format>', 'text (default) or markdown')
    .option('--cache <dir>', 'the derivation cache (default: cache/ in a folder store; none for a bucket unless named)')
    .option('--no-cache', 'derive everything again, and keep nothing for the next build')
    .option('--allow-future-now', 'accept a --now ahead of the clock, into a --store named on the command line (rebuilding history)')
    .option(
      '--fail-on <what>',
      'failed (default): exit 2 when a dataset is not published; rejected: also exit 1 when source records were rejected',
    )
    .option('--output <file>', 'also write the JSON report to this file')
    .option('--json', 'print one JSON object to stdout')
    .option('--quiet', 'no progress on stderr')
    .option('--verbose', 'list every rejection and every note in the readable report')
    .action(async (raw) => {
      const options = parseOptions(Options, await withPathDefaults(raw, ['sources', 'store']));
      refuseFutureNow(options.now, { allowFutureNow: options.allowFutureNow, storeOnCommandLine: raw.store as string | undefined });
      await requireExisting(options.sources, 'folder', '--sources', 'name the folder that holds articles/, calendar/ and filings/');
      const config = await loadConfig(options.config);
      asUsageError(boundHeapGrowth);
      const report = await runBuild({
        sourcesDir: options.sources,
        storeDir: options.store,
        now: options.now,
        datasets: options.datasets,
        strict: options.strict,
        allowStale: options.allowStale,
        allFilers: options.allFilers,
        limits: config.limits,
        drift: config.drift,
        acceptDrift: options.acceptDrift ?? null,
        promote: options.promote,
        progress: stderrProgress(options.quiet || options.json),
        ingestThreads: asUsageError(ingestThreadsFromEnv),
        cache: derivationCache(options.cache, options.store),
        deriveThreads: asUsageError(deriveThreadsFromEnv),
      });
      if (options.output !== undefined) await writeReportFile(options.output, report);
      if (options.json) printJson(report);
      else if (options.format === 'markdown') process.stdout.write(buildMarkdown(report));
      else printBuildSummary(report, options.verbose);
      if (report.datasets.some((d) => d.outcome === 'error')) throw new ExitWith(ExitCode.error);
      if (!report.ok) throw new ExitWith(ExitCode.fail);
      // docs/spec.md, Exit codes: rejected records alone never fail a build unless asked to.
      if (options.failOn === 'rejected' && rejectedCount(report) > 0) throw new ExitWith(ExitCode.warn);
    });
}

/**
 * The derivation cache: --cache DIR, or cache/ inside a folder store (which list, gc and sync leave
 * alone); a bucket store has none unless one is named (a CI runner restores it with its cache
 * step). Bounded by PDSNAP_CACHE_MAX_MB (default 4096), least recently used entries first.
 */
function derivationCache(given: string | false | undefined, store: string): KeyedCache {
  if (given === false) return NO_CACHE;
  const dir = given !== undefined ? path.resolve(given) : isBucketLocation(store) ? null : path.join(store, 'cache');
  if (dir === null) return NO_CACHE;
  const megabytes = asUsageError(
    () => wholeNumberFromEnv(process.env, 'PDSNAP_CACHE_MAX_MB', 'a whole number of megabytes, at least 1', (value) => value >= 1) ?? 4096,
  );
  return new KeyedFileCache(dir, megabytes * 1024 * 1024);
}

/**
 * PDSNAP_DERIVE_THREADS: worker threads that derive, check and serialize Smart Money investors; 0
 * does it on the main thread. Unset: one per core, for a build of enough investors to be worth it.
 */
function deriveThreadsFromEnv(): number | undefined {
  return wholeNumberFromEnv(process.env, 'PDSNAP_DERIVE_THREADS', 'a whole number from 0 to 64', (value) => value >= 0 && value <= 64);
}

/** PDSNAP_INGEST_THREADS: Form 13F data sets read at once in worker threads; 0 reads them one after the other. */
function ingestThreadsFromEnv(): number | undefined {
  return wholeNumberFromEnv(process.env, 'PDSNAP_INGEST_THREADS', 'a whole number from 0 to 64', (value) => value >= 0 && value <= 64);
}

/** A setting from the environment; a value it refuses is a usage error (exit 3), naming the variable. */
function asUsageError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function rejectedCount(report: BuildReport): number {
  return report.datasets.reduce((sum, d) => sum + d.rejected.length, 0);
}

function printBuildSummary(report: BuildReport, verbose: boolean): void {
  printLine(`pdsnap build at ${report.now}`);
  printLine(`  sources ${report.sources}`);
  printLine(`  store   ${report.store}`);
  printLine('');
  printLine(
    formatTable(
      ['dataset', 'outcome', 'snapshot', 'records', 'rejected', 'fresh until'],
      report.datasets.map((d) => [
        d.dataset,
        d.candidate ? 'candidate' : d.outcome === 'published' && !d.published ? 'current' : d.outcome,
        d.snapshotId ?? '-',
        Object.entries(d.records)
          .map(([name, n]) => `${name.replace('.json', '')}=${n}`)
          .join(' ') || '-',
        String(d.rejected.length),
        d.freshUntil ?? '-',
      ]),
    ),
  );
  for (const d of report.datasets) {
    // Source text (paths, locations, reasons, filer names) is escaped: it may hold control characters.
    if (d.reason)
      printLine(`\n${d.dataset}: ${d.outcome === 'failed' || d.outcome === 'error' ? 'FAILED: ' : ''}${escapeControl(d.reason)}`);
    const drift = d.drift.filter((r) => r.status !== 'pass' || r.rule === 'drift.baseline');
    if (drift.length > 0) {
      printLine(`\n${d.dataset}: drift against ${d.driftBaseline ?? 'nothing'}:`);
      for (const r of drift) printLine(`  ${r.status.toUpperCase()}  ${r.rule}: ${r.message}`);
    }
    if (d.rejected.length > 0) {
      printLine(`\n${d.dataset}: ${d.rejected.length} source record(s) rejected:`);
      printSome(
        d.rejected.map((r) => `  ${escapeControl(`${r.source}  ${r.location}: ${r.reason}`)}`),
        verbose ? Infinity : SHOWN_REJECTIONS,
      );
    }
    if (d.notes.length > 0) {
      const { routine, exceptions } = noteLines(d.notes, verbose);
      printLine(`\n${d.dataset}: ${d.notes.length} note(s):`);
      for (const line of routine) printLine(`  ${escapeControl(line)}`);
      printSome(
        exceptions.map((line) => `  ${escapeControl(line)}`),
        verbose ? Infinity : SHOWN_NOTES,
      );
    }
  }
  const failed = report.datasets.filter((d) => d.outcome === 'failed' || d.outcome === 'error').length;
  const rejected = rejectedCount(report);
  printLine('');
  printStatusLines(
    failed > 0
      ? `FAILED: ${failed} of ${report.datasets.length} dataset(s) not published; what was published before is unchanged`
      : rejected > 0
        ? `OK with ${rejected} rejected record(s): ${report.datasets.length} dataset(s) built`
        : `OK: ${report.datasets.length} dataset(s) built`,
  );
}

/** The readable summary stays readable at full scale; --json always lists everything. */
const SHOWN_REJECTIONS = 50;
const SHOWN_NOTES = 12;

function printSome(lines: string[], limit: number): void {
  for (const line of lines.slice(0, limit)) printLine(line);
  if (lines.length > limit) printLine(`  ... and ${lines.length - limit} more (pdsnap build --verbose or --json lists them all)`);
}
