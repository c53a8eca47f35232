import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  ConsensusAccumulator,
  type ConsensusState,
  type InvestorPlan,
  type LeftOutCounts,
  planSmartMoney,
  type SmartMoneyInput,
} from '../../derive/smart-money/index.js';
import type { CatalogRows, CompactFilingCatalog } from '../../ingest/filings/catalog.js';
import { workerScriptBeside } from '../../lib/worker-script.js';
import { compareText } from '../../lib/text-order.js';
import type { RecordSink } from '../../model/dataset-build.js';
import type { BuildNote } from '../../model/report.js';
import type { ConsensusRow } from '../../model/smart-money.js';
import { type LineRing, LineRingReader, newLineRing, type RingPlace, transferable } from './line-ring.js';
import type { FetchedBatch, InvestorBatchCache } from './investor-batch-cache.js';
import { batchInvestorPlans } from './investor-batches.js';
import { deriveBatch, type SmartMoneyBatch } from './smart-money-batch.js';

/** What a derivation worker is started with (smart-money-worker.ts): the catalog, shared, and the ring its lines go through. */
export interface SmartMoneyWorkerData {
  catalog: CatalogRows;
  ring: LineRing;
  /** A build with a derivation cache: each batch derived comes with its cache entry (kept-batch.ts). */
  forCache: boolean;
}

/** A batch as a worker posts it: each chunk of lines in its ring, or (too large for it) a buffer of its own. */
type PostedBatch = SmartMoneyBatch<RingPlace | Uint8Array>;

export type SmartMoneyWorkerRequest =
  | { kind: 'batch'; index: number; plans: InvestorPlan[] }
  /** A batch the cache holds: its entry and its lines by resource, read back and checked (kept-batch.ts). */
  | { kind: 'reuse'; index: number; entry: Uint8Array; lines: Array<[resource: string, bytes: Uint8Array]> }
  | { kind: 'finish' };

export type SmartMoneyWorkerMessage =
  | { kind: 'batch'; index: number; batch: PostedBatch; reused: boolean }
  /** A reuse whose entry did not hold together: the batch is to be derived. */
  | { kind: 'unusable'; index: number }
  | { kind: 'finished'; consensus: ConsensusState };

/** Null under the test runner: investors are then derived on the main thread. */
const WORKER_SCRIPT = workerScriptBeside('smart-money-worker.js', import.meta.url);

/**
 * Below this many investors a build derives on the main thread by default: starting the workers
 * (each compiles the record schemas and copies the catalog's string tables) would cost more than
 * they save. PDSNAP_DERIVE_THREADS set to 1 or more uses them whatever the size.
 */
const INVESTORS_WORTH_THREADS = 512;

/**
 * Investors started (handed out, or being read back) but not yet written, per worker at most:
 * bounds the lines waiting in memory. Counted in investors, not batches: batches cut by content
 * range from one investor to 128, and a window of a few batches would leave the workers idle
 * behind a large one.
 */
const INVESTORS_AHEAD_PER_WORKER = 256;

/** Each worker's ring of lines: a batch of average size and more at full scale (a larger chunk goes in a buffer of its own); a worker waits while it is full. */
const RING_BYTES = 8 * 1024 * 1024;

export interface SmartMoneyDerivation {
  /** By rank. */
  consensus: ConsensusRow[];
  notes: BuildNote[];
  facts: { oldestPeriod?: string };
  leftOut: LeftOutCounts;
  /** Investors written, and of those how many were taken from the derivation cache instead of derived. */
  investors: { written: number; reused: number };
}

export interface DerivationOptions {
  /** Worker threads; undefined: one per core for a build of at least INVESTORS_WORTH_THREADS investors. */
  threads?: number | undefined;
  /** Told how many investors will be derived, once that is known. */
  onPlanned?: (investors: number) => void;
  /** Told of investors written, as they are, and of how many records (investors and trades) they came to. */
  onWritten?: (investors: number, records: number) => void;
  /** The derivation cache of investor batches: batches found there are read back instead of derived. */
  batchCache?: InvestorBatchCache | undefined;
}

/**
 * Smart Money into a staged bundle: plans the investors (metadata only), cuts them into batches by
 * content (investor-batches.ts), and writes the batches in plan order, so the bundle is the same
 * bytes whatever the number of threads and whatever came from the cache. A batch the derivation
 * cache holds is read back from the parts an earlier build published (its consensus holdings from
 * the cache entry); the others are derived, on worker threads that share the catalog when there
 * are enough of them (one per core by default), each checked and made into lines there
 * (deriveBatch). The consensus tallies of every batch are merged at the end (their sums and counts
 * do not depend on the order investors came in). Returns the consensus rows, to be added after.
 */
