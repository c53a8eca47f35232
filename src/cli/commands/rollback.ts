import { Command } from 'commander';
import { withVerbosityOptions } from '../verbosity.js';
import { z } from 'zod';
import { openStore } from '../../publish/open-store.js';
import { BundleIntegrityError, SnapshotNotFoundError } from '../../publish/store-errors.js';
import { DataError, UsageError } from '../errors.js';
import { DEFAULT_STORE, datasetArgument, NowOption, parseOptions, StoreOption, STORE_HELP } from '../options.js';
import { withPathDefaults } from '../path-options.js';
import { printJson, printLine } from '../output.js';

const Options = z.object({
  store: StoreOption(DEFAULT_STORE),
  config: z.string().optional(),
  now: NowOption,
  json: z.boolean().default(false),
});

export function rollbackCommand(): Command {
  return withVerbosityOptions(new Command('rollback'))
    .description('point a dataset back at an earlier snapshot (verified before the pointer moves)')
    .argument('<dataset>')
    .argument('<snapshotId>')
    .option('--store <dir|s3-url>', STORE_HELP)
    .option('--config <file>', 'config file with paths (default: pdsnap.config.yaml when present, or PDSNAP_CONFIG)')
    .option('--now <iso>', 'timestamp recorded as publishedAt of the pointer')
    .option('--json', 'print JSON to stdout')
    .action(async (datasetArg: string, snapshotId: string, raw) => {
      const options = parseOptions(Options, await withPathDefaults(raw, ['store']));
      const dataset = datasetArgument(datasetArg);
      const store = openStore(options.store);
      let result;
      try {
        result = await store.rollback(dataset, snapshotId, options.now);
      } catch (error) {
        if (error instanceof SnapshotNotFoundError) throw new UsageError(error.message);
        if (error instanceof BundleIntegrityError) throw new DataError(`${error.message}; current not changed`);
        throw error;
      } finally {
        await store.close();
      }
      if (options.json) {
        return printJson({
          dataset,
          snapshotId,
          previousSnapshotId: result.previousSnapshotId,
          repairedPointer: result.repairedPointer,
        });
      }
      if (!result.repairedPointer && result.previousSnapshotId === snapshotId) {
        printLine(`${dataset}: current is already ${snapshotId}; nothing changed`);
        return;
      }
      const was = result.repairedPointer ? `a broken pointer: ${result.repairedPointer}; repaired` : (result.previousSnapshotId ?? 'none');
      printLine(`${dataset}: current is now ${snapshotId} (was ${was})`);
    });
}
