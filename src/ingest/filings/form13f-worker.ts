import { parentPort, workerData } from 'node:worker_threads';
import { CompactFilingCatalog } from './catalog.js';
import { FilingIntake } from './filing-intake.js';
import type { Form13fWorkerData, Form13fWorkerMessage } from './form13f-workers.js';
import { readForm13fDataset } from './read-form13f-dataset.js';

/**
 * A worker thread's whole job: read one Form 13F data set into an intake and catalog of its own,
 * exactly as the main thread would, and post the outcome (the catalog's columns are in shared
 * memory: not copied). The main thread decides whether it may take it in (Form13fWorkers, FilingIntake.absorb).
 */
const { sourcesRoot, location, options, hashWhileReading } = workerData as Form13fWorkerData;
const port = parentPort!;
const post = (message: Form13fWorkerMessage) => port.postMessage(message);

const intake = new FilingIntake(new CompactFilingCatalog(), options);
const { sources } = await readForm13fDataset(
  sourcesRoot,
  location,
  intake,
  (total) => {
    post({ kind: 'opened', total });
    return { advance: (bytes = 1) => post({ kind: 'progress', bytes }), done: () => {} };
  },
  hashWhileReading,
);
post({ kind: 'done', transfer: intake.exportTransfer(), sources });