export async function deriveSmartMoneyInto(
  sink: RecordSink,
  input: SmartMoneyInput & { catalog: CompactFilingCatalog },
  options: DerivationOptions = {},
): Promise<SmartMoneyDerivation> {
  const { plans, notes, leftOut } = planSmartMoney(input);
  options.onPlanned?.(plans.length);
  const batches = batchInvestorPlans(plans);
  const cache = options.batchCache;
  const keys = batches.map((batch) => cache?.keyOf(batch) ?? null);
  const toDerive: number[] = [];
  for (let index = 0; index < batches.length; index++) {
    const key = keys[index] ?? null;
    if (key === null || !cache!.mayHold(key)) toDerive.push(index);
  }
  // Threads for reuse too: reading a batch back (parsing its entry, counting its consensus
  // holdings) costs about a fifth of deriving it.
  const threads = derivationThreads(options.threads, plans.length);
  const forCache = cache !== undefined;

  const consensus = new ConsensusAccumulator();
  let oldestPeriod: string | undefined;
  let written = 0;
  let reused = 0;
  const write = (index: number, batch: SmartMoneyBatch) => {
    const placed = sink.addChecked(batch);
    const key = keys[index] ?? null;
    if (key !== null && cache !== undefined) cache.keep(key, batch, placed);
    if (batch.oldestPeriod !== undefined && (oldestPeriod === undefined || compareText(batch.oldestPeriod, oldestPeriod) < 0)) {
      oldestPeriod = batch.oldestPeriod;
    }
    written += batch.investors;
    options.onWritten?.(
      batch.investors,
      batch.lines.reduce((sum, lines) => sum + lines.records, 0),
    );
  };
  const derive = (index: number) => deriveBatch(batches[index]!, input.catalog, consensus, undefined, forCache);
  const deriving = new Set(toDerive);
  if (threads === 0 || batches.length === 0) {
    /** A batch the cache should hold: read back, its holdings counted; derived here when it turns out not to be whole. */
    const reuse = async (index: number): Promise<SmartMoneyBatch> => {
      const found = await cache!.load(keys[index]!);
      if (found === null) return derive(index);
      for (const [slug, holdings] of found.holdings) consensus.addHoldings(slug, holdings);
      reused += found.batch.investors;
      return found.batch;
    };
    // A few batches read ahead: a bucket store answers each part in a round trip.
    const ahead = new Map<number, Promise<SmartMoneyBatch>>();
    const start = (index: number) => {
      if (index < batches.length && !deriving.has(index) && !ahead.has(index)) ahead.set(index, reuse(index));
    };
    for (let index = 0; index < batches.length; index++) {
      for (let next = index; next < index + READS_AHEAD; next++) start(next);
      write(index, deriving.has(index) ? derive(index) : await ahead.get(index)!);
      ahead.delete(index);
    }
  } else {
    const fetch = (index: number) => cache!.fetch(keys[index]!);
    const done = await deriveOnWorkers(batches, deriving, fetch, input.catalog, { threads, forCache }, write);
    for (const state of done.consensus) consensus.merge(state);
    reused = done.reusedInvestors;
  }
  return {
    consensus: consensus.result(),
    notes,
    facts: oldestPeriod === undefined ? {} : { oldestPeriod },
    leftOut,
    investors: { written, reused },
  };
}

/** Batches read back from the cache ahead of the one being written, on the main thread. */
const READS_AHEAD = 4;

function derivationThreads(requested: number | undefined, investors: number): number {
  if (requested === undefined) return WORKER_SCRIPT === null || investors < INVESTORS_WORTH_THREADS ? 0 : availableParallelism();
  if (requested > 0 && WORKER_SCRIPT === null) throw new Error('derivation threads need the compiled worker script');
  return requested;
}

/** A batch's work as a worker gets it: derive it, or check and take in what the cache kept of it. */
type Job = { kind: 'derive' } | { kind: 'reuse'; fetched: FetchedBatch };

/**
 * Runs the batches on `threads` workers and writes them in order as they come back: a batch to
 * derive goes to a worker as soon as one has room (at most two at a time each); a batch the cache
 * holds is first read back here (`fetch`: the entry and the lines, checked), then a worker takes
 * its entry in (reuse: its consensus holdings counted there); one that cannot be read back, or
 * whose entry the worker finds unusable, is derived instead. Nothing is started more than
 * INVESTORS_AHEAD_PER_WORKER investors per worker beyond the next batch to write. Returns each worker's
 * consensus state and how many investors were read back. A worker's failure, or a failure to read
 * or write, stops every worker.
 */
