import { Command } from 'commander';
import { z } from 'zod';
import { clockNow } from '../../lib/clock.js';
import { FetchConfigError } from '../../fetch/fetch-errors.js';
import { runFetch } from '../../fetch/fetch-run.js';
import { loadConfig } from '../config.js';
import { ExitCode, ExitWith, UsageError } from '../errors.js';
import { printFetchSummary } from '../fetch-summary.js';
import { fetchMarkdown } from '../markdown.js';
import { DatasetsOption, DEFAULT_SOURCES, DirOption, DurationOption, NowOption, parseOptions } from '../options.js';
import { FormatOption, printJson } from '../output.js';
import { packageVersion } from '../package-version.js';
import { withPathDefaults } from '../path-options.js';
import { stderrProgress } from '../progress.js';
import { writeReportFile } from '../report-file.js';
import { requireExisting } from '../required-path.js';

const Options = z.object({
  sources: DirOption(DEFAULT_SOURCES),
  datasets: DatasetsOption,
  now: NowOption,
  filers: z.enum(['tracked', 'all'], { error: 'expected "tracked" (the investors of filings/investors.yaml) or "all"' }).optional(),
  maxWait: DurationOption('15m'),
  dryRun: z.boolean().default(false),
  config: z.string().optional(),
  format: FormatOption,
  output: z.string().optional(),
  json: z.boolean().default(false),
  quiet: z.boolean().default(false),
  verbose: z.boolean().default(false),
});

/**
 * `pdsnap fetch`: refreshes the source tree in place from SEC EDGAR, the feeds of
 * articles/sources.yaml and the provider exports whose sidecars name an address
 * (docs/sources-fetch.md). Exit 0: everything fetched or already current; 2: a source could not
 * be fetched (its last good copy kept, named in the report); 3: a usage or configuration error,
 * found before any request.
 */
export function fetchCommand(): Command {
  return new Command('fetch')
    .description('refresh the source tree from SEC EDGAR, licensed feeds and provider exports, into the files build reads')
    .option('--sources <dir>', `source tree to refresh (default ${DEFAULT_SOURCES})`)
    .option('--datasets <list>', 'comma-separated: articles,calendar,smart-money (default: all)')
    .option('--now <iso>', 'the instant that decides which quarters of EDGAR are read (default: the clock)')
    .option('--filers <which>', 'tracked: the CIKs of filings/investors.yaml (the default when it exists); all: every 13F filer')
    .option('--max-wait <duration>', 'how long in all the run may wait when a server asks it to slow down (default 15m)')
    .option('--dry-run', 'say what would be asked for, from the configuration and the indexes on disk; no request, no file written')
    .option('--config <file>', 'config file: fetch.form13fDatasets, limits and timeouts (default: pdsnap.config.yaml when present)')
    .option('--format <format>', 'text (default) or markdown')
    .option('--output <file>', 'also write the JSON report to this file')
    .option('--json', 'print one JSON object to stdout')
    .option('--quiet', 'no progress on stderr')
    .option('--verbose', 'list every file in the readable report')
    .action(async (raw) => {
      const options = parseOptions(Options, await withPathDefaults(raw, ['sources']));
      await requireExisting(options.sources, 'folder', '--sources', 'name the folder that holds articles/, calendar/ and filings/');
      const config = await loadConfig(options.config);
      let report;
      try {
        report = await runFetch({
          sourcesRoot: options.sources,
          now: options.now,
          datasets: options.datasets,
          filers: options.filers,
          form13fDatasets: config.fetch.form13fDatasets,
          maxWaitMs: options.maxWait,
          dryRun: options.dryRun,
          caps: config.fetch.caps,
          timeouts: config.fetch.timeouts,
          retries: config.fetch.retries,
          env: process.env,
          userAgent: `pdsnap/${packageVersion()}`,
          wallClock: clockNow,
          progress: stderrProgress(options.quiet || options.json),
        });
      } catch (error) {
        // Found before any request: the operator's to fix, exit 3.
        if (error instanceof FetchConfigError) throw new UsageError(`fetch: ${error.message}; nothing was fetched`);
        throw error;
      }
      if (options.output !== undefined) await writeReportFile(options.output, report);
      if (options.json) printJson(report);
      else if (options.format === 'markdown') process.stdout.write(fetchMarkdown(report));
      else printFetchSummary(report, options.verbose);
      if (!report.ok) throw new ExitWith(ExitCode.fail);
    });
}
