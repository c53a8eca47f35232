import type { DatasetName } from '../model/dataset.js';
import type { RecordSink } from '../model/dataset-build.js';
import type { CurrentPointer, DriftAcceptance, Manifest, ResourceEntry, ServingIndexEntry } from '../model/manifest.js';
import { formatBucketLocation, isBucketLocation, parseBucketLocation } from './s3-location.js';
import type {
  CommitOptions,
  GcResult,
  OpenedBundle,
  PointerMove,
  PointerStates,
  PublishResult,
  SnapshotEntry,
  SnapshotStore,
  Staged,
  StoreOptions,
} from './snapshot-store.js';
import type { FileLocator } from './bundle-files.js';
import type { ManifestFields, StagedBundle } from './staged-bundle.js';
import { FolderStore } from './folder-store.js';

/** `s3://bucket/prefix` opens a bucket store; anything else is a folder. */
export function openStore(location: string, options: StoreOptions = {}): SnapshotStore {
  if (isBucketLocation(location)) return new LazyBucketStore(location, options);
  return new FolderStore(location, options.lockWaitMs === undefined ? {} : { lockWaitMs: options.lockWaitMs });
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
  async prepare(): Promise<void> {
    return (await this.opened()).prepare();
  }
  async holdsNothing(): Promise<boolean> {
    return (await this.opened()).holdsNothing();
  }
  async currentPointer(dataset: DatasetName): Promise<CurrentPointer | null> {
    return (await this.opened()).currentPointer(dataset);
  }
  async pointerStates(): Promise<PointerStates> {
    return (await this.opened()).pointerStates();
  }
  async readManifest(snapshotId: string): Promise<Manifest> {
    return (await this.opened()).readManifest(snapshotId);
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
  async stageFromBlobs(
    dataset: DatasetName,
    files: readonly ResourceEntry[],
    servingIndex?: ServingIndexEntry,
  ): Promise<StagedBundle | null> {
    return (await this.opened()).stageFromBlobs(dataset, files, servingIndex);
  }
  async readBlobRange(sha256: string, start: number, bytes: number): Promise<Uint8Array | null> {
    return (await this.opened()).readBlobRange(sha256, start, bytes);
  }
  async stageCopy(manifest: Manifest, locate: FileLocator): Promise<StagedBundle> {
    return (await this.opened()).stageCopy(manifest, locate);
  }
  async discard(staged: StagedBundle): Promise<void> {
    return (await this.opened()).discard(staged);
  }
  async commit(staged: StagedBundle, fields: ManifestFields, publishedAt: Date, options?: CommitOptions): Promise<PublishResult> {
    return (await this.opened()).commit(staged, fields, publishedAt, options);
  }
  async rollback(dataset: DatasetName, snapshotId: string, at: Date): Promise<PointerMove> {
    return (await this.opened()).rollback(dataset, snapshotId, at);
  }
  async promote(
    dataset: DatasetName,
    snapshotId: string,
    at: Date,
    expectedCurrent: string | null,
    acceptance: DriftAcceptance | null,
  ): Promise<PointerMove> {
    return (await this.opened()).promote(dataset, snapshotId, at, expectedCurrent, acceptance);
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
