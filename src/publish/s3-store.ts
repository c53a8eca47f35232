import { mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileMismatch } from './bundle-file-damage.js';
import { DATASETS, type DatasetName } from '../model/dataset.js';
import type { RecordSink } from '../model/dataset-build.js';
import {
  type CurrentPointer,
  DriftAcceptance,
  type Manifest,
  MANIFEST_FORMAT,
  type ResourceEntry,
  type ServingIndexEntry,
} from '../model/manifest.js';
import { compareText } from '../lib/text-order.js';
import { makeProcessTempDir } from '../lib/process-temp-dir.js';
import { DAY_MS } from '../lib/time.js';
import { checkDigest } from './bundle-copy.js';
import { faultPoint } from '../lib/fault-point.js';
import { planGc } from './gc-plan.js';
import { bundleFiles, manifestBodyOf, manifestFor, manifestText, parseManifest, safeJson } from './manifest-check.js';
import { canonicalJson } from './canonical-json.js';
import { newerCurrent } from './current-order.js';
import { judgePointers } from './pointer-states.js';
import { BLOB_FORMAT, blobPath, type FileLocator } from './bundle-files.js';
import { formatBucketLocation, parseBucketLocation } from './s3-location.js';
import { BucketObjects, s3Client } from './s3-objects.js';
import { PointerLog, type PointerReading, type PointerRecord } from './s3-pointers.js';
import type {
  CommitOptions,
  GcResult,
  BlobSweep,
  OpenedBundle,
  PointerMove,
  PointerStates,
  PublishResult,
  SnapshotEntry,
  SnapshotStore,
  Staged,
  StoreOptions,
} from './snapshot-store.js';
import type { ManifestFields, StagedBundle } from './staged-bundle.js';
import { FolderStore } from './folder-store.js';
import {
  BundleIntegrityError,
  CurrentMovedError,
  PublishFailure,
  type PublishState,
  SnapshotNotFoundError,
  StoreUnavailableError,
} from './store-errors.js';
import { datasetOfSnapshotId, isSnapshotId, requireSnapshotOf } from './snapshot-id.js';

/** Pointer records gc keeps per dataset: the recent history of moves, for a person to read. */
const POINTER_RECORDS_KEPT = 20;
/** Objects no manifest lists this old are an upload that died, not one in progress. */
const UPLOAD_GRACE_MS = DAY_MS;
/** A downloaded blob younger than this is never swept from a download cache: its manifest may be on its way. */
const CACHE_BLOB_GRACE_MS = 10 * 60_000;
/** serve lists the pointer records at least this often even while the head is unchanged. */
const LIST_EVERY_MS = 30_000;

/**
 * A store in an S3 bucket (any server speaking the S3 API), with the folder store's layout under
 * the prefix: bundles/<dataset>/<snapshotId>/... and pointers under current/. S3 has no rename and
 * no lock, so publishing relies only on strong read-after-write and list consistency: a bundle's
 * objects are uploaded and each read back through SHA-256, then its manifest (a bundle exists once
 * its manifest does), then a pointer record (s3-pointers.ts). A build killed at any point leaves
 * the current pointer and its bundle as they were. Bundles are staged in a local temp folder, and
 * read from a local copy downloaded and verified first (SQLite needs a file).
 */
export class S3Store implements SnapshotStore {
  readonly location: string;
  private readonly objects: BucketObjects;
  private readonly prefix: string;
  private readonly pointers: PointerLog;
  private readonly pollHead: boolean;
  private readonly givenCacheDir: string | undefined;
  private readonly uploadGraceMs: number;
  private localRoot: string | null = null;
  private staging: FolderStore | null = null;
  private readonly polled = new Map<DatasetName, { etag: string; listedAt: number; reading: PointerReading }>();

