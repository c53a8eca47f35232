import type { DatasetName } from '../model/dataset.js';
import type { RecordSink } from '../model/dataset-build.js';
import type { ContentCheck } from '../model/content-rules.js';
import type { CurrentPointer, DriftAcceptance, Manifest, ResourceEntry, ServingIndexEntry } from '../model/manifest.js';
import type { FileLocator } from './bundle-files.js';
import type { ManifestFields, StagedBundle } from './staged-bundle.js';

export type PointerStates = Record<DatasetName, { state: 'none' | 'ok' | 'broken'; snapshotId?: string; reason?: string }>;

/** A bundle whose manifest was verified; its records are read by streaming, `records(resource)`. */
export interface OpenedBundle {
  manifest: Manifest;
  /** Where each listed file's bytes are on this machine: the store's blobs, or the bundle's folder (format 3). */
  locate: FileLocator;
  /** The records of one resource in published order; each part's digest is checked as it ends. */
  records(resource: string): AsyncGenerator<unknown>;
  /**
   * The serving index's path once it is verified, or null for a dataset without one; from layout 4
   * the parts it points into are verified with it. `contents` (validate, gate) checks the whole-file
   * and chunk digests and that it serves exactly the manifest's records. `bytes` (serve) checks the
   * chunk digests (and the parts' digests) on every core at once, off the event loop, and the table
   * layout: the bytes are then exactly those that gate checked (verified-serving-index.ts).
   */
  verifiedServingIndex(depth?: 'contents' | 'bytes'): Promise<string | null>;
}

export interface SnapshotEntry {
  dataset: DatasetName;
  snapshotId: string;
  generatedAt: string;
  freshUntil: string;
  current: boolean;
  /** Published with build --no-promote and not made current since. */
  candidate: boolean;
}

/** A staged bundle, what its producer returned, and the content rules over what was written. */
export interface Staged<T> {
  staged: StagedBundle;
  result: T;
  content: ContentCheck;
}

export interface CommitOptions {
  /** false: publish the bundle without moving the pointer. */
  promote?: boolean;
  /**
   * Mark it a candidate (build --no-promote), which drift and gc never take for a snapshot that was
   * current. Default: when not promoted. sync copies a bundle as what it is in the source.
   */
  candidate?: boolean;
}

export interface PublishResult {
  snapshotId: string;
  /** False when a bundle with this id already existed: nothing was written. */
  published: boolean;
  /** True when current/<dataset>.json now points at this snapshot and did not before. */
  madeCurrent: boolean;
  previousSnapshotId: string | null;
  /** Set when current was left on a snapshot generated later than this one. */
  keptNewerCurrent: { snapshotId: string; generatedAt: string } | null;
  /** Set when the current pointer was broken and this publish rewrote it: what was wrong. */
  repairedPointer: string | null;
  /** Where that broken pointer was, relative to the store: `current/<dataset>.json`, or a bucket's pointer record. */
  repairedPointerFile: string | null;
  /** Set when a bundle with this id existed but no longer verified, and was replaced: what was wrong. */
  republishedDamaged: string | null;
  removedLeftovers: string[];
}

/** What moving a pointer did: the snapshot it named before, and what was wrong with it if it was broken. */
export interface PointerMove {
  previousSnapshotId: string | null;
  repairedPointer: string | null;
}

export interface GcResult {
  deleted: string[];
  kept: string[];
  /** Bundles whose manifest could not be read: never deleted, named here for a person to look at. */
  unreadable: string[];
  /** Datasets left alone because their current pointer is broken (which bundle is current is unknown). */
  skipped: Array<{ dataset: DatasetName; reason: string }>;
  /** What dead processes on this host left behind (staging folders, gc trash, pointer temp files), removed. */
  removedLeftovers: string[];
  /** The disk was too full to take the lock: the store's ballast was given up to make room (a folder store). */
  freedBallast: boolean;
  /** Blobs no kept manifest lists, deleted (or, in a dry run, to be deleted). */
  blobs: BlobSweep;
}

/** What a sweep of unlisted blobs did: how many and how large; or why it swept none. */
export interface BlobSweep {
  deleted: number;
  bytes: number;
  /** Set when nothing was swept: a manifest could not be read, so which blobs it lists is unknown. */
  skipped: string | null;
}

