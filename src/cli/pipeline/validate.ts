import { readdir } from 'node:fs/promises';
import { DATASET_RESOURCES, type DatasetName } from '../../model/dataset.js';
import { isBucketLocation } from '../../publish/s3-location.js';
import { openStore } from '../../publish/open-store.js';
import type { SnapshotStore } from '../../publish/snapshot-store.js';
import { BundleIntegrityError, SnapshotNotFoundError } from '../../publish/store-errors.js';
import { datasetOfSnapshotId } from '../../publish/snapshot-id.js';
import { RecordChecks, unavailableDataset, validateBundle } from '../../validate/bundle-checks.js';
import type { DatasetDriftThresholds } from '../../validate/drift.js';
import { formatDuration } from '../../lib/duration.js';
import { assembleReport, type DatasetValidation, type ValidationReport, worstStatus } from '../../validate/report.js';
import { loadConfig } from '../config.js';
import { UsageError } from '../errors.js';
import { baselineFor, checkDrift, sideOf, withAcceptance } from './drift.js';
import { requireStore } from '../required-path.js';

/** What validate and gate check: the options they share, parsed. */
export interface ValidateStoreOptions {
  store: string;
  now: Date;
  /** Milliseconds: warn when a rule fails within this long. */
  warnWithin: number;
  config?: string | undefined;
  snapshot?: string | undefined;
  datasets: DatasetName[];
}

/**
 * Checks the store's current bundles (or the one --snapshot) and returns the report. A dataset
 * that cannot be read fails on its own; the others are still checked. A store that is missing or
 * unreadable, a bad config or an unknown --snapshot is a UsageError (exit 3), never a pass.
 */
export async function validateStore(
  command: ValidationReport['command'],
  options: ValidateStoreOptions,
  datasetsGiven: boolean,
  minRemainingMs: number | null,
): Promise<ValidationReport> {
  const config = await loadConfig(options.config);
  const store = openStore(options.store);
  try {
    return await validateIn(store, command, options, datasetsGiven, minRemainingMs, config);
  } finally {
    await store.close();
  }
}

async function validateIn(
  store: SnapshotStore,
  command: ValidationReport['command'],
  options: ValidateStoreOptions,
  datasetsGiven: boolean,
  minRemainingMs: number | null,
  config: Awaited<ReturnType<typeof loadConfig>>,
): Promise<ValidationReport> {
  await requireStore(store, options.store);
  if (!isBucketLocation(options.store)) {
    try {
      await readdir(options.store);
    } catch (error) {
      throw new UsageError(`store ${options.store} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }

  let datasets: DatasetName[] = options.datasets;
  if (options.snapshot !== undefined) {
    let dataset: DatasetName;
    try {
      dataset = datasetOfSnapshotId(options.snapshot);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (datasetsGiven && !datasets.includes(dataset)) {
      throw new UsageError(`--snapshot ${options.snapshot} belongs to ${dataset}, which --datasets leaves out`);
    }
    datasets = [dataset];
  }

  const checkOptions = { limits: config.limits, warnWithinMs: options.warnWithin, minRemainingMs };
  const results: DatasetValidation[] = [];
  for (const dataset of datasets) {
    results.push(await validateDataset(store, dataset, options.snapshot ?? null, options.now, checkOptions, config.drift[dataset]));
  }
  return assembleReport({
    command,
    now: options.now.toISOString(),
    store: options.store,
    config: config.path,
    limits: config.limits,
    warnWithin: formatDuration(options.warnWithin),
    minRemaining: minRemainingMs === null ? null : formatDuration(minRemainingMs),
    datasets: results,
  });
}

async function validateDataset(
  store: SnapshotStore,
  dataset: DatasetName,
  requested: string | null,
  now: Date,
  options: Parameters<typeof validateBundle>[2],
  drift: DatasetDriftThresholds,
): Promise<DatasetValidation> {
  let snapshotId = requested;
  if (snapshotId === null) {
    try {
      snapshotId = (await store.currentPointer(dataset))?.snapshotId ?? null;
    } catch (error) {
      if (isSystemError(error)) throw error;
      return unavailableDataset(dataset, null, 'integrity', `current/${dataset}.json is unreadable: ${(error as Error).message}`, options);
    }
    if (snapshotId === null) return unavailableDataset(dataset, null, 'snapshot', `no current snapshot in ${store.location}`, options);
  }
  try {
    const bundle = await store.openBundle(snapshotId);
    const checks = new RecordChecks(dataset);
    for (const resource of Object.keys(DATASET_RESOURCES[dataset])) {
      for await (const record of bundle.records(resource)) checks.inspect(resource, record);
    }
    // The file that will serve: gate checks the exact artifact `serve` opens.
    await bundle.verifiedServingIndex();
    const recordRules = checks.results({ id: bundle.manifest.snapshotId, generatedAt: bundle.manifest.generatedAt });
    const validation = validateBundle({ manifest: bundle.manifest, recordRules }, now, options);
    // Drift against the snapshot before it: is it whole, not only fresh? Accepted drift passes, saying so.
    const baseline = await baselineFor(store, bundle.manifest);
    const driftRules = withAcceptance(
      (await checkDrift(dataset, baseline.side, sideOf(bundle.manifest, bundle.locate), drift, baseline.note)).rules,
      await store.acceptedDrift(bundle.manifest),
    );
    // The gate's own rule stays last: it is the verdict a deploy reads.
    const gateRules = validation.rules.filter((r) => r.rule === 'gate.min-remaining');
    const rules = [...validation.rules.filter((r) => r.rule !== 'gate.min-remaining'), ...driftRules, ...gateRules];
    return { ...validation, rules, status: worstStatus(rules.map((r) => r.status)) };
  } catch (error) {
    if (error instanceof BundleIntegrityError) return unavailableDataset(dataset, snapshotId, 'integrity', error.message, options);
    if (error instanceof SnapshotNotFoundError) {
      if (requested !== null) throw new UsageError(error.message);
      return unavailableDataset(dataset, snapshotId, 'integrity', `current points at ${snapshotId}, which is not in the store`, options);
    }
    throw error;
  }
}

/** An I/O failure (permissions, disk) is a runtime error of the run, not a verdict on the data. */
function isSystemError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException | undefined)?.code === 'string';
}
