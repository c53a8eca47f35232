import { eventFieldOf } from './event-fields.js';
import { CsvError, parse } from 'csv-parse/sync';
import { splitLines } from '../line-index.js';
import type { CuratedDocument, SourceEntry } from './curated-document.js';
import { SourceProblem } from '../source-problem.js';

/** A row's cells as a curated event object; attribution columns become the attribution object. */
function rowToEvent(fields: (string | undefined)[], cells: string[]): Record<string, unknown> {
  const event: Record<string, unknown> = {};
  fields.forEach((field, index) => {
    const cell = cells[index];
    if (field && cell !== undefined && cell !== '') event[field] = cell;
  });
  const { attributionSource, attributionUrl, attributionText, ...rest } = event;
  if (attributionSource !== undefined || attributionUrl !== undefined || attributionText !== undefined) {
    rest.attribution = { source: attributionSource, text: attributionText, ...(attributionUrl ? { url: attributionUrl } : {}) };
  }
  return rest;
}

/**
 * A curated CSV: a header row, then one event per row. `row N` is the file's line N (the header
 * is row 1). Each line is parsed on its own, so a stray quote (an opening quote never closed, a
 * quote inside an unquoted field) costs its own row only, rejected with its line number, instead
 * of swallowing every row after it into one field. The price: a field cannot span lines, which no
 * calendar field needs. A row whose cell count differs from the header's is rejected, not shifted.
 * File-level curation comes from a sidecar, so `meta` is empty here.
 */
export function readCuratedCsv(text: string): CuratedDocument {
  const rows: { line: number; cells: string[] | { problem: string } }[] = [];
  splitLines(text.replace(/^\uFEFF/, '')).forEach((lineText, index) => {
    if (lineText.trim() === '') return;
    rows.push({ line: index + 1, cells: parseCsvLine(lineText) });
  });
  const [header, ...body] = rows;
  if (!header) throw new SourceProblem('empty CSV: expected a header row');
  if (!Array.isArray(header.cells)) throw new SourceProblem(`not valid CSV: ${header.cells.problem}`, `row ${header.line}`);
  const headerCells = header.cells;
  const fields = headerCells.map(eventFieldOf);
  fields.forEach((field, index) => {
    const first = fields.indexOf(field);
    if (field !== undefined && first !== index) {
      throw new SourceProblem(
        `header row names ${field} twice, as ${JSON.stringify(headerCells[first])} and ${JSON.stringify(headerCells[index])}`,
        `row ${header.line}`,
      );
    }
  });
  const has = (field: string) => fields.includes(field);
  const missing = ['eventName', 'country', 'category', 'importance'].filter((f) => !has(f));
  if (!has('scheduledAt') && !(has('date') && has('time'))) missing.push('scheduledAt (or date + time)');
  if (missing.length > 0) throw new SourceProblem(`header row lacks column ${missing.join(', ')}`, `row ${header.line}`);

  const entries: SourceEntry[] = body.map(({ line, cells }) => {
    const location = `row ${line}`;
    if (!Array.isArray(cells)) return { location, raw: null, problem: `not valid CSV: ${cells.problem}` };
    if (cells.length !== headerCells.length) {
      return { location, raw: cells, problem: `expected ${headerCells.length} columns as in the header, found ${cells.length}` };
    }
    return { location, raw: rowToEvent(fields, cells) };
  });
  const unreadColumns = headerCells.filter((cell, index) => fields[index] === undefined && cell.trim() !== '');
  return { meta: {}, entries, ...(unreadColumns.length > 0 ? { unreadColumns } : {}) };
}

/** One line's cells, or why the line is not CSV (csv-parse's reason, without its line number). */
function parseCsvLine(line: string): string[] | { problem: string } {
  try {
    const records = parse(line, { trim: true, relax_column_count: true }) as string[][];
    return records[0] ?? [];
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    return {
      problem: error.message
        .replace(/ at line \d+/, '')
        .replace(/^Quote Not Closed: the parsing is finished with an opening quote$/, 'a quote is opened and never closed on this line'),
    };
  }
}
