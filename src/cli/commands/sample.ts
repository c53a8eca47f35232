import { Command } from 'commander';
import { withPathDefaults } from '../path-options.js';
import { withVerbosityOptions } from '../verbosity.js';
import path from 'node:path';
import { z } from 'zod';
import { isNonEmptyDir, writeSampleSources } from '../../sample/index.js';
import { UsageError } from '../errors.js';
import { NowOption, parseOptions } from '../options.js';
import { printJson, printLine } from '../output.js';

const Options = z.object({
  out: z.string({ message: 'is required' }).transform((p) => path.resolve(p)),
  now: NowOption,
  scale: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of filers, e.g. 3000')
    .transform(Number)
    .refine((n) => n >= 1, 'must be at least 1 filer')
    .optional(),
  force: z.boolean().default(false),
  config: z.string().optional(),
  json: z.boolean().default(false),
});

export function sampleCommand(): Command {
  return withVerbosityOptions(new Command('sample'))
    .description('write a realistic source tree (articles, calendar, 13F filings) dated relative to --now')
    .requiredOption('--out <dir>', 'where to write the sources')
    .option('--now <iso>', 'date the sample relative to this instant (default: the clock)')
    .option('--scale <filers>', 'also write two full-size Form 13F data sets with this many filers each')
    .option('--force', 'replace articles/, calendar/ and filings/ in a non-empty --out')
    .option('--config <file>', 'config file (default: pdsnap.config.yaml when present, or PDSNAP_CONFIG); checked, like every command')
    .option('--json', 'print JSON to stdout')
    .action(async (raw) => {
      // Like every command, a config file that is named but broken stops it (exit 3), never skipped.
      const options = parseOptions(Options, await withPathDefaults(raw, []));
      if (!options.force && (await isNonEmptyDir(options.out))) {
        throw new UsageError(`${options.out} is not empty; pass --force to replace its articles/, calendar/ and filings/`);
      }
      const result = await writeSampleSources(options.out, { now: options.now, scale: options.scale });
      if (options.json) return printJson({ out: options.out, now: options.now.toISOString(), ...result });
      printLine(`wrote sample sources dated ${options.now.toISOString()} to ${options.out}`);
      if (options.scale) printLine(`with two Form 13F data sets, ${result.form13fRows} information-table rows`);
    });
}
