import type { ProgressStep } from '../../model/progress.js';
import {
  normalizeAccession,
  normalizeCik,
  readAccession,
  readAmendmentType,
  readNonNegativeNumber,
  readSubmissionType,
} from './filing-fields.js';
import { readForm13fDate } from './filing-dates.js';
import type { FilingIntake } from './filing-intake.js';
import type { Form13fMembers } from './form13f-members.js';
import type { PendingFiling, PendingFilings } from './form13f-pending.js';
import { eachForm13fRow, eachRawForm13fRow } from './form13f-table-rows.js';
import { INFOTABLE_COLUMNS, InfotableFields, reading, settle } from './infotable-fields.js';
import { SourceProblem } from '../source-problem.js';

/**
 * One function per table of a Form 13F data set, in the order they are read: the three small tables
 * into one PendingFiling per accession, then INFOTABLE (about 3.5 million rows for a full quarter)
 * streamed row by row into the catalog's staging area, then every filing settled.
 */

/** Progress is told the bytes scanned every this many rows. */
const ROWS_PER_PROGRESS = 10_000;

/** SUBMISSION.tsv: lists each filing (accession, type, filer, dates); a copy of one taken from an earlier source is skipped. */
export async function readSubmissionTable(intake: FilingIntake, members: Form13fMembers, pending: PendingFilings): Promise<void> {
  await eachForm13fRow(
    intake,
    members,
    'SUBMISSION.tsv',
    ['ACCESSION_NUMBER', 'FILING_DATE', 'SUBMISSIONTYPE', 'CIK', 'PERIODOFREPORT'],
    (field, at, source) => {
      const accession = readAccession(field('ACCESSION_NUMBER'));
      const taken = pending.byAccession.get(accession);
      if (taken) {
        intake.reject(source, at, `duplicate accession ${accession}: already listed in ${source} (${taken.submissionRow})`);
        return;
      }
      // A copy of a filing already accepted from an earlier source is a duplicate: rejected
      // here, naming that copy, so its (possibly millions of) INFOTABLE rows are not staged.
      if (intake.committedCopy(accession) !== undefined) {
        intake.rejectDuplicate(accession, { source, location: at });
        pending.skipped.add(accession);
        return;
      }
      pending.byAccession.set(accession, {
        accession,
        submissionRow: at,
        submissionType: readSubmissionType(field('SUBMISSIONTYPE'), 'SUBMISSIONTYPE'),
        cik: normalizeCik(field('CIK')),
        filedAt: readForm13fDate(field('FILING_DATE'), 'FILING_DATE'),
        period: readForm13fDate(field('PERIODOFREPORT'), 'PERIODOFREPORT'),
        cover: null,
        tableEntryTotal: null,
        tableValueTotal: null,
        stagingId: null,
        bad: null,
      });
    },
  );
}

/** COVERPAGE.tsv: the filer's name and the amendment type. */
export async function readCoverPageTable(intake: FilingIntake, members: Form13fMembers, pending: PendingFilings): Promise<void> {
  await eachForm13fRow(
    intake,
    members,
    'COVERPAGE.tsv',
    ['ACCESSION_NUMBER', 'ISAMENDMENT', 'AMENDMENTTYPE', 'FILINGMANAGER_NAME'],
    (field, at, source) => {
      const filing = pending.known(readAccession(field('ACCESSION_NUMBER')), source, at);
      if (!filing) return;
      pending.guarded(filing, source, at, () => {
        const isAmendment = field('ISAMENDMENT').trim().toUpperCase() === 'Y' || filing.submissionType.endsWith('/A');
        const amendmentType = isAmendment ? readAmendmentType(field('AMENDMENTTYPE')) : null;
        if (filing.submissionType === '13F-HR/A' && amendmentType === null) {
          throw new SourceProblem('13F-HR/A without an AMENDMENTTYPE (RESTATEMENT or NEW HOLDINGS)');
        }
        const filerName = field('FILINGMANAGER_NAME').trim();
        if (filerName === '') throw new SourceProblem('FILINGMANAGER_NAME is empty');
        filing.cover = { filerName, amendmentType };
      });
    },
  );
}

/** SUMMARYPAGE.tsv (optional): the totals the cover page states, checked later against the table. */
export async function readSummaryPageTable(intake: FilingIntake, members: Form13fMembers, pending: PendingFilings): Promise<void> {
  if (!members.has('SUMMARYPAGE.tsv')) return;
  await eachForm13fRow(
    intake,
    members,
    'SUMMARYPAGE.tsv',
    ['ACCESSION_NUMBER', 'TABLEENTRYTOTAL', 'TABLEVALUETOTAL'],
    (field, at, source) => {
      const filing = pending.known(readAccession(field('ACCESSION_NUMBER')), source, at);
      if (!filing) return;
      pending.guarded(filing, source, at, () => {
        const optional = (name: string) => (field(name).trim() === '' ? null : readNonNegativeNumber(field(name), name));
        filing.tableEntryTotal = optional('TABLEENTRYTOTAL');
        filing.tableValueTotal = optional('TABLEVALUETOTAL');
      });
    },
  );
}

