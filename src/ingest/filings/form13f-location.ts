import path from 'node:path';
import type { BuildNote } from '../../model/report.js';
import { compareText } from '../../lib/text-order.js';
import { listSourceFiles, openSourceDescriptor, readSourcePieces, relativeSourcePath } from '../source-files.js';
import { folderMembers, zipMembers, type Form13fMembers } from './form13f-members.js';

/**
 * Where one Form 13F data set is: a ZIP, or a folder its TSVs were extracted to. Plain data, so
 * that a worker thread can be told which one to read.
 */
export interface Form13fLocation {
  /** As reports name it, relative to the sources root: the ZIP, or the folder. */
  source: string;
  kind: 'zip' | 'folder';
  /** Absolute paths: the ZIP, or the member TSVs found in the folder. */
  files: string[];
  /** Absolute: the folder of the extracted TSVs (kind folder). */
  folder?: string;
}

/** Each `*.zip` is one data set; each folder holding `.tsv` files is one extracted data set. Sorted by source. */
export async function findForm13fDatasets(
  sourcesRoot: string,
  form13fDir: string,
): Promise<{ found: Form13fLocation[]; notes: BuildNote[] }> {
  const listing = await listSourceFiles(sourcesRoot, form13fDir);
  const found: Form13fLocation[] = [];
  const folders = new Map<string, string[]>();
  for (const file of listing.files) {
    const extension = path.extname(file).toLowerCase();
    if (extension === '.zip') {
      found.push({ source: relativeSourcePath(sourcesRoot, file), kind: 'zip', files: [file] });
    } else if (extension === '.tsv') {
      const folder = path.dirname(file);
      folders.set(folder, [...(folders.get(folder) ?? []), file]);
    }
  }
  for (const [folder, tsvFiles] of folders) {
    const used = tsvFiles.filter((file) =>
      ['SUBMISSION.TSV', 'COVERPAGE.TSV', 'SUMMARYPAGE.TSV', 'INFOTABLE.TSV'].includes(path.basename(file).toUpperCase()),
    );
    found.push({ source: relativeSourcePath(sourcesRoot, folder), kind: 'folder', files: used, folder });
  }
  return { found: found.sort((a, b) => compareText(a.source, b.source)), notes: listing.notes };
}

/** The data set's members; notes get what opening found (unsafe member names in a ZIP). */
export async function openForm13fDataset(
  sourcesRoot: string,
  location: Form13fLocation,
  notes: BuildNote[],
  hashWhileReading = true,
): Promise<Form13fMembers> {
  const relative = (file: string) => relativeSourcePath(sourcesRoot, file);
  if (location.kind === 'zip') {
    const zip = location.files[0]!;
    return zipMembers(await openSourceDescriptor(sourcesRoot, zip), relative(zip), notes);
  }
  return folderMembers(location.folder!, location.files, relative, (file, onDigest) =>
    readSourcePieces(sourcesRoot, file, hashWhileReading ? onDigest : undefined),
  );
}
