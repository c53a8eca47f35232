import type { AmendmentType, SubmissionType } from '../../model/filing.js';
import type { FilingIntake } from './filing-intake.js';
import type { Form13fMembers } from './form13f-members.js';
import { SourceProblem } from '../source-problem.js';

/** One accession of a Form 13F data set, gathered table by table until it is committed or discarded. */
export interface PendingFiling {
  accession: string;
  submissionRow: string;
  submissionType: SubmissionType;
  cik: string;
  filedAt: string;
  period: string;
  cover: { filerName: string; amendmentType: AmendmentType | null } | null;
  tableEntryTotal: number | null;
  tableValueTotal: number | null;
  stagingId: number | null;
  bad: { source: string; location: string; reason: string; more: number } | null;
}

/**
 * The filings of one data set while its tables are read: SUBMISSION lists them, the other tables
 * add to them. A bad row marks its whole filing bad (the first reason kept, later ones counted):
 * nothing from a bad filing is half-used.
 */
export class PendingFilings {
  readonly byAccession = new Map<string, PendingFiling>();
  /** Accessions committed from an earlier source: their rows here are not read (rejected once, at SUBMISSION). */
  readonly skipped = new Set<string>();

  constructor(
    private readonly intake: FilingIntake,
    private readonly members: Form13fMembers,
  ) {}

  /** The filing a row of another table names, or null (rejected once when SUBMISSION does not list it). */
  known(accession: string, source: string, at: string): PendingFiling | null {
    const filing = this.byAccession.get(accession);
    if (!filing && !this.skipped.has(accession)) {
      this.intake.reject(source, at, `accession ${accession} is not listed in ${this.members.describe('SUBMISSION.tsv')}`);
    }
    return filing ?? null;
  }

  /** Runs a row reader; a problem marks the filing bad instead of stopping the file. */
  guarded(filing: PendingFiling, source: string, at: string | (() => string), read: () => void): void {
    if (filing.bad) return; // the filing is rejected already; its later rows are skipped
    try {
      read();
    } catch (error) {
      if (!(error instanceof SourceProblem)) throw error;
      this.markBad(filing, source, typeof at === 'string' ? at : at(), error.message);
    }
  }

  markBad(filing: PendingFiling, source: string, location: string, reason: string): void {
    if (filing.bad) filing.bad.more++;
    else filing.bad = { source, location, reason, more: 0 };
  }

  /** A data set that could not be read to the end: every unsettled filing's staged rows go. */
  discardAll(): void {
    for (const filing of this.byAccession.values()) {
      if (filing.stagingId !== null) this.intake.discard(filing.stagingId);
    }
  }
}
