import { Command } from 'commander';
import { withVerbosityOptions } from '../verbosity.js';
import { z } from 'zod';
import { openStore } from '../../publish/open-store.js';
import { DEFAULT_STORE, parseOptions, StoreOption, STORE_HELP } from '../options.js';
import { withPathDefaults } from '../path-options.js';
import { formatTable, printJson, printLine } from '../output.js';
import { requireStore } from '../required-path.js';

const Options = z.object({ store: StoreOption(DEFAULT_STORE), config: z.string().optional(), json: z.boolean().default(false) });

export function listCommand(): Command {
  return withVerbosityOptions(new Command('list'))
    .description('list the snapshots of each dataset, newest first; * marks the current one, c a candidate')
    .option('--store <dir|s3-url>', STORE_HELP)
    .option('--config <file>', 'config file with paths (default: pdsnap.config.yaml when present, or PDSNAP_CONFIG)')
    .option('--json', 'print JSON to stdout')
    .action(async (raw) => {
      const options = parseOptions(Options, await withPathDefaults(raw, ['store']));
      const store = openStore(options.store);
      let snapshots, pointers;
      try {
        await requireStore(store, options.store);
        snapshots = await store.listSnapshots();
        pointers = await store.pointerStates();
      } finally {
        await store.close();
      }
      if (options.json) return printJson({ store: options.store, pointers, snapshots });
      for (const [dataset, pointer] of Object.entries(pointers)) {
        if (pointer.state === 'broken') printLine(`${dataset}: BROKEN current pointer: ${pointer.reason}`);
      }
      if (snapshots.length === 0) return printLine(`no snapshots in ${options.store}`);
      printLine(
        formatTable(
          ['', 'dataset', 'snapshot', 'generated', 'fresh until'],
          snapshots.map((s) => [
            s.current ? '*' : s.candidate ? 'c' : '',
            s.dataset,
            s.snapshotId,
            s.generatedAt || '(unreadable manifest)',
            s.freshUntil,
          ]),
        ),
      );
      if (snapshots.some((s) => s.candidate))
        printLine('\nc: a candidate (build --no-promote); pdsnap promote <dataset> <snapshotId> makes it current');
    });
}