function deriveOnWorkers(
  batches: readonly InvestorPlan[][],
  deriving: ReadonlySet<number>,
  fetch: (index: number) => Promise<FetchedBatch | null>,
  catalog: CompactFilingCatalog,
  options: { threads: number; forCache: boolean },
  write: (index: number, batch: SmartMoneyBatch) => void,
): Promise<{ consensus: ConsensusState[]; reusedInvestors: number }> {
  const shared = catalog.shareRows();
  const rings = new Map<Worker, LineRingReader>();
  const workers = Array.from({ length: Math.min(options.threads, batches.length) }, () => {
    const ring = newLineRing(RING_BYTES);
    const data: SmartMoneyWorkerData = { catalog: shared, ring, forCache: options.forCache };
    const worker = new Worker(WORKER_SCRIPT!, { workerData: data });
    rings.set(worker, new LineRingReader(ring));
    return worker;
  });
  const busy = new Map<Worker, number>(workers.map((worker) => [worker, 0]));
  const ahead = workers.length * INVESTORS_AHEAD_PER_WORKER;
  /** Investors of the batches started, and of those written. */
  let startedInvestors = 0;
  let writtenInvestors = 0;
  /** Batches ready to hand out, by index; those in `deriving` are ready from the start. */
  const ready = new Map<number, Job>();
  const returned = new Map<number, { batch: PostedBatch; ring: LineRingReader | null }>();
  const states: ConsensusState[] = [];
  let started = 0;
  let written = 0;
  let reusedInvestors = 0;
  let settled = false;

  return new Promise((resolve, reject) => {
    const stop = (error: unknown) => {
      if (settled) return;
      settled = true;
      Promise.all(workers.map((worker) => worker.terminate())).finally(() => reject(error));
    };
    /** Starts the batches that came into the window, and hands ready ones to workers with room, first in order first. */
    const handOut = () => {
      // The next batch to write is always started, however large.
      for (; started < batches.length && (started === written || startedInvestors - writtenInvestors < ahead); started++) {
        const index = started;
        startedInvestors += batches[index]!.length;
        if (deriving.has(index)) ready.set(index, { kind: 'derive' });
        else {
          fetch(index).then((fetched) => {
            if (settled) return;
            ready.set(index, fetched === null ? { kind: 'derive' } : { kind: 'reuse', fetched });
            handOut();
          }, stop);
        }
      }
      const order = [...ready.keys()].sort((a, b) => a - b);
      for (const index of order) {
        const worker = workers.reduce((least, w) => (busy.get(w)! < busy.get(least)! ? w : least));
        if (busy.get(worker)! >= 2) break;
        const job = ready.get(index)!;
        ready.delete(index);
        busy.set(worker, busy.get(worker)! + 1);
        if (job.kind === 'derive') worker.postMessage({ kind: 'batch', index, plans: batches[index]! } satisfies SmartMoneyWorkerRequest);
        else {
          const { entry, lines } = job.fetched;
          const request: SmartMoneyWorkerRequest = { kind: 'reuse', index, entry, lines: [...lines] };
          worker.postMessage(request, transferable([entry, ...lines.values()]));
        }
      }
    };
    /** Writes every batch that is next in order. */
    const arrived = (index: number, batch: PostedBatch, ring: LineRingReader | null) => {
      returned.set(index, { batch, ring });
      try {
        for (let next = returned.get(written); next !== undefined; next = returned.get(written)) {
          returned.delete(written);
          const { batch, ring } = next;
          // Written synchronously: the ring's bytes can be released right after.
          write(written, {
            ...batch,
            lines: batch.lines.map((line) => ({ ...line, bytes: line.bytes instanceof Uint8Array ? line.bytes : ring!.view(line.bytes) })),
          });
          for (const line of batch.lines) if (!(line.bytes instanceof Uint8Array)) ring!.release(line.bytes);
          writtenInvestors += batches[written]!.length;
          written += 1;
        }
      } catch (error) {
        stop(error);
        return;
      }
      if (written === batches.length) {
        for (const w of workers) w.postMessage({ kind: 'finish' } satisfies SmartMoneyWorkerRequest);
      } else handOut();
    };
    const onMessage = (worker: Worker, message: SmartMoneyWorkerMessage) => {
      if (settled) return;
      if (message.kind === 'finished') {
        states.push(message.consensus);
        if (states.length === workers.length) {
          settled = true;
          Promise.all(workers.map((w) => w.terminate())).finally(() => resolve({ consensus: states, reusedInvestors }));
        }
        return;
      }
      busy.set(worker, busy.get(worker)! - 1);
      if (message.kind === 'unusable') {
        ready.set(message.index, { kind: 'derive' });
        handOut();
        return;
      }
      if (message.reused) reusedInvestors += message.batch.investors;
      arrived(message.index, message.batch, rings.get(worker)!);
    };
    for (const worker of workers) {
      worker.on('message', (message: SmartMoneyWorkerMessage) => onMessage(worker, message));
      worker.on('error', (error) => stop(new Error(`deriving investors in a worker thread: ${error.message}`, { cause: error })));
      worker.on('exit', (code) => stop(new Error(`a derivation worker stopped (exit code ${code}) before it finished`)));
    }
    handOut();
  });
}
