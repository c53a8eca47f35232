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
import { type LineRing, LineRingReader, newLineRing, type RingPlace } from './line-ring.js';
import { deriveBatch, type SmartMoneyBatch } from './smart-money-batch.js';

/** What a derivation worker is started with (smart-money-worker.ts): the catalog, shared, and the ring its lines go through. */
export interface SmartMoneyWorkerData {
  catalog: CatalogRows;
  ring: LineRing;
}

/** A batch as a worker posts it: each chunk of lines in its ring, or (too large for it) a buffer of its own. */
type PostedBatch = SmartMoneyBatch<RingPlace | Uint8Array>;

export type SmartMoneyWorkerRequest = { kind: 'batch'; index: number; plans: InvestorPlan[] } | { kind: 'finish' };

export type SmartMoneyWorkerMessage =
  | { kind: 'batch'; index: number; batch: PostedBatch }
  | { kind: 'finished'; consensus: ConsensusState };

/** Null under the test runner: investors are then derived on the main thread. */
const WORKER_SCRIPT = workerScriptBeside('smart-money-worker.js', import.meta.url);

/**
 * Below this many investors a build derives on the main thread by default: starting the workers
 * (each compiles the record schemas and copies the catalog's string tables) would cost more than
 * they save. PDSNAP_DERIVE_THREADS set to 1 or more uses them whatever the size.
 */
const INVESTORS_WORTH_THREADS = 512;

/** Investors per batch at most: about 5 MB of lines at full scale, a few milliseconds' work. */
const MAX_BATCH_INVESTORS = 64;

/** Batches handed out but not yet written, per worker at most: bounds the lines waiting in memory. */
const BATCHES_AHEAD_PER_WORKER = 4;

/** Each worker's ring of lines: a batch and more at full scale; a worker waits while it is full. */
const RING_BYTES = 8 * 1024 * 1024;

export interface SmartMoneyDerivation {
  /** By rank. */
  consensus: ConsensusRow[];
  notes: BuildNote[];
  facts: { oldestPeriod?: string };
  leftOut: LeftOutCounts;
}

export interface DerivationOptions {
  /** Worker threads; undefined: one per core for a build of at least INVESTORS_WORTH_THREADS investors. */
  threads?: number | undefined;
  /** Told how many investors will be derived, once that is known. */
  onPlanned?: (investors: number) => void;
  /** Told of investors written, as they are, and of how many records (investors and trades) they came to. */
  onWritten?: (investors: number, records: number) => void;
}

/**
 * Smart Money into a staged bundle: plans the investors (metadata only), then derives them in
 * batches of consecutive investors, on worker threads that share the catalog when the build is
 * large enough (one per core by default), each batch checked and made into lines there
 * (deriveBatch) and written here in plan order, so the bundle is the same bytes whatever the
 * number of threads. The workers' consensus tallies are merged at the end (their sums and counts
 * do not depend on the order investors came in). Returns the consensus rows, to be added after.
 */
export async function deriveSmartMoneyInto(
  sink: RecordSink,
  input: SmartMoneyInput & { catalog: CompactFilingCatalog },
  options: DerivationOptions = {},
): Promise<SmartMoneyDerivation> {
  const { plans, notes, leftOut } = planSmartMoney(input);
  options.onPlanned?.(plans.length);
  const threads = derivationThreads(options.threads, plans.length);
  const size = threads === 0 ? MAX_BATCH_INVESTORS : Math.max(1, Math.min(MAX_BATCH_INVESTORS, Math.ceil(plans.length / (threads * 8))));
  const batches: InvestorPlan[][] = [];
  for (let start = 0; start < plans.length; start += size) batches.push(plans.slice(start, start + size));

  const consensus = new ConsensusAccumulator();
  let oldestPeriod: string | undefined;
  const write = (batch: SmartMoneyBatch) => {
    sink.addChecked(batch);
    if (batch.oldestPeriod !== undefined && (oldestPeriod === undefined || compareText(batch.oldestPeriod, oldestPeriod) < 0)) {
      oldestPeriod = batch.oldestPeriod;
    }
    options.onWritten?.(
      batch.investors,
      batch.lines.reduce((sum, lines) => sum + lines.records, 0),
    );
  };
  if (threads === 0 || batches.length === 0) {
    for (const batch of batches) write(deriveBatch(batch, input.catalog, consensus));
  } else {
    for (const state of await deriveOnWorkers(batches, input.catalog, threads, write)) consensus.merge(state);
  }
  return { consensus: consensus.result(), notes, facts: oldestPeriod === undefined ? {} : { oldestPeriod }, leftOut };
}

