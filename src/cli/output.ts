import { z } from 'zod';
import { escapeControlLines } from '../lib/terminal-text.js';
import { colourStatus, colourWanted } from './colour.js';
import { writeTo } from './stdout-guard.js';

/** Machine-readable output goes to stdout, one JSON document, newline-terminated. */
export function printJson(value: unknown): void {
  writeTo(process.stdout, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Human-readable output goes to stdout too; progress and diagnostics go to stderr. Control
 * characters are escaped here as well as where source text is put into a line: nothing printed may
 * drive the terminal.
 */
export function printLine(line = ''): void {
  writeTo(process.stdout, `${escapeControlLines(line)}\n`);
}

/** Like printLine, with PASS, WARN and FAIL (OK, FAILED) coloured when colour is wanted (colour.ts). */
export function printStatusLines(text: string): void {
  const safe = escapeControlLines(text);
  writeTo(process.stdout, `${colourWanted() ? colourStatus(safe) : safe}\n`);
}

/** A diagnostic on stderr, `pdsnap: ` first, escaped like printLine. */
export function printError(message: string): void {
  writeTo(process.stderr, `pdsnap: ${escapeControlLines(message)}\n`);
}

export { formatTable } from '../model/text-table.js';

/** --format: text (the default) or markdown (GitHub-flavoured, for CI summaries and pull requests). */
export const FormatOption = z.enum(['text', 'markdown'], { error: 'must be text or markdown' }).default('text');
