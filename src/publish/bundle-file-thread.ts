import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { workerScriptBeside } from '../lib/worker-script.js';
import type { DatasetName } from '../model/dataset.js';
import type { LineChunk, WrittenFiles } from './bundle-file-writer.js';

/** What the bundle file worker is started with (bundle-file-worker.ts). */
export interface BundleFileWorkerData {
  directory: string;
  dataset: DatasetName;
  maxPartBytes: number;
  /** [chunks handled, failed (0 or 1)], shared with the deriving thread. */
  flags: SharedArrayBuffer;
  replies: MessagePort;
}

export type BundleFileRequest = ({ kind: 'chunk' } & LineChunk) | { kind: 'finish'; resources: readonly string[] } | { kind: 'abandon' };

export type BundleFileReply =
  | { kind: 'failed'; message: string; code?: string }
  | { kind: 'finished'; written: WrittenFiles }
  | { kind: 'abandoned' };

export const HANDLED = 0;
export const FAILED = 1;

/** Null under the test runner: the files are then written on the deriving thread. */
const WORKER_SCRIPT = workerScriptBeside('bundle-file-worker.js', import.meta.url);

export function bundleFileThreadAvailable(): boolean {
  return WORKER_SCRIPT !== null;
}

/**
 * Chunks handed over but not yet written, at most: the deriving thread waits beyond this, so a
 * slow disk or index holds back derivation instead of growing memory (about 1 MB a chunk).
 */
const MAX_CHUNKS_IN_FLIGHT = 8;

/**
 * How long the deriving thread waits for a chunk to be written before it gives up. A chunk takes
 * milliseconds; a thread that ended without a word (out of memory) would otherwise be waited for
 * forever, since its exit event cannot be seen while derivation blocks the event loop.
 */
const STALL_MS = 120_000;

/**
 * A BundleFileWriter on a worker thread. Derivation is one synchronous loop, so the hand-over is
 * too: each chunk is copied once into a buffer of its own and transferred with postMessage, a
 * shared counter of the chunks handled holds derivation back when the worker falls behind
 * (Atomics.wait), and a failure is raised and read without a turn of the event loop (a shared flag,
 * receiveMessageOnPort), at the next chunk handed over or at finish. The error is the writer's
 * own: the part file and the reason.
 */
export class BundleFileThread {
  private readonly worker: Worker;
  private readonly flags = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  private readonly replies: MessagePort;
  private handedOver = 0;
  private exited = false;

  constructor(directory: string, dataset: DatasetName, maxPartBytes: number) {
    if (WORKER_SCRIPT === null) throw new Error('the bundle file thread needs the compiled worker script');
    const channel = new MessageChannel();
    this.replies = channel.port1;
    const data: BundleFileWorkerData = {
      directory,
      dataset,
      maxPartBytes,
      flags: this.flags.buffer as SharedArrayBuffer,
      replies: channel.port2,
    };
    this.worker = new Worker(WORKER_SCRIPT, { workerData: data, transferList: [channel.port2] });
    this.worker.on('exit', () => {
      this.exited = true;
      // Whatever waits for a reply learns that none will come.
      this.replies.close();
    });
    // An uncaught error ends the worker; the exit above and the flag the worker sets report it.
    this.worker.on('error', () => {});
  }

  write(chunk: LineChunk): void {
    this.throwIfFailed();
    // A copy of its own, transferred: the caller reuses its buffer.
    const bytes = new Uint8Array(chunk.bytes);
    const request: BundleFileRequest = {
      kind: 'chunk',
      resource: chunk.resource,
      records: chunk.records,
      bytes,
      ...(chunk.facts ? { facts: chunk.facts } : {}),
    };
    this.worker.postMessage(request, [bytes.buffer as ArrayBuffer]);
    this.handedOver += 1;
    let waited = 0;
    for (;;) {
      const handled = Atomics.load(this.flags, HANDLED);
      if (this.handedOver - handled <= MAX_CHUNKS_IN_FLIGHT) return;
      if (Atomics.wait(this.flags, HANDLED, handled, 1000) === 'timed-out') waited += 1000;
      else waited = 0;
      this.throwIfFailed();
      if (waited >= STALL_MS) throw new Error(`the bundle file thread wrote nothing for ${STALL_MS / 1000} s`);
    }
  }

  async finish(resources: readonly string[]): Promise<WrittenFiles> {
    this.throwIfFailed();
    // A failure reported for a chunk before this request is the answer to it as well.
    const reply = await this.request({ kind: 'finish', resources }, ['finished', 'failed']);
    await this.worker.terminate();
    if (reply.kind === 'finished') return reply.written;
    throw replyError(reply);
  }

  /** Lets the worker close what it holds open, then stops it; the caller removes the staging folder. */
  async abandon(): Promise<void> {
    // A failure reported for a chunk is not the answer: the worker must have closed what it holds.
    await this.request({ kind: 'abandon' }, ['abandoned']).catch(() => {});
    await this.worker.terminate();
  }

  /** Sends a request and resolves with the first reply of one of the kinds that answer it. */
  private request(request: BundleFileRequest, answers: ReadonlyArray<BundleFileReply['kind']>): Promise<BundleFileReply> {
    if (this.exited) return Promise.reject(new Error('the bundle file thread stopped before it answered'));
    return new Promise((resolve, reject) => {
      const onReply = (reply: BundleFileReply) => {
        if (!answers.includes(reply.kind)) return;
        this.worker.off('exit', onExit);
        this.replies.off('message', onReply);
        resolve(reply);
      };
      const onExit = () => {
        this.replies.off('message', onReply);
        reject(new Error('the bundle file thread stopped before it answered'));
      };
      this.worker.once('exit', onExit);
      this.replies.on('message', onReply);
      this.worker.postMessage(request);
    });
  }

  private throwIfFailed(): void {
    if (Atomics.load(this.flags, FAILED) === 0) return;
    const reply = receiveMessageOnPort(this.replies)?.message as BundleFileReply | undefined;
    throw reply?.kind === 'failed' ? replyError(reply) : new Error('the bundle file thread stopped before it finished');
  }
}

function replyError(reply: BundleFileReply): Error {
  if (reply.kind !== 'failed') return new Error(`the bundle file thread answered ${reply.kind}`);
  return Object.assign(new Error(reply.message), reply.code === undefined ? {} : { code: reply.code });
}
