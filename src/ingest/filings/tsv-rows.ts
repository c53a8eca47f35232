import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';

/** One line of a TSV file: the header, or a data row with where it sits in the file. */
export type TsvLine =
  | { header: string[] }
  | {
      fields: string[];
      /** 1-based data row (the header is not counted). */
      row: number;
      /** 1-based line in the file (the header is line 1). */
      line: number;
    };

/**
 * Streams a tab-separated file row by row to `onLine`, never holding more than one row.
 * `quote: false` because the SEC's TSVs are not quoted and contain stray `"` characters inside
 * issuer names; `relax_column_count` so that a short or long row reaches the caller, which
 * reports it (`expected 15 fields, got 14`) instead of the parser aborting the whole file.
 * A synchronous callback rather than an async iterator: at 3.5 million rows the per-row promise
 * of an iterator costs more than the parsing.
 */
export function forEachTsvLine(input: Readable, onLine: (line: TsvLine) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const parser = parse({ delimiter: '\t', quote: false, relax_column_count: true, bom: true });
    // Without quoting every record is exactly one line, so line numbers are counted here rather
    // than with csv-parse's `info` option, which is slower than the parsing itself.
    let line = 0;
    let row = 0;
    parser.on('data', (record: string[]) => {
      line++;
      if (record.length === 1 && record[0]!.trim() === '') return; // blank line
      try {
        if (row === 0) onLine({ header: record.map((name) => name.trim().toUpperCase()) });
        else onLine({ fields: record, row, line });
      } catch (error) {
        input.unpipe(parser);
        input.destroy();
        parser.destroy();
        reject(error);
      }
      row++;
    });
    parser.on('end', () => resolve());
    parser.on('error', reject);
    input.on('error', reject);
    input.pipe(parser);
  });
}

/** Column positions by name; throws naming the columns a file lacks. */
export function columnIndex(header: string[], required: readonly string[]): Map<string, number> {
  const missing = required.filter((name) => !header.includes(name));
  if (missing.length > 0) throw new Error(`header lacks column(s) ${missing.join(', ')}`);
  return new Map(header.map((name, index) => [name, index]));
}
