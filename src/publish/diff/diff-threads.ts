import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { wholeNumberFromEnv } from '../../lib/env-number.js';
import { workerScriptBeside } from '../../lib/worker-script.js';
import type { DiffSideName, LeftoverSink, WrittenLeftovers } from './diff-leftovers.js';
import type { LineBatch, PartToRead } from './diff-lines.js';
import type { PairingSides, PartialVerdicts, PartitionLines } from './diff-pairing.js';
import { type DiffReply, type DiffRequest, LEFTOVER_FIELDS, receivedBatch, receivedError } from './diff-thread-messages.js';

/** Null under the test runner: a diff then does all its work on its own thread. */
const WORKER_SCRIPT = workerScriptBeside('diff-worker.js', import.meta.url);

/** From this many bytes of a resource (both sides, parts not shared), a diff uses worker threads. */
const THREAD_BYTES = 32 * 1024 * 1024;

/**
 * Batches a side's thread reads ahead of what the diff has taken (about 1 MiB each). The same
 * thread also writes left-over lines: with 3, a new quarter's diff waited on reads (0.3 s of 9).
 */
const BATCHES_AHEAD = 6;

/** Left-over lines handed to a thread at once, and messages of them not yet written, at most. */
const LEFTOVERS_PER_MESSAGE = 4096;
const LEFTOVER_MESSAGES_IN_FLIGHT = 6;

/**
 * Whether a resource of `bytes` (both sides, parts not shared) is diffed with worker threads.
 * PDSNAP_DIFF_THREADS: 0 never; 1 whatever the size; unset from THREAD_BYTES on. Never where no
 * worker script exists (under the test runner), nor on a machine of one core.
 */
export function diffThreadsWanted(bytes: number, env: NodeJS.ProcessEnv = process.env): boolean {
  const setting = wholeNumberFromEnv(env, 'PDSNAP_DIFF_THREADS', '0 or 1', (value) => value === 0 || value === 1);
  if (WORKER_SCRIPT === null || setting === 0) return false;
  return setting === 1 || (bytes >= THREAD_BYTES && availableParallelism() > 1);
}

/** A side's lines as batches, read here (diff-lines.ts) or on a worker thread. */
export interface BatchSource {
  next(): Promise<LineBatch | null>;
  /** A batch no line of which is read again: its buffer may be read into again. */
  recycle(batch: LineBatch): void;
  close(): Promise<void>;
}

/**
 * Two worker threads for one diff. Each reads one side of a resource while the diff walks both;
 * both key and write the lines left over (of either side, whichever thread has less to do), so
 * that a stretch where only one side is read still keeps both busy; and each settles a share of
 * the partitions. Started once per diff, ended by close().
 */
export class DiffThreads {
  private readonly workers = [new DiffWorker(WORKER_SCRIPT!), new DiffWorker(WORKER_SCRIPT!)];
  private lastTask = 0;

  /** Side `index` (0 before, 1 after) of a resource, read on its own thread. */
  reader(index: 0 | 1, label: string, parts: PartToRead[]): BatchSource {
    return new WorkerBatches(this.workers[index]!, this.task(), label, parts);
  }

  leftovers(resource: string, partitions: number, sides: PairingSides): LeftoverSink {
    return new ThreadedLeftovers(
      this.workers.map((worker) => ({ worker, task: this.task() })),
      resource,
      partitions,
      sides,
    );
  }

  /** Settles shares of the partitions, one thread each. */
  settle(shares: PartitionLines[][], limit: number, sides: PairingSides): Promise<PartialVerdicts[]> {
    return Promise.all(
      shares.map((partitions, index) => {
        const task = this.task();
        return this.workers[index % this.workers.length]!.ask(task, { kind: 'settle', task, partitions, limit, sides }, (reply) =>
          reply.kind === 'settled' ? reply.partial : undefined,
        );
      }),
    );
  }

  readonly lanes = this.workers.length;

  /** Ends the threads, once each has closed its temporary files (descriptors are the process's, not the thread's). */
  async close(): Promise<void> {
    await Promise.all(
      this.workers.map(async (worker) => {
        const task = this.task();
        await worker.ask(task, { kind: 'shutdown', task }, (reply) => (reply.kind === 'shut' ? true : undefined)).catch(() => undefined);
        await worker.terminate();
      }),
    );
  }

  private task(): number {
    this.lastTask += 1;
    return this.lastTask;
  }
}

/** One worker thread and the tasks waiting for its answers. */
class DiffWorker {
  private readonly worker: Worker;
  private readonly listeners = new Map<number, (reply: DiffReply) => void>();
  private failure: Error | null = null;

