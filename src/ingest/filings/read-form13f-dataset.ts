import type { ProgressStep } from '../../model/progress.js';
import type { SourceFile } from '../../model/report.js';
import { sourceProvenance, UnreadableSource } from '../source-files.js';
import { type Form13fLocation, openForm13fDataset } from './form13f-location.js';
import type { Form13fMembers } from './form13f-members.js';
import type { FilingIntake } from './filing-intake.js';
import { ingestForm13fDataset } from './form13f-dataset.js';

/** The provenance of one file of a data set, or why it could not be taken (to be rejected in source order). */
export type DatasetSourceFile = { file: SourceFile } | { unreadable: { source: string; location: string; reason: string } };

/**
 * Opens one data set and reads it into the intake, on whichever thread calls it. A data set that
 * cannot be opened is rejected as a whole. `startStep` gets the INFOTABLE's inflated size (the
 * progress total, in bytes: the rows are the time) once the data set is open. Returns the step
 * and the provenance of the data set's files (size, digest): a member of a folder read to its end
 * was hashed as it was read, every other file is read for it here, on the same thread. With
 * `hashWhileReading` false (the caller hashed the files already, for the derivation cache's key)
 * nothing is hashed and no provenance returned.
 */
export async function readForm13fDataset(
  sourcesRoot: string,
  location: Form13fLocation,
  intake: FilingIntake,
  startStep: (totalBytes: number | undefined) => ProgressStep,
  hashWhileReading = true,
): Promise<{ step: ProgressStep; sources: DatasetSourceFile[] }> {
  const members = await openForm13fDataset(sourcesRoot, location, intake.notes, hashWhileReading).catch((error: Error) => {
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
  return { step, sources: hashWhileReading ? await datasetSources(sourcesRoot, location, members) : [] };
}

async function datasetSources(
  sourcesRoot: string,
  location: Form13fLocation,
  members: Form13fMembers | null,
): Promise<DatasetSourceFile[]> {
  const sources: DatasetSourceFile[] = [];
  for (const file of location.files) sources.push(await datasetSourceFile(sourceProvenance(sourcesRoot, file, members?.digestOf(file))));
  return sources;
}

/** A file's provenance, or the reason it cannot be taken (UnreadableSource), to be rejected in source order. */
export async function datasetSourceFile(provenance: Promise<SourceFile>): Promise<DatasetSourceFile> {
  try {
    return { file: await provenance };
  } catch (error) {
    if (!(error instanceof UnreadableSource)) throw error;
    return { unreadable: { source: error.source, location: error.location, reason: error.reason } };
  }
}