  constructor(location: string, options: StoreOptions = {}) {
    const parsed = parseBucketLocation(location);
    this.location = formatBucketLocation(parsed);
    this.prefix = parsed.prefix;
    this.objects = new BucketObjects(s3Client(), parsed);
    this.pointers = new PointerLog(this.objects, this.prefix);
    this.pollHead = options.pollHead ?? false;
    this.givenCacheDir = options.cacheDir;
    this.uploadGraceMs = options.uploadGraceMs ?? UPLOAD_GRACE_MS;
  }

  private bundlePrefix(snapshotId: string): string {
    return `${this.prefix}bundles/${datasetOfSnapshotId(snapshotId)}/${snapshotId}/`;
  }
  /** candidates/<dataset>/<snapshotId>: published with build --no-promote, as in a folder store. */
  private candidateKey(snapshotId: string): string {
    return `${this.prefix}candidates/${datasetOfSnapshotId(snapshotId)}/${snapshotId}`;
  }
  /** accepted/<dataset>/<snapshotId>.json: drift accepted by promote, as in a folder store. */
  private acceptanceKey(snapshotId: string): string {
    return `${this.prefix}accepted/${datasetOfSnapshotId(snapshotId)}/${snapshotId}.json`;
  }
  private objectKey(snapshotId: string, file: string): string {
    return `${this.bundlePrefix(snapshotId)}${file}`;
  }
  /** blobs/sha256/<hex>: a file of a format-4 bundle, shared by every bundle that lists the same bytes. */
  private blobKey(sha256: string): string {
    return `${this.prefix}blobs/sha256/${sha256}`;
  }
  /** Where a listed file is: its blob (format 4), or under the bundle's own prefix (format 3). */
  private fileKey(manifest: Manifest, entry: { path: string; sha256: string }): string {
    return manifest.format >= BLOB_FORMAT ? this.blobKey(entry.sha256) : this.objectKey(manifest.snapshotId, entry.path);
  }

  async exists(): Promise<boolean> {
    return this.objects.bucketExists();
  }

  /** A bucket that does not exist stops the work before it starts; creating one is the operator's decision. */
  async prepare(): Promise<void> {
    if (!(await this.objects.bucketExists())) {
      throw new StoreUnavailableError(`store ${this.location} cannot be used: bucket ${this.objects.location.bucket} does not exist`);
    }
  }

  /** No object under the store's prefix: deleted, or moved to another prefix, with the bucket still there. */
  async holdsNothing(): Promise<boolean> {
    return this.objects.noneUnder(this.prefix);
  }

  // ---- pointers

  private async reading(dataset: DatasetName): Promise<PointerReading> {
    if (!this.pollHead) return this.pointers.read(dataset);
    // A conditional GET of the head costs little; the records are listed when it changed, and now
    // and then regardless, in case a writer died between its record and the head.
    const last = this.polled.get(dataset);
    const changed = await this.pointers.headChanged(dataset, last?.etag);
    // '' is a head that does not exist (nothing published yet): as cheap to notice as a 304.
    const unchanged = changed === null || (changed === '' && last?.etag === '');
    if (last && unchanged && Date.now() - last.listedAt < LIST_EVERY_MS) return last.reading;
    const reading = await this.pointers.read(dataset);
    this.polled.set(dataset, { etag: changed ?? last?.etag ?? '', listedAt: Date.now(), reading });
    return reading;
  }

  async currentPointer(dataset: DatasetName): Promise<CurrentPointer | null> {
    const { pointer, broken } = await this.reading(dataset);
    if (broken) throw broken;
    return pointer;
  }

  async pointerStates(): Promise<PointerStates> {
    return judgePointers({
      readPointer: async (dataset) => {
        const { pointer, broken } = await this.pointers.read(dataset);
        if (broken) throw broken;
        return pointer;
      },
      hasManifest: async (snapshotId) => (await this.objects.head(this.objectKey(snapshotId, 'manifest.json'))) !== null,
      pointerLocation: (dataset) => this.objects.url(this.pointers.headKey(dataset)),
    });
  }

  // ---- reading bundles

  async readManifest(snapshotId: string): Promise<Manifest> {
    return (await this.fetchManifest(snapshotId)).manifest;
  }

