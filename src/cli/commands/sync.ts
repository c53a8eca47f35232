import { Command } from 'commander';
import { z } from 'zod';
import type { DatasetName } from '../../model/dataset.js';
import { fieldsOf } from '../../publish/manifest-check.js';
import { openStore } from '../../publish/open-store.js';
import type { SnapshotStore } from '../../publish/snapshot-store.js';
import { BundleIntegrityError, SnapshotNotFoundError } from '../../publish/store-errors.js';
import { DataError, UsageError } from '../errors.js';
import { DatasetsOption, NowOption, parseOptions, StoreOption } from '../options.js';
import { printJson, printLine } from '../output.js';
import { withPathDefaults } from '../path-options.js';
import { withVerbosityOptions } from '../verbosity.js';
import { requireStore } from '../required-path.js';

const Options = z.object({ datasets: DatasetsOption, now: NowOption, config: z.string().optional(), json: z.boolean().default(false) });

interface SyncReport {
  from: string;
  to: string;
  copied: string[];
  /** Already in the target: not copied again. */
  present: string[];
  /** Source bundles whose manifest cannot be read: not copied (gc keeps them; remove them by hand). */
  skipped: Array<{ snapshotId: string; reason: string }>;
  pointers: Array<{
    dataset: DatasetName;
    snapshotId: string | null;
    outcome: 'moved' | 'unchanged' | 'kept-newer' | 'none' | 'broken' | 'unreadable';
    detail: string;
  }>;
}

/** Pointers that could not follow the source: the sync says so, and exits 2. */
const NOT_SYNCED = new Set(['broken', 'unreadable']);

/**
 * `pdsnap sync <from> <to>`: copies the bundles the target lacks, then moves the target's pointers
 * to the source's. Bundles first, pointers last, so the target never points at a bundle it does not
 * hold in full; every file is hashed on the way and a bundle that does not match its manifest stops
 * the sync before any pointer moves.
 */
export function syncCommand(): Command {
  return withVerbosityOptions(new Command('sync'))
    .description('copy bundles, then current pointers, from one store to another (folders or s3://bucket/prefix), verifying every digest')
    .argument('<from>', 'source store: a folder or s3://bucket/prefix')
    .argument('<to>', 'target store: a folder or s3://bucket/prefix')
    .option('--datasets <list>', 'comma-separated: articles,calendar,smart-money (default: all)')
    .option('--now <iso>', 'timestamp recorded as publishedAt of the pointers moved (default: the clock)')
    .option('--config <file>', 'config file (default: pdsnap.config.yaml when present, or PDSNAP_CONFIG); checked, like every command')
    .option('--json', 'print JSON to stdout')
    .action(async (fromArg: string, toArg: string, raw) => {
      // Like every command, a config file that is named but broken stops it (exit 3), never skipped.
      const options = parseOptions(Options, await withPathDefaults(raw, []));
      const locations = parseOptions(z.object({ from: StoreOption(''), to: StoreOption('') }), { from: fromArg, to: toArg });
      if (locations.from === locations.to) throw new UsageError(`sync: <from> and <to> are the same store (${locations.from})`);
      const from = openStore(locations.from);
      const to = openStore(locations.to);
      let report: SyncReport;
      try {
        await requireStore(from, from.location);
        report = await sync(from, to, options.datasets, options.now);
      } finally {
        await from.close();
        await to.close();
      }
      if (options.json) printJson(report);
      else {
        for (const id of report.copied) printLine(`copied ${id}`);
        for (const skipped of report.skipped) printLine(`skipped ${skipped.snapshotId}: ${skipped.reason}`);
        for (const p of report.pointers) printLine(`${p.dataset}: ${p.detail}`);
        printLine(`copied ${report.copied.length} bundle(s), ${report.present.length} already in ${report.to}`);
      }
      const notSynced = report.pointers.filter((p) => NOT_SYNCED.has(p.outcome)).map((p) => p.dataset);
      if (notSynced.length > 0) throw new DataError(`the current snapshot of ${notSynced.join(', ')} could not be synced (above)`);
    });
}

