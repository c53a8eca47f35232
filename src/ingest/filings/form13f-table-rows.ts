import type { Form13fMembers } from './form13f-members.js';
import type { FilingIntake } from './filing-intake.js';
import { SourceProblem } from '../source-problem.js';
import { columnIndex, decodeFields } from './tsv-rows.js';
import { scanTsvLines, splitTabs, type TsvLineView } from './tsv-scanner.js';

/**
 * Streams one member of a Form 13F data set, checking each row's field count against the header.
 * Problems the row reader throws (SourceProblem) become rejections of that row.
 */
export async function eachForm13fRow(
  intake: FilingIntake,
  members: Form13fMembers,
  name: string,
  required: readonly string[],
  onRow: (field: (column: string) => string, at: string, source: string) => void,
): Promise<void> {
  let current: string[] = [];
  let columns: ReadonlyMap<string, number> = new Map();
  const field = (column: string): string => current[columns.get(column)!] ?? '';
  await eachRawForm13fRow(intake, members, name, required, (view, _tabs, header, at, source) => {
    columns = header;
    current = decodeFields(view);
    onRow(field, at(), source);
  });
}

/**
 * eachForm13fRow over the scanner's bytes: `onRow` gets the line, the positions of its tabs (as
 * many as the header has) and the header's columns, and decodes only what it reads. `at()` names
 * the row. Wrong field counts go to onWrongWidth when given (INFOTABLE blames the filing), else are
 * rejected as rows.
 */
export async function eachRawForm13fRow(
  intake: FilingIntake,
  members: Form13fMembers,
  name: string,
  required: readonly string[],
  onRow: (view: TsvLineView, tabs: Int32Array, columns: ReadonlyMap<string, number>, at: () => string, source: string) => void,
  onWrongWidth?: (fields: string[], at: string, source: string, problem: string) => void,
): Promise<void> {
  const source = members.describe(name);
  let columns: Map<string, number> | null = null;
  let width = 0;
  let tabs = new Int32Array(0);
  let current: TsvLineView | null = null;
  const at = (): string => `row ${current!.row} (line ${current!.line})`;
  const summary = await scanTsvLines(await members.open(name), (view) => {
    if (view.row === 0) {
      if (view.problem) throw new SourceProblem(`${source}: ${view.problem}`, `line ${view.line}`);
      const header = decodeFields(view).map((column) => column.trim().toUpperCase());
      try {
        columns = columnIndex(header, required);
      } catch (error) {
        throw new SourceProblem(`${source}: ${(error as Error).message}`, 'line 1');
      }
      width = header.length;
      tabs = new Int32Array(width - 1);
      return;
    }
    current = view;
    const count = view.problem === undefined ? splitTabs(view.bytes, view.start, view.end, tabs) : 0;
    if (view.problem !== undefined || count !== width) {
      const fields = decodeFields(view);
      const problem = view.problem ?? `expected ${width} fields, got ${fields.length}`;
      if (onWrongWidth) onWrongWidth(fields, at(), source, problem);
      else intake.reject(source, at(), problem);
      return;
    }
    try {
      onRow(view, tabs, columns!, at, source);
    } catch (error) {
      if (!(error instanceof SourceProblem)) throw error;
      intake.reject(source, at(), error.message);
    }
  });
  if (!columns) throw new SourceProblem(`${source} is empty (no header row)`, 'line 1');
  if (summary.invalidUtf8) {
    const { byteOffset, line, lines } = summary.invalidUtf8;
    intake.notes.push({
      source,
      message: `invalid UTF-8 at byte offset ${byteOffset} (line ${line}), read as U+FFFD; ${lines} line(s) affected`,
    });
  }
}
