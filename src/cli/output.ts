/** Machine-readable output goes to stdout, one JSON document, newline-terminated. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Human-readable output goes to stdout too; progress and diagnostics go to stderr. */
export function printLine(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export { formatTable } from '../model/text-table.js';
