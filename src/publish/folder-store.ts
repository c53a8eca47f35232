import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { chmod, type FileHandle, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DATASETS, type DatasetName } from '../model/dataset.js';
import type { RecordSink } from '../model/dataset-build.js';
import {
  CurrentPointer,
  DriftAcceptance,
  Manifest,
  MANIFEST_FORMAT,
  type ResourceEntry,
  type ServingIndexEntry,
} from '../model/manifest.js';
import { BLOB_FORMAT, blobPath, blobsFolder, type FileLocator, inBlobs, inFolder, type ListedFile } from './bundle-files.js';
import { withPath } from '../lib/error-path.js';
import { findPieceMismatch } from '../lib/chunk-digest.js';
import { inPool } from '../lib/in-pool.js';
import { replaceFileAtomically, syncDir, syncFile, writeDurable } from '../lib/atomic-file.js';
import { compareText } from '../lib/text-order.js';
import { asBundleDamage, fileMismatch } from './bundle-file-damage.js';
import { canonicalJson } from './canonical-json.js';
import { failPoint, faultPoint } from '../lib/fault-point.js';
import { processIsAlive, withFileLock } from '../lib/file-lock.js';
import { copyBundleFiles } from './bundle-copy.js';
import { planGc } from './gc-plan.js';
import { newerCurrent } from './current-order.js';
import { judgePointers } from './pointer-states.js';
import { bundleFiles, manifestBodyOf, manifestFor, manifestText, notJsonReason, parseManifest, safeJson } from './manifest-check.js';
import type {
  CommitOptions,
  GcResult,
  OpenedBundle,
  BlobSweep,
  PointerMove,
  PointerStates,
  PublishResult,
  SnapshotEntry,
  SnapshotStore,
  Staged,
} from './snapshot-store.js';
import type { ManifestFields, StagedBundle } from './staged-bundle.js';
import { readResourceRecords } from './record-reader.js';
import { partBoundaries } from './part-boundaries.js';
import { StagingWriter } from './staging-writer.js';
import { verifyListedFile, verifyServingIndex } from './verified-serving-index.js';
import { datasetOfSnapshotId, isSnapshotId, requireSnapshotOf } from './snapshot-id.js';
import {
  BundleIntegrityError,
  CurrentMovedError,
  InvalidPointerError,
  PublishFailure,
  type PublishState,
  SnapshotNotFoundError,
  StoreUnavailableError,
} from './store-errors.js';
import { formatZodIssues } from '../lib/zod-issues.js';

/** The ballast's name and size: room for gc's lock (a folder and its holder.json) on a full disk, many times over. */
export const BALLAST_FILE = 'ballast';
const BALLAST_BYTES = 1024 * 1024;

/** A scheduled build and a manual one may overlap: the second waits this long for the first by default. */
const DEFAULT_LOCK_WAIT_MS = 60_000;

/** Blobs forced to disk and renamed into place at once by a publish: a disk answers several fsyncs as fast as one. */
const INSTALL_LANES = 8;

/**
 * The bundle store: immutable bundles in bundles/<dataset>/<snapshotId>/, one pointer per dataset
 * in current/<dataset>.json. Bundles are staged in tmp/ and renamed into place, pointers are
 * replaced by rename, and writers hold a lock, so a crash at any moment leaves the previous pointer
 * and the bundle it names intact. Nothing reads a resource whole: records are streamed.
 */

export class FolderStore implements SnapshotStore {
  /** How long a writer waits for another process's publish lock (live holders only; dead ones are taken over). */
  readonly lockWaitMs: number;
  /** Whether staged parts are forced to disk: not where they are only uploaded elsewhere (a bucket's staging). */
  private readonly syncStaged: boolean;

  constructor(
    readonly root: string,
    options: { lockWaitMs?: number; syncStaged?: boolean } = {},
  ) {
    this.lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
    this.syncStaged = options.syncStaged ?? true;
  }

  get location(): string {
    return this.root;
  }

  private get bundlesDir() {
    return path.join(this.root, 'bundles');
  }
  private get currentDir() {
    return path.join(this.root, 'current');
  }
  private get tmpDir() {
    return path.join(this.root, 'tmp');
  }
  /** candidates/<dataset>/<snapshotId>: bundles published without moving the pointer (build --no-promote). */
  private candidateMarker(snapshotId: string) {
    return path.join(this.root, 'candidates', datasetOfSnapshotId(snapshotId), snapshotId);
  }
  /** accepted/<dataset>/<snapshotId>.json: drift accepted by promote (a manifest cannot change after publishing). */
  private acceptanceFile(snapshotId: string) {
    return path.join(this.root, 'accepted', datasetOfSnapshotId(snapshotId), `${snapshotId}.json`);
  }
  bundleDir(snapshotId: string): string {
    return path.join(this.bundlesDir, datasetOfSnapshotId(snapshotId), snapshotId);
  }

