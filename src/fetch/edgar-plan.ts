import { type CalendarQuarter, nextQuarter, quarterOfDay, quartersThrough, reportQuarters } from '../lib/quarters.js';
import { checkFormIndex, checkSubmission, checkZip } from './content-checks.js';
import type { FetchTarget } from './fetch-target.js';
import { type FormIndexRow, submissionOf } from './form-index.js';

/**
 * What pdsnap asks SEC EDGAR for (docs/sources-fetch.md, What is fetched from where): the quarterly form indexes
 * that list the filings of the two report quarters a build at `now` uses, the full submission of
 * each Form 13F filing they list, and the Form 13F data sets the configuration names.
 */

/** The submission types of Form 13F; every other form of the index is skipped. */
export const FORM_13F_TYPES: ReadonlySet<string> = new Set(['13F-HR', '13F-HR/A', '13F-NT', '13F-NT/A']);

/**
 * The quarters whose indexes are read: from the one after the older report quarter (its filings
 * were filed from then on) through the quarter of `now`, since late filings and amendments land in
 * later quarters' indexes. At 2026-11-22: the report quarters end 2026-06-30 and 2026-09-30, so
 * 2026 QTR3 and QTR4.
 */
export function indexQuarters(now: Date): CalendarQuarter[] {
  const [older] = reportQuarters(now);
  return quartersThrough(nextQuarter(quarterOfDay(older)), quarterOfDay(now.toISOString().slice(0, 10)));
}

export function quarterName({ year, quarter }: CalendarQuarter): string {
  return `${year} QTR${quarter}`;
}

/** The form index of a quarter: where EDGAR has it, and where the last copy is kept (not read by build). */
export function formIndexTarget(secUrl: string, quarter: CalendarQuarter, current: boolean): FetchTarget {
  const folder = `${quarter.year}/QTR${quarter.quarter}`;
  return {
    kind: 'form-index',
    url: `${secUrl}/Archives/edgar/full-index/${folder}/form.idx`,
    path: `filings/edgar-index/${folder}/form.idx`,
    headers: {},
    conditional: true,
    check: checkFormIndex,
    // EDGAR writes a quarter's first index the night after its first business day.
    ...(current ? { missingReason: `EDGAR has not published the index of ${quarterName(quarter)} yet` } : {}),
  };
}

/** One Form 13F filing an index lists, to be fetched unless it is on disk already. */
export function submissionTarget(secUrl: string, row: FormIndexRow): FetchTarget {
  const { cik, accession } = submissionOf(row.fileName);
  return {
    kind: 'filing',
    url: `${secUrl}/Archives/${row.fileName}`,
    path: `filings/edgar/${cik}/${accession}.txt`,
    headers: {},
    // An accession never changes once disseminated: one on disk and whole is never asked for again.
    conditional: false,
    check: checkSubmission,
  };
}

/**
 * The filings of the indexes to fetch: each accession once (an index may list a filing under two
 * filers), of the tracked CIKs only unless `filers` is null (every filer).
 */
export function filingsToFetch(rows: readonly FormIndexRow[], filers: ReadonlySet<string> | null): FormIndexRow[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const { accession } = submissionOf(row.fileName);
    if (seen.has(accession) || (filers !== null && !filers.has(row.cik))) return false;
    seen.add(accession);
    return true;
  });
}

/** A Form 13F data set named in `fetch.form13fDatasets`, into `filings/datasets/`. */
export function form13fDatasetTarget(secUrl: string, name: string): FetchTarget {
  return {
    kind: 'form13f-dataset',
    url: `${secUrl}/files/structureddata/data/form-13f-data-sets/${encodeURIComponent(name)}`,
    path: `filings/datasets/${name}`,
    headers: {},
    conditional: true,
    check: checkZip,
  };
}
