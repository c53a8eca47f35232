/**
 * Node and SQLite name no file in the errors of writes to what is already open (ENOSPC, EIO,
 * "database or disk is full"): the same error with the file in front, and its code kept.
 */
export function withPath(error: unknown, file: string): Error {
  const cause = error instanceof Error ? error : new Error(String(error));
  if (cause.message.includes(file)) return cause;
  return Object.assign(new Error(`${file}: ${cause.message}`), { code: (cause as NodeJS.ErrnoException).code });
}
