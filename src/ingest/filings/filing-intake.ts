import type { FilingMeta } from '../../model/filing.js';
import type { BuildNote, Rejection } from '../../model/report.js';
import type { CompactFilingCatalog, InternedSecurity } from './catalog.js';
import { SourceProblem } from '../source-problem.js';
import { IdentifiersInNames, type NameChange } from './identifiers-in-names.js';
import type { CatalogTransfer } from './catalog.js';
import type { RawHoldingRow } from './raw-holding-row.js';
import { tableTotalsDisagreement } from './table-totals.js';
import { DOLLARS_FROM, decideValueUnitByPrices, impliedSharePrice, type ValueUnitDecision } from './value-unit.js';
import { isQuarterEnd } from '../../lib/quarters.js';

/** A security's names cleaned and interned (FilingIntake.prepareSecurity), with the filed names that cleaning changed. */
export interface PreparedSecurity extends InternedSecurity {
  readonly changedIssuer: string | null;
  readonly changedTitle: string | null;
}

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
  /** The place a disagreement of the totals is noted (or, under --strict, rejected) at. */
  totals: SourceLocation;
}

/** What an intake of one data set in a worker thread hands to the main thread's intake (see absorb). */
export interface IntakeTransfer {
  rejections: Rejection[];
  notes: BuildNote[];
  committedAt: [string, string][];
  unitDecisions: ValueUnitDecision[];
  nameChanges: NameChange[];
  totalsDisagreements: number;
  /** Every accession whose earlier copy the intake looked for: what an earlier source could have changed. */
  consulted: string[];
  catalog: CatalogTransfer;
}

export interface IntakeOptions {
  /** `--strict`: a filing whose cover page totals disagree with its table is rejected, not noted. */
  strictTotals: boolean;
}

