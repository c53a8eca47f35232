/**
 * Why a calendar source (or one record of it) cannot be used. Thrown by the readers and
 * normalisers, caught per record (or per file) by ingestCalendar and turned into a Rejection,
 * so that one bad event never stops the rest of the file.
 */
export class SourceProblem extends Error {
  constructor(
    reason: string,
    /** Where inside the source, when the thrower knows better than its caller (e.g. `line 4`). */
    readonly location?: string,
  ) {
    super(reason);
    this.name = 'SourceProblem';
  }
}

export function quote(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
