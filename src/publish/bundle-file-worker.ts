import { parentPort, workerData } from 'node:worker_threads';
import { type BundleFileReply, type BundleFileRequest, type BundleFileWorkerData, FAILED, HANDLED } from './bundle-file-thread.js';
import { BundleFileWriter } from './bundle-file-writer.js';

/**
 * A worker thread's whole job: run one staging bundle's BundleFileWriter for the deriving thread
 * (BundleFileThread). After a failure it writes nothing more; every request is still counted, so
 * the deriving thread never waits for it, and learns of the failure at its next request.
 */
const { directory, dataset, maxPartBytes, flags: shared, replies } = workerData as BundleFileWorkerData;
const flags = new Int32Array(shared);
const reply = (message: BundleFileReply) => replies.postMessage(message);
let failure: BundleFileReply | null = null;

function fail(error: unknown): BundleFileReply {
  const { message, code } = error as NodeJS.ErrnoException;
  failure = {
    kind: 'failed',
    message: String(message),
    ...(typeof code === 'string' ? { code } : {}),
  };
  reply(failure);
  Atomics.store(flags, FAILED, 1);
  Atomics.notify(flags, HANDLED);
  return failure;
}

// Whatever ends this thread early, the deriving thread must not wait for it.
process.on('exit', () => {
  Atomics.store(flags, FAILED, 1);
  Atomics.notify(flags, HANDLED);
});

// Opening the serving index can fail (a full disk, a missing folder): that is the build's error,
// reported at the next request like any other.
let writer: BundleFileWriter | null = null;
try {
  writer = new BundleFileWriter(directory, dataset, maxPartBytes);
} catch (error) {
  fail(error);
}

parentPort!.on('message', (request: BundleFileRequest) => {
  switch (request.kind) {
    case 'chunk':
      try {
        if (!failure) writer!.write(request);
      } catch (error) {
        fail(error);
      } finally {
        Atomics.add(flags, HANDLED, 1);
        Atomics.notify(flags, HANDLED);
      }
      return;
    case 'finish':
      if (failure) return reply(failure);
      try {
        return reply({ kind: 'finished', written: writer!.finish(request.resources) });
      } catch (error) {
        fail(error);
        return;
      }
    case 'abandon':
      try {
        writer?.abandon();
      } finally {
        reply({ kind: 'abandoned' });
      }
      return;
  }
});