/**
 * The one gate every filing passes, whatever file it came from: identifiers out of its names, the
 * cover page totals, duplicate accessions, the value unit, then commit — or discard as a whole,
 * with a rejection.
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
  private readonly names = new IdentifiersInNames();
  /** Accessions looked up among the committed ones (committedCopy, complete). */
  private readonly consulted = new Set<string>();
  /** Committed filings whose cover page totals disagree with their information table. */
  totalsDisagreements = 0;

  constructor(
    readonly catalog: CompactFilingCatalog,
    private readonly options: IntakeOptions = { strictTotals: false },
  ) {}

  reject(source: string, location: string, reason: string): void {
    this.rejections.push({ source, location, reason });
  }

  /** `source (location)` of the committed copy of an accession, or undefined when none is committed yet. */
  committedCopy(accession: string): string | undefined {
    this.consulted.add(accession);
    return this.committedAt.get(accession);
  }

  /** Rejects a copy of an accession that is committed already, naming the committed copy. */
  rejectDuplicate(accession: string, at: SourceLocation): void {
    this.reject(at.source, at.location, `duplicate accession ${accession}: already listed in ${this.committedAt.get(accession)}`);
  }

  /** Stages rows held in memory (the XML paths) and completes the filing. */
  accept(facts: FilingFacts, rows: readonly RawHoldingRow[], totals: SummaryTotals, at: FilingLocations): boolean {
    const stagingId = this.catalog.stage(facts.accessionNumber);
    rows.forEach((row, index) => {
      try {
        this.addRow(stagingId, row);
      } catch (error) {
        this.discard(stagingId);
        if (error instanceof SourceProblem) throw new SourceProblem(error.message, `informationTable/infoTable[${index + 1}]`);
        throw error;
      }
    });
    return this.complete(stagingId, facts, totals, at);
  }

  /** Stages one row, its issuer name and title without security identifiers. */
  addRow(stagingId: number, row: RawHoldingRow): void {
    const security = this.prepareSecurity(row.issuerName, row.titleOfClass, row.cusip);
    this.addPreparedRow(stagingId, security, row.putCall, row.amountType, row.amount, row.reportedValue);
  }

  /**
   * A security as filed, made ready for addPreparedRow: its names without security identifiers,
   * interned in the catalog. It depends on the three texts only, so a reader that meets the same
   * texts again (millions of rows, thousands of securities) can keep it. Throws a SourceProblem
   * when the issuer name is nothing but an identifier.
   */
  prepareSecurity(issuerName: string, titleOfClass: string, cusip: string): PreparedSecurity {
    const cleanIssuer = this.names.cleaned('issuer name', issuerName, true);
    const cleanTitle = this.names.cleaned('title of class', titleOfClass, false);
    const { issuerId, titleId, cusipId } = this.catalog.internSecurity(cleanIssuer, cleanTitle, cusip);
    return {
      issuerId,
      titleId,
      cusipId,
      changedIssuer: cleanIssuer === issuerName ? null : issuerName,
      changedTitle: cleanTitle === titleOfClass ? null : titleOfClass,
    };
  }

  /** Stages one row of a prepared security; a name that cleaning changed is counted for the build note. */
  addPreparedRow(
    stagingId: number,
    security: PreparedSecurity,
    putCall: RawHoldingRow['putCall'],
    amountType: RawHoldingRow['amountType'],
    amount: number,
    reportedValue: number,
  ): void {
    if (security.changedIssuer !== null) this.names.countChange(stagingId, 'issuer name', security.changedIssuer);
    if (security.changedTitle !== null) this.names.countChange(stagingId, 'title of class', security.changedTitle);
    this.catalog.addInternedRow(stagingId, security, putCall, amountType, amount, reportedValue);
  }

  /** Drops a staged filing as a whole, with whatever its names would have reported. */
  discard(stagingId: number): void {
    this.names.discard(stagingId);
    this.catalog.discard(stagingId);
  }

  /** Checks the staged rows against the cover page and earlier copies, decides the unit, and commits or discards. */
  complete(stagingId: number, facts: FilingFacts, totals: SummaryTotals, at: FilingLocations): boolean {
    const accession = facts.accessionNumber;
    const rowCount = this.catalog.stagedRowCount(stagingId);
    const isNotice = facts.submissionType.startsWith('13F-NT');
    const rejectFiling = (where: SourceLocation, reason: string): false => {
      this.discard(stagingId);
      this.reject(where.source, where.location, `filing ${accession} rejected: ${reason}`);
      return false;
    };
    // A Form 13F reports holdings as of a calendar quarter end; another date cannot be the period
    // of an investor (the "quarter end" of its record) nor have an adjacent quarter to trade against.
    if (!isQuarterEnd(facts.period)) {
      return rejectFiling(
        at.accession,
        `report period ${facts.period} is not a calendar quarter end (March 31, June 30, September 30 or December 31)`,
      );
    }
    if (isNotice && rowCount > 0) {
      return rejectFiling(at.totals, `${facts.submissionType} is a notice without holdings but lists ${rowCount} information-table rows`);
    }
    let disagreement: string | null = null;
    /** The implied share prices of the rows, for the value unit. */
    const prices: number[] = [];
    if (!isNotice) {
      let sum = 0;
      this.catalog.forEachStagedRow(stagingId, (row) => {
        sum += row.reportedValue;
        const price = impliedSharePrice(row);
        if (price !== null) prices.push(price);
      });
      disagreement = tableTotalsDisagreement(rowCount, sum, totals.tableEntryTotal, totals.tableValueTotal);
    }
    if (disagreement && this.options.strictTotals) return rejectFiling(at.totals, `${disagreement} (--strict)`);
    this.consulted.add(accession);
    if (this.committedAt.has(accession)) {
      this.discard(stagingId);
      this.rejectDuplicate(accession, at.accession);
      return false;
    }
    let filerName: string;
    try {
      filerName = this.names.clean(stagingId, 'filer name', facts.filerName, true);
    } catch (error) {
      if (error instanceof SourceProblem) return rejectFiling(at.accession, error.message);
      throw error;
    }
    const decision = isNotice
      ? {
          unit: facts.filedAt >= DOLLARS_FROM ? ('dollars' as const) : ('thousands' as const),
          reason: 'notice: no information table',
          overridden: false,
        }
      : decideValueUnitByPrices(facts.filedAt, prices);
    const meta: FilingMeta = { ...facts, filerName, valueUnit: decision.unit, valueUnitReason: decision.reason };
    this.catalog.commit(stagingId, meta);
    this.names.commit(stagingId, facts.source, accession);
    this.committedAt.set(accession, `${at.accession.source} (${at.accession.location})`);
    if (disagreement) {
      // Filers slip on the summary page; the table is what every 13F tool reads, and it is what
      // the value-unit check and the rows below use. Published from the table, and said so.
      this.totalsDisagreements += 1;
      this.notes.push({
        source: at.totals.source,
        message: `filing ${accession}${at.totals.location.includes(accession) ? '' : ` (${at.totals.location})`}: ${disagreement}; published from the information table (--strict rejects it)`,
      });
    }
    if (rowCount > 0) {
      // The decision and its reason for every filing whose values are used. The source
      // of a data set filing is the data set, so the accession is in the message.
      this.unitDecisions.push(decision);
      const note = { source: facts.source, message: `value unit: ${decision.unit} (filing ${accession}: ${decision.reason})` };
      // The filing-date rule is routine; an override of it is an exception a reader must see.
      this.notes.push(
        decision.overridden ? note : { ...note, routine: `filing(s) with values read as ${decision.unit} by their filing date` },
      );
    }
    return true;
  }

  /**
   * The outcome of this intake (one data set read in a worker thread, before finish()) for the
   * main thread's absorb(); the catalog's columns are in shared memory and are not copied.
   */
  exportTransfer(): IntakeTransfer {
    return {
      rejections: this.rejections,
      notes: this.notes,
      committedAt: [...this.committedAt],
      unitDecisions: this.unitDecisions,
      nameChanges: this.names.committedChanges(),
      totalsDisagreements: this.totalsDisagreements,
      consulted: [...this.consulted],
      catalog: this.catalog.shareCommitted(),
    };
  }

  /**
   * True when an intake that started empty saw what this one would not have shown it: an accession
   * it looked for that is committed here. Reading its data set here instead is then the only way
   * to the same outcome as reading it after the sources before it.
   */
  conflictsWith(other: IntakeTransfer): boolean {
    return other.consulted.some((accession) => this.committedAt.has(accession));
  }

  /**
   * Takes in what another intake read (one data set, in a worker thread) as if it had been read
   * here, after everything read so far: the same rejections, notes, filings and counts, in the
   * same order. Only valid when conflictsWith(other) is false.
   */
  absorb(other: IntakeTransfer): void {
    if (this.conflictsWith(other)) throw new Error('absorb: the other intake looked for an accession committed here');
    this.catalog.absorb(other.catalog);
    // One push per item: a spread of a hostile data set's million rejections would overflow the stack.
    for (const rejection of other.rejections) this.rejections.push(rejection);
    for (const note of other.notes) this.notes.push(note);
    for (const [accession, copy] of other.committedAt) this.committedAt.set(accession, copy);
    for (const decision of other.unitDecisions) this.unitDecisions.push(decision);
    this.names.absorb(other.nameChanges);
    this.totalsDisagreements += other.totalsDisagreements;
  }

  /** The notes of the names changed, then one summary note after the per-filing ones, counted from the decisions. */
  finish(): void {
    this.notes.push(...this.names.notes());
    if (this.totalsDisagreements > 0) {
      this.notes.push({
        source: 'filings',
        message: `cover page totals: ${this.totalsDisagreements} filing(s) disagree with their information table and were published from the table (noted above)`,
      });
    }
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
