import { yearProblem } from '../date-range.js';
import { SourceProblem } from '../source-problem.js';

/** The three date spellings of EDGAR, all turned into YYYY-MM-DD after a calendar check. */

function isoDate(year: number, month: number, day: number, original: string, field: string): string {
  const outOfRange = yearProblem(year);
  if (outOfRange !== undefined) throw new SourceProblem(`${field} ${JSON.stringify(original)}: ${outOfRange}`);
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    throw new SourceProblem(`${field} ${JSON.stringify(original)} is not a calendar date`);
  }
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Cover pages: MM-DD-YYYY (periodOfReport, reportCalendarOrQuarter, signatureDate). */
export function readCoverPageDate(text: string | undefined, field: string): string {
  const trimmed = (text ?? '').trim();
  const match = /^(\d{2})-(\d{2})-(\d{4})$/.exec(trimmed);
  if (!match) throw new SourceProblem(`${field} ${JSON.stringify(trimmed)} is not an MM-DD-YYYY date`);
  return isoDate(Number(match[3]), Number(match[1]), Number(match[2]), trimmed, field);
}

/** SGML headers: YYYYMMDD (CONFORMED PERIOD OF REPORT, FILED AS OF DATE). */
export function readHeaderDate(text: string | undefined, field: string): string {
  const trimmed = (text ?? '').trim();
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(trimmed);
  if (!match) throw new SourceProblem(`${field} ${JSON.stringify(trimmed)} is not a YYYYMMDD date`);
  return isoDate(Number(match[1]), Number(match[2]), Number(match[3]), trimmed, field);
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** Form 13F data set TSVs: DD-MON-YYYY (e.g. 14-NOV-2026). */
export function readForm13fDate(text: string | undefined, field: string): string {
  const trimmed = (text ?? '').trim();
  const match = /^(\d{1,2})-([A-Za-z]{3})-(\d{4})$/.exec(trimmed);
  const month = match ? MONTHS.indexOf(match[2]!.toUpperCase()) + 1 : 0;
  if (!match || month === 0) throw new SourceProblem(`${field} ${JSON.stringify(trimmed)} is not a DD-MON-YYYY date`);
  return isoDate(Number(match[3]), month, Number(match[1]), trimmed, field);
}

/** The inverse of readForm13fDate, for the sample writers. */
export function formatForm13fDate(isoDateText: string): string {
  const [year, month, day] = isoDateText.split('-');
  return `${day}-${MONTHS[Number(month) - 1]}-${year}`;
}
