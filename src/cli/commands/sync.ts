import { Command } from 'commander';
import { z } from 'zod';
import type { DatasetName } from '../../model/dataset.js';
import { fieldsOf } from '../../publish/manifest-check.js';
import { openStore, type SnapshotStore } from '../../publish/snapshot-store.js';
import { BundleIntegrityError, SnapshotNotFoundError } from '../../publish/store.js';
import { DataError, UsageError } from '../errors.js';
import { DatasetsOption, NowOption, parseOptions, StoreOption } from '../options.js';
import { printJson, printLine } from '../output.js';
import { withVerbosityOptions } from '../verbosity.js';

const Options = z.object({ datasets: DatasetsOption, now: NowOption, json: z.boolean().default(false) });

interface SyncReport {
  from: string;
  to: string;
  copied: string[];
  /** Already in the target: not copied again. */
  present: string[];
  pointers: Array<{
    dataset: DatasetName;
    snapshotId: string | null;
    outcome: 'moved' | 'unchanged' | 'kept-newer' | 'none' | 'broken';
    detail: string;
  }>;
}

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
    .option('--json', 'print JSON to stdout')
    .action(async (fromArg: string, toArg: string, raw) => {
      const options = parseOptions(Options, raw);
      const locations = parseOptions(z.object({ from: StoreOption(''), to: StoreOption('') }), { from: fromArg, to: toArg });
      if (locations.from === locations.to) throw new UsageError(`sync: <from> and <to> are the same store (${locations.from})`);
      const from = openStore(locations.from);
      const to = openStore(locations.to);
      let report: SyncReport;
      try {
        if (!(await from.exists())) throw new UsageError(`store ${from.location} does not exist`);
        report = await sync(from, to, options.datasets, options.now);
      } catch (error) {
        if (error instanceof BundleIntegrityError) throw new DataError(`${error.message}; no pointer was moved`);
        if (error instanceof SnapshotNotFoundError) throw new DataError(`${error.message}; no pointer was moved`);
        throw error;
      } finally {
        await from.close();
        await to.close();
      }
      if (options.json) return printJson(report);
      for (const id of report.copied) printLine(`copied ${id}`);
      for (const p of report.pointers) printLine(`${p.dataset}: ${p.detail}`);
      printLine(`copied ${report.copied.length} bundle(s), ${report.present.length} already in ${report.to}`);
    });
}

async function sync(from: SnapshotStore, to: SnapshotStore, datasets: DatasetName[], now: Date): Promise<SyncReport> {
  const report: SyncReport = { from: from.location, to: to.location, copied: [], present: [], pointers: [] };
  const sourcePointers = await from.pointerStates();
  const wanted = (await from.listSnapshots()).filter((s) => datasets.includes(s.dataset) && s.generatedAt !== '').reverse(); // oldest first
  const targetHas = new Set((await to.exists()) ? (await to.listSnapshots()).map((s) => s.snapshotId) : []);

  // 1. Bundles, none made current yet.
  for (const snapshot of wanted) {
    if (targetHas.has(snapshot.snapshotId)) {
      report.present.push(snapshot.snapshotId);
      continue;
    }
    const bundle = await from.openBundle(snapshot.snapshotId);
    const staged = await to.stageCopy(bundle.manifest, bundle.directory);
    await to.commit(staged, fieldsOf(bundle.manifest), now, { promote: false });
    await from.retainOnly([]); // a bucket source's download is not needed any more
    report.copied.push(snapshot.snapshotId);
  }

  // 2. Pointers, each after its bundle is complete in the target; the target's bundle is verified again first.
  const targetSnapshots = await to.listSnapshots();
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
      const moved = await to.rollback(dataset, id, now);
      report.pointers.push({
        dataset,
        snapshotId: id,
        outcome: 'moved',
        detail: `current is now ${id} (was ${moved.previousSnapshotId ?? 'none'})`,
      });
    }
  }
  return report;
}
