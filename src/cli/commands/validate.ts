import { Command } from 'commander';
import { parseOptions } from '../options.js';
import { withPathDefaults } from '../path-options.js';
import { validateStore } from '../pipeline/validate.js';
import { emitReport, ValidateOptions, withValidateOptions } from '../validate-options.js';

export function validateCommand(): Command {
  return withValidateOptions(
    new Command('validate').description(
      'check the current snapshots: freshness, digests, JSON Schemas and content rules (exit 0 pass, 1 warn, 2 fail, 3 error)',
    ),
  ).action(async (raw: Record<string, unknown>) => {
    const options = parseOptions(ValidateOptions, await withPathDefaults(raw, ['store']));
    const report = await validateStore('validate', options, raw.datasets !== undefined, null);
    await emitReport(report, options);
  });
}
