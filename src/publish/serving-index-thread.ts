import { rmSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { SERVING_INDEX_PATH, type ServingIndexEntry } from '../model/manifest.js';
import { workerScriptBeside } from '../lib/worker-script.js';
import { addIndexRow, type IndexRowSink, ServingIndexWriter } from './serving-index.js';

/**
 * The serving index of a bundle being staged, written on a thread of its own: its SQLite inserts,
 * ordering, indexes, fsync and digest took about 17 s of a 60 s full-scale build on the thread that
 * derives the records. The records' rows go to the thread in batches of plain values (kinds,
 * numbers, texts), in the order they were added, so the file is byte for byte the one the same
 * inserts make on one thread. Under the test runner (no worker script) the writer runs in-thread.
 */
export interface ServingIndexBuilder {
  add(resource: string, record: unknown, json: string): void;
  /** Orders, indexes, syncs and digests the file; the manifest entry. */
  finish(): Promise<ServingIndexEntry>;
  /** Stops and removes the file after a failure. */
  abandon(): Promise<void>;
}

/** Rows of a batch: investors 4 texts and 1 number, consensus 1 text and 1 number, trades 3 texts. */
export interface IndexRowBatch {
  kinds: number[];
  numbers: number[];
  texts: string[];
}

export type ServingIndexRequest = { kind: 'rows'; batch: IndexRowBatch } | { kind: 'finish' } | { kind: 'abandon' };
export type ServingIndexReply =
  | { kind: 'finished'; entry: ServingIndexEntry }
  | { kind: 'abandoned' }
  | { kind: 'failed'; message: string };

/** The shared counters: batches posted and not yet written, and a failure flag. */
export const IN_FLIGHT = 0;
export const FAILED = 1;

export const INVESTOR = 0;
export const CONSENSUS = 1;
export const TRADE = 2;

const BATCH_ROWS = 256;
/** At most this many batches wait for the thread (a few MB); the deriving thread waits beyond that. */
const MAX_IN_FLIGHT = 64;
/** A thread that takes no batch for this long is taken as gone: rows are dropped and finish() fails. */
const STALL_MS = 120_000;

const WORKER_SCRIPT = workerScriptBeside('serving-index-worker.js', import.meta.url);

export function openServingIndexBuilder(bundleDirectory: string): ServingIndexBuilder {
  if (WORKER_SCRIPT === null) {
    const writer = new ServingIndexWriter(bundleDirectory);
    return {
      add: (resource, record, json) => writer.add(resource, record, json),
      finish: async () => writer.finish(),
      abandon: async () => writer.abandon(),
    };
  }
  return new ThreadedServingIndex(WORKER_SCRIPT, bundleDirectory);
}

/** Replays a batch into a writer (on the index thread). */
export function replayBatch(sink: IndexRowSink, batch: IndexRowBatch): void {
  let number = 0;
  let text = 0;
  const { kinds, numbers, texts } = batch;
  for (const kind of kinds) {
    if (kind === INVESTOR) {
      sink.investor(texts[text]!, numbers[number++]!, texts[text + 1]!, texts[text + 2]!, texts[text + 3]!);
      text += 4;
    } else if (kind === CONSENSUS) {
      sink.consensus(numbers[number++]!, texts[text++]!);
    } else {
      sink.trade(texts[text]!, texts[text + 1]!, texts[text + 2]!);
      text += 3;
    }
  }
}

const emptyBatch = (): IndexRowBatch => ({ kinds: [], numbers: [], texts: [] });

class ThreadedServingIndex implements ServingIndexBuilder, IndexRowSink {
  private readonly file: string;
  private readonly counters = new Int32Array(new SharedArrayBuffer(8));
  private readonly worker: Worker;
  /** The thread's last word: finished, abandoned, or failed (also by an error or an early exit). */
  private readonly outcome: Promise<ServingIndexReply>;
  private batch = emptyBatch();
  private gone = false;

  constructor(script: URL, bundleDirectory: string) {
    this.file = path.join(bundleDirectory, SERVING_INDEX_PATH);
    this.worker = new Worker(script, { workerData: { bundleDirectory, counters: this.counters.buffer } });
    this.outcome = new Promise((resolve) => {
      this.worker.on('message', (reply: ServingIndexReply) => resolve(reply));
      this.worker.on('error', (error) => resolve({ kind: 'failed', message: error.message }));
      this.worker.on('exit', (code) => resolve({ kind: 'failed', message: `the serving index thread stopped (exit code ${code})` }));
    });
  }

  add(resource: string, record: unknown, json: string): void {
    addIndexRow(this, resource, record, json);
    if (this.batch.kinds.length >= BATCH_ROWS) this.post();
  }

  investor(slug: string, total: number, category: string, summaryJson: string, detailJson: string): void {
    this.batch.kinds.push(INVESTOR);
    this.batch.numbers.push(total);
    this.batch.texts.push(slug, category, summaryJson, detailJson);
  }

  consensus(rank: number, json: string): void {
    this.batch.kinds.push(CONSENSUS);
    this.batch.numbers.push(rank);
    this.batch.texts.push(json);
  }

  trade(action: string, investorSlug: string, json: string): void {
    this.batch.kinds.push(TRADE);
    this.batch.texts.push(action, investorSlug, json);
  }

  async finish(): Promise<ServingIndexEntry> {
    this.post();
    this.worker.postMessage({ kind: 'finish' } satisfies ServingIndexRequest);
    const reply = await this.outcome;
    await this.worker.terminate();
    if (reply.kind !== 'finished') throw new Error(`${this.file}: ${reply.kind === 'failed' ? reply.message : 'not written'}`);
    return reply.entry;
  }

  async abandon(): Promise<void> {
    this.worker.postMessage({ kind: 'abandon' } satisfies ServingIndexRequest);
    await this.outcome;
    await this.worker.terminate();
    rmSync(this.file, { force: true });
  }

  /** Sends the batch, first waiting while the thread is MAX_IN_FLIGHT batches behind. */
  private post(): void {
    if (this.batch.kinds.length === 0) return;
    const batch = this.batch;
    this.batch = emptyBatch();
    if (this.gone || Atomics.load(this.counters, FAILED) !== 0) return; // finish() reports the failure
    let waitedSince = Number.NaN;
    for (let behind = Atomics.load(this.counters, IN_FLIGHT); behind >= MAX_IN_FLIGHT; behind = Atomics.load(this.counters, IN_FLIGHT)) {
      if (Atomics.load(this.counters, FAILED) !== 0) return;
      if (Atomics.wait(this.counters, IN_FLIGHT, behind, 1000) === 'timed-out') {
        waitedSince = Number.isNaN(waitedSince) ? performance.now() : waitedSince;
        if (performance.now() - waitedSince > STALL_MS) {
          this.gone = true;
          return;
        }
      }
    }
    Atomics.add(this.counters, IN_FLIGHT, 1);
    this.worker.postMessage({ kind: 'rows', batch } satisfies ServingIndexRequest);
  }
}
