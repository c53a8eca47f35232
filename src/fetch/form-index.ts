import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { dateStartMs } from '../lib/time.js';

/**
 * EDGAR's form index (`full-index/<year>/QTR<n>/form.idx`, and the daily `form.<yyyymmdd>.idx`):
 * a few lines of description, a header naming the columns, a rule of dashes, then one filing per
 * line. The header decides which column is which; where the values sit is not taken from it, since
 * real files do not keep to it: daily indexes wrap the header over two lines and give the form type
 * 17 characters where the header gives 12 (`SCHEDULE 13D/A` is 14), and old quarterly indexes put
 * values several characters left of their labels. A row is read by its separators instead: the
 * CIK, the date and the file name are single words at the end of the line, and the two text
 * columns before them are told apart by the run of spaces between them (a form type holds at most
 * single spaces; a company name may hold runs). The pipe-separated layout of the master indexes
 * (`CIK|Company Name|Form Type|Date Filed|Filename`) is read by its header too.
 */

export interface FormIndexRow {
  formType: string;
  companyName: string;
  /** Digits, leading zeros removed. */
  cik: string;
  /** YYYY-MM-DD */
  dateFiled: string;
  /** As the index names it: `edgar/data/<cik>/<accession>.txt`. */
  fileName: string;
  /** 1-based line of the index. */
  line: number;
}

export interface FormIndexProblem {
  line: number;
  reason: string;
}

export interface FormIndex {
  rows: FormIndexRow[];
  /** Rows of the forms asked for that could not be read: named, never fetched. */
  problems: FormIndexProblem[];
}

/** The index could not be read as an index at all. */
export class FormIndexError extends Error {
  override readonly name = 'FormIndexError';
}

type Column = 'formType' | 'companyName' | 'cik' | 'dateFiled' | 'fileName';
const LABELS: ReadonlyArray<readonly [Column, RegExp]> = [
  ['formType', /form type/i],
  ['companyName', /company name/i],
  ['cik', /\bcik\b/i],
  ['dateFiled', /date filed/i],
  ['fileName', /file ?name/i],
];
const TEXT_COLUMNS: ReadonlySet<Column> = new Set(['formType', 'companyName']);
/** The header must come within this many lines; a file without one is not an index. */
const MAX_PREAMBLE_LINES = 100;
const RULE = /^-{20,}\s*$/;
/** `Description:           ...`, `Last Data Received:    ...`: the lines before the header. */
const DESCRIPTION = /^[A-Za-z][A-Za-z ]*:\s/;

interface Layout {
  kind: 'fixed' | 'pipe';
  columns: Column[];
}

/**
 * Reads an index line by line, keeping the rows whose form type `keep` accepts (a quarter lists
 * some 300,000 filings of every kind; only the few thousand asked for are held).
 */
export class FormIndexReader {
  private readonly preamble: string[] = [];
  private layout: Layout | null = null;
  private lineNumber = 0;
  readonly index: FormIndex = { rows: [], problems: [] };

  constructor(private readonly keep: (formType: string) => boolean) {}

  push(line: string): void {
    this.lineNumber += 1;
    if (this.layout === null) {
      if (RULE.test(line)) this.layout = layoutOf(this.preamble);
      else if (this.lineNumber > MAX_PREAMBLE_LINES)
        throw new FormIndexError(`no header line followed by a rule of dashes in its first ${MAX_PREAMBLE_LINES} lines`);
      else this.preamble.push(line);
      return;
    }
    if (line.trim() === '') return;
    const row = this.layout.kind === 'pipe' ? pipeRow(line, this.layout.columns) : fixedRow(line, this.layout.columns);
    if (row === null || !this.keep(row.formType)) return;
    const problem = problemOf(row);
    if (problem === null)
      this.index.rows.push({ ...row, cik: row.cik.replace(/^0+(?=\d)/, ''), dateFiled: isoDate(row.dateFiled), line: this.lineNumber });
    else this.index.problems.push({ line: this.lineNumber, reason: problem });
  }

  end(): FormIndex {
    if (this.layout === null) throw new FormIndexError('no header line followed by a rule of dashes');
    return this.index;
  }
}

export function parseFormIndex(text: string, keep: (formType: string) => boolean): FormIndex {
  const reader = new FormIndexReader(keep);
  for (const line of text.split(/\r\n|\n|\r/)) reader.push(line);
  return reader.end();
}

