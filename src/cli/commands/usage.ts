import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { printNotice, withVerbosityOptions } from '../verbosity.js';
import { z } from 'zod';
import type { KeyRecord } from '../../serve/access/key-record.js';
import { DEFAULT_KEYS_FILE, readKeys } from '../../serve/access/key-store.js';
import type { MonthlyUsageRow } from '../../serve/access/state-store.js';
import { usageReport } from '../../serve/access/usage-report.js';
import { DEFAULT_USAGE_DB, UsageStore } from '../../serve/access/usage-store.js';
import { utcMonth } from '../../serve/access/utc-windows.js';
import { UsageError } from '../errors.js';
import { DirOption, NowOption, parseOptions } from '../options.js';
import { withPathDefaults } from '../path-options.js';
import { formatTable, printJson, printLine } from '../output.js';
import { STATE_OPTION_HELP, openStateForCommand, stateLocationOf, userErrors } from '../state-option.js';

const Options = z.object({
  usageDb: DirOption(DEFAULT_USAGE_DB),
  keys: DirOption(DEFAULT_KEYS_FILE),
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected a month as YYYY-MM, e.g. 2026-11')
    .optional(),
  now: NowOption,
  state: z.string().optional(),
  config: z.string().optional(),
  json: z.boolean().default(false),
});

export function usageCommand(): Command {
  return withVerbosityOptions(new Command('usage'))
    .description('requests, overage and billable amount per API key for one UTC month')
    .option('--usage-db <file>', `usage database of pdsnap serve (default ${DEFAULT_USAGE_DB})`)
    .option('--keys <file>', `keys file, for key names (default ${DEFAULT_KEYS_FILE})`)
    .option('--state <file|redis-url>', STATE_OPTION_HELP)
    .option('--config <file>', 'config file with paths (default: pdsnap.config.yaml when present, or PDSNAP_CONFIG)')
    .option('--month <YYYY-MM>', 'UTC month to report (default: the month of --now)')
    .option('--now <iso>', 'the current instant (default: the clock)')
    .option('--json', 'print JSON to stdout')
    .action(async (raw) => {
      const filled = await withPathDefaults(raw, ['keys', 'usageDb']);
      const options = parseOptions(Options, filled);
      const month = options.month ?? utcMonth(options.now);
      const fileOptions = (['keys', 'usageDb'] as const)
        .filter((o) => raw[o] !== undefined)
        .map((o) => (o === 'keys' ? '--keys' : '--usage-db'));
      const location = stateLocationOf(options.state, fileOptions);
      let source: { usageDb: string } | { state: string };
      let keys: KeyRecord[];
      let rows: MonthlyUsageRow[];
      if (location.kind === 'file') {
        source = { usageDb: options.usageDb };
        keys = await userErrors(() => readKeys(options.keys));
        rows = readMonthlyUsage(options.usageDb, month, filled.usageDb !== undefined);
      } else {
        const opened = await openStateForCommand(location, { keysFile: options.keys, usageDbFile: options.usageDb });
        try {
          source = { state: opened.store.description };
          [keys, rows] = await userErrors(() => Promise.all([opened.store.keys.list(), opened.store.usage.monthlyUsage(month)]));
        } finally {
          await opened.store.close();
        }
      }
      const report = usageReport(month, rows, keys);
      if (options.json) return printJson({ ...source, ...report });
      if (report.keys.length === 0) return printLine(`no keys and no usage for ${month}`);
      printLine(`usage for ${month} (UTC)`);
      printLine(
        formatTable(
          ['key', 'name', 'tier', 'requests', 'included', 'overage', 'billable USD', 'hard cap', 'refused (429)'],
          report.keys.map((k) => [
            k.keyId + (k.revoked ? ' (revoked)' : ''),
            k.name ?? '(no such key)',
            k.tier,
            String(k.requests),
            String(k.included),
            String(k.overage),
            k.billableUsd,
            k.hardCapReached ? `reached (${k.hardCap})` : String(k.hardCap),
            String(k.rejected),
          ]),
        ),
      );
      printLine(`total: ${report.totals.requests} requests, ${report.totals.overage} overage, ${report.totals.billableUsd} USD billable`);
    });
}

/**
 * A server that never ran has no database yet: at the default path that is zero usage. A database
 * named with --usage-db must exist: a typo must not print a bill of 0.00 (exit 3).
 */
function readMonthlyUsage(file: string, month: string, named: boolean): MonthlyUsageRow[] {
  if (!existsSync(file)) {
    if (named) throw new UsageError(`--usage-db ${file} does not exist (name the usage database of pdsnap serve)`);
    printNotice(`pdsnap: no usage database at ${file}; reporting zero usage`);
    return [];
  }
  const store = UsageStore.open(file);
  try {
    return store.monthlyUsageNow(month);
  } finally {
    store.close();
  }
}
