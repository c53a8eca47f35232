import type { Article } from '../model/article.js';
import type { CalendarEvent } from '../model/calendar-event.js';
import { DATASETS, type DatasetName } from '../model/dataset.js';
import { openStore } from '../publish/open-store.js';
import type { OpenedBundle, SnapshotStore } from '../publish/snapshot-store.js';
import { UnreadableBundleFileError } from '../publish/bundle-file-damage.js';
import { BundleIntegrityError, InvalidPointerError, SnapshotNotFoundError } from '../publish/store-errors.js';
import { ApiError } from './api-error.js';
import type { SnapshotStatus } from './metrics.js';
import { type ArticlesIndex, indexArticles } from './indexes/articles-index.js';
import { type CalendarIndex, indexCalendar } from './indexes/calendar-index.js';
import { SmartMoneyIndex } from './indexes/smart-money-index.js';

export interface DatasetIndexes {
  articles: ArticlesIndex;
  calendar: CalendarIndex;
  'smart-money': SmartMoneyIndex;
}

/** One verified, indexed snapshot, immutable for as long as anyone holds it. */
export interface ServedSnapshot<D extends DatasetName = DatasetName> {
  dataset: D;
  snapshotId: string;
  generatedAt: string;
  freshUntil: string;
  freshUntilMs: number;
  coverageThrough: string | undefined;
  index: DatasetIndexes[D];
}

/** When a refused snapshot is judged again, though its pointer has not moved, and the wait before that. */
interface Retry {
  atMs: number;
  delayMs: number;
}

/**
 * A snapshot refused for its bundle (missing, or failing verification) is judged again while its
 * pointer stays the same: a rebuild of the same content, or a restore, repairs a bundle in place
 * without moving the pointer, and a rollback to the id current already names changes nothing. First
 * after RETRY_FIRST_MS, then after twice the wait before, up to RETRY_MAX_MS; on the monotonic clock.
 * Each judgement reads the bundle again (from a bucket: downloads it again), hence the backoff.
 */
export const RETRY_FIRST_MS = 15_000;
export const RETRY_MAX_MS = 30 * 60_000;

type DatasetState =
  /**
   * `pointer` is the last pointer judged: the served snapshot's, or a newer one that was refused.
   * `unreadablePointer`: the pointer is damaged now (not absent), and this snapshot is still served.
   * `retry`: when the refused pointer is judged again.
   */
  | {
      kind: 'ready';
      snapshot: ServedSnapshot;
      pointer: string;
      refused?: { snapshotId: string; reason: string };
      unreadablePointer?: { reason: string };
      retry?: Retry;
    }
  | { kind: 'unavailable'; reason: string; pointer: string | null; retry?: Retry };

export interface SnapshotLog {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

const NO_LOG: SnapshotLog = { info: () => {}, error: () => {} };

/**
 * Makes a verified bundle servable. Smart Money opens its serving index after checking its chunk
 * digests and its parts' digests on every core (the records stay on disk, in the parts); articles and calendar, whose size editors bound, are read by
 * streaming (each part's digest checked as it ends) and indexed in memory. Every read yields to the
 * event loop between chunks, so requests keep being answered meanwhile.
 */
async function indexBundle(bundle: OpenedBundle): Promise<DatasetIndexes[DatasetName]> {
  const all = async <T>(resource: string): Promise<T[]> => {
    const records: T[] = [];
    for await (const record of bundle.records(resource)) records.push(record as T);
    return records;
  };
  switch (bundle.manifest.dataset) {
    case 'articles':
      return indexArticles(await all<Article>('articles'));
    case 'calendar':
      return indexCalendar(await all<CalendarEvent>('events'));
    case 'smart-money': {
      const file = await bundle.verifiedServingIndex('bytes');
      if (file === null) throw new BundleIntegrityError(bundle.manifest.snapshotId, 'lists no serving index');
      // From layout 4 the records are read from the parts, verified above with the index.
      return SmartMoneyIndex.open(file, { files: bundle.manifest.files, locate: bundle.locate });
    }
  }
}

/** Releases what a snapshot holds open (a serving index), once no request can reach it any more. */
function release(snapshot: ServedSnapshot): void {
  if (snapshot.index instanceof SmartMoneyIndex) snapshot.index.close();
}

/**
 * The current snapshot of each dataset, as the server serves it. A new `current` pointer is picked
 * up by polling: the new bundle is read, digest-verified and indexed first, and only then does one
 * assignment swap it in, so requests in flight keep the snapshot they started with and no request
 * ever sees a half-loaded one. A dataset whose pointer is absent (taken down), or that has nothing
 * verified to serve, becomes unavailable (503) while the others keep serving; a damaged pointer or
 * bundle keeps the verified snapshot served while it is fresh.
 */
export class SnapshotRegistry {
  private readonly states = new Map<DatasetName, DatasetState>();
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private readonly store: SnapshotStore;
  /** The snapshot served before the current one, per dataset: a bucket store's cache keeps both. */
  private readonly previousIds = new Map<DatasetName, string>();
  /** Datasets whose store was out of reach at the last poll: said once per outage, not at every poll. */
  private readonly outOfReach = new Set<DatasetName>();
  /** Told of every attempt to load a changed pointer (metrics). */
  onReload: (dataset: DatasetName, outcome: 'loaded' | 'failed') => void = () => {};

