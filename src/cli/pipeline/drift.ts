import { DATASET_RESOURCES, type DatasetName } from '../../model/dataset.js';
import type { FreshnessFacts } from '../../model/freshness.js';
import type { RuleResult } from '../../model/rule-result.js';
import { type DriftAcceptance, type Manifest, recordsPerResource } from '../../model/manifest.js';
import { type BundleSide, diffBundles, type ResourceDiff } from '../../publish/diff/bundle-diff.js';
import type { FileLocator } from '../../publish/bundle-files.js';
import { verifyListedFile } from '../../publish/verified-serving-index.js';
import type { SnapshotStore } from '../../publish/snapshot-store.js';
import { BundleIntegrityError, InvalidPointerError, SnapshotNotFoundError } from '../../publish/store-errors.js';
import {
  type DatasetDriftThresholds,
  type DriftComparison,
  damagedBaselineRule,
  driftReading,
  evaluateDrift,
  type ResourceChange,
  SAMPLE_SIZE,
  standInBaselineRule,
} from '../../validate/drift.js';

/**
 * Drift as build, promote, validate and gate run it: the comparison engine (bundle-diff) over the
 * two bundles, the watched facts gathered on the same pass, and the pure judgement (validate/drift).
 */

export interface DriftSide extends BundleSide {
  generatedAt: string;
  /** The snapshot's facts: articles per source feed, for the articles watch. */
  facts: Pick<FreshnessFacts, 'feedItems'>;
}

export interface DriftCheck {
  /** The snapshot compared with; null for a first snapshot. */
  baseline: string | null;
  rules: RuleResult[];
}

export function sideOf(manifest: Manifest, locate: FileLocator): DriftSide {
  return { label: manifest.snapshotId, locate, files: manifest.files, generatedAt: manifest.generatedAt, facts: manifest.facts };
}

export async function checkDrift(
  dataset: DatasetName,
  baseline: DriftSide | null,
  candidate: DriftSide,
  thresholds: DatasetDriftThresholds,
  noBaseline?: string,
  standIn?: RuleResult,
): Promise<DriftCheck> {
  if (baseline === null) return { baseline: null, rules: evaluateDrift(null, thresholds, noBaseline) };
  // The watched facts of each side, gathered from the records as the engine streams them.
  const reading = driftReading(dataset);
  const watch = { before: reading.watch(baseline), after: reading.watch(candidate) };
  const watched = new Set([watch.before.resource]);
  // Records are compared only where drift judges them: key churn, and the watched facts. The other
  // resources (trades, which churn by design) are judged by their counts, which the manifests give;
  // reading them cost most of a full-scale check, and all of it when a new quarter changes every trade.
  const compared = Object.keys(DATASET_RESOURCES[dataset]).filter((resource) => reading.keyed.includes(resource) || watched.has(resource));
  let diffs: ResourceDiff[];
  try {
    diffs = await diffBundles(baseline, candidate, compared, {
      limit: SAMPLE_SIZE,
      observe: { resources: watched, record: (side, _resource, record) => watch[side].record(record) },
    });
  } catch (error) {
    // A damaged snapshot to compare with is no baseline (as at open): a build must still be able
    // to replace it, and the note says why drift was not judged. A damaged candidate stays fatal.
    // Damage inside a part can surface before its digest is checked at the part's end (a record
    // that lost a field drift reads): then the baseline's digests say whether it was damage.
    const damage = error instanceof BundleIntegrityError ? error : await damageOf(baseline);
    if (damage === null || damage.snapshotId !== baseline.label) throw error;
    // Its manifest was verified against its id, so the record counts it lists still judge the
    // candidate: one damaged blob, which every earlier snapshot may share, lets no shrunken one through.
    const counts: DriftComparison = { baseline: baseline.label, resources: changesOf(dataset, [], baseline, candidate, []) };
    return { baseline: baseline.label, rules: [damagedBaselineRule(baseline.label, damage.message), ...evaluateDrift(counts, thresholds)] };
  }
  const comparison: DriftComparison = {
    baseline: baseline.label,
    resources: changesOf(dataset, reading.keyed, baseline, candidate, diffs),
    watch: { before: watch.before.result(), after: watch.after.result() },
  };
  const rules = evaluateDrift(comparison, thresholds);
  return { baseline: baseline.label, rules: standIn ? [standIn, ...rules] : rules };
}

/** The first file of a snapshot whose bytes do not match its digest, as the integrity error readers give, or null. */
async function damageOf(side: BundleSide): Promise<BundleIntegrityError | null> {
  for (const file of side.files) {
    try {
      await verifyListedFile(side.label, side.locate(file), file);
    } catch (error) {
      if (error instanceof BundleIntegrityError) return error;
      throw error;
    }
  }
  return null;
}