/**
 * What every command needs of a store, wherever its bundles live: a folder (FolderStore) or a
 * bucket (S3Store). Both apply the same rules (write-once bundles, the snapshot generated last
 * stays current, gc never deletes the current one nor the one before it) and refuse a bundle
 * that does not match its manifest; only how they make a write atomic differs.
 */
export interface SnapshotStore {
  /** A folder path or `s3://bucket/prefix`, for messages and reports; never holds a credential. */
  readonly location: string;
  exists(): Promise<boolean>;
  /**
   * Makes sure the store can take a publish before any work is done: a folder is created, a bucket
   * must exist. Throws StoreUnavailableError (the user's to fix) otherwise.
   */
  prepare(): Promise<void>;
  /** True when the store is there but empty (a folder's mount point with its volume gone, a bucket prefix emptied). */
  holdsNothing(): Promise<boolean>;
  currentPointer(dataset: DatasetName): Promise<CurrentPointer | null>;
  pointerStates(): Promise<PointerStates>;
  /** A bundle's manifest, checked against its schema and its id but not its files' digests (list, history, the order rule). */
  readManifest(snapshotId: string): Promise<Manifest>;
  /** A verified manifest whose files can be read locally (a bucket's are downloaded and verified first). */
  openBundle(snapshotId: string): Promise<OpenedBundle>;
  /** Every file's size and SHA-256 against the manifest, streamed. */
  verifyBundle(snapshotId: string): Promise<Manifest>;
  listSnapshots(): Promise<SnapshotEntry[]>;
  stage<T>(dataset: DatasetName, produce: (sink: RecordSink) => T | Promise<T>): Promise<Staged<T>>;
  /**
   * A staged bundle of files an earlier build published (the derivation cache), or null when the
   * store no longer holds each of them whole (gc, damage): then the caller derives them again.
   * Nothing is copied where the store can read its blobs in place; their digests are checked by
   * readers and by commit, as for any blob a bundle shares.
   */
  stageFromBlobs(dataset: DatasetName, files: readonly ResourceEntry[], servingIndex?: ServingIndexEntry): Promise<StagedBundle | null>;
  /**
   * Stages a copy of a bundle (sync), each file's digest checked on the way; a file whose blob this
   * store holds already is not copied (commit checks that blob's digest instead).
   */
  stageCopy(manifest: Manifest, locate: FileLocator): Promise<StagedBundle>;
  /**
   * `bytes` bytes of a blob from `start` (the lines of a derivation cache entry, kept inside a part
   * an earlier build published); null when the store does not hold the blob or it is shorter. Not
   * verified here: the caller reads a whole part and checks it against the digest that names it.
   */
  readBlobRange(sha256: string, start: number, bytes: number): Promise<Uint8Array | null>;
  discard(staged: StagedBundle): Promise<void>;
  /** Publishes a staged bundle; unless `promote: false` (a candidate), then moves the pointer (generated last wins). */
  commit(staged: StagedBundle, fields: ManifestFields, publishedAt: Date, options?: CommitOptions): Promise<PublishResult>;
  /** Re-points current at an existing, verified bundle, back in time or not (rollback, sync). */
  rollback(dataset: DatasetName, snapshotId: string, at: Date): Promise<PointerMove>;
  /**
   * Makes a published bundle (a candidate) current, after the caller judged it against
   * `expectedCurrent` (promotion.ts): if current moved meanwhile, nothing changes
   * (CurrentMovedError). An acceptance of drift is recorded before the pointer moves.
   */
  promote(
    dataset: DatasetName,
    snapshotId: string,
    at: Date,
    expectedCurrent: string | null,
    acceptance: DriftAcceptance | null,
  ): Promise<PointerMove>;
  gc(keep: number, dryRun: boolean): Promise<GcResult>;
  /** Drift accepted for a snapshot: by promote (recorded in the store, the later) or by build (in its manifest). */
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
  /**
   * A bucket store's gc leaves objects no manifest lists alone until they are this old (default a
   * day): a build uploads its objects before its manifest, and a bucket has no lock.
   */
  uploadGraceMs?: number;
}
