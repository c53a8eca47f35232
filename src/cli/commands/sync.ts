import { Command } from 'commander';
import { z } from 'zod';
import type { DatasetName } from '../../model/dataset.js';
import { fieldsOf } from '../../publish/manifest-check.js';
import { newerCurrent } from '../../publish/current-order.js';
import { openStore } from '../../publish/open-store.js';
import type { SnapshotStore } from '../../publish/snapshot-store.js';
import { BundleIntegrityError, SnapshotNotFoundError } from '../../publish/store-errors.js';
import { DataError, UsageError } from '../errors.js';
import { DatasetsOption, NowOption, parseOptions, StoreOption } from '../options.js';
import { printJson, printLine } from '../output.js';
import { withPathDefaults } from '../path-options.js';
import { isQuiet, withVerbosityOptions } from '../verbosity.js';
import { stderrProgress } from '../progress.js';
import type { Progress } from '../../model/progress.js';
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
      // In text, each line is printed as it happens: a sync stopped half way has said what it copied
      // and which pointers it moved. --json prints the whole report once, at the end.
      const say = options.json ? () => {} : printLine;
      try {
        await requireStore(from, from.location);
        await to.prepare();
        report = await sync(from, to, options.datasets, options.now, { say, progress: stderrProgress(isQuiet() || options.json) });
      } finally {
        await from.close();
        await to.close();
      }
      if (options.json) printJson(report);
      else printLine(`copied ${report.copied.length} bundle(s), ${report.present.length} already in ${report.to}`);
      const notSynced = report.pointers.filter((p) => NOT_SYNCED.has(p.outcome)).map((p) => p.dataset);
      if (notSynced.length > 0) throw new DataError(`the current snapshot of ${notSynced.join(', ')} could not be synced (above)`);
    });
}

interface SyncOutput {
  /** A line of the readable report, printed as it happens. */
  say(line: string): void;
  progress: Progress;
}

async function sync(from: SnapshotStore, to: SnapshotStore, datasets: DatasetName[], now: Date, output: SyncOutput): Promise<SyncReport> {
  const report: SyncReport = { from: from.location, to: to.location, copied: [], present: [], skipped: [], pointers: [] };
  const sourcePointers = await from.pointerStates();
  const sourceSnapshots = (await from.listSnapshots()).filter((s) => datasets.includes(s.dataset));
  const wanted = sourceSnapshots.filter((s) => s.generatedAt !== '').reverse(); // oldest first
  for (const s of sourceSnapshots) {
    if (s.generatedAt !== '') continue;
    report.skipped.push({ snapshotId: s.snapshotId, reason: `its manifest in ${from.location} cannot be read` });
    output.say(`skipped ${s.snapshotId}: its manifest in ${from.location} cannot be read`);
  }
  const targetHas = new Set((await to.listSnapshots()).map((s) => s.snapshotId));
  const step = output.progress.step('copying bundles', wanted.filter((s) => !targetHas.has(s.snapshotId)).length);

  // 1. Bundles, none made current yet; a candidate stays one, a bundle once current is no candidate
  // (drift compares with it, gc keeps it as a rollback target).
  try {
    for (const snapshot of wanted) {
      if (targetHas.has(snapshot.snapshotId)) {
        report.present.push(snapshot.snapshotId);
        continue;
      }
      const bundle = await from.openBundle(snapshot.snapshotId);
      const staged = await to.stageCopy(bundle.manifest, bundle.locate);
      await to.commit(staged, fieldsOf(bundle.manifest), now, { promote: false, candidate: snapshot.candidate });
      // A bucket source's copy of this bundle goes; the blobs it downloaded stay a few minutes (the
      // next bundle usually shares most of them), in a folder of this process that goes at its exit.
      await from.retainOnly([]);
      report.copied.push(snapshot.snapshotId);
      step.advance();
      output.say(`copied ${snapshot.snapshotId}`);
    }
    step.done();
  } catch (error) {
    if (error instanceof BundleIntegrityError || error instanceof SnapshotNotFoundError) {
      throw new DataError(`${error.message} (in ${from.location}); no pointer was moved`);
    }
    throw error;
  }

  // 2. Pointers, each after its bundle is complete in the target; the target's bundle is verified again first.
  const moved: string[] = [];
  try {
    await movePointers(report, sourcePointers, await to.listSnapshots(), to, datasets, now, moved, output.say);
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
  say: (line: string) => void,
): Promise<void> {
  for (const dataset of datasets) {
    const before = report.pointers.length;
    await movePointer(report, sourcePointers, targetSnapshots, to, dataset, now, moved);
    for (const p of report.pointers.slice(before)) say(`${p.dataset}: ${p.detail}`);
  }
}

async function movePointer(
  report: SyncReport,
  sourcePointers: Awaited<ReturnType<SnapshotStore['pointerStates']>>,
  targetSnapshots: Awaited<ReturnType<SnapshotStore['listSnapshots']>>,
  to: SnapshotStore,
  dataset: DatasetName,
  now: Date,
  moved: string[],
): Promise<void> {
  const source = sourcePointers[dataset];
  if (source.state === 'broken') {
    report.pointers.push({
      dataset,
      snapshotId: null,
      outcome: 'broken',
      detail: `not moved: the source pointer is broken (${source.reason})`,
    });
    return;
  }
  if (source.state === 'none' || source.snapshotId === undefined) {
    report.pointers.push({ dataset, snapshotId: null, outcome: 'none', detail: 'no current snapshot in the source' });
    return;
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
    return;
  }
  // As in build: the snapshot generated last stays current; only rollback moves it back.
  const newer =
    current && current.snapshotId !== id
      ? await newerCurrent((snapshotId) => to.readManifest(snapshotId), current.snapshotId, wantedSnapshot.generatedAt)
      : null;
  if (current?.snapshotId === id) {
    report.pointers.push({ dataset, snapshotId: id, outcome: 'unchanged', detail: `current is already ${id}` });
  } else if (newer) {
    report.pointers.push({
      dataset,
      snapshotId: newer.snapshotId,
      outcome: 'kept-newer',
      detail: `current ${newer.snapshotId} was generated later than ${id}; not moved (pdsnap rollback --store ${to.location} moves it back)`,
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
