import { Command } from 'commander';
import { withVerbosityOptions } from '../verbosity.js';
import { z } from 'zod';
import { openStore } from '../../publish/open-store.js';
import { DEFAULT_STORE, parseOptions, StoreOption, STORE_HELP } from '../options.js';
import { withPathDefaults } from '../path-options.js';
import { formatBytes } from '../../lib/byte-size.js';
import { printJson, printLine } from '../output.js';
import { requireStore } from '../required-path.js';

const Options = z.object({
  store: StoreOption(DEFAULT_STORE),
  config: z.string().optional(),
  keep: z.coerce.number({ message: 'must be a whole number' }).int('must be a whole number').min(1, 'must be at least 1'),
  dryRun: z.boolean().default(false),
  json: z.boolean().default(false),
});

export function gcCommand(): Command {
  return withVerbosityOptions(new Command('gc'))
    .description('delete old bundles, keeping the newest N per dataset, the current one and the one before it')
    .requiredOption('--keep <n>', 'bundles to keep per dataset')
    .option('--store <dir|s3-url>', STORE_HELP)
    .option('--config <file>', 'config file with paths (default: pdsnap.config.yaml when present, or PDSNAP_CONFIG)')
    .option('--dry-run', 'only show what would be deleted')
    .option('--json', 'print JSON to stdout')
    .action(async (raw) => {
      const options = parseOptions(Options, await withPathDefaults(raw, ['store']));
      const store = openStore(options.store);
      let result;
      try {
        await requireStore(store, options.store);
        result = await store.gc(options.keep, options.dryRun);
      } finally {
        await store.close();
      }
      if (options.json) return printJson({ dryRun: options.dryRun, ...result });
      const verb = options.dryRun ? 'would delete' : 'deleted';
      if (result.freedBallast) {
        printLine(`the disk was full: gave up ${options.store}/ballast (1 MiB) to take the lock; the next publish writes it again`);
      }
      for (const id of result.deleted) printLine(`${verb} ${id}`);
      for (const id of result.unreadable)
        printLine(`kept ${id}: its manifest cannot be read (look at it; gc never deletes what it cannot read)`);
      for (const { dataset, reason } of result.skipped) printLine(`kept every ${dataset} bundle: ${reason}`);
      for (const left of result.removedLeftovers) printLine(`removed ${left}, left by a process that died`);
      if (result.blobs.skipped) printLine(result.blobs.skipped);
      else if (result.blobs.deleted > 0)
        printLine(`${verb} ${result.blobs.deleted} blob(s) no kept snapshot lists (${formatBytes(result.blobs.bytes)})`);
      printLine(`${verb} ${result.deleted.length} bundle(s), kept ${result.kept.length}`);
    });
}
