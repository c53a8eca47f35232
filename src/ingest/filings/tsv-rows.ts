import { MAX_DATASET_LINE_BYTES } from '../source-limits.js';
import { scanTsvLines, type TsvLineView, type TsvSummary } from './tsv-scanner.js';

export type { TsvSummary } from './tsv-scanner.js';

/** One line of a TSV file: the header, or a data row with where it sits in the file. */
export type TsvLine =
  | {
      header: string[];
      line: number;
      /** Set when the header line cannot be used (too long, a NUL byte). */
      problem?: string;
    }
  | {
      /** For a line with a problem, the fields of what was kept of it (its first field names its filing). */
      fields: string[];
      /** 1-based data row (the header is not counted). */
      row: number;
      /** 1-based line in the file (the header is line 1). */
      line: number;
      /** Set when the row cannot be used: longer than MAX_DATASET_LINE_BYTES, or holding a NUL byte. */
      problem?: string;
    };

/**
 * Streams a tab-separated file line by line to `onLine` as decoded fields: the scanner's lines
 * (see scanTsvLines for line ends, blank lines and the length limit), each decoded and split on
 * tabs. For the small tables; INFOTABLE reads the scanner's bytes directly.
 */
export function forEachTsvLine(
  input: AsyncIterable<Buffer>,
  onLine: (line: TsvLine) => void,
  maxLineBytes = MAX_DATASET_LINE_BYTES,
): Promise<TsvSummary> {
  return scanTsvLines(
    input,
    (view) => {
      const fields = decodeFields(view);
      const problem = view.problem;
      if (view.row === 0)
        onLine({ header: fields.map((name) => name.trim().toUpperCase()), line: view.line, ...(problem ? { problem } : {}) });
      else onLine({ fields, row: view.row, line: view.line, ...(problem ? { problem } : {}) });
    },
    maxLineBytes,
  );
}

/** The fields of a scanned line as text: the line decoded as UTF-8 (U+FFFD for invalid bytes), split on tabs. */
export function decodeFields(view: TsvLineView): string[] {
  return view.bytes.toString('utf8', view.start, view.end).split('\t');
}

/** Column positions by name; throws naming the columns a file lacks. */
export function columnIndex(header: string[], required: readonly string[]): Map<string, number> {
  const missing = required.filter((name) => !header.includes(name));
  if (missing.length > 0) throw new Error(`header lacks column(s) ${missing.join(', ')}`);
  return new Map(header.map((name, index) => [name, index]));
}
