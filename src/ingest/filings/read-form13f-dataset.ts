import type { ProgressStep } from '../../model/progress.js';
import { type Form13fLocation, openForm13fDataset } from './form13f-location.js';
import type { FilingIntake } from './filing-intake.js';
import { ingestForm13fDataset } from './form13f-dataset.js';

/**
 * Opens one data set and reads it into the intake, on whichever thread calls it. A data set that
 * cannot be opened is rejected as a whole. `startStep` gets the INFOTABLE's inflated size (the
 * progress total, in bytes: the rows are the time) once the data set is open.
 */
export async function readForm13fDataset(
  sourcesRoot: string,
  location: Form13fLocation,
  intake: FilingIntake,
  startStep: (totalBytes: number | undefined) => ProgressStep,
): Promise<ProgressStep> {
  const members = await openForm13fDataset(sourcesRoot, location, intake.notes).catch((error: Error) => {
    intake.reject(location.source, 'file', `data set not read: ${error.message}`);
    return null;
  });
  const total = members?.has('INFOTABLE.tsv') ? (members.size('INFOTABLE.tsv') ?? undefined) : undefined;
  const step = startStep(total);
  if (members) {
    try {
      await ingestForm13fDataset(location.source, members, intake, step);
    } finally {
      members.close();
    }
  }
  return step;
}
