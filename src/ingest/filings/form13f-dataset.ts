import type { ProgressStep } from '../../model/progress.js';
import type { AmendmentType, SubmissionType } from '../../model/filing.js';
import type { DatasetMembers } from './dataset-members.js';
import {
  normalizeAccession,
  normalizeCik,
  readAccession,
  readAmendmentType,
  readNonNegativeNumber,
  readSubmissionType,
} from './filing-fields.js';
import { INFOTABLE_COLUMNS, InfotableFields, reading, settle } from './infotable-fields.js';
import { readDatasetDate } from './filing-dates.js';
import type { FilingIntake } from './filing-intake.js';
import { SourceProblem } from '../source-problem.js';
import { columnIndex, decodeFields } from './tsv-rows.js';
import { scanTsvLines, splitTabs, type TsvLineView } from './tsv-scanner.js';

/**
 * Reads one SEC Form 13F data set (SUBMISSION, COVERPAGE, SUMMARYPAGE, INFOTABLE .tsv).
 *
 * The three small tables are read first into one entry per accession; INFOTABLE (about 3.5 million
 * rows for a full quarter) is then streamed row by row straight into the catalog's staging area,
 * so no file and no row object outlives its turn. A bad row marks its whole filing bad (its later
 * rows are skipped, its staged rows discarded): nothing from a bad filing is half-used.
 */

/** Progress is told the bytes scanned every this many rows. */
const ROWS_PER_PROGRESS = 10_000;