function derivationThreads(requested: number | undefined, investors: number): number {
  if (requested === undefined) return WORKER_SCRIPT === null || investors < INVESTORS_WORTH_THREADS ? 0 : availableParallelism();
  if (requested > 0 && WORKER_SCRIPT === null) throw new Error('derivation threads need the compiled worker script');
  return requested;
}

/**
 * Hands the batches to `threads` workers, each as soon as it has room (at most two at a time, and
 * at most BATCHES_AHEAD_PER_WORKER per worker beyond the next one to write), writes the batches in
 * order as they come back, and returns each worker's consensus state. A worker's failure, or a
 * failure to write, stops every worker.
 */
function deriveOnWorkers(
  batches: readonly InvestorPlan[][],
  catalog: CompactFilingCatalog,
  threads: number,
  write: (batch: SmartMoneyBatch) => void,
): Promise<ConsensusState[]> {
  const shared = catalog.shareRows();
  const rings = new Map<Worker, LineRingReader>();
  const workers = Array.from({ length: Math.min(threads, batches.length) }, () => {
    const ring = newLineRing(RING_BYTES);
    const data: SmartMoneyWorkerData = { catalog: shared, ring };
    const worker = new Worker(WORKER_SCRIPT!, { workerData: data });
    rings.set(worker, new LineRingReader(ring));
    return worker;
  });
  const busy = new Map<Worker, number>(workers.map((worker) => [worker, 0]));
  const ahead = workers.length * BATCHES_AHEAD_PER_WORKER;
  const returned = new Map<number, { batch: PostedBatch; ring: LineRingReader }>();
  const states: ConsensusState[] = [];
  let handedOut = 0;
  let written = 0;
  let settled = false;

  return new Promise<ConsensusState[]>((resolve, reject) => {
    const stop = (error: unknown) => {
      if (settled) return;
      settled = true;
      Promise.all(workers.map((worker) => worker.terminate())).finally(() => reject(error));
    };
    const handOut = () => {
      for (const worker of workers) {
        while (busy.get(worker)! < 2 && handedOut < batches.length && handedOut - written < ahead) {
          const request: SmartMoneyWorkerRequest = { kind: 'batch', index: handedOut, plans: batches[handedOut]! };
          worker.postMessage(request);
          busy.set(worker, busy.get(worker)! + 1);
          handedOut += 1;
        }
      }
    };
    const onMessage = (worker: Worker, message: SmartMoneyWorkerMessage) => {
      if (settled) return;
      if (message.kind === 'finished') {
        states.push(message.consensus);
        if (states.length === workers.length) {
          settled = true;
          Promise.all(workers.map((w) => w.terminate())).finally(() => resolve(states));
        }
        return;
      }
      busy.set(worker, busy.get(worker)! - 1);
      returned.set(message.index, { batch: message.batch, ring: rings.get(worker)! });
      try {
        for (let next = returned.get(written); next !== undefined; next = returned.get(written)) {
          returned.delete(written);
          const { batch, ring } = next;
          // Written synchronously: the ring's bytes can be released right after.
          write({
            ...batch,
            lines: batch.lines.map((line) => ({ ...line, bytes: line.bytes instanceof Uint8Array ? line.bytes : ring.view(line.bytes) })),
          });
          for (const line of batch.lines) if (!(line.bytes instanceof Uint8Array)) ring.release(line.bytes);
          written += 1;
        }
      } catch (error) {
        stop(error);
        return;
      }
      if (written === batches.length) {
        const finish: SmartMoneyWorkerRequest = { kind: 'finish' };
        for (const w of workers) w.postMessage(finish);
      } else handOut();
    };
    for (const worker of workers) {
      worker.on('message', (message: SmartMoneyWorkerMessage) => onMessage(worker, message));
      worker.on('error', (error) => stop(new Error(`deriving investors in a worker thread: ${error.message}`, { cause: error })));
      worker.on('exit', (code) => stop(new Error(`a derivation worker stopped (exit code ${code}) before it finished`)));
    }
    handOut();
  });
}
