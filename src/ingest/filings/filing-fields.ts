import { SourceProblem } from '../source-problem.js';
import type { AmendmentType, SubmissionType } from '../../model/filing.js';

/**
 * Field readers shared by the XML and TSV paths, so that both accept and reject exactly the same
 * values. Numbers arrive as the filer's text (the parsers never convert them), so CUSIPs keep
 * their leading zeros and "1,000" or "-5" are rejected rather than guessed at.
 */

const NON_NEGATIVE_NUMBER = /^\d+(?:\.\d+)?$/;

/** A non-negative decimal number written without signs, exponents or thousands separators. */
export function readNonNegativeNumber(text: string | undefined, field: string): number {
  const trimmed = (text ?? '').trim();
  if (!NON_NEGATIVE_NUMBER.test(trimmed)) {
    throw new SourceProblem(`${field} ${JSON.stringify(trimmed)} is not a non-negative number`);
  }
  const value = Number(trimmed);
  if (!Number.isFinite(value) || value > Number.MAX_SAFE_INTEGER) {
    throw new SourceProblem(`${field} ${JSON.stringify(trimmed)} is out of range`);
  }
  return value;
}

export function readAmountType(text: string | undefined): 'SH' | 'PRN' {
  const trimmed = (text ?? '').trim().toUpperCase();
  if (trimmed === 'SH' || trimmed === 'PRN') return trimmed;
  throw new SourceProblem(`sshPrnamtType ${JSON.stringify(text ?? '')} is not SH or PRN`);
}

/** Put, Call or nothing; EDGAR writes "Put"/"Call", the data sets sometimes upper-case them. */
export function readPutCall(text: string | undefined): 'put' | 'call' | null {
  const trimmed = (text ?? '').trim().toLowerCase();
  if (trimmed === '') return null;
  if (trimmed === 'put' || trimmed === 'call') return trimmed;
  throw new SourceProblem(`putCall ${JSON.stringify(text)} is not Put, Call or empty`);
}

const SUBMISSION_TYPES: readonly SubmissionType[] = ['13F-HR', '13F-HR/A', '13F-NT', '13F-NT/A'];

/** Rejects anything that is not a 13F holdings report or notice, saying what it was instead. */
export function readSubmissionType(text: string | undefined, field: string): SubmissionType {
  const trimmed = (text ?? '').trim().toUpperCase();
  const found = SUBMISSION_TYPES.find((type) => type === trimmed);
  if (found) return found;
  throw new SourceProblem(
    `not a Form 13F holdings report or notice: ${field} is ${JSON.stringify(trimmed)} (expected ${SUBMISSION_TYPES.join(', ')})`,
  );
}

export function readAmendmentType(text: string | undefined): AmendmentType | null {
  const trimmed = (text ?? '').trim().toUpperCase();
  if (trimmed === '') return null;
  if (trimmed === 'RESTATEMENT' || trimmed === 'NEW HOLDINGS') return trimmed;
  throw new SourceProblem(`amendmentType ${JSON.stringify(text)} is not RESTATEMENT or NEW HOLDINGS`);
}

/** CIKs are stored without leading zeros ("0001067983" -> "1067983"). */
export function normalizeCik(text: string | undefined): string {
  const trimmed = (text ?? '').trim();
  if (!/^\d{1,10}$/.test(trimmed)) throw new SourceProblem(`CIK ${JSON.stringify(trimmed)} is not 1 to 10 digits`);
  return trimmed.replace(/^0+(?=\d)/, '');
}

/** EDGAR accession numbers: 0001234567-26-000123, also accepted undashed (the archive folder name). */
export function normalizeAccession(text: string | undefined): string | null {
  const trimmed = (text ?? '').trim();
  const dashed = /^(\d{10})-(\d{2})-(\d{6})$/.exec(trimmed);
  if (dashed) return trimmed;
  const plain = /^(\d{10})(\d{2})(\d{6})$/.exec(trimmed);
  if (plain) return `${plain[1]}-${plain[2]}-${plain[3]}`;
  return null;
}

/** An accession number as normalizeAccession reads it; anything else is a problem of its row. */
export function readAccession(text: string): string {
  const accession = normalizeAccession(text);
  if (!accession) throw new SourceProblem(`ACCESSION_NUMBER ${JSON.stringify(text)} is not an accession number`);
  return accession;
}
