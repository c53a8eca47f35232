import type { FilingMeta } from '../../model/filing.js';
import type { BuildNote, Rejection } from '../../model/report.js';
import type { CompactFilingCatalog } from './catalog.js';
import type { RawHoldingRow } from './raw-holding-row.js';
import { tableTotalsProblem } from './table-totals.js';
import { decideValueUnit, type ValueUnitDecision } from './value-unit.js';

/** Everything known about a filing except how its values are read. */
export type FilingFacts = Omit<FilingMeta, 'valueUnit' | 'valueUnitReason'>;

export interface SummaryTotals {
  tableEntryTotal: number | null;
  tableValueTotal: number | null;
}

/** Where one piece of a filing was read: a file (relative to the sources root) and a place in it. */
export interface SourceLocation {
  source: string;
  location: string;
}

/** Where a filing's accession number and its cover page totals were read, for rejections. */
export interface FilingLocations {
  /** Named by a later duplicate's rejection, and the place a duplicate of this copy is rejected at. */
  accession: SourceLocation;
  /** The place a mismatch of the totals is rejected at. */
  totals: SourceLocation;
}

/**
 * The one gate every filing passes, whatever file it came from: the cover page totals, duplicate
 * accessions, the value unit, then commit — or discard as a whole, with a rejection.
 *
 * An accession belongs to the first copy that is committed, not the first one read: a broken copy
 * is rejected for its own problem and leaves the accession to a good copy read later. A duplicate
 * is a second valid copy; its rejection names the committed one.
 */
export class FilingIntake {
  readonly rejections: Rejection[] = [];
  readonly notes: BuildNote[] = [];
  private readonly committedAt = new Map<string, string>();
  private readonly unitDecisions: ValueUnitDecision[] = [];

  constructor(readonly catalog: CompactFilingCatalog) {}

  reject(source: string, location: string, reason: string): void {
    this.rejections.push({ source, location, reason });
  }

  /** `source (location)` of the committed copy of an accession, or undefined when none is committed yet. */
  committedCopy(accession: string): string | undefined {
    return this.committedAt.get(accession);
  }

  /** Rejects a copy of an accession that is committed already, naming the committed copy. */
  rejectDuplicate(accession: string, at: SourceLocation): void {
    this.reject(at.source, at.location, `duplicate accession ${accession}: already listed in ${this.committedAt.get(accession)}`);
  }

  /** Stages rows held in memory (the XML paths) and completes the filing. */
  accept(facts: FilingFacts, rows: readonly RawHoldingRow[], totals: SummaryTotals, at: FilingLocations): boolean {
    const stagingId = this.catalog.stage(facts.accessionNumber);
    for (const row of rows) this.catalog.addRow(stagingId, row);
    return this.complete(stagingId, facts, totals, at);
  }

  /** Checks the staged rows against the cover page and earlier copies, decides the unit, and commits or discards. */
  complete(stagingId: number, facts: FilingFacts, totals: SummaryTotals, at: FilingLocations): boolean {
    const accession = facts.accessionNumber;
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
      this.reject(at.totals.source, at.totals.location, `filing ${accession} rejected: ${problem}`);
      return false;
    }
    if (this.committedAt.has(accession)) {
      this.catalog.discard(stagingId);
      this.rejectDuplicate(accession, at.accession);
      return false;
    }
    const decision = isNotice
      ? { unit: facts.filedAt >= '2023-01-03' ? ('dollars' as const) : ('thousands' as const), reason: 'notice: no information table', overridden: false }
      : decideValueUnit(facts.filedAt, this.catalog.stagedRows(stagingId));
    const meta: FilingMeta = { ...facts, valueUnit: decision.unit, valueUnitReason: decision.reason };
    this.catalog.commit(stagingId, meta);
    this.committedAt.set(accession, `${at.accession.source} (${at.accession.location})`);
    if (rowCount > 0) {
      // Issue 3: the decision and its reason for every filing whose values are used. The source
      // of a data set filing is the data set, so the accession is in the message.
      this.unitDecisions.push(decision);
      this.notes.push({ source: facts.source, message: `value unit: ${decision.unit} (filing ${accession}: ${decision.reason})` });
    }
    return true;
  }

  /** One summary note after the per-filing ones, counted from the decisions. */
  finish(): void {
    if (this.unitDecisions.length === 0) return;
    const count = (test: (decision: ValueUnitDecision) => boolean) => this.unitDecisions.filter(test).length;
    const dollars = count((decision) => decision.unit === 'dollars');
    const thousands = count((decision) => decision.unit === 'thousands');
    const overridden = count((decision) => decision.overridden);
    this.notes.push({
      source: 'filings',
      message: `value units: ${dollars} filing(s) read as dollars, ${thousands} as thousands of dollars; ${overridden} overrode the filing-date rule (noted above)`,
    });
  }
}
