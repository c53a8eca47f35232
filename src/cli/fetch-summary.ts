import { formatBytes } from '../lib/byte-size.js';
import { formatDuration } from '../lib/duration.js';
import { escapeControl } from '../lib/terminal-text.js';
import type { FetchedSource, FetchOutcome, FetchReport } from '../fetch/fetch-report.js';
import type { SourceKind } from '../fetch/fetch-target.js';
import { formatTable, printLine, printStatusLines } from './output.js';

/**
 * The readable report of `pdsnap fetch`: one row of counts per kind of source, then every file that
 * failed (each with its reason: its last good copy is kept), what was fetched (abridged unless
 * --verbose), the notes, and a last line `OK` or `FAILED`.
 */

const KINDS: SourceKind[] = ['form-index', 'form13f-dataset', 'filing', 'feed', 'calendar-export'];
const OUTCOMES: FetchOutcome[] = ['fetched', 'unchanged', 'failed', 'skipped'];
const SHOWN_FILES = 50;

/** Per kind of source that occurs: its count of each outcome. */
export function fetchCountRows(report: FetchReport): string[][] {
  return KINDS.filter((kind) => report.files.some((f) => f.kind === kind)).map((kind) => [
    kind,
    ...OUTCOMES.map((outcome) => String(report.files.filter((f) => f.kind === kind && f.outcome === outcome).length)),
  ]);
}

export const FETCH_COUNT_HEADER = ['source', ...OUTCOMES];

export function fetchFigures(report: FetchReport): string {
  const sec =
    report.sec === null ? '' : `, highest rate toward SEC ${report.highestSecRate} request(s) in one second (limit ${report.sec.maxRps})`;
  const waited = report.sec !== null && report.sec.waitedMs > 0 ? `, waited ${formatDuration(report.sec.waitedMs)} as SEC asked` : '';
  return `${report.requests} request(s), ${formatBytes(report.bytes)} written${sec}${waited}`;
}

export function fetchLastLine(report: FetchReport): string {
  const { fetched, unchanged, failed, skipped } = report.counts;
  if (report.dryRun) return `OK: dry run, nothing asked for; ${report.files.length} file(s) planned`;
  if (failed > 0) return `FAILED: ${failed} source file(s) could not be fetched; their last good copies are kept`;
  return `OK: ${fetched} fetched, ${unchanged} unchanged${skipped > 0 ? `, ${skipped} skipped` : ''}`;
}

export function failureLine(file: FetchedSource): string {
  return `${file.path}  ${file.url}: ${file.reason ?? file.outcome}`;
}

export function printFetchSummary(report: FetchReport, verbose: boolean): void {
  printLine(`pdsnap fetch at ${report.now}${report.dryRun ? ' (dry run)' : ''}`);
  printLine(`  sources ${report.sources}`);
  if (report.sec !== null) {
    printLine(
      `  SEC     ${report.sec.url}: at most ${report.sec.maxRps} request(s) a second; filers: ${report.sec.filers}; indexes of ${report.sec.quarters.join(', ')}`,
    );
  }
  printLine('');
  printLine(formatTable(FETCH_COUNT_HEADER, fetchCountRows(report)));
  const failed = report.files.filter((f) => f.outcome === 'failed');
  const skipped = report.files.filter((f) => f.outcome === 'skipped' && !report.dryRun);
  const fetched = report.files.filter((f) => f.outcome === 'fetched');
  const planned = report.dryRun ? report.files : [];
  for (const [title, files] of [
    ['failed', failed],
    ['skipped', skipped],
    ['fetched', fetched],
    ['would be asked for', planned],
  ] as const) {
    if (files.length === 0) continue;
    printLine(`\n${title}:`);
    const limit = verbose || title === 'failed' ? Infinity : SHOWN_FILES;
    for (const file of files.slice(0, limit))
      printLine(
        `  ${escapeControl(title === 'fetched' || title === 'would be asked for' ? `${file.path}  ${file.url}` : failureLine(file))}`,
      );
    if (files.length > limit) printLine(`  ... and ${files.length - limit} more (pdsnap fetch --verbose or --json lists them all)`);
  }
  if (report.notes.length > 0) {
    printLine(`\n${report.notes.length} note(s):`);
    for (const note of report.notes.slice(0, verbose ? Infinity : SHOWN_FILES)) printLine(`  ${escapeControl(note)}`);
  }
  printLine('');
  printLine(fetchFigures(report));
  printStatusLines(fetchLastLine(report));
}
