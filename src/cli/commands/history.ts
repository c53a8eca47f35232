import { Command } from 'commander';
import { withPathDefaults } from '../path-options.js';
import { withVerbosityOptions } from '../verbosity.js';
import { z } from 'zod';
import { type Manifest, recordsPerResource } from '../../model/manifest.js';
import type { DatasetName } from '../../model/dataset.js';
import { openStore } from '../../publish/open-store.js';
import type { SnapshotStore } from '../../publish/snapshot-store.js';
import { evaluateDrift, type ResourceChange } from '../../validate/drift.js';
import { worstStatus } from '../../validate/report.js';
import { type LoadedConfig, loadConfig } from '../config.js';
import { DEFAULT_STORE, datasetArgument, NowOption, parseOptions, StoreOption, STORE_HELP } from '../options.js';
import { formatTable, printJson, printLine } from '../output.js';
import { withAcceptance } from '../pipeline/drift.js';
import { requireStore } from '../required-path.js';

const Options = z.object({
  store: StoreOption(DEFAULT_STORE),
  now: NowOption,
  config: z.string().optional(),
  json: z.boolean().default(false),
});

/**
 * Every snapshot of a dataset, oldest first, with its record counts, its freshness now, and its
 * drift against the one generated before it. Drift here is judged on the manifests' record counts
 * (shrink and growth), so the history of a full-scale store reads in moments; `pdsnap diff` and
 * `validate` compare records.
 */
export function historyCommand(): Command {
  return withVerbosityOptions(new Command('history'))
    .description('each snapshot of a dataset: record counts, freshness, and drift against the one before')
    .argument('<dataset>')
    .option('--store <dir|s3-url>', STORE_HELP)
    .option('--now <iso>', 'the instant to judge freshness at (default: the clock)')
    .option('--config <file>', 'drift thresholds (default: pdsnap.config.yaml when present)')
    .option('--json', 'print JSON to stdout')
    .action(async (datasetArg: string, raw) => {
      const options = parseOptions(Options, await withPathDefaults(raw, ['store']));
      const dataset = datasetArgument(datasetArg);
      const config = await loadConfig(options.config);
      const store = openStore(options.store);
      try {
        await requireStore(store, options.store);
        await printHistory(store, dataset, options, config);
      } finally {
        await store.close();
      }
    });
}

async function printHistory(
  store: SnapshotStore,
  dataset: DatasetName,
  options: { store: string; now: Date; json: boolean },
  config: LoadedConfig,
): Promise<void> {
  const entries = (await store.listSnapshots()).filter((s) => s.dataset === dataset).reverse();
  // No row is marked current when the pointer is broken: say so, as list does.
  const pointer = (await store.pointerStates())[dataset];
  const rows = [];
  let before: Manifest | null = null;
  for (const entry of entries) {
    let manifest: Manifest;
    try {
      manifest = await store.readManifest(entry.snapshotId);
    } catch (error) {
      rows.push({
        snapshotId: entry.snapshotId,
        current: entry.current,
        candidate: entry.candidate,
        unreadable: (error as Error).message,
      });
      continue;
    }
    const counts = recordsPerResource(manifest.files);
    const acceptance = await store.acceptedDrift(manifest);
    const drift = withAcceptance(
      evaluateDrift(
        before === null ? null : { baseline: before.snapshotId, resources: changes(recordsPerResource(before.files), counts) },
        config.drift[dataset],
        'the oldest snapshot in the store',
      ),
      acceptance,
    );
    rows.push({
      snapshotId: manifest.snapshotId,
      current: entry.current,
      candidate: entry.candidate,
      generatedAt: manifest.generatedAt,
      records: counts,
      freshUntil: manifest.freshUntil,
      fresh: Date.parse(manifest.freshUntil) >= options.now.getTime(),
      allowStale: manifest.allowStale,
      driftAgainst: before?.snapshotId ?? null,
      driftStatus: worstStatus(drift.map((r) => r.status)),
      drift,
      acceptedDrift: acceptance,
    });
    before = manifest;
  }
  if (options.json) return printJson({ dataset, store: options.store, now: options.now.toISOString(), pointer, snapshots: rows });
  if (pointer.state === 'broken') printLine(`${dataset}: BROKEN current pointer: ${pointer.reason}`);
  if (rows.length === 0) return printLine(`no ${dataset} snapshots in ${options.store}`);
  printLine(
    formatTable(
      ['', 'snapshot', 'records', 'fresh until', 'drift against the one before'],
      rows.map((r) => {
        const mark = r.current ? '*' : r.candidate ? 'c' : '';
        if ('unreadable' in r) return [mark, r.snapshotId, '-', '-', `unreadable: ${r.unreadable}`];
        const figures = r.drift.filter((d) => d.status !== 'pass').map((d) => `${d.rule} ${d.observed}`);
        const driftText =
          r.driftAgainst === null ? 'first' : `${r.driftStatus.toUpperCase()}${figures.length > 0 ? `: ${figures.join('; ')}` : ''}`;
        return [
          mark,
          r.snapshotId,
          Object.entries(r.records)
            .map(([name, n]) => `${name}=${n}`)
            .join(' '),
          `${r.freshUntil}${r.fresh ? '' : ' (stale)'}`,
          `${driftText}${r.acceptedDrift ? ` (accepted: "${r.acceptedDrift.reason}")` : ''}`,
        ];
      }),
    ),
  );
  printLine('\n* current, c candidate (build --no-promote)');
}

function changes(before: Record<string, number>, after: Record<string, number>): Record<string, ResourceChange> {
  return Object.fromEntries(Object.entries(after).map(([name, n]) => [name, { before: before[name] ?? 0, after: n }]));
}
