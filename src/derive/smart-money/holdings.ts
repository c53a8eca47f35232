import type { FilingMeta, HoldingRow } from '../../model/filing.js';
import { compareText } from '../../lib/text-order.js';

/**
 * Which filings make up one investor's holdings for one report period (docs/spec.md, Effective holdings).
 *
 * - The base is the latest RESTATEMENT amendment, else the latest original 13F-HR: a restatement
 *   replaces everything filed before it.
 * - Every NEW HOLDINGS amendment adds its rows to an original; to a restatement, only those filed
 *   after it. When a period has two originals (a filer filed the whole report again as 13F-HR), an
 *   amendment filed before the later original's day, after an earlier original, amended that one
 *   and goes with it.
 * - A 13F-NT / 13F-NT/A is a notice (another manager reports the holdings): it contributes no rows,
 *   it is never a sale, and a period holding only notices has no usable holdings.
 */
export interface EffectiveFilings {
  base: FilingMeta;
  /** NEW HOLDINGS amendments filed after the base, in filing order. */
  additions: FilingMeta[];
  /** Holdings filings of the period that were not used, with the reason (for build notes). */
  unused: UnusedFiling[];
}

export interface UnusedFiling {
  filing: FilingMeta;
  reason: string;
}

/** A period without a holdings report to build on; its amendments are named for the build notes. */
export interface NoHoldingsReport {
  base: null;
  unused: UnusedFiling[];
}

/** Filing order: filing date, then accession number (EDGAR numbers grow within a filer agent's year). */
function compareFilingOrder(a: FilingMeta, b: FilingMeta): number {
  return compareText(a.filedAt, b.filedAt) || compareText(a.accessionNumber, b.accessionNumber);
}

/** The form as notes name it; a 13F-HR that its cover page marks as an amendment says so. */
function form(filing: FilingMeta): string {
  return filing.submissionType === '13F-HR' && filing.amendmentType !== null
    ? `13F-HR (${filing.amendmentType} amendment)`
    : filing.submissionType;
}

function isNotice(filing: FilingMeta): boolean {
  return filing.submissionType === '13F-NT' || filing.submissionType === '13F-NT/A';
}

function latest(filings: FilingMeta[]): FilingMeta | undefined {
  return [...filings].sort(compareFilingOrder).at(-1);
}

/**
 * The effective filings of one investor (CIK) for one report period, or a NoHoldingsReport when the
 * period has none (only notices, or only amendments without an original).
 * `filings` must all share the same CIK and period.
 */
export function effectiveFilings(filings: FilingMeta[]): EffectiveFilings | NoHoldingsReport {
  const reports = filings.filter((filing) => !isNotice(filing));
  // What a filing does is what its cover page says: a 13F-HR whose cover page marks it an amendment
  // (isAmendment, with an amendment type) amends like a 13F-HR/A; only an unmarked 13F-HR is an original.
  const originals = reports.filter((filing) => filing.submissionType === '13F-HR' && filing.amendmentType === null);
  const restatements = reports.filter((filing) => filing.amendmentType === 'RESTATEMENT');
  const newHoldings = reports.filter((filing) => filing.amendmentType === 'NEW HOLDINGS');
  const unused: UnusedFiling[] = reports
    .filter((filing) => filing.submissionType === '13F-HR/A' && filing.amendmentType === null)
    .map((filing) => ({
      filing,
      reason: `13F-HR/A ${filing.accessionNumber} names no amendment type (RESTATEMENT or NEW HOLDINGS), so it can neither replace nor add to the holdings`,
    }));

  const base = latest(restatements) ?? latest(originals);
  if (base === undefined) {
    for (const filing of newHoldings) {
      unused.push({
        filing,
        reason: `NEW HOLDINGS amendment ${filing.accessionNumber} has no original 13F-HR or RESTATEMENT for period ${filing.period} to add to`,
      });
    }
    return { base: null, unused: unused.sort((a, b) => compareFilingOrder(a.filing, b.filing)) };
  }

  const additions: FilingMeta[] = [];
  for (const filing of [...newHoldings].sort(compareFilingOrder)) {
    // An amendment follows the original it amends, whatever the dates say: a folder filing is dated
    // by its signature (often the same day), and a filer's agent numbers accessions with its own
    // CIK. Only a RESTATEMENT filed after it replaces it.
    if (base.amendmentType === null) {
      // A period with two originals: an amendment filed on a day before the later one, when an
      // earlier original was already on file, amended that earlier original, which the later one
      // (filed whole again) replaces. Only amendments from the later original's day on add to it.
      const amended = filing.filedAt < base.filedAt ? originals.find((o) => o !== base && o.filedAt <= filing.filedAt) : undefined;
      if (amended === undefined) additions.push(filing);
      else
        unused.push({
          filing,
          reason: `NEW HOLDINGS amendment ${filing.accessionNumber} (filed ${filing.filedAt}) amended the 13F-HR ${amended.accessionNumber}, which the later 13F-HR ${base.accessionNumber} (filed ${base.filedAt}) replaces`,
        });
    } else if (compareFilingOrder(filing, base) > 0) additions.push(filing);
    else
      unused.push({
        filing,
        reason:
          filing.filedAt === base.filedAt
            ? `NEW HOLDINGS amendment ${filing.accessionNumber} was filed the same day as the RESTATEMENT ${base.accessionNumber}, which is taken as the later one (accession order) and restates every holding`
            : `NEW HOLDINGS amendment ${filing.accessionNumber} was superseded by the later RESTATEMENT ${base.accessionNumber}`,
      });
  }
  for (const filing of [...restatements, ...originals]) {
    if (filing === base) continue;
    unused.push({
      filing,
      reason: `${form(filing)} ${filing.accessionNumber} was superseded by ${form(base)} ${base.accessionNumber}`,
    });
  }
  unused.sort((a, b) => compareFilingOrder(a.filing, b.filing));
  return { base, additions, unused };
}

/** The holding rows of the effective filings: the base's rows, then each addition's rows. */
export function effectiveHoldings(effective: EffectiveFilings, rowsOf: (accessionNumber: string) => HoldingRow[]): HoldingRow[] {
  const rows = rowsOf(effective.base.accessionNumber).slice();
  // A loop rather than push(...rows): the largest filers list tens of thousands of rows.
  for (const addition of effective.additions) {
    for (const row of rowsOf(addition.accessionNumber)) rows.push(row);
  }
  return rows;
}
