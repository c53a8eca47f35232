import type { DatasetName } from '../model/dataset.js';
import { isDatasetName } from '../model/dataset.js';
import type { Manifest } from '../model/manifest.js';
import { SNAPSHOT_ID_PATTERN } from '../model/manifest.js';
import { sha256Hex } from '../lib/file-digest.js';
import { canonicalJson } from './canonical-json.js';
import { SnapshotNotFoundError } from './store-errors.js';

export type ManifestBody = Omit<Manifest, 'snapshotId'>;

/**
 * The snapshot id is derived from the manifest (which names every resource's digest), so the same
 * content and the same generatedAt always give the same id, and a manifest edited after publishing
 * no longer matches its own id. The timestamp part keeps ids sortable and readable.
 */
export function snapshotIdFor(body: ManifestBody): string {
  // The serving index is derived from the resources (whose digests are in the body) and its bytes
  // differ between SQLite versions: the same content must get the same id on every Node.js.
  const { servingIndex: _derived, ...content } = body;
  const digest = sha256Hex(canonicalJson(content));
  const stamp = body.generatedAt.replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return `${body.dataset}-${stamp}-${digest.slice(0, 12)}`;
}

export function isSnapshotId(value: string): boolean {
  return SNAPSHOT_ID_PATTERN.test(value);
}

export function datasetOfSnapshotId(snapshotId: string): DatasetName {
  const match = /^(articles|calendar|smart-money)-\d{8}T\d{6}Z-[0-9a-f]{12}$/.exec(snapshotId);
  const dataset = match?.[1];
  if (!dataset || !isDatasetName(dataset)) throw new SnapshotNotFoundError(snapshotId, 'is not a snapshot id');
  return dataset;
}

/** A snapshot id given for a dataset (rollback, promote): one of another dataset is not found there. */
export function requireSnapshotOf(dataset: DatasetName, snapshotId: string): void {
  if (datasetOfSnapshotId(snapshotId) !== dataset) throw new SnapshotNotFoundError(snapshotId, `does not belong to dataset ${dataset}`);
}
