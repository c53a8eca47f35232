/**
 * How long-running steps report progress. The CLI supplies one that draws on stderr when it is a
 * TTY and --quiet is not given; tests and library callers use SILENT_PROGRESS.
 */
export interface Progress {
  /** Starts a step; total is the expected number of units when known. */
  step(label: string, total?: number): ProgressStep;
}

export interface ProgressStep {
  advance(units?: number): void;
  /** Figures shown beside the bar while the step runs (requests, bytes, rate); optional to draw. */
  show?(figures: string): void;
  done(summary?: string): void;
}

export const SILENT_PROGRESS: Progress = {
  step: () => ({ advance: () => {}, done: () => {} }),
};