/** Reads an index file without holding it whole (a quarter's is about 40 MB). */
export async function readFormIndexFile(file: string, keep: (formType: string) => boolean): Promise<FormIndex> {
  const reader = new FormIndexReader(keep);
  for await (const line of createInterface({ input: createReadStream(file, { encoding: 'latin1' }), crlfDelay: Infinity }))
    reader.push(line);
  return reader.end();
}

/** The header: the lines right above the rule, back to a blank or a description line, joined (it may wrap). */
function layoutOf(preamble: readonly string[]): Layout {
  const lines: string[] = [];
  for (let i = preamble.length - 1; i >= 0; i--) {
    const line = preamble[i]!;
    if (line.trim() === '' || DESCRIPTION.test(line)) break;
    lines.unshift(line.trim());
  }
  const header = lines.join(' ');
  if (header === '') throw new FormIndexError('no header line above the rule of dashes');
  if (header.includes('|')) {
    const columns = header.split('|').map((label) => columnOf(label.trim(), header));
    return { kind: 'pipe', columns };
  }
  const found = LABELS.map(([column, pattern]) => ({ column, at: header.search(pattern) }));
  const missing = found.filter((f) => f.at < 0).map((f) => f.column);
  if (missing.length > 0) throw new FormIndexError(`the header "${header}" names no ${missing.join(', ')} column`);
  const columns = found.sort((a, b) => a.at - b.at).map((f) => f.column);
  // The two text columns first, then the three single-word ones: the layout of form.idx and company.idx.
  if (!columns.slice(0, 2).every((c) => TEXT_COLUMNS.has(c)))
    throw new FormIndexError(`the header "${header}" puts its columns in an order pdsnap cannot read`);
  return { kind: 'fixed', columns };
}

function columnOf(label: string, header: string): Column {
  const match = LABELS.find(([, pattern]) => pattern.test(label));
  if (match === undefined) throw new FormIndexError(`the header "${header}" has a column "${label}" pdsnap does not know`);
  return match[0];
}

type RawRow = Omit<FormIndexRow, 'line'>;

function pipeRow(line: string, columns: readonly Column[]): RawRow | null {
  const values = line.split('|');
  if (values.length !== columns.length) return null;
  const row: Partial<Record<Column, string>> = {};
  columns.forEach((column, i) => {
    row[column] = values[i]!.trim();
  });
  return row as RawRow;
}

function fixedRow(line: string, columns: readonly Column[]): RawRow | null {
  const words = line.trimEnd().split(/\s+/);
  if (words.length < 5) return null;
  const row: Partial<Record<Column, string>> = {};
  const tail = words.slice(-3);
  columns.slice(2).forEach((column, i) => {
    row[column] = tail[i]!;
  });
  // What is left of the line once the three words at its end are taken off.
  let rest = line.trimEnd();
  for (const word of [...tail].reverse()) rest = rest.slice(0, rest.length - word.length).trimEnd();
  rest = rest.trimStart();
  const runs = [...rest.matchAll(/ {2,}|\t+/g)];
  // A form type has at most single spaces, a company name may have runs: split where they meet.
  const split = columns[0] === 'formType' ? runs[0] : runs.at(-1);
  const at = split?.index ?? rest.indexOf(' ');
  if (at < 0) return null;
  row[columns[0]!] = rest.slice(0, at).trim();
  row[columns[1]!] = rest.slice(at).trim();
  return row as RawRow;
}

const SUBMISSION_PATH = /^edgar\/data\/(\d{1,10})\/(\d{10}-\d{2}-\d{6})\.txt$/;

/** Why a row of a form asked for cannot be fetched, or null. */
function problemOf(row: RawRow): string | null {
  if (!/^\d{1,10}$/.test(row.cik)) return `CIK "${row.cik}" is not 1 to 10 digits`;
  if (!/^(\d{4}-\d{2}-\d{2}|\d{8})$/.test(row.dateFiled) || dateStartMs(isoDate(row.dateFiled)) === null)
    return `date filed "${row.dateFiled}" is not a date`;
  if (!SUBMISSION_PATH.test(row.fileName)) return `file name "${row.fileName}" is not a full submission (edgar/data/<cik>/<accession>.txt)`;
  return null;
}

/** The accession number and the CIK folder of a file name that passed problemOf. */
export function submissionOf(fileName: string): { cik: string; accession: string } {
  const [, cik, accession] = SUBMISSION_PATH.exec(fileName)!;
  return { cik: cik!.replace(/^0+(?=\d)/, ''), accession: accession! };
}

/** YYYYMMDD (daily indexes) or YYYY-MM-DD (quarterly) as YYYY-MM-DD. */
function isoDate(text: string): string {
  return /^\d{8}$/.test(text) ? `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}` : text;
}
