import { z } from 'zod';

/** Machine-readable output goes to stdout, one JSON document, newline-terminated. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Human-readable output goes to stdout too; progress and diagnostics go to stderr. */
export function printLine(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export { formatTable } from '../model/text-table.js';

/** --format: text (the default) or markdown (GitHub-flavoured, for CI summaries and pull requests). */
export const FormatOption = z.enum(['text', 'markdown'], { error: 'must be text or markdown' }).default('text');
