import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import type { ValidationReport } from '../validate/report.js';
import { ExitCode, ExitWith, UsageError } from './errors.js';
import { validationMarkdown } from './markdown.js';
import { DatasetsOption, DEFAULT_STORE, DurationOption, NowOption, StoreOption, STORE_HELP } from './options.js';
import { FormatOption, printJson, printStatusLines } from './output.js';
import { reportText } from './report-text.js';

/** What validate and gate share: their options, declared and parsed once, and how their report ends the run. */

const DEFAULT_WARN_WITHIN = '24h';

export const ValidateOptions = z.object({
  store: StoreOption(DEFAULT_STORE),
  now: NowOption,
  warnWithin: DurationOption(DEFAULT_WARN_WITHIN),
  json: z.boolean().default(false),
  format: FormatOption,
  output: z.string().optional(),
  config: z.string().optional(),
  snapshot: z.string().optional(),
  datasets: DatasetsOption,
});
export type ValidateOptions = z.infer<typeof ValidateOptions>;

/** The options validate and gate share, declared once. */
export function withValidateOptions(command: Command): Command {
  return command
    .option('--store <dir|s3-url>', STORE_HELP)
    .option('--now <iso>', 'the instant to judge freshness at (default: the clock)')
    .option('--warn-within <dur>', `warn when a rule fails within this long (default ${DEFAULT_WARN_WITHIN})`)
    .option('--json', 'print the JSON report to stdout instead of the table')
    .option('--format <format>', 'text (default) or markdown (GitHub-flavoured tables, for $GITHUB_STEP_SUMMARY)')
    .option('--output <file>', 'also write the JSON report to this file')
    .option('--config <file>', 'freshness limit overrides (default: pdsnap.config.yaml when present)')
    .option('--snapshot <id>', 'check this snapshot instead of the current ones')
    .option('--datasets <list>', 'comma-separated: articles,calendar,smart-money (default: all)')
    .option('--quiet', 'print only the rules that warn or fail, and the summary line')
    .option('--verbose', 'also print the message of every rule that passes');
}

const EXIT_FOR_STATUS = { pass: ExitCode.ok, warn: ExitCode.warn, fail: ExitCode.fail } as const;

/** Prints the report (table or JSON), writes --output, and ends with 0 pass, 1 warn or 2 fail. */
export async function emitReport(report: ValidationReport, options: Pick<ValidateOptions, 'json' | 'output' | 'format'>): Promise<void> {
  if (options.output !== undefined) {
    const file = path.resolve(options.output);
    try {
      await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    } catch (error) {
      throw new UsageError(
        `--output ${options.output} cannot be written: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  if (options.json) printJson(report);
  else if (options.format === 'markdown') process.stdout.write(validationMarkdown(report));
  else printStatusLines(reportText(report));
  const code = EXIT_FOR_STATUS[report.status];
  if (code !== ExitCode.ok) throw new ExitWith(code);
}
