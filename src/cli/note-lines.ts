import type { BuildNote } from '../model/report.js';

/**
 * The notes of a readable build report: routine decisions (a BuildNote with `routine`, such as the
 * value unit of each of 6,000 filings by its date) as one counted line per kind, then every other
 * note on its own line, so that superseded filings, investors left out and unit overrides stay
 * visible. --json and --verbose list every note.
 */
export function noteLines(notes: BuildNote[], verbose: boolean): { routine: string[]; exceptions: string[] } {
  if (verbose) return { routine: [], exceptions: notes.map(noteLine) };
  const counts = new Map<string, number>();
  const exceptions: string[] = [];
  for (const note of notes) {
    if (note.routine === undefined) exceptions.push(noteLine(note));
    else counts.set(note.routine, (counts.get(note.routine) ?? 0) + 1);
  }
  const routine = [...counts].map(([kind, n]) => `${n} ${kind} (routine; --verbose or --json lists each)`);
  return { routine, exceptions };
}

function noteLine(note: BuildNote): string {
  return `${note.source}: ${note.message}`;
}
