import { parentPort, workerData } from 'node:worker_threads';
import { failPoint } from './fault-point.js';
import { ServingIndexWriter } from './serving-index.js';
import { FAILED, IN_FLIGHT, replayBatch, type ServingIndexReply, type ServingIndexRequest } from './serving-index-thread.js';

/**
 * The serving index thread (serving-index-thread.ts): writes the batches of rows it is sent, in
 * order, then orders, indexes, syncs and digests the file when told to finish. Its last message is
 * the outcome; a failure also raises the shared flag, so that the deriving thread stops waiting.
 */
const { bundleDirectory, counters: shared } = workerData as { bundleDirectory: string; counters: SharedArrayBuffer };
const counters = new Int32Array(shared);
const port = parentPort!;
const reply = (message: ServingIndexReply) => port.postMessage(message);

let writer: ServingIndexWriter | null = null;
let failed = false;
try {
  writer = new ServingIndexWriter(bundleDirectory);
} catch (error) {
  fail(error);
}

port.on('message', (request: ServingIndexRequest) => {
  try {
    if (request.kind === 'rows') {
      failPoint('serving-index-write');
      if (writer) replayBatch(writer, request.batch);
    } else if (request.kind === 'finish') {
      if (writer) {
        const entry = writer.finish();
        writer = null;
        reply({ kind: 'finished', entry });
      }
    } else {
      writer?.abandon();
      writer = null;
      reply({ kind: 'abandoned' });
    }
  } catch (error) {
    fail(error);
  } finally {
    if (request.kind === 'rows') {
      Atomics.sub(counters, IN_FLIGHT, 1);
      Atomics.notify(counters, IN_FLIGHT);
    }
  }
});

function fail(error: unknown): void {
  if (failed) return;
  failed = true;
  try {
    writer?.abandon();
  } catch {
    // the first error is the one to report
  }
  writer = null;
  Atomics.store(counters, FAILED, 1);
  Atomics.notify(counters, IN_FLIGHT);
  reply({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
}