  constructor(
    storeDir: string,
    private readonly log: SnapshotLog = NO_LOG,
    cacheDir?: string,
    /** The clock of the retries of refused snapshots (ms); injected by tests. */
    private readonly monotonicMs: () => number = () => performance.now(),
  ) {
    this.store = openStore(storeDir, { pollHead: true, ...(cacheDir ? { cacheDir } : {}) });
  }

  /**
   * Looks at every dataset's pointer and loads what changed. Concurrent calls share one pass. A
   * pointer that stays the same is not loaded again, except a refused one once its retry is due
   * (RETRY_FIRST_MS, doubling up to RETRY_MAX_MS): a bundle repaired in place is taken without a
   * restart. Publishing or rolling back, which moves the pointer, is taken at the next poll.
   */
  reload(): Promise<void> {
    this.inFlight ??= this.reloadAll().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  startPolling(intervalMs: number): void {
    if (this.timer || intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.reload().catch((error: unknown) => this.log.error({ err: error }, 'snapshot reload failed'));
    }, intervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.inFlight;
    for (const state of this.states.values()) if (state.kind === 'ready') release(state.snapshot);
    this.states.clear();
    await this.store.close();
  }

  /** The snapshot a request of `dataset` is answered from, or 503 snapshot_unavailable. */
  require<D extends DatasetName>(dataset: D, now: Date): ServedSnapshot<D> {
    const state = this.states.get(dataset);
    if (!state || state.kind === 'unavailable') {
      throw new ApiError(503, 'snapshot_unavailable', `The ${dataset} snapshot is unavailable`);
    }
    if (now.getTime() > state.snapshot.freshUntilMs) {
      throw new ApiError(503, 'snapshot_unavailable', `The ${dataset} snapshot is stale: it was fresh until ${state.snapshot.freshUntil}`);
    }
    return state.snapshot as ServedSnapshot<D>;
  }

  /** Each dataset's state, for readiness and metrics. */
  statuses(): SnapshotStatus[] {
    return DATASETS.map((dataset) => {
      const state = this.states.get(dataset);
      if (state?.kind !== 'ready') return { dataset, ready: false };
      const { snapshot } = state;
      return {
        dataset,
        ready: true,
        snapshotId: snapshot.snapshotId,
        generatedAtMs: Date.parse(snapshot.generatedAt),
        freshUntilMs: snapshot.freshUntilMs,
        ...(state.refused ? { refused: state.refused } : {}),
        ...(state.unreadablePointer ? { unreadablePointer: state.unreadablePointer } : {}),
      };
    });
  }

  /** Snapshot ids currently served, for logs and tests. */
  currentIds(): Partial<Record<DatasetName, string>> {
    const ids: Partial<Record<DatasetName, string>> = {};
    for (const [dataset, state] of this.states) if (state.kind === 'ready') ids[dataset] = state.snapshot.snapshotId;
    return ids;
  }

  private async reloadAll(): Promise<void> {
    for (const dataset of DATASETS) await this.reloadDataset(dataset);
  }

  private async reloadDataset(dataset: DatasetName): Promise<void> {
    let pointer: string | null;
    let current;
    try {
      current = await this.store.currentPointer(dataset);
      pointer = current ? `${current.snapshotId}@${current.publishedAt}` : null;
    } catch (error) {
      const previousState = this.states.get(dataset);
      if (error instanceof InvalidPointerError && previousState?.kind === 'ready') {
        // Damage, not a takedown: a pointer that is there but cannot be read (garbage bytes, a bad
        // restore, a pointer record edited by hand) says nothing about what should be served, so the
        // verified snapshot stays served while it is fresh. Named in /readyz, and logged once per reason.
        // Only a pointer that is validly absent takes the dataset down.
        if (previousState.unreadablePointer?.reason !== error.message) {
          this.states.set(dataset, { ...previousState, unreadablePointer: { reason: error.message } });
          this.log.error(
            { dataset, servedSnapshotId: previousState.snapshot.snapshotId, reason: error.message },
            'current pointer damaged; still serving the previous verified snapshot',
          );
        }
        this.onReload(dataset, 'failed');
        return;
      }
      if (previousState?.kind === 'ready') {
        // The store cannot be reached (a bucket's outage, a network error): the pointer is unknown,
        // not broken, so the verified snapshot stays served and the next poll tries again.
        this.log.error(
          { dataset, servedSnapshotId: previousState.snapshot.snapshotId, reason: (error as Error).message },
          'current pointer unreadable; still serving the previous verified snapshot',
        );
        this.onReload(dataset, 'failed');
        return;
      }
      this.markUnavailable(dataset, `current pointer unreadable: ${(error as Error).message}`, 'unreadable');
      this.onReload(dataset, 'failed');
      return;
    }
    let previous = this.states.get(dataset);
    // A pointer read again: whatever outage or damage was said, the next one is news again.
    if (pointer !== null) this.outOfReach.delete(dataset);
    if (pointer !== null && previous?.kind === 'ready' && previous.unreadablePointer) {
      const { unreadablePointer: _repaired, ...rest } = previous;
      previous = rest;
      this.states.set(dataset, previous);
      this.log.info({ dataset, pointer }, 'current pointer readable again');
    }
    const retrying = previous?.retry !== undefined && this.monotonicMs() >= previous.retry.atMs;
    if (previous && previous.pointer === pointer && !retrying) return;
    if (pointer === null || !current) {
      // No pointer because there is no store at all (its folder moved, its volume unmounted and its
      // mount point left empty): that is the store out of reach, not a dataset taken down, so the
      // verified snapshot stays served.
      if (previous?.kind === 'ready' && (await this.storeOutOfReach())) {
        if (!this.outOfReach.has(dataset)) {
          this.outOfReach.add(dataset);
          this.log.error(
            { dataset, servedSnapshotId: previous.snapshot.snapshotId, store: this.store.location },
            'store not found or empty (moved, deleted, or its volume unmounted?); still serving the previous verified snapshot',
          );
        }
        this.onReload(dataset, 'failed');
        return;
      }
      this.markUnavailable(dataset, 'no current snapshot', null);
      return;
    }
    // The bundle the pointer read above names: reading the pointer again could pair another id with it.
    const load = async (): Promise<ServedSnapshot> => {
      const bundle = await this.store.openBundle(current.snapshotId);
      const { manifest } = bundle;
      return {
        dataset,
        snapshotId: manifest.snapshotId,
        generatedAt: manifest.generatedAt,
        freshUntil: manifest.freshUntil,
        freshUntilMs: Date.parse(manifest.freshUntil),
        coverageThrough: manifest.facts.coverageThrough,
        index: await indexBundle(bundle),
      };
    };
    try {
      let snapshot: ServedSnapshot;
      try {
        snapshot = await load();
      } catch (error) {
        // A bucket store's local copy damaged since it was downloaded (a bad disk, a hand edit of the
        // cache): the bucket's own may be whole, so the copy goes and the bundle is downloaded again, once.
        if (!(error instanceof BundleIntegrityError) || !(await this.store.dropLocalCopy(current.snapshotId))) throw error;
        this.log.error(
          { dataset, snapshotId: current.snapshotId, reason: error.message },
          'local copy of the bundle failed verification; removed, downloading it again',
        );
        snapshot = await load();
      }
      // The swap: one assignment, after everything above has succeeded. Requests use an index
      // synchronously, within the turn that took it, so the old one can be closed at once.
      this.states.set(dataset, { kind: 'ready', snapshot, pointer });
      if (previous?.kind === 'ready') {
        release(previous.snapshot);
        if (previous.snapshot.snapshotId !== snapshot.snapshotId) this.previousIds.set(dataset, previous.snapshot.snapshotId);
      }
      this.log.info(
        { dataset, snapshotId: snapshot.snapshotId, freshUntil: snapshot.freshUntil, store: this.store.location },
        'serving snapshot',
      );
      this.onReload(dataset, 'loaded');
      // Bounded: a bucket store's download cache keeps this dataset's served and previous bundles
      // only; the other datasets' copies are theirs to prune (at a restart, not loaded yet).
      const previousId = this.previousIds.get(dataset);
      await this.store
        .retainOnly(previousId === undefined ? [snapshot.snapshotId] : [snapshot.snapshotId, previousId], [dataset])
        .catch((error: unknown) => this.log.error({ err: error }, 'could not prune the bundle cache'));
    } catch (error) {
      // A bundle that fails verification stays refused until the pointer moves; any other failure
      // (EMFILE, EIO, a slow disk, a file in the way of reading) is forgotten, so the next poll
      // tries the same pointer again.
      const known =
        (error instanceof BundleIntegrityError && !(error instanceof UnreadableBundleFileError)) || error instanceof SnapshotNotFoundError;
      const reason = known ? (error as Error).message : `load failed: ${(error as Error).message}`;
      this.onReload(dataset, 'failed');
      // A refused pointer is judged again after a backoff (longer after each refusal of the same
      // pointer); a read error is retried at the next poll, also when it met a pointer refused before.
      const sameAsBefore = previous?.pointer === pointer ? previous.retry : undefined;
      const retry = known ? this.nextRetry(sameAsBefore) : sameAsBefore && { atMs: this.monotonicMs(), delayMs: sameAsBefore.delayMs };
      if (previous?.kind === 'ready') {
        // Keep serving the last verified snapshot (require() still refuses it once it is stale).
        const { retry: _done, ...served } = previous;
        this.states.set(dataset, {
          ...served,
          pointer: known ? pointer : previous.pointer,
          refused: { snapshotId: current.snapshotId, reason },
          ...(retry ? { retry } : {}),
        });
        this.log.error(
          { dataset, refusedSnapshotId: current.snapshotId, servedSnapshotId: previous.snapshot.snapshotId, reason },
          'new snapshot refused; still serving the previous verified one',
        );
        return;
      }
      this.markUnavailable(dataset, reason, known ? pointer : null, retry);
    }
  }

  private nextRetry(previous: Retry | undefined): Retry {
    const delayMs = previous === undefined ? RETRY_FIRST_MS : Math.min(previous.delayMs * 2, RETRY_MAX_MS);
    return { atMs: this.monotonicMs() + delayMs, delayMs };
  }

  /**
   * No store, or an empty one: the folder where a volume was mounted, a bucket prefix whose objects
   * were deleted or moved. A dataset taken down on purpose loses its pointer, but its bundles stay.
   */
  private async storeOutOfReach(): Promise<boolean> {
    if (!(await this.store.exists().catch(() => false))) return true;
    return this.store.holdsNothing().catch(() => false);
  }

  private markUnavailable(dataset: DatasetName, reason: string, pointer: string | null, retry?: Retry): void {
    const previous = this.states.get(dataset);
    const state: DatasetState = { kind: 'unavailable', reason, pointer, ...(retry ? { retry } : {}) };
    if (previous?.kind === 'unavailable' && previous.pointer === pointer && previous.reason === reason) {
      // Said already: only when to look again changes.
      this.states.set(dataset, state);
      return;
    }
    if (previous?.kind === 'ready') release(previous.snapshot);
    this.states.set(dataset, state);
    this.log.error({ dataset, reason }, 'dataset unavailable');
  }
}