  async exists(): Promise<boolean> {
    try {
      return (await stat(this.root)).isDirectory();
    } catch {
      return false;
    }
  }

  /** Creates the store's folder when it is missing; one that cannot be created or is a file stops the work before it starts. */
  async prepare(): Promise<void> {
    try {
      await mkdir(this.root, { recursive: true });
    } catch (error) {
      throw new StoreUnavailableError(`store ${this.root} cannot be created: ${(error as Error).message}`);
    }
  }

  /** An empty folder (`lost+found` aside): what is left of a mount point whose volume is gone. */
  async holdsNothing(): Promise<boolean> {
    try {
      return (await readdir(this.root)).every((name) => name === 'lost+found');
    } catch {
      return false;
    }
  }

  private pointerFile(dataset: DatasetName): string {
    return path.join(this.currentDir, `${dataset}.json`);
  }

  async currentPointer(dataset: DatasetName): Promise<CurrentPointer | null> {
    const file = this.pointerFile(dataset);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const parsed = CurrentPointer.safeParse(safeJson(text));
    if (!parsed.success) {
      throw new InvalidPointerError(file, notJsonReason(text) ?? formatZodIssues(parsed.error));
    }
    if (datasetOfSnapshotId(parsed.data.snapshotId) !== dataset)
      throw new InvalidPointerError(file, `names ${parsed.data.snapshotId}, of another dataset`);
    return parsed.data;
  }

  /** The pointer for a writer that is about to replace it: a broken one counts as none, and says why. */
  private async pointerToReplace(dataset: DatasetName): Promise<{ pointer: CurrentPointer | null; broken: string | null }> {
    try {
      return { pointer: await this.currentPointer(dataset), broken: null };
    } catch (error) {
      if (error instanceof InvalidPointerError) return { pointer: null, broken: error.reason };
      throw error;
    }
  }

  /** Each dataset's pointer: none, ok, or broken (with the reason), for list and gc. */
  async pointerStates(): Promise<PointerStates> {
    return judgePointers({
      readPointer: (dataset) => this.currentPointer(dataset),
      hasManifest: (snapshotId) => pathExists(path.join(this.bundleDir(snapshotId), 'manifest.json')),
      pointerLocation: (dataset) => this.pointerFile(dataset),
    });
  }

  /** Verifies a bundle's manifest and id; its records are then streamed, each part verified as it is read. */
  async openBundle(snapshotId: string): Promise<OpenedBundle> {
    const { manifest, locate } = await this.locateManifest(snapshotId);
    return {
      manifest,
      locate,
      records: (resource) => readResourceRecords(manifest, locate, resource),
      verifiedServingIndex: (depth = 'contents') => verifyServingIndex(manifest, locate, depth),
    };
  }

  /**
   * Verifies a bundle's manifest and every resource's size and digest, streaming the bytes instead
   * of parsing them: what a publisher needs to trust an existing bundle, at any size, in seconds.
   */
  async verifyBundle(snapshotId: string): Promise<Manifest> {
    const { manifest, locate } = await this.locateManifest(snapshotId);
    for (const entry of bundleFiles(manifest)) await verifyFile(snapshotId, locate, entry);
    return manifest;
  }

  async readManifest(snapshotId: string): Promise<Manifest> {
    return (await this.locateManifest(snapshotId)).manifest;
  }

  /** The manifest of a bundle, checked against its schema, its id and its dataset's resources. */
  private async locateManifest(snapshotId: string): Promise<{ manifest: Manifest; locate: FileLocator }> {
    const directory = this.bundleDir(snapshotId);
    let manifestText: string;
    try {
      manifestText = await readFile(path.join(directory, 'manifest.json'), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        if (await pathExists(directory)) throw new BundleIntegrityError(snapshotId, 'manifest.json is missing');
        throw new SnapshotNotFoundError(snapshotId);
      }
      throw asBundleDamage(snapshotId, 'manifest.json', error);
    }
    const manifest = parseManifest(snapshotId, manifestText);
    return { manifest, locate: this.locatorOf(manifest) };
  }

  /** Where a manifest's files are: this store's blobs (format 4), or the bundle's own folder (format 3). */
  private locatorOf(manifest: Manifest): FileLocator {
    return manifest.format >= BLOB_FORMAT ? inBlobs(this.root) : inFolder(this.bundleDir(manifest.snapshotId));
  }

