import { parentPort, workerData } from 'node:worker_threads';
import { ConsensusAccumulator } from '../../derive/smart-money/index.js';
import { CompactFilingCatalog } from '../../ingest/filings/catalog.js';
import { deriveWorkerDies } from '../../lib/fault-point.js';
import { LineRingWriter, transferable } from './line-ring.js';
import { reusedBatch } from './kept-batch.js';
import { deriveBatch } from './smart-money-batch.js';
import type { SmartMoneyWorkerData, SmartMoneyWorkerMessage, SmartMoneyWorkerRequest } from './smart-money-workers.js';

/**
 * A derivation worker's whole job: derive the batches of investors it is given from the catalog it
 * shares with the main thread (its columns in shared memory, read without a copy), each into lines
 * checked and serialized as the staged bundle would (deriveBatch), put the lines in its ring of
 * shared memory (line-ring.ts; a chunk that cannot fit there goes as a buffer of its own,
 * transferred), post where they are, and at the end what its investors add to the consensus.
 */
const { catalog: shared, ring, forCache } = workerData as SmartMoneyWorkerData;
const catalog = CompactFilingCatalog.fromShared(shared);
const consensus = new ConsensusAccumulator();
const lines = new LineRingWriter(ring);
const port = parentPort!;

port.on('message', (request: SmartMoneyWorkerRequest) => {
  if (request.kind === 'batch') {
    deriveWorkerDies();
    const batch = deriveBatch(request.plans, catalog, consensus, (bytes) => lines.keep(bytes) ?? new Uint8Array(bytes), forCache);
    lines.endBatch();
    const message: SmartMoneyWorkerMessage = { kind: 'batch', index: request.index, batch, reused: false };
    const owned = batch.lines.flatMap((line) => (line.bytes instanceof Uint8Array ? [line.bytes] : []));
    port.postMessage(message, transferable(batch.keptEntry ? [...owned, batch.keptEntry] : owned));
  } else if (request.kind === 'reuse') {
    const found = reusedBatch(request.entry, new Map(request.lines));
    if (found === null) {
      port.postMessage({ kind: 'unusable', index: request.index } satisfies SmartMoneyWorkerMessage);
      return;
    }
    for (const [slug, holdings] of found.holdings) consensus.addHoldings(slug, holdings);
    const message: SmartMoneyWorkerMessage = { kind: 'batch', index: request.index, batch: found.batch, reused: true };
    port.postMessage(message, transferable(found.batch.lines.map((line) => line.bytes)));
  } else {
    const message: SmartMoneyWorkerMessage = { kind: 'finished', consensus: consensus.state() };
    port.postMessage(message);
  }
});
