import { DATASETS, type DatasetName } from '../model/dataset.js';
import { datasetOfSnapshotId } from './snapshot-id.js';

export interface GcCandidate {
  dataset: DatasetName;
  snapshotId: string;
  /** '' when the manifest cannot be read. */
  generatedAt: string;
  current: boolean;
  /** Published without being made current (build --no-promote): never a rollback target. */
  candidate: boolean;
}

export interface GcPlan {
  deleted: string[];
  kept: string[];
  unreadable: string[];
  skipped: Array<{ dataset: DatasetName; reason: string }>;
}

/**
 * Which bundles gc deletes, the same for every store: all but the newest `keep` of each dataset,
 * never the current one nor the newest generated before it that is not a candidate (the rollback
 * target), never one
 * whose manifest cannot be read, and nothing of a dataset whose pointer is broken.
 * `snapshots` is newest first.
 */
export function planGc(
  snapshots: readonly GcCandidate[],
  pointers: Record<DatasetName, { state: 'none' | 'ok' | 'broken'; reason?: string }>,
  keep: number,
): GcPlan {
  const plan: GcPlan = { deleted: [], kept: [], unreadable: [], skipped: [] };
  for (const dataset of DATASETS) {
    const bundles = snapshots.filter((s) => s.dataset === dataset);
    const pointer = pointers[dataset];
    if (pointer.state === 'broken') {
      plan.skipped.push({ dataset, reason: pointer.reason ?? 'broken current pointer' });
      plan.kept.push(...bundles.map((s) => s.snapshotId));
      continue;
    }
    // A bundle whose manifest cannot be read has no known age: it is never a candidate.
    const readable = bundles.filter((s) => s.generatedAt !== '');
    for (const s of bundles) if (s.generatedAt === '') plan.unreadable.push(s.snapshotId);
    const currentIndex = readable.findIndex((s) => s.current);
    const protectedIds = new Set<string>();
    if (currentIndex >= 0) {
      protectedIds.add(readable[currentIndex]!.snapshotId);
      // The snapshot that was current before it, not an unpromoted candidate generated in between
      // (perhaps the very one drift refused): the one validate compares with, and a rollback's target.
      const before = readable.slice(currentIndex + 1).find((s) => !s.candidate);
      if (before) protectedIds.add(before.snapshotId);
    }
    readable.forEach((s, i) => {
      if (i < keep || protectedIds.has(s.snapshotId)) plan.kept.push(s.snapshotId);
      else plan.deleted.push(s.snapshotId);
    });
    plan.kept.push(...plan.unreadable.filter((id) => datasetOfSnapshotId(id) === dataset));
  }
  return plan;
}
