/**
 * Why a source (or one record or row of it) cannot be used. Thrown by the readers, parsers and
 * normalisers, and caught per record, row or file by the ingesters, which turn it into a Rejection
 * naming the file, the location and this reason: one bad record never stops the rest of the file.
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
