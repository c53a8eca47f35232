/**
 * Node and SQLite name no file in the errors of writes to what is already open (ENOSPC, EIO,
 * "database or disk is full"): the same error with the file in front, its code, errno, syscall
 * and path kept.
 */
export function withPath(error: unknown, file: string): Error {
  const cause = error instanceof Error ? error : new Error(String(error));
  if (cause.message.includes(file)) return cause;
  const { code, errno, syscall, path } = cause as NodeJS.ErrnoException;
  // What a caller may branch on stays as Node set it; only the message gains the file.
  return Object.assign(new Error(`${file}: ${cause.message}`), { code, errno, syscall, path });
}
