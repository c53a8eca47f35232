import type { ProgressStep } from '../../model/progress.js';
import type { FilingIntake } from './filing-intake.js';
import type { Form13fMembers } from './form13f-members.js';
import { PendingFilings } from './form13f-pending.js';
import { readCoverPageTable, readInfoTable, readSubmissionTable, readSummaryPageTable, settleFilings } from './form13f-tables.js';
import { SourceProblem } from '../source-problem.js';

/**
 * Reads one SEC Form 13F data set (SUBMISSION, COVERPAGE, SUMMARYPAGE, INFOTABLE .tsv), table by
 * table (form13f-tables.ts). A data set that cannot be read to the end (a bad header, a corrupt ZIP)
 * is rejected as a whole: its filings are committed only after the last row is read, so none of them
 * holds an accession yet, and a later copy stays free.
 */
export async function ingestForm13fDataset(
  form13fSource: string,
  members: Form13fMembers,
  intake: FilingIntake,
  step: ProgressStep,
): Promise<void> {
  for (const name of ['SUBMISSION.tsv', 'COVERPAGE.tsv', 'INFOTABLE.tsv']) {
    if (!members.has(name)) {
      intake.reject(form13fSource, name, `Form 13F data set lacks ${name}; data set not read`);
      return;
    }
  }
  const pending = new PendingFilings(intake, members);
  try {
    await readSubmissionTable(intake, members, pending);
    await readCoverPageTable(intake, members, pending);
    await readSummaryPageTable(intake, members, pending);
    await readInfoTable(intake, members, pending, step);
    settleFilings(form13fSource, intake, members, pending);
  } catch (error) {
    pending.discardAll();
    const location = error instanceof SourceProblem ? (error.location ?? 'file') : 'file';
    intake.reject(form13fSource, location, `data set not read: ${error instanceof Error ? error.message : String(error)}`);
  }
}
