import type { DatasetName } from '../model/dataset.js';
import type { FreshnessFacts } from '../model/freshness.js';
import type { DriftAcceptance, Manifest, ResourceEntry, ServingIndexEntry } from '../model/manifest.js';
import type { SourceFile } from '../model/report.js';
import type { FileLocator } from './bundle-files.js';

/** Resources written to a private temp folder, not yet visible to any reader. */
export interface StagedBundle {
  dataset: DatasetName;
  /** The manifest format it is published in: the current one, or a synced bundle's own (its id depends on it). */
  format: Manifest['format'];
  directory: string;
  files: ResourceEntry[];
  servingIndex?: ServingIndexEntry;
  /** Where the files are when not in `directory`: the store's own blobs, which a reuse did not copy (stageFromBlobs). */
  locate?: FileLocator;
  /** Blobs (by SHA-256) whose bytes the store checked while staging: commit need not hash them again. */
  verifiedBlobs?: ReadonlySet<string>;
  /** Staged files (by path) already forced to disk as they were written: commit need not force them again. */
  synced?: ReadonlySet<string>;
}

/** Everything of a manifest except what the store computes (format, files, snapshotId). */
export interface ManifestFields {
  generatedAt: string;
  facts: FreshnessFacts;
  freshUntil: string;
  allowStale: boolean;
  acceptedDrift?: DriftAcceptance;
  sources: SourceFile[];
}