  constructor(script: URL) {
    this.worker = new Worker(script);
    this.worker.on('message', (reply: DiffReply) => this.listeners.get(reply.task)?.(reply));
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const [task, listener] of [...this.listeners])
        listener({ kind: 'failed', task, error: { kind: 'other', message: error.message } });
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`a diff worker thread exited with code ${code}`)));
  }

  post(request: DiffRequest, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(request, transfer);
  }

  listen(task: number, listener: (reply: DiffReply) => void): void {
    this.listeners.set(task, listener);
    if (this.failure !== null) listener({ kind: 'failed', task, error: { kind: 'other', message: this.failure.message } });
  }

  forget(task: number): void {
    this.listeners.delete(task);
  }

  /** Posts a request and waits for the one answer `pick` takes (or a failure). */
  ask<T>(task: number, request: DiffRequest, pick: (reply: DiffReply) => T | undefined): Promise<T> {
    return new Promise((resolve, reject) => {
      this.listen(task, (reply) => {
        this.forget(task);
        const answer = pick(reply);
        if (answer !== undefined) resolve(answer);
        else if (reply.kind === 'failed') reject(receivedError(reply.error));
        else reject(new Error(`a diff worker thread answered ${reply.kind} to ${request.kind}`));
      });
      this.post(request);
    });
  }

  async terminate(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}

/** Something to wait for that a message from a thread ends. */
class Signal {
  private waiting: (() => void) | null = null;

  wait(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  notify(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }
}

/** A side read on a worker thread: batches queue here until taken, and each one taken lets the thread read one more. */
class WorkerBatches implements BatchSource {
  private readonly queue: LineBatch[] = [];
  private ended = false;
  private failure: Error | null = null;
  private readonly arrived = new Signal();

  constructor(
    private readonly worker: DiffWorker,
    private readonly task: number,
    label: string,
    parts: PartToRead[],
  ) {
    worker.listen(task, (reply) => {
      if (reply.kind === 'batch') this.queue.push(receivedBatch(reply.batch));
      else if (reply.kind === 'end') this.ended = true;
      else if (reply.kind === 'failed') this.failure ??= receivedError(reply.error);
      this.arrived.notify();
    });
    worker.post({ kind: 'read', task, label, parts, credit: BATCHES_AHEAD });
  }

  async next(): Promise<LineBatch | null> {
    for (;;) {
      const batch = this.queue.shift();
      if (batch !== undefined) {
        this.worker.post({ kind: 'credit', task: this.task });
        return batch;
      }
      if (this.failure !== null) throw this.failure;
      if (this.ended) return null;
      await this.arrived.wait();
    }
  }

  recycle(batch: LineBatch): void {
    const buffer = batch.data.buffer as ArrayBuffer;
    this.worker.post({ kind: 'recycle', task: this.task, buffer }, [buffer]);
  }

  async close(): Promise<void> {
    this.worker.forget(this.task);
    this.worker.post({ kind: 'stop', task: this.task });
  }
}

/**
 * Left-over lines handed to the threads' writers a few thousand at a time, each message to the
 * thread with fewer messages still to write. The lines are copied into the message's own buffer,
 * a run of lines that follow each other in a chunk at once (a search leaves lines over in order).
 */
class ThreadedLeftovers implements LeftoverSink {
  private readonly lanes: { worker: DiffWorker; task: number; inFlight: number; failure: Error | null; written: WrittenLeftovers | null }[];
  private lines = new Int32Array(LEFTOVERS_PER_MESSAGE * LEFTOVER_FIELDS);
  private count = 0;
  private data: Buffer = Buffer.allocUnsafe(0);
  private used = 0;
  /** Bytes of a chunk that follow each other and are not yet copied: `run[runStart, runEnd)`, to go to `data` at `runAt`. */
  private run: Buffer | null = null;
  private runStart = 0;
  private runEnd = 0;
  private runAt = 0;
  private readonly replied = new Signal();
  private turn = 0;
  /** Buffers of messages the threads have written and sent back, to be used again. */
  private readonly spareLines: Int32Array<ArrayBuffer>[] = [];
  private readonly spareData: ArrayBuffer[] = [];