  async openCurrent(dataset: DatasetName): Promise<OpenedBundle | null> {
    const pointer = await this.currentPointer(dataset);
    return pointer ? this.openBundle(pointer.snapshotId) : null;
  }

  /** Every bundle's manifest summary (not digest-verified: openBundle or verifyBundle do that), newest first. */
  async listSnapshots(): Promise<SnapshotEntry[]> {
    const entries: SnapshotEntry[] = [];
    const pointers = await this.pointerStates();
    for (const dataset of DATASETS) {
      const current = pointers[dataset].snapshotId;
      for (const snapshotId of await listDir(path.join(this.bundlesDir, dataset))) {
        // Only folders named like this dataset's snapshots are bundles; anything else is left alone.
        if (!isSnapshotId(snapshotId) || datasetOfSnapshotId(snapshotId) !== dataset) continue;
        const manifest = Manifest.safeParse(
          safeJson(await readFile(path.join(this.bundlesDir, dataset, snapshotId, 'manifest.json'), 'utf8').catch(() => '')),
        );
        entries.push({
          dataset,
          snapshotId,
          generatedAt: manifest.success ? manifest.data.generatedAt : '',
          freshUntil: manifest.success ? manifest.data.freshUntil : '',
          current: snapshotId === current,
          candidate: snapshotId !== current && (await pathExists(this.candidateMarker(snapshotId))),
        });
      }
    }
    return entries.sort(
      (a, b) => compareText(a.dataset, b.dataset) || compareText(b.generatedAt, a.generatedAt) || compareText(b.snapshotId, a.snapshotId),
    );
  }

  /**
   * Stages a bundle in a private temp folder: `produce` pushes every record into the sink, in any
   * order across resources, one by one or in batches checked elsewhere (staging-writer.ts); each is
   * checked against its schema and the content rules and written as it arrives. Returns what
   * produce returned, so derivation can report facts it only knows at the end, and the content
   * rules' findings.
   */
  async stage<T>(dataset: DatasetName, produce: (sink: RecordSink) => T | Promise<T>): Promise<Staged<T>> {
    await mkdir(this.tmpDir, { recursive: true });
    const directory = path.join(this.tmpDir, stagingName(dataset));
    await mkdir(directory);
    let staging: StagingWriter | null = null;
    try {
      staging = new StagingWriter(
        directory,
        dataset,
        partBoundaries(),
        (sha256) => this.syncStaged && !existsSync(blobPath(this.root, sha256)),
      );
      const result = await produce(staging);
      const { files, servingIndex } = staging.finish();
      await staging.flushed();
      return {
        staged: {
          dataset,
          format: MANIFEST_FORMAT,
          directory,
          files,
          ...(servingIndex ? { servingIndex } : {}),
          synced: staging.synced,
        },
        result,
        content: staging.content,
      };
    } catch (error) {
      staging?.abandon();
      await rm(directory, { recursive: true, force: true });
      throw error;
    }
  }

  /** stage() for records that are already in arrays. */
  async stageArrays(dataset: DatasetName, resources: Record<string, Iterable<unknown>>): Promise<StagedBundle> {
    const { staged } = await this.stage(dataset, (sink) => {
      for (const [name, records] of Object.entries(resources)) for (const record of records) sink.add(name, record);
    });
    return staged;
  }

