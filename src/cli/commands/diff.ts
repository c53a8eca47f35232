import { Command } from 'commander';
import { withPathDefaults } from '../path-options.js';
import { withVerbosityOptions } from '../verbosity.js';
import { z } from 'zod';
import { DATASET_RESOURCES, type DatasetName } from '../../model/dataset.js';
import { diffBundles } from '../../publish/diff/bundle-diff.js';
import { openStore } from '../../publish/open-store.js';
import type { SnapshotStore } from '../../publish/snapshot-store.js';
import { BundleIntegrityError, InvalidPointerError, SnapshotNotFoundError } from '../../publish/store-errors.js';
import { DataError, UsageError } from '../errors.js';
import { DIFF_COUNT_HEADER, type DiffReport, diffCountRow, diffMarkdown } from '../markdown.js';
import { DEFAULT_STORE, datasetArgument, parseOptions, StoreOption, STORE_HELP } from '../options.js';
import { FormatOption, formatTable, printJson, printLine } from '../output.js';
import { baselineFor } from '../pipeline/drift.js';
import { requireStore } from '../required-path.js';

const Options = z.object({
  store: StoreOption(DEFAULT_STORE),
  config: z.string().optional(),
  limit: z.coerce.number({ error: 'must be a whole number from 0 to 1000' }).int().min(0).max(1000).default(5),
  format: FormatOption,
  json: z.boolean().default(false),
});

/** What changed between two snapshots of a dataset, record by record, streamed in bounded memory. */
export function diffCommand(): Command {
  return withVerbosityOptions(new Command('diff'))
    .description(
      'records added, removed and changed between two snapshots (default: current -> the newest candidate, else previous -> current)',
    )
    .argument('<dataset>')
    .argument('[from]', 'snapshot id, current or previous (default: current when a candidate waits, else previous)')
    .argument('[to]', 'snapshot id, current or previous (default: the newest candidate, else current)')
    .option('--store <dir|s3-url>', STORE_HELP)
    .option('--config <file>', 'config file with paths (default: pdsnap.config.yaml when present, or PDSNAP_CONFIG)')
    .option('--limit <n>', 'keys named per kind of change and resource (default 5)')
    .option('--format <format>', 'text (default) or markdown')
    .option('--json', 'print JSON to stdout')
    .action(async (datasetArg: string, fromArg: string | undefined, toArg: string | undefined, raw) => {
      const options = parseOptions(Options, await withPathDefaults(raw, ['store']));
      const dataset = datasetArgument(datasetArg);
      const store = openStore(options.store);
      try {
        await requireStore(store, options.store);
        const [fromName, toName] = fromArg === undefined && toArg === undefined ? await defaultSides(store, dataset) : [fromArg, toArg];
        const from = await open(store, dataset, fromName ?? 'previous');
        const to = await open(store, dataset, toName ?? 'current');
        const resources = await diffBundles(from, to, Object.keys(DATASET_RESOURCES[dataset]), { limit: options.limit });
        const report: DiffReport = { dataset, from: from.label, to: to.label, resources };
        if (options.json) printJson(report);
        else if (options.format === 'markdown') process.stdout.write(diffMarkdown(report));
        else printDiff(report);
      } catch (error) {
        if (error instanceof SnapshotNotFoundError) throw new UsageError(error.message);
        // A damaged bundle or a broken pointer is the store's damage (exit 2), as validate reports it.
        if (error instanceof BundleIntegrityError || error instanceof InvalidPointerError) throw new DataError(error.message);
        throw error;
      } finally {
        await store.close();
      }
    });
}

/**
 * `pdsnap diff <dataset>` alone: a candidate waiting to be promoted (build --no-promote, generated
 * after current) is what a reviewer wants to see against current, as promote will judge it; with
 * none, what the last publish changed (previous -> current).
 */
async function defaultSides(store: SnapshotStore, dataset: DatasetName): Promise<[string, string]> {
  const snapshots = (await store.listSnapshots()).filter((s) => s.dataset === dataset);
  const current = snapshots.find((s) => s.current);
  const candidate = snapshots.find(
    (s) => s.candidate && s.generatedAt !== '' && (current === undefined || s.generatedAt > current.generatedAt),
  );
  return candidate && current ? ['current', candidate.snapshotId] : ['previous', 'current'];
}

/** A snapshot id, or `current` / `previous` (the snapshot current replaced, as validate compares with). */
async function open(store: SnapshotStore, dataset: DatasetName, name: string) {
  let snapshotId = name;
  if (name === 'current' || name === 'previous') {
    const current = (await store.currentPointer(dataset))?.snapshotId;
    if (current === undefined) throw new UsageError(`${dataset} has no current snapshot in ${store.location}`);
    snapshotId = current;
    if (name === 'previous') {
      const baseline = await baselineFor(store, await store.readManifest(current));
      if (baseline.side === null) throw new UsageError(`${dataset} has no previous snapshot: ${baseline.note}`);
      snapshotId = baseline.side.label;
    }
  }
  const bundle = await store.openBundle(snapshotId);
  if (bundle.manifest.dataset !== dataset) throw new UsageError(`snapshot ${snapshotId} does not belong to dataset ${dataset}`);
  return { label: snapshotId, locate: bundle.locate, files: bundle.manifest.files };
}

function printDiff(report: DiffReport): void {
  printLine(`pdsnap diff ${report.dataset}: ${report.from} -> ${report.to}`);
  printLine('');
  printLine(formatTable(DIFF_COUNT_HEADER, report.resources.map(diffCountRow)));
  for (const r of report.resources) {
    if (r.added + r.removed + r.changed === 0) continue;
    printLine(`\n${r.resource}:`);
    for (const key of r.addedKeys) printLine(`  added    ${key}`);
    for (const key of r.removedKeys) printLine(`  removed  ${key}`);
    for (const c of r.changedRecords) printLine(`  changed  ${c.key}  (${c.fields.join(', ')})`);
    const shown = r.addedKeys.length + r.removedKeys.length + r.changedRecords.length;
    if (shown < r.added + r.removed + r.changed) printLine(`  ... ${r.added + r.removed + r.changed - shown} more (--limit)`);
    const fields = Object.entries(r.changedFields).sort((a, b) => b[1] - a[1]);
    if (fields.length > 0) printLine(`  fields changed: ${fields.map(([name, n]) => `${name} (${n})`).join(', ')}`);
  }
}
