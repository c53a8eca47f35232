import type { DatasetName } from '../model/dataset.js';
import type { RecordSink } from '../model/dataset-build.js';
import type { CurrentPointer, DriftAcceptance, Manifest } from '../model/manifest.js';
import { formatBucketLocation, isBucketLocation, parseBucketLocation } from './s3-location.js';
import type { ManifestFields, StagedBundle } from './staged-bundle.js';
import {
  BundleStore,
  type CommitOptions,
  type GcResult,
  type OpenedBundle,
  type PublishResult,
  type SnapshotEntry,
  type Staged,
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
  stage<T>(dataset: DatasetName, produce: (sink: RecordSink) => T | Promise<T>): Promise<Staged<T>>;
  /** Stages a copy of a verified bundle folder (sync), each file's digest checked on the way. */
  stageCopy(manifest: Manifest, directory: string): Promise<StagedBundle>;
  discard(staged: StagedBundle): Promise<void>;
  /** Publishes a staged bundle; unless `promote: false` (a candidate), then moves the pointer (generated last wins). */
  commit(staged: StagedBundle, fields: ManifestFields, publishedAt: Date, options?: CommitOptions): Promise<PublishResult>;
  rollback(
    dataset: DatasetName,
    snapshotId: string,
    at: Date,
  ): Promise<{ previousSnapshotId: string | null; repairedPointer: string | null }>;
  gc(keep: number, dryRun: boolean): Promise<GcResult>;
  /** Drift accepted for a snapshot: by build (in its manifest) or, in a folder store, by promote. */
  acceptedDrift(manifest: Manifest): Promise<DriftAcceptance | null>;
  /**
   * Drops local copies of other bundles (a bucket store's download cache) of `datasets` (default:
   * all); a folder has none.
   */
  retainOnly(snapshotIds: readonly string[], datasets?: readonly DatasetName[]): Promise<void>;
  /** Removes the local copy of one bundle, so that the next open downloads it again; false when there is none. */
  dropLocalCopy(snapshotId: string): Promise<boolean>;
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
  if (isBucketLocation(location)) return new LazyBucketStore(location, options);
  return new BundleStore(location, options.lockWaitMs === undefined ? {} : { lockWaitMs: options.lockWaitMs });
}

/**
 * A bucket store (S3Store) loaded at its first use: the AWS SDK takes about a second to load, which
 * every command on a folder store, and every process of the test suite, would otherwise pay.
 */
class LazyBucketStore implements SnapshotStore {
  readonly location: string;
  private store: Promise<SnapshotStore> | null = null;

  constructor(
    private readonly given: string,
    private readonly options: StoreOptions,
  ) {
    // A malformed location fails here, when the store is opened, as S3Store's constructor would.
    this.location = formatBucketLocation(parseBucketLocation(given));
  }

  private opened(): Promise<SnapshotStore> {
    this.store ??= import('./s3-store.js').then(({ S3Store }) => new S3Store(this.given, this.options));
    return this.store;
  }

  async exists(): Promise<boolean> {
    return (await this.opened()).exists();
  }
  async currentPointer(dataset: DatasetName): Promise<CurrentPointer | null> {
    return (await this.opened()).currentPointer(dataset);
  }
  async pointerStates(): Promise<PointerStates> {
    return (await this.opened()).pointerStates();
  }
  async openBundle(snapshotId: string): Promise<OpenedBundle> {
    return (await this.opened()).openBundle(snapshotId);
  }
  async verifyBundle(snapshotId: string): Promise<Manifest> {
    return (await this.opened()).verifyBundle(snapshotId);
  }
  async listSnapshots(): Promise<SnapshotEntry[]> {
    return (await this.opened()).listSnapshots();
  }
  async stage<T>(dataset: DatasetName, produce: (sink: RecordSink) => T | Promise<T>): Promise<Staged<T>> {
    return (await this.opened()).stage(dataset, produce);
  }
  async stageCopy(manifest: Manifest, directory: string): Promise<StagedBundle> {
    return (await this.opened()).stageCopy(manifest, directory);
  }
  async discard(staged: StagedBundle): Promise<void> {
    return (await this.opened()).discard(staged);
  }
  async commit(staged: StagedBundle, fields: ManifestFields, publishedAt: Date, options?: CommitOptions): Promise<PublishResult> {
    return (await this.opened()).commit(staged, fields, publishedAt, options);
  }
  async rollback(
    dataset: DatasetName,
    snapshotId: string,
    at: Date,
  ): Promise<{ previousSnapshotId: string | null; repairedPointer: string | null }> {
    return (await this.opened()).rollback(dataset, snapshotId, at);
  }
  async gc(keep: number, dryRun: boolean): Promise<GcResult> {
    return (await this.opened()).gc(keep, dryRun);
  }
  async acceptedDrift(manifest: Manifest): Promise<DriftAcceptance | null> {
    return (await this.opened()).acceptedDrift(manifest);
  }
  async retainOnly(snapshotIds: readonly string[], datasets?: readonly DatasetName[]): Promise<void> {
    return (await this.opened()).retainOnly(snapshotIds, datasets);
  }
  async dropLocalCopy(snapshotId: string): Promise<boolean> {
    return (await this.opened()).dropLocalCopy(snapshotId);
  }
  async close(): Promise<void> {
    if (this.store !== null) await (await this.store).close();
  }
}
