/**
 * Exit codes every command shares (docs/spec.md, Exit codes): validate and gate use all four;
 * other commands use 0, 2 (the job failed on its data) and 3.
 */
export const ExitCode = {
  ok: 0,
  warn: 1,
  fail: 2,
  error: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A mistake of the user (bad option, missing file, unreadable config): message, no stack, exit 3. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The job ran but its data failed (stale, invalid, rejected under --strict): exit 2. */
export class DataError extends Error {
  override readonly name = 'DataError';
}

/** Thrown by a command to end with a given code after it has printed its own output. */
export class ExitWith extends Error {
  override readonly name = 'ExitWith';
  constructor(readonly code: ExitCode) {
    super(`exit ${code}`);
  }
}
