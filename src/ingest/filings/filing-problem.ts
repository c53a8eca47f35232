/**
 * Why a filing (or one row of it) cannot be used. Thrown by the parsers and caught per filing by
 * the ingesters, which turn it into a Rejection naming the file, the location and this reason.
 */
export class FilingProblem extends Error {
  constructor(
    reason: string,
    /** Element path, row or line inside the source, when the thrower knows it. */
    readonly location?: string,
  ) {
    super(reason);
    this.name = 'FilingProblem';
  }
}
