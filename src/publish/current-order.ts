import type { Manifest } from '../model/manifest.js';
import { BundleIntegrityError, SnapshotNotFoundError } from './store-errors.js';

export interface NewerCurrent {
  snapshotId: string;
  generatedAt: string;
}

/**
 * The rule "the snapshot generated last stays current", written once for every store and for the
 * judgement of a candidate: builds may overlap (a slow scheduled job, a manual rebuild), and only
 * rollback moves current back in time. Returns the current snapshot when it was generated after
 * `generatedAt`, else null. A current bundle that is missing or damaged is no reason to keep it
 * current (null); any other failure to read it (a bucket out of reach, EIO) is thrown, since
 * nothing can be decided.
 */
export async function newerCurrent(
  readManifest: (snapshotId: string) => Promise<Manifest>,
  currentId: string,
  generatedAt: string,
): Promise<NewerCurrent | null> {
  let manifest: Manifest;
  try {
    manifest = await readManifest(currentId);
  } catch (error) {
    if (error instanceof BundleIntegrityError || error instanceof SnapshotNotFoundError) return null;
    throw error;
  }
  return Date.parse(manifest.generatedAt) > Date.parse(generatedAt) ? { snapshotId: currentId, generatedAt: manifest.generatedAt } : null;
}