  private async fetchManifest(snapshotId: string): Promise<{ manifest: Manifest; text: string }> {
    datasetOfSnapshotId(snapshotId);
    const got = await this.objects.getText(this.objectKey(snapshotId, 'manifest.json'));
    // Objects without a manifest are an upload that has not finished (or died): not a bundle.
    if (got === null || got === 'unchanged') throw new SnapshotNotFoundError(snapshotId, `does not exist in ${this.location}`);
    return { manifest: parseManifest(snapshotId, got.text), text: got.text };
  }

  async verifyBundle(snapshotId: string): Promise<Manifest> {
    const manifest = await this.readManifest(snapshotId);
    for (const entry of bundleFiles(manifest)) {
      const key = this.fileKey(manifest, entry);
      const got = await this.objects.digest(key);
      if (!got) throw new BundleIntegrityError(snapshotId, `${entry.path} is missing (${this.objects.url(key)})`);
      checkDigest(snapshotId, entry, got, this.objects.url(key));
    }
    return manifest;
  }

  /** The local folder that holds downloaded bundles (and, while building, staged ones). */
  private async local(): Promise<string> {
    if (this.localRoot === null) {
      if (this.givenCacheDir) await mkdir(this.givenCacheDir, { recursive: true });
      this.localRoot = this.givenCacheDir ?? (await makeProcessTempDir('pdsnap-bucket'));
    }
    return this.localRoot;
  }

  /**
   * Downloads the bundle into the local cache, each object hashed as it arrives and refused
   * (named) when it differs from the manifest; the copy is renamed into place only once complete,
   * so a download that fails half way is never mistaken for a bundle. A copy already there is used,
   * and so is every blob the cache holds already: a new snapshot downloads only the files that
   * changed since the one served before it.
   */
  async openBundle(snapshotId: string): Promise<OpenedBundle> {
    const root = await this.local();
    const cache = new FolderStore(root);
    const target = cache.bundleDir(snapshotId);
    if (!(await isDir(target))) {
      const { manifest, text } = await this.fetchManifest(snapshotId);
      const blobs = manifest.format >= BLOB_FORMAT;
      // A folder of this process's own (download-<space>-<pid>-XXXXXX): one that a killed server left
      // is removed by the next download, or a crash loop would fill the cache's disk.
      await mkdir(path.join(root, 'downloading'), { recursive: true });
      const partial = await makeProcessTempDir('download', path.join(root, 'downloading'));
      try {
        for (const entry of bundleFiles(manifest)) {
          const local = blobs ? blobPath(root, entry.sha256) : null;
          if (local !== null && (await sizeOf(local)) === entry.bytes) continue;
          const key = this.fileKey(manifest, entry);
          const file = path.join(partial, entry.path);
          await mkdir(path.dirname(file), { recursive: true });
          const got = await this.objects.digest(key, file);
          if (!got) throw new BundleIntegrityError(snapshotId, `${entry.path} is missing (${this.objects.url(key)})`);
          checkDigest(snapshotId, entry, got, this.objects.url(key));
          if (local !== null) {
            await mkdir(path.dirname(local), { recursive: true });
            await rename(file, local);
          }
        }
        const manifestFolder = blobs ? path.join(partial, 'manifest') : partial;
        await mkdir(manifestFolder, { recursive: true });
        await writeFile(path.join(manifestFolder, 'manifest.json'), text, { flag: 'wx' });
        await mkdir(path.dirname(target), { recursive: true });
        await rename(manifestFolder, target).catch(async (error: NodeJS.ErrnoException) => {
          // Another download of the same bundle finished first: its copy is as good as this one.
          if (!(await isDir(target))) throw error;
        });
      } finally {
        await rm(partial, { recursive: true, force: true });
      }
    }
    return cache.openBundle(snapshotId);
  }