  async readBlobRange(sha256: string, start: number, bytes: number): Promise<Uint8Array | null> {
    let handle: FileHandle;
    try {
      handle = await open(blobPath(this.root, sha256), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    try {
      const buffer = Buffer.allocUnsafe(bytes);
      let read = 0;
      while (read < bytes) {
        const { bytesRead } = await handle.read(buffer, read, bytes - read, start + read);
        if (bytesRead === 0) return null;
        read += bytesRead;
      }
      return buffer;
    } finally {
      await handle.close();
    }
  }

  async stageFromBlobs(
    dataset: DatasetName,
    files: readonly ResourceEntry[],
    servingIndex?: ServingIndexEntry,
  ): Promise<StagedBundle | null> {
    const listed = [...files, ...(servingIndex ? [servingIndex] : [])];
    for (const entry of listed) if ((await sizeOf(blobPath(this.root, entry.sha256))) !== entry.bytes) return null;
    // Their bytes too, on every core: a damaged blob must send the build back to derive, since only a
    // publish that holds a copy can replace it (installBlobs), and it repairs every snapshot sharing it.
    const pieces = listed.map((entry) => ({ file: blobPath(this.root, entry.sha256), start: 0, bytes: entry.bytes, sha256: entry.sha256 }));
    pieces.sort((a, b) => b.bytes - a.bytes);
    const mismatch = await findPieceMismatch(pieces).catch(() => 0);
    if (mismatch !== null) return null;
    await mkdir(this.tmpDir, { recursive: true });
    const directory = path.join(this.tmpDir, stagingName(dataset));
    await mkdir(directory);
    return {
      dataset,
      format: MANIFEST_FORMAT,
      directory,
      files: [...files],
      ...(servingIndex ? { servingIndex } : {}),
      locate: inBlobs(this.root),
      verifiedBlobs: new Set(listed.map((entry) => entry.sha256)),
    };
  }

  /**
   * `copy` says which files to copy; by default every file of a format-3 bundle, and each blob this
   * store lacks of a format-4 one (commit checks the digests of those it holds instead).
   */
  async stageCopy(manifest: Manifest, locate: FileLocator, copy?: (entry: ListedFile) => boolean): Promise<StagedBundle> {
    await mkdir(this.tmpDir, { recursive: true });
    const target = path.join(this.tmpDir, stagingName(manifest.dataset));
    await mkdir(target);
    try {
      const lacking = async (entry: ListedFile) =>
        copy ? copy(entry) : manifest.format < BLOB_FORMAT || !(await pathExists(blobPath(this.root, entry.sha256)));
      await copyBundleFiles(manifest.snapshotId, await filterAsync(bundleFiles(manifest), lacking), locate, target);
    } catch (error) {
      await rm(target, { recursive: true, force: true });
      throw error;
    }
    return {
      dataset: manifest.dataset,
      format: manifest.format,
      directory: target,
      files: manifest.files,
      ...(manifest.servingIndex ? { servingIndex: manifest.servingIndex } : {}),
    };
  }

  /** A folder store reads its bundles in place: there is no local copy to drop. */
  async retainOnly(): Promise<void> {}

  async dropLocalCopy(): Promise<boolean> {
    return false;
  }

  async close(): Promise<void> {}

  async discard(staged: StagedBundle): Promise<void> {
    await rm(staged.directory, { recursive: true, force: true });
  }

  /**
   * Makes a staged bundle the dataset's current snapshot. An existing bundle with the same id is
   * never rewritten (it is verified instead), so publishing identical content again is a no-op.
   */
  async commit(staged: StagedBundle, fields: ManifestFields, publishedAt: Date, options: CommitOptions = {}): Promise<PublishResult> {
    const promote = options.promote ?? true;
    const markCandidate = options.candidate ?? !promote;
    const manifest = manifestFor(manifestBodyOf(staged, fields));
    const { snapshotId } = manifest;
    await faultPoint('resources-staged');
    return this.withLock(async () => {
      const removedLeftovers = await this.removeLeftovers(staged.directory);
      const target = this.bundleDir(snapshotId);
      const state: PublishState = { bundlePublished: false, pointerMoved: false };
      let republishedDamaged: string | null = null;
      try {
        if (manifest.format >= BLOB_FORMAT) {
          ({ published: state.bundlePublished, damaged: republishedDamaged } = await this.publishBlobBundle(
            staged,
            manifest,
            markCandidate,
            publishedAt,
          ));
        } else {
          republishedDamaged = await this.moveAsideIfDamaged(snapshotId, target);
          if (await pathExists(target)) await this.discard(staged);
          else {
            await this.writeCandidateMarker(snapshotId, markCandidate, publishedAt);
            await this.writeManifestInto(staged.directory, manifest);
            await this.renameIntoPlace(staged.directory, target);
            state.bundlePublished = true;
          }
        }
        if (state.bundlePublished) await faultPoint('bundle-renamed');
        const { pointer, broken } = await this.pointerToReplace(staged.dataset);
        const previous = pointer?.snapshotId ?? null;
        // Builds can overlap (a slow scheduled job, a manual rebuild): the one generated last stays
        // current, whichever commits last. Only rollback moves current back in time.
        const keptNewer =
          previous !== null && previous !== snapshotId
            ? await newerCurrent((id) => this.readManifest(id), previous, fields.generatedAt)
            : null;
        const madeCurrent = promote && (previous !== snapshotId || broken !== null) && keptNewer === null;
        if (madeCurrent) {
          await this.writePointer(staged.dataset, snapshotId, publishedAt);
          state.pointerMoved = true;
        }
        await faultPoint('pointer-written');
        return {
          snapshotId,
          published: state.bundlePublished,
          madeCurrent,
          previousSnapshotId: previous,
          keptNewerCurrent: keptNewer,
          repairedPointer: broken,
          repairedPointerFile: broken === null ? null : path.relative(this.root, this.pointerFile(staged.dataset)),
          republishedDamaged,
          removedLeftovers,
        };
      } catch (error) {
        if (!state.bundlePublished) await this.discard(staged);
        if (state.bundlePublished || state.pointerMoved) throw new PublishFailure(snapshotId, state, error as Error);
        throw error;
      }
    });
  }

  /**
   * Publishes a bundle of format 4: each file becomes its blob (a rename of the staged file), or,
   * when the blob is there already (the same bytes in an earlier snapshot), the blob is kept once
   * its digest is checked, and replaced from the staged copy if it is damaged; then the manifest's
   * folder is renamed into place, which makes the bundle exist. A bundle with this id already in
   * place (the same content) is checked the same way, its manifest too, and repaired.
   */
  private async publishBlobBundle(
    staged: StagedBundle,
    manifest: Manifest,
    markCandidate: boolean,
    publishedAt: Date,
  ): Promise<{ published: boolean; damaged: string | null }> {
    const target = this.bundleDir(manifest.snapshotId);
    const exists = await pathExists(target);
    if (!exists) await this.writeCandidateMarker(manifest.snapshotId, markCandidate, publishedAt);
    const damaged = await this.installBlobs(staged, manifest);
    if (exists) {
      const manifestDamage = await this.readManifest(manifest.snapshotId).then(
        () => null,
        (error: unknown) => {
          if (error instanceof BundleIntegrityError) return error.reason;
          throw error;
        },
      );
      if (manifestDamage !== null) {
        damaged.unshift(manifestDamage);
        await replaceFileAtomically(path.join(target, 'manifest.json'), manifestText(manifest));
      }
      await this.discard(staged);
      return { published: damaged.length > 0, damaged: damaged.length > 0 ? damaged.join('; ') : null };
    }
    // The manifest's folder: a fresh one, holding the manifest alone, renamed into place.
    const folder = path.join(this.tmpDir, stagingName(manifest.dataset));
    await mkdir(folder);
    try {
      await this.writeManifestInto(folder, manifest);
      await this.renameIntoPlace(folder, target);
    } catch (error) {
      await rm(folder, { recursive: true, force: true });
      throw error;
    }
    await this.discard(staged);
    return { published: true, damaged: damaged.length > 0 ? damaged.join('; ') : null };
  }

  /**
   * Moves the staged copies of the blobs this store lacks (or holds damaged) into blobs/, and checks
   * the digests of those it holds already (a damaged one is replaced from the staged copy; a blob
   * is never written in place). Returns what was damaged. Durable before the manifest names them:
   * each copy is forced to disk before it is renamed into place (parts the staging writer forced as
   * they ended are not forced again; copies and the serving index are), and each folder it went
   * into afterwards; both on several files at once, since a daily build's few hundred parts would
   * otherwise wait on the disk one after another.
   */
  private async installBlobs(staged: StagedBundle, manifest: Manifest): Promise<string[]> {
    const damaged: string[] = [];
    const listed = bundleFiles(manifest);
    const present = await Promise.all(listed.map((entry) => pathExists(blobPath(this.root, entry.sha256))));
    // A reuse verified its blobs as it staged them (stageFromBlobs): hashed once, not twice.
    const toCheck = listed.filter((entry, i) => present[i] && !staged.verifiedBlobs?.has(entry.sha256));
    const allIntact =
      (await findPieceMismatch(
        toCheck.map((entry) => ({ file: blobPath(this.root, entry.sha256), start: 0, bytes: entry.bytes, sha256: entry.sha256 })),
      ).catch(() => 0)) === null;
    const install: ListedFile[] = [];
    for (const [i, entry] of listed.entries()) {
      const blob = blobPath(this.root, entry.sha256);
      if (present[i]) {
        if (allIntact || staged.verifiedBlobs?.has(entry.sha256)) continue;
        // One of them differs: each is checked again, to name every damaged one.
        const mismatch = await fileMismatch(blob, entry);
        if (mismatch === null) continue;
        if (!(await pathExists(path.join(staged.directory, entry.path)))) {
          throw new BundleIntegrityError(
            manifest.snapshotId,
            `${entry.path} ${mismatch} (${blob}), and this publish holds no copy to replace it`,
          );
        }
        damaged.push(`${entry.path} ${mismatch}`);
      } else if (!(await pathExists(path.join(staged.directory, entry.path)))) {
        throw new BundleIntegrityError(manifest.snapshotId, `${entry.path} is missing (${blob})`);
      }
      install.push(entry);
    }
    const folders = new Set<string>();
    await inPool(install, INSTALL_LANES, async (entry) => {
      const blob = blobPath(this.root, entry.sha256);
      const copy = path.join(staged.directory, entry.path);
      if (!staged.synced?.has(entry.path)) await syncFile(copy);
      await mkdir(path.dirname(blob), { recursive: true });
      // Read-only, as a reminder that a blob is never edited: it may belong to many snapshots.
      await chmod(copy, 0o444);
      await rename(copy, blob);
      folders.add(path.dirname(blob));
    });
    if (folders.size > 0) folders.add(blobsFolder(this.root));
    await inPool([...folders], INSTALL_LANES, syncDir);
    return damaged;
  }

  /** Format 3: a bundle with this id that no longer verifies is moved aside and removed; says what was wrong. */
  private async moveAsideIfDamaged(snapshotId: string, target: string): Promise<string | null> {
    if (!(await pathExists(target))) return null;
    try {
      await this.verifyBundle(snapshotId);
      return null;
    } catch (error) {
      if (!(error instanceof BundleIntegrityError)) throw error;
      // Same id, so the same content, damaged since (a bad disk, a bad restore): the staged copy is
      // what the bundle should be. The damaged one is moved aside, then removed.
      const aside = path.join(this.tmpDir, stagingName('damaged'));
      await rename(target, aside);
      await rm(aside, { recursive: true, force: true });
      return error.message;
    }
  }

  /**
   * The marker goes before the bundle: a crash in between leaves a marker without a bundle
   * (ignored), never a bundle that looks as if it had once been current. Such a marker, left by a
   * run of the same snapshot that was killed, is removed first, whether this one promotes or not.
   */
  private async writeCandidateMarker(snapshotId: string, markCandidate: boolean, publishedAt: Date): Promise<void> {
    const marker = this.candidateMarker(snapshotId);
    await rm(marker, { force: true });
    if (markCandidate) await writeDurable(await ensureParent(marker), `${publishedAt.toISOString()}\n`);
  }

  private async writeManifestInto(folder: string, manifest: Manifest): Promise<void> {
    const manifestFile = path.join(folder, 'manifest.json');
    try {
      failPoint('manifest-write');
      await writeDurable(manifestFile, manifestText(manifest));
    } catch (error) {
      throw withPath(error as Error, manifestFile);
    }
    await syncDir(folder);
    await faultPoint('manifest-written');
  }

  /** The rename that makes a bundle exist. */
  private async renameIntoPlace(folder: string, target: string): Promise<void> {
    await mkdir(path.dirname(target), { recursive: true });
    await rename(folder, target);
    await syncDir(path.dirname(target));
  }

  /** Re-points current/<dataset>.json at an existing, verified bundle. */
  async rollback(dataset: DatasetName, snapshotId: string, at: Date): Promise<PointerMove> {
    return this.movePointer(dataset, snapshotId, at, async () => {});
  }

  /**
   * Makes a published bundle (a candidate) current, after the caller judged it against
   * `expectedCurrent`: if current moved meanwhile, nothing changes (the judgement is void).
   * An acceptance of drift is written durably before the pointer moves.
   */
  async promote(
    dataset: DatasetName,
    snapshotId: string,
    at: Date,
    expectedCurrent: string | null,
    acceptance: DriftAcceptance | null,
  ): Promise<PointerMove> {
    return this.movePointer(
      dataset,
      snapshotId,
      at,
      async (previous) => {
        if (previous !== expectedCurrent) throw new CurrentMovedError(dataset, expectedCurrent, previous);
        if (acceptance !== null)
          await replaceFileAtomically(await ensureParent(this.acceptanceFile(snapshotId)), `${canonicalJson(acceptance)}\n`);
      },
      () => rm(this.candidateMarker(snapshotId), { force: true }),
    );
  }

  /**
   * Points current/<dataset>.json at a published bundle (rollback, promote): verified before the
   * lock is taken (digests streamed, nothing parsed); under the lock, the bundle is checked to be
   * still there, `beforeMove` judges the pointer it would replace (and may refuse, or record
   * something first), then the pointer moves, or is rewritten when it was broken, then `afterMove`.
   */
  private async movePointer(
    dataset: DatasetName,
    snapshotId: string,
    at: Date,
    beforeMove: (previous: string | null) => Promise<void>,
    afterMove: () => Promise<void> = async () => {},
  ): Promise<PointerMove> {
    requireSnapshotOf(dataset, snapshotId);
    await this.verifyBundle(snapshotId);
    return this.withLock(async () => {
      if (!(await pathExists(path.join(this.bundleDir(snapshotId), 'manifest.json')))) throw new SnapshotNotFoundError(snapshotId);
      const { pointer, broken } = await this.pointerToReplace(dataset);
      const previous = pointer?.snapshotId ?? null;
      await beforeMove(previous);
      if (previous !== snapshotId || broken !== null) await this.writePointer(dataset, snapshotId, at);
      await afterMove();
      return { previousSnapshotId: previous, repairedPointer: broken };
    });
  }

  /** Drift accepted for a snapshot: by build (in its manifest) or by promote (accepted/), the later first. */
  async acceptedDrift(manifest: Manifest): Promise<DriftAcceptance | null> {
    try {
      const parsed = DriftAcceptance.safeParse(safeJson(await readFile(this.acceptanceFile(manifest.snapshotId), 'utf8')));
      if (parsed.success) return parsed.data;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return manifest.acceptedDrift ?? null;
  }

  /**
   * Deletes all but the newest `keep` bundles of each dataset, never the current one nor the one
   * generated just before it (the rollback target).
   */
  async gc(keep: number, dryRun: boolean): Promise<GcResult> {
    const work = async (): Promise<GcResult> => {
      const result: GcResult = {
        deleted: [],
        kept: [],
        unreadable: [],
        skipped: [],
        removedLeftovers: [],
        freedBallast: false,
        blobs: { deleted: 0, bytes: 0, skipped: null },
      };
      if (!dryRun) result.removedLeftovers = await this.removeLeftovers(null);
      Object.assign(result, planGc(await this.listSnapshots(), await this.pointerStates(), keep));
      if (!dryRun) {
        for (const snapshotId of result.deleted) {
          // Rename first so the bundle disappears at once, then delete at leisure.
          const trash = path.join(this.tmpDir, stagingName('gc'));
          await mkdir(this.tmpDir, { recursive: true });
          await rename(this.bundleDir(snapshotId), trash);
          await rm(trash, { recursive: true, force: true });
          await rm(this.candidateMarker(snapshotId), { force: true });
          await rm(this.acceptanceFile(snapshotId), { force: true });
        }
      }
      // Under the lock: no publish is between installing its blobs and writing its manifest.
      result.blobs = await this.sweepBlobs(dryRun, { without: new Set(result.deleted) });
      return result;
    };
    // A dry run changes nothing, so it needs no lock and works on a read-only store.
    if (dryRun) return work();
    let freedBallast = false;
    const result = await this.withLock(work, () => {
      freedBallast = true;
    });
    return { ...result, freedBallast };
  }

  /**
   * Deletes the blobs that no manifest in the store lists (`without` the bundles about to go), and
   * none at all when a manifest cannot be read, since its blobs are then unknown. `minAgeMs` spares
   * blobs written since (a download cache, whose downloads run beside its sweeps).
   */
  async sweepBlobs(dryRun: boolean, options: { without?: ReadonlySet<string>; minAgeMs?: number } = {}): Promise<BlobSweep> {
    const listed = new Set<string>();
    for (const dataset of DATASETS) {
      for (const snapshotId of await listDir(path.join(this.bundlesDir, dataset))) {
        if (!isSnapshotId(snapshotId) || options.without?.has(snapshotId)) continue;
        let manifest: Manifest;
        try {
          manifest = await this.readManifest(snapshotId);
        } catch (error) {
          if (!(error instanceof BundleIntegrityError)) throw error;
          return { deleted: 0, bytes: 0, skipped: `no blob deleted: ${error.message}` };
        }
        if (manifest.format >= BLOB_FORMAT) for (const entry of bundleFiles(manifest)) listed.add(entry.sha256);
      }
    }
    const sweep: BlobSweep = { deleted: 0, bytes: 0, skipped: null };
    const root = blobsFolder(this.root);
    const now = Date.now();
    for (const fanout of await listDir(root)) {
      for (const name of await listDir(path.join(root, fanout))) {
        if (listed.has(name)) continue;
        const file = path.join(root, fanout, name);
        const info = await stat(file).catch(() => null);
        if (info === null || (options.minAgeMs !== undefined && now - info.mtimeMs < options.minAgeMs)) continue;
        if (!dryRun) await rm(file, { force: true });
        sweep.deleted += 1;
        sweep.bytes += info.size;
      }
    }
    return sweep;
  }

  private async writePointer(dataset: DatasetName, snapshotId: string, at: Date): Promise<void> {
    await mkdir(this.currentDir, { recursive: true });
    const pointer: CurrentPointer = { snapshotId, publishedAt: at.toISOString() };
    const file = this.pointerFile(dataset);
    try {
      failPoint('pointer-write');
      await replaceFileAtomically(file, `${canonicalJson(pointer)}\n`);
    } catch (error) {
      throw withPath(error as Error, file);
    }
  }

  /** One writer at a time: publishes, rollbacks and gc of concurrent processes never interleave. */
  private async withLock<T>(work: () => Promise<T>, onFullDisk: 'fail' | (() => void) = 'fail'): Promise<T> {
    await mkdir(this.root, { recursive: true });
    const locked = () =>
      withFileLock(path.join(this.root, 'publish.lock'), { waitMs: this.lockWaitMs }, async () => {
        const result = await work();
        await this.keepBallast();
        return result;
      });
    try {
      return await locked();
    } catch (error) {
      // gc exists to free space: on a full disk it gives up the ballast so that the lock can be taken.
      if (onFullDisk === 'fail' || (error as NodeJS.ErrnoException).code !== 'ENOSPC' || !(await this.freeBallast())) throw error;
      onFullDisk();
      return locked();
    }
  }

  /**
   * `<store>/ballast`: 1 MiB that every writer keeps in the store and gc deletes when the disk is so
   * full that it cannot take its own lock, so that it can still free space (a ballast file, as
   * databases keep for the same reason). Written again by the next writer that finds room for it.
   */
  private get ballastFile(): string {
    return path.join(this.root, BALLAST_FILE);
  }

  private async keepBallast(): Promise<void> {
    if (await pathExists(this.ballastFile)) return;
    try {
      await writeFile(this.ballastFile, Buffer.alloc(BALLAST_BYTES));
    } catch {
      // No room for it now: the store works without it, and a later writer tries again.
      await rm(this.ballastFile, { force: true }).catch(() => undefined);
    }
  }

  private async freeBallast(): Promise<boolean> {
    if (!(await pathExists(this.ballastFile))) return false;
    await rm(this.ballastFile, { force: true });
    return true;
  }

  /**
   * What processes that died on this host left behind: staging folders and gc trash in tmp/
   * (`<what>~<host>~<pid>~<random>`) and pointer temp files in current/ (`.<dataset>.json.<pid>.<hex>.tmp`).
   * None was ever visible to readers. Only this host can tell whether a pid is alive: leftovers of
   * other hosts (a shared store) stay until their own host cleans up. Returns what was removed.
   */
  private async removeLeftovers(keepDirectory: string | null): Promise<string[]> {
    const removed: string[] = [];
    for (const name of await listDir(this.tmpDir)) {
      const full = path.join(this.tmpDir, name);
      const [, host, pidText] = name.split('~');
      const pid = Number(pidText);
      if (full === keepDirectory || host !== thisHost() || !Number.isInteger(pid) || processIsAlive(pid)) continue;
      await rm(full, { recursive: true, force: true });
      removed.push(path.relative(this.root, full));
    }
    for (const name of await listDir(this.currentDir, true)) {
      const match = /^\.[a-z-]+\.json\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
      if (!match || processIsAlive(Number(match[1]))) continue;
      await rm(path.join(this.currentDir, name), { force: true });
      removed.push(path.join('current', name));
    }
    return removed;
  }
}

/** tmp/ folder names: `<what>~<host>~<pid>~<random>`, so a later publish can tell abandoned ones. */
function stagingName(what: string): string {
  return `${what}~${thisHost()}~${process.pid}~${randomBytes(6).toString('hex')}`;
}

function thisHost(): string {
  return hostname().replace(/[^A-Za-z0-9.-]/g, '_');
}

/** Streams one listed file's bytes through SHA-256 and compares size and digest with the manifest. */
function verifyFile(snapshotId: string, locate: FileLocator, entry: { path: string; bytes: number; sha256: string }): Promise<void> {
  return verifyListedFile(snapshotId, locate(entry), entry);
}

async function sizeOf(file: string): Promise<number | null> {
  try {
    return (await stat(file)).size;
  } catch {
    return null;
  }
}

async function filterAsync<T>(items: readonly T[], keep: (item: T) => Promise<boolean>): Promise<T[]> {
  const kept: T[] = [];
  for (const item of items) if (await keep(item)) kept.push(item);
  return kept;
}

async function ensureParent(file: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  return file;
}

async function pathExists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

async function listDir(dir: string, withHidden = false): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((n) => withHidden || !n.startsWith('.')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