async function sync(from: SnapshotStore, to: SnapshotStore, datasets: DatasetName[], now: Date): Promise<SyncReport> {
  const report: SyncReport = { from: from.location, to: to.location, copied: [], present: [], skipped: [], pointers: [] };
  const sourcePointers = await from.pointerStates();
  const sourceSnapshots = (await from.listSnapshots()).filter((s) => datasets.includes(s.dataset));
  const wanted = sourceSnapshots.filter((s) => s.generatedAt !== '').reverse(); // oldest first
  for (const s of sourceSnapshots) {
    if (s.generatedAt === '') report.skipped.push({ snapshotId: s.snapshotId, reason: `its manifest in ${from.location} cannot be read` });
  }
  const targetHas = new Set((await to.exists()) ? (await to.listSnapshots()).map((s) => s.snapshotId) : []);

  // 1. Bundles, none made current yet; a candidate stays one, a bundle once current is no candidate
  // (drift compares with it, gc keeps it as a rollback target).
  try {
    for (const snapshot of wanted) {
      if (targetHas.has(snapshot.snapshotId)) {
        report.present.push(snapshot.snapshotId);
        continue;
      }
      const bundle = await from.openBundle(snapshot.snapshotId);
      const staged = await to.stageCopy(bundle.manifest, bundle.directory);
      await to.commit(staged, fieldsOf(bundle.manifest), now, { promote: false, candidate: snapshot.candidate });
      await from.retainOnly([]); // a bucket source's download is not needed any more
      report.copied.push(snapshot.snapshotId);
    }
  } catch (error) {
    if (error instanceof BundleIntegrityError || error instanceof SnapshotNotFoundError) {
      throw new DataError(`${error.message} (in ${from.location}); no pointer was moved`);
    }
    throw error;
  }

  // 2. Pointers, each after its bundle is complete in the target; the target's bundle is verified again first.
  const moved: string[] = [];
  try {
    await movePointers(report, sourcePointers, await to.listSnapshots(), to, datasets, now, moved);
  } catch (error) {
    if (error instanceof BundleIntegrityError || error instanceof SnapshotNotFoundError) {
      const before = moved.length === 0 ? 'no pointer was moved' : `pointers moved before it: ${moved.join(', ')}`;
      throw new DataError(`${error.message} (in ${to.location}); ${before}`);
    }
    throw error;
  }
  return report;
}

async function movePointers(
  report: SyncReport,
  sourcePointers: Awaited<ReturnType<SnapshotStore['pointerStates']>>,
  targetSnapshots: Awaited<ReturnType<SnapshotStore['listSnapshots']>>,
  to: SnapshotStore,
  datasets: DatasetName[],
  now: Date,
  moved: string[],
): Promise<void> {
  for (const dataset of datasets) {
    const source = sourcePointers[dataset];
    if (source.state === 'broken') {
      report.pointers.push({
        dataset,
        snapshotId: null,
        outcome: 'broken',
        detail: `not moved: the source pointer is broken (${source.reason})`,
      });
      continue;
    }
    if (source.state === 'none' || source.snapshotId === undefined) {
      report.pointers.push({ dataset, snapshotId: null, outcome: 'none', detail: 'no current snapshot in the source' });
      continue;
    }
    const id = source.snapshotId;
    const current = targetSnapshots.find((s) => s.dataset === dataset && s.current);
    const wantedSnapshot = targetSnapshots.find((s) => s.snapshotId === id);
    if (wantedSnapshot === undefined) {
      report.pointers.push({
        dataset,
        snapshotId: null,
        outcome: 'unreadable',
        detail: `not moved: the source's current bundle ${id} cannot be read (its manifest is missing or damaged), so it was not copied`,
      });
      continue;
    }
    if (current?.snapshotId === id) {
      report.pointers.push({ dataset, snapshotId: id, outcome: 'unchanged', detail: `current is already ${id}` });
    } else if (current && wantedSnapshot && current.generatedAt > wantedSnapshot.generatedAt) {
      // As in build: the snapshot generated last stays current; only rollback moves it back.
      report.pointers.push({
        dataset,
        snapshotId: current.snapshotId,
        outcome: 'kept-newer',
        detail: `current ${current.snapshotId} was generated later than ${id}; not moved (pdsnap rollback --store ${to.location} moves it back)`,
      });
    } else {
      const result = await to.rollback(dataset, id, now);
      moved.push(`${dataset} -> ${id}`);
      report.pointers.push({
        dataset,
        snapshotId: id,
        outcome: 'moved',
        detail: `current is now ${id} (was ${result.previousSnapshotId ?? 'none'})`,
      });
    }
  }
}