  async retainOnly(snapshotIds: readonly string[], datasets: readonly DatasetName[] = DATASETS): Promise<void> {
    if (this.localRoot === null) return;
    const keep = new Set(snapshotIds);
    for (const dataset of datasets) {
      const dir = path.join(this.localRoot, 'bundles', dataset);
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        if (!keep.has(name)) await rm(path.join(dir, name), { recursive: true, force: true });
      }
    }
    // The blobs no copy left in the cache lists (every dataset's copies count); a blob downloaded in
    // the last minutes may belong to a download of another dataset still under way.
    await new FolderStore(this.localRoot).sweepBlobs(false, { minAgeMs: CACHE_BLOB_GRACE_MS });
  }

  /**
   * Removes a local copy that failed verification, and those of its blobs whose bytes do not match
   * their digest, so that the next open downloads them again. The intact ones stay: other copies in
   * the cache (the snapshot being served) may list them.
   */
  async dropLocalCopy(snapshotId: string): Promise<boolean> {
    if (this.localRoot === null) return false;
    const cache = new FolderStore(this.localRoot);
    const copy = cache.bundleDir(snapshotId);
    if (!(await isDir(copy))) return false;
    const manifest = await cache.readManifest(snapshotId).catch(() => null);
    if (manifest !== null && manifest.format >= BLOB_FORMAT) {
      for (const entry of bundleFiles(manifest)) {
        const blob = blobPath(this.localRoot, entry.sha256);
        if ((await fileMismatch(blob, entry).catch(() => 'cannot be read')) !== null) await rm(blob, { force: true });
      }
    }
    await rm(copy, { recursive: true, force: true });
    return true;
  }

  async listSnapshots(): Promise<SnapshotEntry[]> {
    const entries: SnapshotEntry[] = [];
    const pointers = await this.pointerStates();
    for (const dataset of DATASETS) {
      const base = `${this.prefix}bundles/${dataset}/`;
      const { prefixes } = await this.objects.list(base, '/');
      const candidates = new Set(
        (await this.objects.list(`${this.prefix}candidates/${dataset}/`)).objects.map((o) => o.key.split('/').at(-1)),
      );
      for (const folder of prefixes) {
        const snapshotId = folder.slice(base.length, -1);
        if (!isSnapshotId(snapshotId) || datasetOfSnapshotId(snapshotId) !== dataset) continue;
        const got = await this.objects.getText(`${folder}manifest.json`);
        if (got === null || got === 'unchanged') continue; // an upload in progress, or one that died
        let manifest: Manifest | null = null;
        try {
          manifest = parseManifest(snapshotId, got.text);
        } catch {
          // listed as unreadable: gc never deletes it
        }
        entries.push({
          dataset,
          snapshotId,
          generatedAt: manifest?.generatedAt ?? '',
          freshUntil: manifest?.freshUntil ?? '',
          current: pointers[dataset].snapshotId === snapshotId,
          candidate: pointers[dataset].snapshotId !== snapshotId && candidates.has(snapshotId),
        });
      }
    }
    return entries.sort(
      (a, b) => compareText(a.dataset, b.dataset) || compareText(b.generatedAt, a.generatedAt) || compareText(b.snapshotId, a.snapshotId),
    );
  }

  // ---- publishing

  /** Builds stage in a local folder store under the temp folder, removed at close. */
  private async stagingStore(): Promise<FolderStore> {
    // Its parts are uploaded and deleted, never installed: nothing to force to disk.
    this.staging ??= new FolderStore(path.join(await this.local(), 'staging'), { syncStaged: false });
    return this.staging;
  }

  async stage<T>(dataset: DatasetName, produce: (sink: RecordSink) => T | Promise<T>): Promise<Staged<T>> {
    return (await this.stagingStore()).stage(dataset, produce);
  }

  async readBlobRange(sha256: string, start: number, bytes: number): Promise<Uint8Array | null> {
    return this.objects.getRange(this.blobKey(sha256), start, bytes);
  }

  /**
   * The blobs are downloaded into a local staging folder, each hashed on the way: a derivation kept
   * by the cache needs its records where drift reads them. Null when one is missing or damaged.
   */
  async stageFromBlobs(
    dataset: DatasetName,
    files: readonly ResourceEntry[],
    servingIndex?: ServingIndexEntry,
  ): Promise<StagedBundle | null> {
    const staging = path.join(await this.local(), 'staging', 'tmp');
    await mkdir(staging, { recursive: true });
    const staged: StagedBundle = {
      dataset,
      format: MANIFEST_FORMAT,
      directory: await mkdtemp(path.join(staging, `reuse-${dataset}-`)),
      files: [...files],
      ...(servingIndex ? { servingIndex } : {}),
    };
    for (const entry of [...files, ...(servingIndex ? [servingIndex] : [])]) {
      const file = path.join(staged.directory, entry.path);
      await mkdir(path.dirname(file), { recursive: true });
      const got = await this.objects.digest(this.blobKey(entry.sha256), file);
      if (got === null || got.bytes !== entry.bytes || got.sha256 !== entry.sha256) {
        await this.discard(staged);
        return null;
      }
    }
    return staged;
  }

  /** Stages a copy of a bundle (sync): a blob the bucket holds already is not copied, commit checks it instead. */
  async stageCopy(manifest: Manifest, locate: FileLocator): Promise<StagedBundle> {
    const staging = await this.stagingStore();
    if (manifest.format < BLOB_FORMAT) return staging.stageCopy(manifest, locate);
    const missing = new Set<string>();
    for (const entry of bundleFiles(manifest)) {
      if ((await this.objects.head(this.blobKey(entry.sha256)))?.size !== entry.bytes) missing.add(entry.sha256);
    }
    return staging.stageCopy(manifest, locate, (entry) => missing.has(entry.sha256));
  }

  async discard(staged: StagedBundle): Promise<void> {
    await rm(staged.directory, { recursive: true, force: true });
  }

  async commit(staged: StagedBundle, fields: ManifestFields, publishedAt: Date, options: CommitOptions = {}): Promise<PublishResult> {
    const manifest = manifestFor(manifestBodyOf(staged, fields));
    const { snapshotId } = manifest;
    await faultPoint('resources-staged');
    const state: PublishState = { bundlePublished: false, pointerMoved: false };
    try {
      let republishedDamaged: string | null = null;
      const existing = await this.objects.getText(this.objectKey(snapshotId, 'manifest.json'));
      if (existing === null || existing === 'unchanged') {
        // A candidate's marker goes first: one left without a bundle (a killed build) is ignored.
        const promote = options.promote !== false;
        if (options.candidate ?? !promote) {
          await this.objects.putText(this.candidateKey(snapshotId), `${publishedAt.toISOString()}\n`);
        } else if (!promote) {
          // Copied as a bundle that was current (sync): a marker left by a killed run of it goes.
          await this.objects.delete(this.candidateKey(snapshotId));
        }
        const blobs = manifest.format >= BLOB_FORMAT;
        if (blobs) await this.uploadMissingBlobs(manifest, staged.directory);
        else await this.uploadObjects(manifest, staged.directory, bundleFiles(manifest));
        // The manifest last: until it exists, readers and gc's age rule treat the objects as an upload.
        await this.objects.putText(this.objectKey(snapshotId, 'manifest.json'), manifestText(manifest), { onlyIfAbsent: true });
        state.bundlePublished = true;
        // A blob this bundle shares with an older one may have been removed by a gc that ran
        // meanwhile (a bucket has no lock): checked once more now that the manifest names it.
        if (blobs) await this.uploadMissingBlobs(manifest, staged.directory);
        await faultPoint('manifest-written');
      } else {
        republishedDamaged = await this.repair(manifest, existing.text, staged.directory);
        if (republishedDamaged) state.bundlePublished = true;
      }
      await this.discard(staged);

      const reading = await this.pointers.read(staged.dataset);
      const previous = reading.pointer?.snapshotId ?? null;
      const keptNewer =
        previous !== null && previous !== snapshotId
          ? await newerCurrent((id) => this.readManifest(id), previous, fields.generatedAt)
          : null;
      let madeCurrent = options.promote !== false && (previous !== snapshotId || reading.broken !== null) && keptNewer === null;
      let lostTo: { snapshotId: string; generatedAt: string } | null = null;
      if (madeCurrent) {
        const { mine, winner } = await this.pointers.move(
          staged.dataset,
          { snapshotId, publishedAt: publishedAt.toISOString() },
          fields.generatedAt,
          reading.newest,
        );
        state.pointerMoved = true;
        await this.objects.delete(this.candidateKey(snapshotId));
        if (winner.key !== mine.key && winner.snapshotId !== snapshotId) {
          // A concurrent publish sorts after this one (it was generated later, or moved the pointer
          // after this one read it): it is current, and this build says so.
          madeCurrent = false;
          lostTo = { snapshotId: winner.snapshotId, generatedAt: (await this.generatedAtOf(winner)) ?? '?' };
        }
      }
      await faultPoint('pointer-written');
      return {
        snapshotId,
        published: state.bundlePublished,
        madeCurrent,
        previousSnapshotId: previous,
        keptNewerCurrent: keptNewer ?? lostTo,
        repairedPointer: reading.broken?.reason ?? null,
        repairedPointerFile: reading.broken && reading.newest ? reading.newest.key.slice(this.prefix.length) : null,
        republishedDamaged,
        removedLeftovers: [],
      };
    } catch (error) {
      await this.discard(staged);
      if (state.bundlePublished || state.pointerMoved) throw new PublishFailure(snapshotId, state, error as Error);
      throw error;
    }
  }

  /**
   * A format-4 bundle's files: each blob the bucket holds already with this size and recorded
   * digest is kept (the same bytes, published before); every other one is uploaded from the staged
   * copy and read back. Readers verify every blob they download whatever this found.
   */
  private async uploadMissingBlobs(manifest: Manifest, directory: string): Promise<void> {
    const missing = [];
    for (const entry of bundleFiles(manifest)) {
      const head = await this.objects.head(this.blobKey(entry.sha256));
      if (head === null || head.size !== entry.bytes || head.sha256 !== entry.sha256) missing.push(entry);
    }
    for (const entry of missing) {
      if ((await sizeOf(path.join(directory, entry.path))) === null) {
        throw new BundleIntegrityError(
          manifest.snapshotId,
          `${entry.path} is missing (${this.objects.url(this.blobKey(entry.sha256))}), and this publish holds no copy to upload`,
        );
      }
    }
    await this.uploadObjects(manifest, directory, missing);
  }

  /** Uploads files of a staged bundle, reading each object back through SHA-256 before going on. */
  private async uploadObjects(
    manifest: Manifest,
    directory: string,
    entries: Array<{ path: string; bytes: number; sha256: string }>,
  ): Promise<void> {
    let first = true;
    for (const entry of entries) {
      const key = this.fileKey(manifest, entry);
      await this.objects.uploadFile(key, path.join(directory, entry.path), entry.sha256);
      const got = await this.objects.digest(key);
      if (!got) throw new Error(`${this.objects.url(key)}: missing right after upload`);
      if (got.bytes !== entry.bytes || got.sha256 !== entry.sha256) {
        throw new Error(
          `${this.objects.url(key)}: read back ${got.bytes} bytes with another SHA-256 than the ${entry.bytes} uploaded; nothing was published`,
        );
      }
      if (first) await faultPoint('object-uploaded');
      first = false;
    }
  }

  /**
   * A bundle with this id is already in the bucket: same id, so the same content, which this build
   * staged too. Every object is read back through SHA-256 (a HEAD would trust the size and the
   * digest recorded at upload, which an object edited in place keeps), and the manifest is checked:
   * what is missing or differs is uploaded again from this build's copy, the manifest last, as a
   * folder store republishes a damaged bundle. Returns what was wrong, or null when nothing was.
   */
  private async repair(manifest: Manifest, existingText: string, directory: string): Promise<string | null> {
    const { snapshotId } = manifest;
    const reasons: string[] = [];
    let manifestDamaged = false;
    try {
      parseManifest(snapshotId, existingText);
    } catch (error) {
      if (!(error instanceof BundleIntegrityError)) throw error;
      reasons.push(error.reason);
      manifestDamaged = true;
    }
    const damaged: Array<{ path: string; bytes: number; sha256: string }> = [];
    for (const entry of bundleFiles(manifest)) {
      const got = await this.objects.digest(this.fileKey(manifest, entry));
      if (got === null) reasons.push(`${entry.path} is missing`);
      else if (got.bytes !== entry.bytes || got.sha256 !== entry.sha256) reasons.push(`${entry.path} does not match its sha256`);
      else continue;
      damaged.push(entry);
    }
    if (reasons.length === 0) return null;
    await this.uploadObjects(manifest, directory, damaged);
    if (manifestDamaged) await this.objects.putText(this.objectKey(snapshotId, 'manifest.json'), manifestText(manifest));
    return reasons.join('; ');
  }

  private async generatedAtOf(record: PointerRecord): Promise<string | null> {
    try {
      return (await this.readManifest(record.snapshotId)).generatedAt;
    } catch {
      return null;
    }
  }

  async rollback(dataset: DatasetName, snapshotId: string, at: Date): Promise<PointerMove> {
    requireSnapshotOf(dataset, snapshotId);
    const manifest = await this.verifyBundle(snapshotId);
    const reading = await this.pointers.read(dataset);
    const previous = reading.pointer?.snapshotId ?? null;
    if (previous !== snapshotId || reading.broken !== null) {
      await this.pointers.move(dataset, { snapshotId, publishedAt: at.toISOString() }, manifest.generatedAt, reading.newest);
      await this.objects.delete(this.candidateKey(snapshotId));
    }
    return { previousSnapshotId: previous, repairedPointer: reading.broken?.reason ?? null };
  }

  /**
   * The folder store's promote: verified, then judged against `expectedCurrent` (nothing changes if
   * current moved meanwhile), the acceptance recorded before the pointer moves. A bucket has no lock,
   * so a writer that moves the pointer between the check and the move is found after it: the record
   * order decides (as for racing builds), and a promote that did not end current says so.
   */
  async promote(
    dataset: DatasetName,
    snapshotId: string,
    at: Date,
    expectedCurrent: string | null,
    acceptance: DriftAcceptance | null,
  ): Promise<PointerMove> {
    requireSnapshotOf(dataset, snapshotId);
    const manifest = await this.verifyBundle(snapshotId);
    const reading = await this.pointers.read(dataset);
    const previous = reading.pointer?.snapshotId ?? null;
    if (previous !== expectedCurrent) throw new CurrentMovedError(dataset, expectedCurrent, previous);
    if (acceptance !== null) await this.objects.putText(this.acceptanceKey(snapshotId), `${canonicalJson(acceptance)}\n`);
    if (previous !== snapshotId || reading.broken !== null) {
      const { winner } = await this.pointers.move(
        dataset,
        { snapshotId, publishedAt: at.toISOString() },
        manifest.generatedAt,
        reading.newest,
      );
      if (winner.snapshotId !== snapshotId) throw new CurrentMovedError(dataset, expectedCurrent, winner.snapshotId);
    }
    await this.objects.delete(this.candidateKey(snapshotId));
    return { previousSnapshotId: previous, repairedPointer: reading.broken?.reason ?? null };
  }

  /**
   * The folder store's rules (gc-plan.ts). A bundle is deleted manifest first, so it disappears at
   * once and a gc killed half way leaves objects without a manifest, which a later gc removes once
   * a day old (an upload still running is never that old). Then the blobs no manifest lists, also
   * once a day old: a build uploads its blobs before its manifest. Old pointer records are pruned too.
   */
  async gc(keep: number, dryRun: boolean): Promise<GcResult> {
    const plan = planGc(await this.listSnapshots(), await this.pointerStates(), keep);
    const result: GcResult = { ...plan, removedLeftovers: [], freedBallast: false, blobs: { deleted: 0, bytes: 0, skipped: null } };
    if (dryRun) {
      result.blobs = await this.sweepBlobs(true, new Set(plan.deleted));
      return result;
    }
    for (const snapshotId of plan.deleted) {
      await this.objects.delete(this.objectKey(snapshotId, 'manifest.json'));
      for (const { key } of (await this.objects.list(this.bundlePrefix(snapshotId))).objects) await this.objects.delete(key);
      await this.objects.delete(this.candidateKey(snapshotId));
      await this.objects.delete(this.acceptanceKey(snapshotId));
    }
    for (const dataset of DATASETS) {
      const base = `${this.prefix}bundles/${dataset}/`;
      for (const folder of (await this.objects.list(base, '/')).prefixes) {
        const { objects } = await this.objects.list(folder);
        if (objects.length === 0 || objects.some((o) => o.key === `${folder}manifest.json`)) continue;
        if (objects.some((o) => Date.now() - o.lastModified.getTime() < this.uploadGraceMs)) continue;
        for (const { key } of objects) await this.objects.delete(key);
        result.removedLeftovers.push(this.objects.url(folder));
      }
      if (plan.skipped.every((s) => s.dataset !== dataset)) {
        for (const key of await this.pointers.prune(dataset, POINTER_RECORDS_KEPT)) result.removedLeftovers.push(this.objects.url(key));
      }
    }
    result.blobs = await this.sweepBlobs(false, new Set());
    return result;
  }

  /**
   * The blobs no manifest lists (`without` the bundles about to go) and a day old; none when a
   * manifest cannot be read, since its blobs are then unknown.
   */
  private async sweepBlobs(dryRun: boolean, without: ReadonlySet<string>): Promise<BlobSweep> {
    const listed = new Set<string>();
    for (const entry of await this.listSnapshots()) {
      if (without.has(entry.snapshotId)) continue;
      let manifest: Manifest;
      try {
        manifest = await this.readManifest(entry.snapshotId);
      } catch (error) {
        if (!(error instanceof BundleIntegrityError) && !(error instanceof SnapshotNotFoundError)) throw error;
        return { deleted: 0, bytes: 0, skipped: `no blob deleted: ${error.message}` };
      }
      if (manifest.format >= BLOB_FORMAT) for (const file of bundleFiles(manifest)) listed.add(file.sha256);
    }
    const sweep: BlobSweep = { deleted: 0, bytes: 0, skipped: null };
    const base = this.blobKey('');
    for (const object of (await this.objects.list(base)).objects) {
      if (listed.has(object.key.slice(base.length)) || Date.now() - object.lastModified.getTime() < this.uploadGraceMs) continue;
      if (!dryRun) await this.objects.delete(object.key);
      sweep.deleted += 1;
      sweep.bytes += object.size;
    }
    return sweep;
  }

  /** Drift accepted for a snapshot: by promote (accepted/, the later) or by build (in its manifest). */
  async acceptedDrift(manifest: Manifest): Promise<DriftAcceptance | null> {
    const got = await this.objects.getText(this.acceptanceKey(manifest.snapshotId));
    if (got !== null && got !== 'unchanged') {
      const parsed = DriftAcceptance.safeParse(safeJson(got.text));
      if (parsed.success) return parsed.data;
    }
    return manifest.acceptedDrift ?? null;
  }

  async close(): Promise<void> {
    this.objects.client.destroy();
    // A temp folder of this process's own; a cache folder the user named stays for the next start.
    if (this.localRoot !== null && this.givenCacheDir === undefined) await rm(this.localRoot, { recursive: true, force: true });
    else if (this.localRoot !== null) await rm(path.join(this.localRoot, 'staging'), { recursive: true, force: true });
  }
}

async function sizeOf(file: string): Promise<number | null> {
  try {
    return (await stat(file)).size;
  } catch {
    return null;
  }
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}