interface PendingFiling {
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

export async function ingestForm13fDataset(
  datasetSource: string,
  members: DatasetMembers,
  intake: FilingIntake,
  step: ProgressStep,
): Promise<void> {
  for (const name of ['SUBMISSION.tsv', 'COVERPAGE.tsv', 'INFOTABLE.tsv']) {
    if (!members.has(name)) {
      intake.reject(datasetSource, name, `Form 13F data set lacks ${name}; data set not read`);
      return;
    }
  }
  const pending = new Map<string, PendingFiling>();
  try {
    await readDataset();
  } catch (error) {
    // A data set that cannot be read to the end (bad header, corrupt ZIP) is rejected as a whole.
    // Its filings are committed only after the last row is read, so none of them holds an
    // accession yet (a later copy stays free); `pending` keeps only the unsettled ones.
    for (const filing of pending.values()) {
      if (filing.stagingId !== null) intake.discard(filing.stagingId);
    }
    const location = error instanceof SourceProblem ? (error.location ?? 'file') : 'file';
    intake.reject(datasetSource, location, `data set not read: ${error instanceof Error ? error.message : String(error)}`);
  }

  async function readDataset(): Promise<void> {
    /** Accessions committed from an earlier source: their rows here are not read (rejected once, at SUBMISSION). */
    const skipped = new Set<string>();

    await eachRow(
      intake,
      members,
      'SUBMISSION.tsv',
      ['ACCESSION_NUMBER', 'FILING_DATE', 'SUBMISSIONTYPE', 'CIK', 'PERIODOFREPORT'],
      (field, at, source) => {
        const accession = readAccession(field('ACCESSION_NUMBER'));
        const taken = pending.get(accession);
        if (taken) {
          intake.reject(source, at, `duplicate accession ${accession}: already listed in ${source} (${taken.submissionRow})`);
          return;
        }
        // A copy of a filing already accepted from an earlier source is a duplicate: rejected
        // here, naming that copy, so its (possibly millions of) INFOTABLE rows are not staged.
        if (intake.committedCopy(accession) !== undefined) {
          intake.rejectDuplicate(accession, { source, location: at });
          skipped.add(accession);
          return;
        }
        const filing: PendingFiling = {
          accession,
          submissionRow: at,
          submissionType: readSubmissionType(field('SUBMISSIONTYPE'), 'SUBMISSIONTYPE'),
          cik: normalizeCik(field('CIK')),
          filedAt: readDatasetDate(field('FILING_DATE'), 'FILING_DATE'),
          period: readDatasetDate(field('PERIODOFREPORT'), 'PERIODOFREPORT'),
          cover: null,
          tableEntryTotal: null,
          tableValueTotal: null,
          stagingId: null,
          bad: null,
        };
        pending.set(accession, filing);
      },
    );

    const known = (accession: string, source: string, at: string): PendingFiling | null => {
      const filing = pending.get(accession);
      if (!filing && !skipped.has(accession)) {
        intake.reject(source, at, `accession ${accession} is not listed in ${members.describe('SUBMISSION.tsv')}`);
      }
      return filing ?? null;
    };

    await eachRow(
      intake,
      members,
      'COVERPAGE.tsv',
      ['ACCESSION_NUMBER', 'ISAMENDMENT', 'AMENDMENTTYPE', 'FILINGMANAGER_NAME'],
      (field, at, source) => {
        const filing = known(readAccession(field('ACCESSION_NUMBER')), source, at);
        if (!filing) return;
        guarded(filing, source, at, () => {
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

    if (members.has('SUMMARYPAGE.tsv')) {
      await eachRow(intake, members, 'SUMMARYPAGE.tsv', ['ACCESSION_NUMBER', 'TABLEENTRYTOTAL', 'TABLEVALUETOTAL'], (field, at, source) => {
        const filing = known(readAccession(field('ACCESSION_NUMBER')), source, at);
        if (!filing) return;
        guarded(filing, source, at, () => {
          const optional = (name: string) => (field(name).trim() === '' ? null : readNonNegativeNumber(field(name), name));
          filing.tableEntryTotal = optional('TABLEENTRYTOTAL');
          filing.tableValueTotal = optional('TABLEVALUETOTAL');
        });
      });
    }

    const prepareSecurity = reading((issuerName: string, titleOfClass: string, cusip: string) =>
      intake.prepareSecurity(issuerName, titleOfClass, cusip),
    );
    const orphans = new Map<string, { at: string; count: number }>();
    let sinceProgress = 0;
    let bytesReported = 0;
    let fields: InfotableFields | null = null;
    let lastAccessionFiling: PendingFiling | undefined;
    let lastAccession = '';
    await eachRawRow(
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
        const filing = accession === lastAccession ? lastAccessionFiling : pending.get(accession);
        lastAccession = accession;
        lastAccessionFiling = filing;
        if (!filing) {
          if (!skipped.has(accession)) {
            const orphan = orphans.get(accession);
            if (orphan) orphan.count++;
            else orphans.set(accession, { at: at(), count: 1 });
          }
          return;
        }
        if (filing.bad) return; // the filing is rejected already; its later rows are skipped
        const row = fields;
        guarded(filing, source, at, () => {
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
      (fields, at, source, problem) => {
        // A row with the wrong number of fields still names its filing in the first column.
        const filing = pending.get(normalizeAccession(fields[0]) ?? '');
        if (filing) markBad(filing, source, at, problem);
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

    for (const filing of [...pending.values()]) {
      pending.delete(filing.accession); // settled below: committed or discarded
      const stagingId = filing.stagingId ?? intake.catalog.stage(filing.accession);
      if (!filing.bad && !filing.cover) {
        markBad(filing, members.describe('COVERPAGE.tsv'), 'file', `no COVERPAGE.tsv row`);
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
          source: datasetSource,
        },
        { tableEntryTotal: filing.tableEntryTotal, tableValueTotal: filing.tableValueTotal },
        {
          accession: { source: members.describe('SUBMISSION.tsv'), location: filing.submissionRow },
          totals: { source: members.describe('SUMMARYPAGE.tsv'), location: `accession ${filing.accession}` },
        },
      );
    }
  }

  /** Runs a row reader; a problem marks the filing bad (first reason kept) instead of stopping the file. */
  function guarded(filing: PendingFiling, source: string, at: string | (() => string), read: () => void): void {
    if (filing.bad) return; // the filing is rejected already; its later rows are skipped
    try {
      read();
    } catch (error) {
      if (!(error instanceof SourceProblem)) throw error;
      markBad(filing, source, typeof at === 'string' ? at : at(), error.message);
    }
  }

  function markBad(filing: PendingFiling, source: string, location: string, reason: string): void {
    if (filing.bad) filing.bad.more++;
    else filing.bad = { source, location, reason, more: 0 };
  }
}

/**
 * Streams one member, checking each row's field count against the header. Problems the row
 * reader throws (SourceProblem) become rejections of that row; wrong field counts go to
 * onWrongWidth when given (INFOTABLE blames the filing), else are rejected as rows.
 */
async function eachRow(
  intake: FilingIntake,
  members: DatasetMembers,
  name: string,
  required: readonly string[],
  onRow: (field: (column: string) => string, at: string, source: string) => void,
): Promise<void> {
  let current: string[] = [];
  let columns: ReadonlyMap<string, number> = new Map();
  const field = (column: string): string => current[columns.get(column)!] ?? '';
  await eachRawRow(intake, members, name, required, (view, _tabs, header, at, source) => {
    columns = header;
    current = decodeFields(view);
    onRow(field, at(), source);
  });
}

/**
 * eachRow over the scanner's bytes: `onRow` gets the line, the positions of its tabs (as many as
 * the header has) and the header's columns, and decodes only what it reads. `at()` names the row.
 */
async function eachRawRow(
  intake: FilingIntake,
  members: DatasetMembers,
  name: string,
  required: readonly string[],
  onRow: (view: TsvLineView, tabs: Int32Array, columns: ReadonlyMap<string, number>, at: () => string, source: string) => void,
  onWrongWidth?: (fields: string[], at: string, source: string, problem: string) => void,
): Promise<void> {
  const source = members.describe(name);
  let columns: Map<string, number> | null = null;
  let width = 0;
  let tabs = new Int32Array(0);
  let current: TsvLineView | null = null;
  const at = (): string => `row ${current!.row} (line ${current!.line})`;
  const summary = await scanTsvLines(await members.open(name), (view) => {
    if (view.row === 0) {
      if (view.problem) throw new SourceProblem(`${source}: ${view.problem}`, `line ${view.line}`);
      const header = decodeFields(view).map((column) => column.trim().toUpperCase());
      try {
        columns = columnIndex(header, required);
      } catch (error) {
        throw new SourceProblem(`${source}: ${(error as Error).message}`, 'line 1');
      }
      width = header.length;
      tabs = new Int32Array(width - 1);
      return;
    }
    current = view;
    const count = view.problem === undefined ? splitTabs(view.bytes, view.start, view.end, tabs) : 0;
    if (view.problem !== undefined || count !== width) {
      const fields = decodeFields(view);
      const problem = view.problem ?? `expected ${width} fields, got ${fields.length}`;
      if (onWrongWidth) onWrongWidth(fields, at(), source, problem);
      else rejectRow(at(), problem);
      return;
    }
    try {
      onRow(view, tabs, columns!, at, source);
    } catch (error) {
      if (!(error instanceof SourceProblem)) throw error;
      rejectRow(at(), error.message);
    }
  });
  if (!columns) throw new SourceProblem(`${source} is empty (no header row)`, 'line 1');
  if (summary.invalidUtf8) {
    const { byteOffset, line, lines } = summary.invalidUtf8;
    intake.notes.push({
      source,
      message: `invalid UTF-8 at byte offset ${byteOffset} (line ${line}), read as U+FFFD; ${lines} line(s) affected`,
    });
  }

  function rejectRow(at: string, reason: string): void {
    intake.reject(source, at, reason);
  }
}
