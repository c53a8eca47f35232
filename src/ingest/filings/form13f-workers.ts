import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ProgressStep } from '../../model/progress.js';
import { workerScriptBeside } from '../../lib/worker-script.js';
import type { Form13fLocation } from './form13f-location.js';
import type { IntakeOptions, IntakeTransfer } from './filing-intake.js';
import type { DatasetSourceFile } from './read-form13f-dataset.js';

/** What a data set worker is told (form13f-worker.ts). */
export interface Form13fWorkerData {
  sourcesRoot: string;
  location: Form13fLocation;
  options: IntakeOptions;
  /** Whether to hash the files as they are read: not when the main thread has their provenance already. */
  hashWhileReading: boolean;
}

export type Form13fWorkerMessage =
  | { kind: 'opened'; total: number | undefined }
  | { kind: 'progress'; bytes: number }
  | { kind: 'done'; transfer: IntakeTransfer; sources: DatasetSourceFile[] };

/** Null under the test runner: data sets are then read on the main thread. */
const WORKER_SCRIPT = workerScriptBeside('form13f-worker.js', import.meta.url);

/** Data sets read at once by default: one per core the process may use; none without the worker script. */
export function defaultIngestThreads(): number {
  return WORKER_SCRIPT === null ? 0 : availableParallelism();
}

/** One data set being read in a worker thread. */
export interface Form13fReading {
  /** The INFOTABLE's inflated size, once the worker has opened the data set. */
  readonly opened: Promise<number | undefined>;
  /** The worker's progress so far, then as it comes. */
  follow(step: ProgressStep): void;
  readonly result: Promise<{ transfer: IntakeTransfer; sources: DatasetSourceFile[] }>;
}

/**
 * Reads data sets in worker threads, at most `threads` at a time, started in the order given; the
 * caller takes the results in that order (FilingIntake.absorb), so the outcome is the one of
 * reading them one after the other.
 */
export class Form13fWorkers {
  readonly readings: Form13fReading[];
  private readonly running = new Set<Worker>();
  private readonly waiting: (() => void)[] = [];
  private free: number;
  private closed = false;
  private readonly script: URL;

  constructor(
    sourcesRoot: string,
    locations: readonly Form13fLocation[],
    options: IntakeOptions,
    threads: number,
    hashWhileReading = true,
  ) {
    if (WORKER_SCRIPT === null) throw new Error('data set workers need the compiled worker script');
    this.script = WORKER_SCRIPT;
    this.free = Math.max(1, threads);
    this.readings = locations.map((location) => this.reading({ sourcesRoot, location, options, hashWhileReading }));
  }

  /** Stops the workers still running: after a failure nothing waits for them. */
  async close(): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    await Promise.all([...this.running].map((worker) => worker.terminate()));
  }

  private reading(data: Form13fWorkerData): Form13fReading {
    let advanced = 0;
    let following: ProgressStep | null = null;
    let settleOpened!: { resolve: (total: number | undefined) => void; reject: (error: Error) => void };
    let settleResult!: {
      resolve: (result: { transfer: IntakeTransfer; sources: DatasetSourceFile[] }) => void;
      reject: (error: Error) => void;
    };
    const opened = new Promise<number | undefined>((resolve, reject) => (settleOpened = { resolve, reject }));
    const result = new Promise<{ transfer: IntakeTransfer; sources: DatasetSourceFile[] }>(
      (resolve, reject) => (settleResult = { resolve, reject }),
    );
    // Awaited in order later; until then a failure must not count as unhandled.
    opened.catch(() => {});
    result.catch(() => {});

    const start = () => {
      if (this.closed) return;
      const worker = new Worker(this.script, { workerData: data });
      this.running.add(worker);
      let finished = false;
      const fail = (error: Error) => {
        finished = true;
        const wrapped = new Error(`reading ${data.location.source} in a worker thread: ${error.message}`, { cause: error });
        settleOpened.reject(wrapped);
        settleResult.reject(wrapped);
      };
      worker.on('message', (message: Form13fWorkerMessage) => {
        if (message.kind === 'opened') settleOpened.resolve(message.total);
        else if (message.kind === 'progress') {
          advanced += message.bytes;
          following?.advance(message.bytes);
        } else {
          finished = true;
          settleResult.resolve({ transfer: message.transfer, sources: message.sources });
        }
      });
      worker.on('error', fail);
      worker.on('exit', (code) => {
        this.running.delete(worker);
        if (!finished) fail(new Error(`the worker stopped (exit code ${code}) before it finished`));
        this.free += 1;
        this.waiting.shift()?.();
      });
    };
    if (this.free > 0) {
      this.free -= 1;
      start();
    } else {
      this.waiting.push(() => {
        this.free -= 1;
        start();
      });
    }

    return {
      opened,
      result,
      follow(step) {
        following = step;
        if (advanced > 0) step.advance(advanced);
      },
    };
  }
}
