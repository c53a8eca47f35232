import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DATASETS, type DatasetName } from '../model/dataset.js';
import type { RecordSink } from '../model/dataset-build.js';
import { type CurrentPointer, DriftAcceptance, type Manifest } from '../model/manifest.js';
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
import { formatBucketLocation, parseBucketLocation } from './s3-location.js';
import { BucketObjects, s3Client } from './s3-objects.js';
import { PointerLog, type PointerReading, type PointerRecord } from './s3-pointers.js';
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
import { datasetOfSnapshotId, isSnapshotId } from './snapshot-id.js';

/** Pointer records gc keeps per dataset: the recent history of moves, for a person to read. */
const POINTER_RECORDS_KEPT = 20;
/** Objects of a bundle without a manifest this old are an upload that died, not one in progress. */
const ABANDONED_AFTER_MS = DAY_MS;
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
      const key = this.objectKey(snapshotId, entry.path);
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
   * so a download that fails half way is never mistaken for a bundle. A copy already there is used.
   */
  async openBundle(snapshotId: string): Promise<OpenedBundle> {
    const root = await this.local();
    const cache = new FolderStore(root);
    const target = cache.bundleDir(snapshotId);
    if (!(await isDir(target))) {
      const { manifest, text } = await this.fetchManifest(snapshotId);
      // A folder of this process's own (download-<space>-<pid>-XXXXXX): one that a killed server left
      // is removed by the next download, or a crash loop would fill the cache's disk.
      await mkdir(path.join(root, 'downloading'), { recursive: true });
      const partial = await makeProcessTempDir('download', path.join(root, 'downloading'));
      try {
        for (const entry of bundleFiles(manifest)) {
          const key = this.objectKey(snapshotId, entry.path);
          await mkdir(path.dirname(path.join(partial, entry.path)), { recursive: true });
          const got = await this.objects.digest(key, path.join(partial, entry.path));
          if (!got) throw new BundleIntegrityError(snapshotId, `${entry.path} is missing (${this.objects.url(key)})`);
          checkDigest(snapshotId, entry, got, this.objects.url(key));
        }
        await writeFile(path.join(partial, 'manifest.json'), text, { flag: 'wx' });
        await mkdir(path.dirname(target), { recursive: true });
        await rename(partial, target).catch(async (error: NodeJS.ErrnoException) => {
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
  }

  async dropLocalCopy(snapshotId: string): Promise<boolean> {
    if (this.localRoot === null) return false;
    const copy = new FolderStore(this.localRoot).bundleDir(snapshotId);
    if (!(await isDir(copy))) return false;
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
    this.staging ??= new FolderStore(path.join(await this.local(), 'staging'));
    return this.staging;
  }

  async stage<T>(dataset: DatasetName, produce: (sink: RecordSink) => T | Promise<T>): Promise<Staged<T>> {
    return (await this.stagingStore()).stage(dataset, produce);
  }

  async stageCopy(manifest: Manifest, directory: string): Promise<StagedBundle> {
    return (await this.stagingStore()).stageCopy(manifest, directory);
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
        await this.uploadObjects(manifest, staged.directory, bundleFiles(manifest));
        // The manifest last: until it exists, readers and gc's age rule treat the objects as an upload.
        await this.objects.putText(this.objectKey(snapshotId, 'manifest.json'), manifestText(manifest), { onlyIfAbsent: true });
        state.bundlePublished = true;
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

  /** Uploads files of a staged bundle, reading each object back through SHA-256 before going on. */
  private async uploadObjects(
    manifest: Manifest,
    directory: string,
    entries: Array<{ path: string; bytes: number; sha256: string }>,
  ): Promise<void> {
    let first = true;
    for (const entry of entries) {
      const key = this.objectKey(manifest.snapshotId, entry.path);
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
      const got = await this.objects.digest(this.objectKey(snapshotId, entry.path));
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
    if (datasetOfSnapshotId(snapshotId) !== dataset) throw new SnapshotNotFoundError(snapshotId, `does not belong to dataset ${dataset}`);
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
    if (datasetOfSnapshotId(snapshotId) !== dataset) throw new SnapshotNotFoundError(snapshotId, `does not belong to dataset ${dataset}`);
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
   * a day old (an upload still running is never that old). Old pointer records are pruned too.
   */
  async gc(keep: number, dryRun: boolean): Promise<GcResult> {
    const plan = planGc(await this.listSnapshots(), await this.pointerStates(), keep);
    const result: GcResult = { ...plan, removedLeftovers: [], freedBallast: false };
    if (dryRun) return result;
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
        if (objects.some((o) => Date.now() - o.lastModified.getTime() < ABANDONED_AFTER_MS)) continue;
        for (const { key } of objects) await this.objects.delete(key);
        result.removedLeftovers.push(this.objects.url(folder));
      }
      if (plan.skipped.every((s) => s.dataset !== dataset)) {
        for (const key of await this.pointers.prune(dataset, POINTER_RECORDS_KEPT)) result.removedLeftovers.push(this.objects.url(key));
      }
    }
    return result;
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

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}
