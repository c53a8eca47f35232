import { Command } from 'commander';
import { withPathDefaults } from '../path-options.js';
import { parseOptions } from '../options.js';
import { DurationOption } from '../options.js';
import { validateStore } from '../pipeline/validate.js';
import { emitReport, ValidateOptions, withValidateOptions } from '../validate-options.js';

const DEFAULT_MIN_REMAINING = '24h';

const GateOptions = ValidateOptions.extend({ minRemaining: DurationOption(DEFAULT_MIN_REMAINING) });

/**
 * The pre-deploy check: everything validate checks, plus `gate.min-remaining` per dataset, which
 * fails unless the snapshot stays fresh until at least now + DUR (freshUntil >= now + DUR).
 */
export function gateCommand(): Command {
  return withValidateOptions(
    new Command('gate').description(
      'validate, and fail unless every dataset stays fresh for at least --min-remaining (the pre-deploy check)',
    ),
  )
    .option('--min-remaining <dur>', `every snapshot must stay fresh at least this long (default ${DEFAULT_MIN_REMAINING})`)
    .action(async (raw: Record<string, unknown>) => {
      const options = parseOptions(GateOptions, await withPathDefaults(raw, ['store']));
      const report = await validateStore('gate', options, raw.datasets !== undefined, options.minRemaining);
      await emitReport(report, options);
    });
}
