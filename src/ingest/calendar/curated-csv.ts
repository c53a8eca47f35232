import { CsvError, parse } from 'csv-parse/sync';
import type { CuratedDocument, SourceEntry } from './curated-document.js';
import { SourceProblem } from './source-problem.js';

/** Header spellings -> the field names curated events use (case, spaces, - and _ ignored). */
const COLUMN_FIELDS: Readonly<Record<string, string>> = {
  eventname: 'eventName',
  name: 'eventName',
  scheduledat: 'scheduledAt',
  date: 'date',
  time: 'time',
  timezone: 'timeZone',
  country: 'country',
  category: 'category',
  importance: 'importance',
  forecastvalue: 'forecastValue',
  forecast: 'forecastValue',
  previousvalue: 'previousValue',
  previous: 'previousValue',
  actualvalue: 'actualValue',
  actual: 'actualValue',
  license: 'license',
  verifiedat: 'verifiedAt',
  attributionsource: 'attributionSource',
  attributionurl: 'attributionUrl',
  attributiontext: 'attributionText',
};

function fieldOfColumn(header: string): string | undefined {
  return COLUMN_FIELDS[header.toLowerCase().replace(/[\s_-]/g, '')];
}

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
 * is row 1). A row whose cell count differs from the header's is rejected, not shifted.
 * File-level curation comes from a sidecar, so `meta` is empty here.
 */
export function readCuratedCsv(text: string): CuratedDocument {
  let rows: { info: { lines: number }; record: string[] }[];
  try {
    // With info: true each record comes as {info, record}; the sync typings do not model that.
    rows = parse(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
    }) as unknown as typeof rows;
  } catch (error) {
    if (error instanceof CsvError) {
      const line = (error as CsvError & { lines?: number }).lines;
      throw new SourceProblem(`not valid CSV: ${error.message}`, line ? `row ${line}` : undefined);
    }
    throw error;
  }
  const [header, ...body] = rows;
  if (!header) throw new SourceProblem('empty CSV: expected a header row');
  const fields = header.record.map(fieldOfColumn);
  const has = (field: string) => fields.includes(field);
  const missing = ['eventName', 'country', 'category', 'importance'].filter((f) => !has(f));
  if (!has('scheduledAt') && !(has('date') && has('time'))) missing.push('scheduledAt (or date + time)');
  if (missing.length > 0) throw new SourceProblem(`header row lacks column ${missing.join(', ')}`, 'row 1');

  const entries: SourceEntry[] = body.map(({ info, record }) => {
    const location = `row ${info.lines}`;
    if (record.length !== header.record.length) {
      return { location, raw: record, problem: `expected ${header.record.length} columns as in the header, found ${record.length}` };
    }
    return { location, raw: rowToEvent(fields, record) };
  });
  return { meta: {}, entries };
}