  constructor(lanes: { worker: DiffWorker; task: number }[], resource: string, partitions: number, sides: PairingSides) {
    this.lanes = lanes.map((lane) => ({ ...lane, inFlight: 0, failure: null, written: null }));
    for (const lane of this.lanes) {
      lane.worker.listen(lane.task, (reply) => {
        if (reply.kind === 'added') {
          lane.inFlight -= 1;
          this.spareLines.push(new Int32Array(reply.lines.buffer as ArrayBuffer));
          this.spareData.push(reply.data.buffer as ArrayBuffer);
        } else if (reply.kind === 'written') lane.written = reply.written;
        else if (reply.kind === 'failed') lane.failure ??= receivedError(reply.error);
        this.replied.notify();
      });
      lane.worker.post({ kind: 'open-leftovers', task: lane.task, resource, partitions, sides });
    }
  }

  add(side: DiffSideName, seq: number, chunk: Buffer, start: number, end: number, part: number, number: number): void {
    if (this.run !== chunk || start !== this.runEnd + 1) {
      this.copyRun();
      if (this.used + (end - start) > this.data.length || this.count === LEFTOVERS_PER_MESSAGE) {
        this.send();
        this.data = this.messageBuffer(end - start);
      }
      this.run = chunk;
      this.runStart = start;
      this.runAt = this.used;
    } else if (this.runAt + (end - this.runStart) > this.data.length || this.count === LEFTOVERS_PER_MESSAGE) {
      // The run would not fit: copy it, send, and begin a new one at this line.
      this.copyRun();
      this.send();
      this.data = this.messageBuffer(end - start);
      this.run = chunk;
      this.runStart = start;
      this.runAt = 0;
    }
    this.runEnd = end;
    const at = this.runAt + (start - this.runStart);
    const lines = this.lines;
    const field = this.count * LEFTOVER_FIELDS;
    lines[field] = side === 'before' ? 0 : 1;
    lines[field + 1] = seq;
    lines[field + 2] = part;
    lines[field + 3] = number;
    lines[field + 4] = at;
    lines[field + 5] = at + (end - start);
    this.count += 1;
    this.used = at + (end - start);
  }

  async drain(): Promise<void> {
    for (;;) {
      this.throwFailure();
      if (this.lanes.reduce((sum, lane) => sum + lane.inFlight, 0) <= LEFTOVER_MESSAGES_IN_FLIGHT) return;
      await this.replied.wait();
    }
  }

  async finish(): Promise<WrittenLeftovers[]> {
    this.copyRun();
    this.send();
    for (const lane of this.lanes) lane.worker.post({ kind: 'finish-leftovers', task: lane.task });
    for (;;) {
      this.throwFailure();
      if (this.lanes.every((lane) => lane.written !== null)) return this.lanes.map((lane) => lane.written!);
      await this.replied.wait();
    }
  }

  async dispose(): Promise<void> {
    for (const lane of this.lanes) {
      lane.worker.forget(lane.task);
      lane.worker.post({ kind: 'dispose-leftovers', task: lane.task });
    }
  }

  release(chunk: Buffer): void {
    if (this.run === chunk) this.copyRun();
  }

  private copyRun(): void {
    if (this.run !== null) this.run.copy(this.data, this.runAt, this.runStart, this.runEnd);
    this.run = null;
  }

  private send(): void {
    if (this.count > 0) {
      // The thread with fewer messages to write; on a tie, the one after the last chosen.
      this.turn = (this.turn + 1) % this.lanes.length;
      let lane = this.lanes[this.turn]!;
      for (const candidate of this.lanes) if (candidate.inFlight < lane.inFlight) lane = candidate;
      const lines = this.lines.subarray(0, this.count * LEFTOVER_FIELDS);
      const data = this.data.subarray(0, this.used);
      lane.worker.post({ kind: 'leftovers', task: lane.task, lines, data }, [lines.buffer as ArrayBuffer, data.buffer as ArrayBuffer]);
      lane.inFlight += 1;
      this.lines = this.spareLines.pop() ?? new Int32Array(LEFTOVERS_PER_MESSAGE * LEFTOVER_FIELDS);
    }
    this.count = 0;
    this.data = Buffer.allocUnsafe(0);
    this.used = 0;
  }

  /** A buffer for the lines of a message: one sent back if there is one large enough, else a new one. */
  private messageBuffer(line: number): Buffer {
    const spare = this.spareData.pop();
    if (spare !== undefined && spare.byteLength >= line) return Buffer.from(spare);
    return Buffer.allocUnsafeSlow(Math.max(MESSAGE_BYTES, line));
  }

  private throwFailure(): void {
    const failure = this.lanes.find((lane) => lane.failure !== null)?.failure;
    if (failure) throw failure;
  }
}

/** The bytes of lines a message to a writer carries, about. */
const MESSAGE_BYTES = 1024 * 1024;
