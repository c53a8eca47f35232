import { Command } from 'commander';
import { withVerbosityOptions } from '../verbosity.js';
import { z } from 'zod';
import { BundleStore } from '../../publish/store.js';
import { UsageError } from '../errors.js';
import { DEFAULT_STORE, DirOption, parseOptions } from '../options.js';
import { withPathDefaults } from '../path-options.js';
import { formatTable, printJson, printLine } from '../output.js';

const Options = z.object({ store: DirOption(DEFAULT_STORE), config: z.string().optional(), json: z.boolean().default(false) });

export function listCommand(): Command {
  return withVerbosityOptions(new Command('list'))
    .description('list the snapshots of each dataset, newest first; * marks the current one, c a candidate')
    .option('--store <dir>', `bundle store (default ${DEFAULT_STORE})`)
    .option('--config <file>', 'config file with paths (default: pdsnap.config.yaml when present, or PDSNAP_CONFIG)')
    .option('--json', 'print JSON to stdout')
    .action(async (raw) => {
      const options = parseOptions(Options, await withPathDefaults(raw, ['store']));
      const store = new BundleStore(options.store);
      if (!(await store.exists())) throw new UsageError(`store ${options.store} does not exist`);
      const snapshots = await store.listSnapshots();
      const pointers = await store.pointerStates();
      if (options.json) return printJson({ store: options.store, pointers, snapshots });
      for (const [dataset, pointer] of Object.entries(pointers)) {
        if (pointer.state === 'broken') printLine(`${dataset}: BROKEN current pointer: ${pointer.reason}`);
      }
      if (snapshots.length === 0) return printLine(`no snapshots in ${options.store}`);
      printLine(
        formatTable(
          ['', 'dataset', 'snapshot', 'generated', 'fresh until'],
          snapshots.map((s) => [s.current ? '*' : s.candidate ? 'c' : '', s.dataset, s.snapshotId, s.generatedAt || '(unreadable manifest)', s.freshUntil]),
        ),
      );
      if (snapshots.some((s) => s.candidate)) printLine('\nc: a candidate (build --no-promote); pdsnap promote <dataset> <snapshotId> makes it current');
    });
}
