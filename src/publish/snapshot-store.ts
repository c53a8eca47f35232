import type { DatasetName } from '../model/dataset.js';
import type { RecordSink } from '../model/dataset-build.js';
import type { CurrentPointer, DriftAcceptance, Manifest } from '../model/manifest.js';
import { isBucketLocation } from './s3-location.js';
import { S3Store } from './s3-store.js';
import {
  BundleStore,
  type GcResult,
  type ManifestFields,
  type OpenedBundle,
  type PublishResult,
  type SnapshotEntry,
  type StagedBundle,
} from './store.js';

export type PointerStates = Record<DatasetName, { state: 'none' | 'ok' | 'broken'; snapshotId?: string; reason?: string }>;

/**
 * What every command needs of a store, wherever its bundles live: a folder (BundleStore) or a
 * bucket (S3Store). Both apply the same rules (write-once bundles, the snapshot generated last
 * stays current, gc never deletes the current one nor the one before it) and refuse a bundle
 * that does not match its manifest; only how they make a write atomic differs.
 */
export interface SnapshotStore {
  /** A folder path or `s3://bucket/prefix`, for messages and reports; never holds a credential. */
  readonly location: string;
  exists(): Promise<boolean>;
  currentPointer(dataset: DatasetName): Promise<CurrentPointer | null>;
  pointerStates(): Promise<PointerStates>;
  /** A verified manifest whose files can be read locally (a bucket's are downloaded and verified first). */
  openBundle(snapshotId: string): Promise<OpenedBundle>;
  /** Every file's size and SHA-256 against the manifest, streamed. */
  verifyBundle(snapshotId: string): Promise<Manifest>;
  listSnapshots(): Promise<SnapshotEntry[]>;
  stage<T>(dataset: DatasetName, produce: (sink: RecordSink) => T | Promise<T>): Promise<{ staged: StagedBundle; result: T }>;
  /** Stages a copy of a verified bundle folder (sync), each file's digest checked on the way. */
  stageCopy(manifest: Manifest, directory: string): Promise<StagedBundle>;
  discard(staged: StagedBundle): Promise<void>;
  /** Publishes a staged bundle; unless `promote: false` (a candidate), then moves the pointer (generated last wins). */
  commit(staged: StagedBundle, fields: ManifestFields, publishedAt: Date, options?: { promote?: boolean }): Promise<PublishResult>;
  rollback(dataset: DatasetName, snapshotId: string, at: Date): Promise<{ previousSnapshotId: string | null; repairedPointer: string | null }>;
  gc(keep: number, dryRun: boolean): Promise<GcResult>;
  /** Drift accepted for a snapshot: by build (in its manifest) or, in a folder store, by promote. */
  acceptedDrift(manifest: Manifest): Promise<DriftAcceptance | null>;
  /** Drops local copies of other bundles (a bucket store's download cache); a folder has none. */
  retainOnly(snapshotIds: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  lockWaitMs?: number;
  /** A bucket store's local copies (serve keeps current and previous there); default: a temp folder removed at close. */
  cacheDir?: string;
  /** serve: notice pointer moves by a conditional GET of the head, listing records only when it changed. */
  pollHead?: boolean;
}

/** `s3://bucket/prefix` opens a bucket store; anything else is a folder. */
export function openStore(location: string, options: StoreOptions = {}): SnapshotStore {
  if (isBucketLocation(location)) return new S3Store(location, options);
  return new BundleStore(location, options.lockWaitMs === undefined ? {} : { lockWaitMs: options.lockWaitMs });
}
