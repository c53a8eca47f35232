import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { DATASETS, type DatasetName } from '../model/dataset.js';
import type { RecordSink } from '../model/dataset-build.js';
import { CurrentPointer, DriftAcceptance, Manifest } from '../model/manifest.js';
import { withPath } from '../lib/error-path.js';
import { replaceFileAtomically, syncDir, writeDurable } from '../lib/atomic-file.js';
import { compareText } from '../lib/text-order.js';
import { asBundleDamage } from './bundle-file-damage.js';
import { canonicalJson } from './canonical-json.js';
import { failPoint, faultPoint } from '../lib/fault-point.js';
import { processIsAlive, withFileLock } from '../lib/file-lock.js';
import { copyBundleFiles } from './bundle-copy.js';
import { planGc } from './gc-plan.js';
import { manifestBodyOf, manifestFor, manifestText, notJsonReason, parseManifest, safeJson } from './manifest-check.js';
import type {
  CommitOptions,
  GcResult,
  OpenedBundle,
  PointerStates,
  PublishResult,
  SnapshotEntry,
  SnapshotStore,
  Staged,
} from './snapshot-store.js';
import type { ManifestFields, StagedBundle } from './staged-bundle.js';
import { readResourceRecords } from './record-reader.js';
import { partBytes } from './resource-writer.js';
import { StagingWriter } from './staging-writer.js';
import { verifyListedFile, verifyServingIndex } from './verified-serving-index.js';
import { datasetOfSnapshotId, isSnapshotId } from './snapshot-id.js';
import {
  BundleIntegrityError,
  CurrentMovedError,
  InvalidPointerError,
  PublishFailure,
  type PublishState,
  SnapshotNotFoundError,
} from './store-errors.js';
import { formatZodIssues } from '../lib/zod-issues.js';

/** A scheduled build and a manual one may overlap: the second waits this long for the first by default. */
const DEFAULT_LOCK_WAIT_MS = 60_000;

/**
 * The bundle store: immutable bundles in bundles/<dataset>/<snapshotId>/, one pointer per dataset
 * in current/<dataset>.json. Bundles are staged in tmp/ and renamed into place, pointers are
 * replaced by rename, and writers hold a lock, so a crash at any moment leaves the previous pointer
 * and the bundle it names intact. Nothing reads a resource whole: records are streamed.
 */
export class FolderStore implements SnapshotStore {
  /** How long a writer waits for another process's publish lock (live holders only; dead ones are taken over). */
  readonly lockWaitMs: number;

  constructor(
    readonly root: string,
    options: { lockWaitMs?: number } = {},
  ) {
    this.lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
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
    const states = {} as PointerStates;
    for (const dataset of DATASETS) {
      try {
        const pointer = await this.currentPointer(dataset);
        if (pointer && !(await pathExists(path.join(this.bundleDir(pointer.snapshotId), 'manifest.json')))) {
          // A store restored by hand, or copied while a build published: the pointer dangles.
          const reason = `points at ${pointer.snapshotId}, which is not in the store`;
          states[dataset] = { state: 'broken', snapshotId: pointer.snapshotId, reason: `${this.pointerFile(dataset)} ${reason}` };
        } else states[dataset] = pointer ? { state: 'ok', snapshotId: pointer.snapshotId } : { state: 'none' };
      } catch (error) {
        // One pointer that cannot be read (EACCES) is that dataset's problem, not every dataset's.
        const code = (error as NodeJS.ErrnoException).code;
        if (!(error instanceof InvalidPointerError) && code === undefined) throw error;
        const reason = error instanceof InvalidPointerError ? error.message : `${this.pointerFile(dataset)} cannot be read (${code})`;
        states[dataset] = { state: 'broken', reason };
      }
    }
    return states;
  }

  /** Verifies a bundle's manifest and id; its records are then streamed, each part verified as it is read. */
  async openBundle(snapshotId: string): Promise<OpenedBundle> {
    const { manifest, directory } = await this.readManifest(snapshotId);
    return {
      manifest,
      directory,
      filePath: (entryPath) => path.join(directory, entryPath),
      records: (resource) => readResourceRecords(manifest, directory, resource),
      verifiedServingIndex: (depth = 'contents') => verifyServingIndex(manifest, (entryPath) => path.join(directory, entryPath), depth),
    };
  }

  /**
   * Verifies a bundle's manifest and every resource's size and digest, streaming the bytes instead
   * of parsing them: what a publisher needs to trust an existing bundle, at any size, in seconds.
   */
  async verifyBundle(snapshotId: string): Promise<Manifest> {
    const { manifest, directory } = await this.readManifest(snapshotId);
    for (const entry of manifest.files) await verifyFile(snapshotId, directory, entry);
    if (manifest.servingIndex) await verifyFile(snapshotId, directory, manifest.servingIndex);
    return manifest;
  }