/**
 * INFOTABLE.tsv: each row staged into its filing as it is scanned, decoding only the fields read.
 * Rows of an accession SUBMISSION does not list are counted and rejected once per accession.
 */
export async function readInfoTable(
  intake: FilingIntake,
  members: Form13fMembers,
  pending: PendingFilings,
  step: ProgressStep,
): Promise<void> {
  const prepareSecurity = reading((issuerName: string, titleOfClass: string, cusip: string) =>
    intake.prepareSecurity(issuerName, titleOfClass, cusip),
  );
  const orphans = new Map<string, { at: string; count: number }>();
  let sinceProgress = 0;
  let bytesReported = 0;
  let fields: InfotableFields | null = null;
  let lastAccessionFiling: PendingFiling | undefined;
  let lastAccession = '';
  await eachRawForm13fRow(
    intake,
    members,
    'INFOTABLE.tsv',
    INFOTABLE_COLUMNS,
    (view, tabs, columns, at, source) => {
      if (++sinceProgress === ROWS_PER_PROGRESS) {
        step.advance(view.through - bytesReported);
        bytesReported = view.through;
        sinceProgress = 0;
      }
      if (fields === null) fields = new InfotableFields(columns, tabs);
      fields.load(view);
      const accession = fields.accession();
      // Rows of a filing come together: the same accession string as the row before is the same filing.
      const filing = accession === lastAccession ? lastAccessionFiling : pending.byAccession.get(accession);
      lastAccession = accession;
      lastAccessionFiling = filing;
      if (!filing) {
        if (!pending.skipped.has(accession)) {
          const orphan = orphans.get(accession);
          if (orphan) orphan.count++;
          else orphans.set(accession, { at: at(), count: 1 });
        }
        return;
      }
      if (filing.bad) return; // the filing is rejected already; its later rows are skipped
      const row = fields;
      pending.guarded(filing, source, at, () => {
        // The order of the reads is the order of the problems a bad row reports.
        const security = row.security();
        const issuerName = settle(security.issuerName);
        const cusip = settle(security.cusip);
        const putCall = row.putCall();
        const amountType = row.amountType();
        const amount = row.number('SSHPRNAMT');
        const reportedValue = row.number('VALUE');
        filing.stagingId ??= intake.catalog.stage(accession);
        // Cleaned and interned once per distinct security, kept with it (as a problem, too).
        security.prepared ??= prepareSecurity(issuerName, security.titleOfClass, cusip);
        intake.addPreparedRow(filing.stagingId, settle(security.prepared), putCall, amountType, amount, reportedValue);
      });
    },
    (rowFields, at, source, problem) => {
      // A row with the wrong number of fields still names its filing in the first column.
      const filing = pending.byAccession.get(normalizeAccession(rowFields[0]) ?? '');
      if (filing) pending.markBad(filing, source, at, problem);
      else intake.reject(source, at, problem);
    },
  );
  step.advance((members.size('INFOTABLE.tsv') ?? bytesReported) - bytesReported);

  for (const [accession, orphan] of orphans) {
    intake.reject(
      members.describe('INFOTABLE.tsv'),
      orphan.at,
      `${orphan.count} row(s) for accession ${accession}, which is not listed in ${members.describe('SUBMISSION.tsv')}`,
    );
  }
}

/** Commits every filing read whole, and rejects (naming its first bad row) every other one. */
export function settleFilings(form13fSource: string, intake: FilingIntake, members: Form13fMembers, pending: PendingFilings): void {
  for (const filing of [...pending.byAccession.values()]) {
    pending.byAccession.delete(filing.accession); // settled below: committed or discarded
    const stagingId = filing.stagingId ?? intake.catalog.stage(filing.accession);
    if (!filing.bad && !filing.cover) {
      pending.markBad(filing, members.describe('COVERPAGE.tsv'), 'file', `no COVERPAGE.tsv row`);
    }
    if (filing.bad) {
      intake.discard(stagingId);
      const more = filing.bad.more > 0 ? ` (and ${filing.bad.more} more bad row(s))` : '';
      intake.reject(filing.bad.source, filing.bad.location, `filing ${filing.accession} rejected: ${filing.bad.reason}${more}`);
      continue;
    }
    intake.complete(
      stagingId,
      {
        accessionNumber: filing.accession,
        cik: filing.cik,
        filerName: filing.cover!.filerName,
        period: filing.period,
        filedAt: filing.filedAt,
        submissionType: filing.submissionType,
        amendmentType: filing.cover!.amendmentType,
        source: form13fSource,
      },
      { tableEntryTotal: filing.tableEntryTotal, tableValueTotal: filing.tableValueTotal },
      {
        accession: { source: members.describe('SUBMISSION.tsv'), location: filing.submissionRow },
        totals: { source: members.describe('SUMMARYPAGE.tsv'), location: `accession ${filing.accession}` },
      },
    );
  }
}