/** The figures drift judges: counts of every resource from the manifests, key churn from the diff where keys are stable. */
function changesOf(
  dataset: DatasetName,
  keyed: readonly string[],
  baseline: BundleSide,
  candidate: BundleSide,
  diffs: readonly ResourceDiff[],
) {
  const before = recordsPerResource(baseline.files);
  const after = recordsPerResource(candidate.files);
  const changes: Record<string, ResourceChange> = {};
  for (const resource of Object.keys(DATASET_RESOURCES[dataset])) {
    const counts = { before: before[resource] ?? 0, after: after[resource] ?? 0 };
    const diff = keyed.includes(resource) ? diffs.find((d) => d.resource === resource) : undefined;
    changes[resource] = diff ? { ...counts, keys: { lost: diff.removed, added: diff.added, lostSample: diff.removedKeys } } : counts;
  }
  return changes;
}

/**
 * The current snapshot a build or promote compares with. When it cannot be used (no pointer, a
 * broken one, or a bundle missing or damaged: a store restored by hand, a copy taken mid-build),
 * the newest published bundle of the dataset that is readable and not a candidate stands in, and
 * the report warns which and why: a fresh but broken snapshot must not become current unnoticed
 * because a pointer went missing. With no such bundle, drift passes with a note saying why.
 */
export async function currentBaseline(
  store: SnapshotStore,
  dataset: DatasetName,
  judged?: string,
): Promise<{ side: DriftSide | null; note: string | undefined; standIn?: RuleResult }> {
  let snapshotId: string | null = null;
  let unusable: string | undefined;
  try {
    snapshotId = (await store.currentPointer(dataset))?.snapshotId ?? null;
  } catch (error) {
    if (!(error instanceof InvalidPointerError)) throw error;
    unusable = `the current pointer is broken (${error.reason})`;
  }
  if (snapshotId !== null) {
    const current = await openSide(store, snapshotId);
    if (current.side) return current;
    unusable = current.note;
  }
  for (const entry of await store.listSnapshots()) {
    const other = entry.snapshotId !== snapshotId && entry.snapshotId !== judged;
    if (entry.dataset !== dataset || entry.candidate || entry.generatedAt === '' || !other) continue;
    const standIn = await openSide(store, entry.snapshotId);
    if (!standIn.side) continue;
    const reason = unusable ?? `current/${dataset}.json is missing although the store holds published bundles of ${dataset}`;
    return { side: standIn.side, note: undefined, standIn: standInBaselineRule(entry.snapshotId, reason) };
  }
  return { side: null, note: unusable };
}

/**
 * What validate and gate compare a snapshot with: for the current one, the newest bundle generated
 * before it that is not an unpromoted candidate (the snapshot it replaced, or the rollback target);
 * for any other (a candidate), the current one, as promote would.
 */
export async function baselineFor(store: SnapshotStore, manifest: Manifest): Promise<{ side: DriftSide | null; note: string | undefined }> {
  const all = (await store.listSnapshots()).filter((s) => s.dataset === manifest.dataset);
  const self = all.find((s) => s.snapshotId === manifest.snapshotId);
  if (self?.current === false) {
    const current = all.find((s) => s.current);
    if (current) return openSide(store, current.snapshotId);
  }
  const before = all.find(
    (s) => !s.candidate && s.snapshotId !== manifest.snapshotId && s.generatedAt !== '' && s.generatedAt < manifest.generatedAt,
  );
  if (!before) return { side: null, note: 'no earlier snapshot in the store' };
  return openSide(store, before.snapshotId);
}

async function openSide(store: SnapshotStore, snapshotId: string): Promise<{ side: DriftSide | null; note: string | undefined }> {
  try {
    const bundle = await store.openBundle(snapshotId);
    return { side: sideOf(bundle.manifest, bundle.locate), note: undefined };
  } catch (error) {
    if (error instanceof BundleIntegrityError || error instanceof SnapshotNotFoundError) {
      return { side: null, note: `the snapshot to compare with cannot be used (${error.message})` };
    }
    throw error;
  }
}

/**
 * Drift checks that did not pass, once accepted with --accept-drift, pass in later reports and say
 * who accepted them and why; nothing else changes.
 */
export function withAcceptance(rules: RuleResult[], acceptance: DriftAcceptance | null): RuleResult[] {
  if (acceptance === null) return rules;
  return rules.map((rule) =>
    rule.status !== 'pass' && rule.rule.startsWith('drift.')
      ? {
          ...rule,
          status: 'pass',
          message: `accepted by ${acceptance.by} at ${acceptance.acceptedAt} ("${acceptance.reason}"): ${rule.message}`,
        }
      : rule,
  );
}