  /** The manifest of a bundle, checked against its schema, its id and its dataset's resources. */
  private async readManifest(snapshotId: string): Promise<{ manifest: Manifest; directory: string }> {
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
    return { manifest: parseManifest(snapshotId, manifestText), directory };
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
      staging = new StagingWriter(directory, dataset, partBytes());
      const result = await produce(staging);
      const { files, servingIndex } = staging.finish();
      return { staged: { dataset, directory, files, ...(servingIndex ? { servingIndex } : {}) }, result, content: staging.content };
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

  async stageCopy(manifest: Manifest, directory: string): Promise<StagedBundle> {
    await mkdir(this.tmpDir, { recursive: true });
    const target = path.join(this.tmpDir, stagingName(manifest.dataset));
    await mkdir(target);
    try {
      await copyBundleFiles(manifest, directory, target);
    } catch (error) {
      await rm(target, { recursive: true, force: true });
      throw error;
    }
    return {
      dataset: manifest.dataset,
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
        if (await pathExists(target)) {
          try {
            await this.verifyBundle(snapshotId);
          } catch (error) {
            if (!(error instanceof BundleIntegrityError)) throw error;
            // Same id, so the same content, damaged since (a bad disk, a bad restore): the staged
            // copy is what the bundle should be. The damaged one is moved aside, then removed.
            republishedDamaged = error.message;
            const aside = path.join(this.tmpDir, stagingName('damaged'));
            await rename(target, aside);
            await rm(aside, { recursive: true, force: true });
          }
        }
        if (await pathExists(target)) {
          await this.discard(staged);
        } else {
          // The marker goes first: a crash before the rename leaves a marker without a bundle
          // (ignored), never a bundle that looks as if it had once been current. Such a marker, left
          // by a run of the same snapshot that was killed, is removed first, whether this one promotes or not.
          const marker = this.candidateMarker(snapshotId);
          await rm(marker, { force: true });
          if (markCandidate) await writeDurable(await ensureParent(marker), `${publishedAt.toISOString()}\n`);
          const manifestFile = path.join(staged.directory, 'manifest.json');
          try {
            failPoint('manifest-write');
            await writeDurable(manifestFile, manifestText(manifest));
          } catch (error) {
            throw withPath(error as Error, manifestFile);
          }
          await syncDir(staged.directory);
          await faultPoint('manifest-written');
          await mkdir(path.dirname(target), { recursive: true });
          await rename(staged.directory, target);
          await syncDir(path.dirname(target));
          state.bundlePublished = true;
          await faultPoint('bundle-renamed');
        }
        const { pointer, broken } = await this.pointerToReplace(staged.dataset);
        const previous = pointer?.snapshotId ?? null;
        // Builds can overlap (a slow scheduled job, a manual rebuild): the one generated last stays
        // current, whichever commits last. Only rollback moves current back in time.
        const newerCurrent = previous !== null && previous !== snapshotId ? await this.newerThan(previous, fields.generatedAt) : null;
        const madeCurrent = promote && (previous !== snapshotId || broken !== null) && newerCurrent === null;
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
          keptNewerCurrent: newerCurrent,
          repairedPointer: broken,
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

  /** The current snapshot's generatedAt when it is later than `generatedAt`, else null. */
  private async newerThan(currentId: string, generatedAt: string): Promise<{ snapshotId: string; generatedAt: string } | null> {
    try {
      const { manifest } = await this.readManifest(currentId);
      return manifest.generatedAt > generatedAt ? { snapshotId: currentId, generatedAt: manifest.generatedAt } : null;
    } catch {
      return null; // a current bundle that cannot be read is no reason to keep it current
    }
  }

  /** Re-points current/<dataset>.json at an existing, verified bundle. */
  async rollback(
    dataset: DatasetName,
    snapshotId: string,
    at: Date,
  ): Promise<{ previousSnapshotId: string | null; repairedPointer: string | null }> {
    if (datasetOfSnapshotId(snapshotId) !== dataset) {
      throw new SnapshotNotFoundError(snapshotId, `does not belong to dataset ${dataset}`);
    }
    // Verified before the lock is taken (digests streamed, nothing parsed): the lock is held only to
    // re-check that the bundle is still there and to replace the pointer.
    await this.verifyBundle(snapshotId);
    return this.withLock(async () => {
      if (!(await pathExists(path.join(this.bundleDir(snapshotId), 'manifest.json')))) throw new SnapshotNotFoundError(snapshotId);
      const { pointer, broken } = await this.pointerToReplace(dataset);
      const previous = pointer?.snapshotId ?? null;
      if (previous !== snapshotId || broken !== null) await this.writePointer(dataset, snapshotId, at);
      return { previousSnapshotId: previous, repairedPointer: broken };
    });
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
  ): Promise<{ previousSnapshotId: string | null; repairedPointer: string | null }> {
    if (datasetOfSnapshotId(snapshotId) !== dataset) throw new SnapshotNotFoundError(snapshotId, `does not belong to dataset ${dataset}`);
    await this.verifyBundle(snapshotId);
    return this.withLock(async () => {
      if (!(await pathExists(path.join(this.bundleDir(snapshotId), 'manifest.json')))) throw new SnapshotNotFoundError(snapshotId);
      const { pointer, broken } = await this.pointerToReplace(dataset);
      const previous = pointer?.snapshotId ?? null;
      if (previous !== expectedCurrent) {
        throw new CurrentMovedError(dataset, expectedCurrent, previous);
      }
      if (acceptance !== null)
        await replaceFileAtomically(await ensureParent(this.acceptanceFile(snapshotId)), `${canonicalJson(acceptance)}\n`);
      if (previous !== snapshotId || broken !== null) await this.writePointer(dataset, snapshotId, at);
      await rm(this.candidateMarker(snapshotId), { force: true });
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
      const result: GcResult = { deleted: [], kept: [], unreadable: [], skipped: [], removedLeftovers: [] };
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
      return result;
    };
    // A dry run changes nothing, so it needs no lock and works on a read-only store.
    return dryRun ? work() : this.withLock(work);
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
  private async withLock<T>(work: () => Promise<T>): Promise<T> {
    await mkdir(this.root, { recursive: true });
    return withFileLock(path.join(this.root, 'publish.lock'), { waitMs: this.lockWaitMs }, work);
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
function verifyFile(snapshotId: string, directory: string, entry: { path: string; bytes: number; sha256: string }): Promise<void> {
  return verifyListedFile(snapshotId, path.join(directory, entry.path), entry);
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
