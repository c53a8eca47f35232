import { Command } from 'commander';
import { z } from 'zod';
import { loadConfig } from '../config.js';
import { ExitCode, ExitWith } from '../errors.js';
import { DatasetsOption, DEFAULT_SOURCES, DEFAULT_STORE, DirOption, NowOption, parseOptions } from '../options.js';
import { buildMarkdown } from '../markdown.js';
import { FormatOption, formatTable, printJson, printLine } from '../output.js';
import { type BuildReport, runBuild } from '../pipeline/build.js';
import { stderrProgress } from '../progress.js';

const Options = z.object({
  datasets: DatasetsOption,
  sources: DirOption(DEFAULT_SOURCES),
  store: DirOption(DEFAULT_STORE),
  now: NowOption,
  config: z.string().optional(),
  strict: z.boolean().default(false),
  allowStale: z.boolean().default(false),
  allFilers: z.boolean().default(false),
  acceptDrift: z.string().trim().min(1, 'give the reason, e.g. --accept-drift "Q3 filings replace Q2"').optional(),
  promote: z.boolean().default(true),
  format: FormatOption,
  json: z.boolean().default(false),
  quiet: z.boolean().default(false),
});

export function buildCommand(): Command {
  return new Command('build')
    .description('ingest, derive, validate and publish snapshots of the datasets')
    .option('--datasets <list>', 'comma-separated: articles,calendar,smart-money (default: all)')
    .option('--sources <dir>', `source tree (default ${DEFAULT_SOURCES})`)
    .option('--store <dir>', `bundle store (default ${DEFAULT_STORE})`)
    .option('--now <iso>', 'the build instant: generatedAt and the freshness clock (default: the clock)')
    .option('--config <file>', 'freshness limits overrides (default: pdsnap.config.yaml when present)')
    .option('--strict', 'fail a dataset when any source record is rejected')
    .option('--allow-stale', 'publish a snapshot that fails freshness; recorded in its manifest')
    .option('--all-filers', 'publish every 13F filer, not only those in filings/investors.yaml')
    .option('--accept-drift <reason>', 'publish although drift checks fail; the reason and the figures are recorded in the manifest')
    .option('--no-promote', 'publish candidates without moving the current pointers (then pdsnap diff, pdsnap promote)')
    .option('--format <format>', 'text (default) or markdown')
    .option('--json', 'print one JSON object to stdout')
    .option('--quiet', 'no progress on stderr')
    .action(async (raw) => {
      const options = parseOptions(Options, raw);
      const config = await loadConfig(options.config);
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
      });
      if (options.json) printJson(report);
      else if (options.format === 'markdown') process.stdout.write(buildMarkdown(report));
      else printBuildSummary(report);
      if (report.datasets.some((d) => d.outcome === 'error')) throw new ExitWith(ExitCode.error);
      if (!report.ok) throw new ExitWith(ExitCode.fail);
    });
}

function printBuildSummary(report: BuildReport): void {
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
        Object.entries(d.records).map(([name, n]) => `${name.replace('.json', '')}=${n}`).join(' ') || '-',
        String(d.rejected.length),
        d.freshUntil ?? '-',
      ]),
    ),
  );
  for (const d of report.datasets) {
    if (d.reason) printLine(`\n${d.dataset}: ${d.outcome === 'failed' || d.outcome === 'error' ? 'FAILED: ' : ''}${d.reason}`);
    const drift = d.drift.filter((r) => r.status !== 'pass' || r.rule === 'drift.baseline');
    if (drift.length > 0) {
      printLine(`\n${d.dataset}: drift against ${d.driftBaseline ?? 'nothing'}:`);
      for (const r of drift) printLine(`  ${r.status.toUpperCase()}  ${r.rule}: ${r.message}`);
    }
    if (d.rejected.length > 0) {
      printLine(`\n${d.dataset}: ${d.rejected.length} source record(s) rejected:`);
      printSome(d.rejected.map((r) => `  ${r.source}  ${r.location}: ${r.reason}`), SHOWN_REJECTIONS);
    }
    if (d.notes.length > 0) {
      printLine(`\n${d.dataset}: ${d.notes.length} note(s):`);
      printSome(d.notes.map((n) => `  ${n.source}: ${n.message}`), SHOWN_NOTES);
    }
  }
  const failed = report.datasets.filter((d) => d.outcome === 'failed' || d.outcome === 'error').length;
  printLine('');
  printLine(
    failed === 0
      ? `OK: ${report.datasets.length} dataset(s) built`
      : `FAILED: ${failed} of ${report.datasets.length} dataset(s) not published; what was published before is unchanged`,
  );
}

/** The readable summary stays readable at full scale; --json always lists everything. */
const SHOWN_REJECTIONS = 50;
const SHOWN_NOTES = 12;

function printSome(lines: string[], limit: number): void {
  for (const line of lines.slice(0, limit)) printLine(line);
  if (lines.length > limit) printLine(`  ... and ${lines.length - limit} more (pdsnap build --json lists them all)`);
}
