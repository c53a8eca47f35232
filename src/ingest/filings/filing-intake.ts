import type { AmendmentType, FilingMeta, SubmissionType } from '../../model/filing.js';
import type { BuildNote, Rejection } from '../../model/report.js';
import type { CompactFilingCatalog } from './catalog.js';
import type { RawHoldingRow } from './raw-holding-row.js';
import { tableTotalsProblem } from './table-totals.js';
import { decideValueUnit } from './value-unit.js';

/** Everything known about a filing except how its values are read. */
export interface FilingFacts {
  accessionNumber: string;
  cik: string;
  filerName: string;
  period: string;
  filedAt: string;
  submissionType: SubmissionType;
  amendmentType: AmendmentType | null;
  /** Relative to the sources root. */
  source: string;
}

export interface SummaryTotals {
  tableEntryTotal: number | null;
  tableValueTotal: number | null;
}

/**
 * The one gate every filing passes, whatever file it came from: duplicate accessions, the cover
 * page totals, the value unit, then commit — or discard as a whole, with a rejection.
 */
export class FilingIntake {
  readonly rejections: Rejection[] = [];
  readonly notes: BuildNote[] = [];
  private readonly firstSeen = new Map<string, string>();
  private readonly unitCounts = { dollars: 0, thousands: 0 };

  constructor(readonly catalog: CompactFilingCatalog) {}

  reject(source: string, location: string, reason: string): void {
    this.rejections.push({ source, location, reason });
  }

  /**
   * Records the first appearance of an accession; a later one (in any file or data set) is
   * rejected naming the first, and false tells the caller to skip it.
   */
  claim(accession: string, source: string, location: string): boolean {
    const first = this.firstSeen.get(accession);
    if (first !== undefined) {
      this.reject(source, location, `duplicate accession ${accession}: already listed in ${first}`);
      return false;
    }
    this.firstSeen.set(accession, `${source} (${location})`);
    return true;
  }

  /** Stages rows held in memory (the XML paths) and completes the filing. */
  accept(facts: FilingFacts, rows: readonly RawHoldingRow[], totals: SummaryTotals, location: string): boolean {
    const stagingId = this.catalog.stage(facts.accessionNumber);
    for (const row of rows) this.catalog.addRow(stagingId, row);
    return this.complete(stagingId, facts, totals, location);
  }

  /** Checks the staged rows against the cover page, decides the unit, and commits or discards. */
  complete(stagingId: number, facts: FilingFacts, totals: SummaryTotals, location: string, rejectionSource = facts.source): boolean {
    const rowCount = this.catalog.stagedRowCount(stagingId);
    const isNotice = facts.submissionType.startsWith('13F-NT');
    let problem: string | null;
    if (isNotice) {
      problem = rowCount > 0 ? `${facts.submissionType} is a notice without holdings but lists ${rowCount} information-table rows` : null;
    } else {
      let sum = 0;
      for (const row of this.catalog.stagedRows(stagingId)) sum += row.reportedValue;
      problem = tableTotalsProblem(rowCount, sum, totals.tableEntryTotal, totals.tableValueTotal);
    }
    if (problem) {
      this.catalog.discard(stagingId);
      this.reject(rejectionSource, location, `filing ${facts.accessionNumber} rejected: ${problem}`);
      return false;
    }
    const decision = isNotice
      ? { unit: facts.filedAt >= '2023-01-03' ? ('dollars' as const) : ('thousands' as const), reason: 'notice: no information table', overridden: false }
      : decideValueUnit(facts.filedAt, this.catalog.stagedRows(stagingId));
    const meta: FilingMeta = { ...facts, valueUnit: decision.unit, valueUnitReason: decision.reason };
    this.catalog.commit(stagingId, meta);
    if (!isNotice) {
      this.unitCounts[decision.unit] += 1;
      if (decision.overridden) {
        this.notes.push({ source: facts.source, message: `filing ${facts.accessionNumber} value unit: ${decision.reason}` });
      }
    }
    return true;
  }

  /** One note for all filings, so the unit decisions are visible without one line per filing. */
  finish(): void {
    const { dollars, thousands } = this.unitCounts;
    if (dollars + thousands === 0) return;
    const overridden = this.notes.filter((note) => note.message.includes(' value unit: ')).length;
    this.notes.push({
      source: 'filings',
      message: `value units: ${dollars} filing(s) read as dollars, ${thousands} as thousands of dollars; ${overridden} overrode the filing-date rule (noted above)`,
    });
  }
}
