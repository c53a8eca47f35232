import { ExposedFileError } from '../lib/private-file.js';
import { sqliteEnvironmentFailure } from '../lib/sqlite.js';
import { KeyFileError } from '../serve/access/key-record.js';
import { StateLocationError } from '../serve/access/state-location.js';
import { KeyRecordError, StateUnavailableError } from '../serve/access/state-store.js';
import { CursorSecretError } from '../serve/cursor-secret.js';
import { UsageError } from './errors.js';

/**
 * What `serve` does with an error of its start-up. One the operator can fix (a file the system
 * refuses, an unusable keys file, cursor secret or state store, a bucket that answers with an error) becomes a
 * UsageError with `context`: a message, no stack, exit 3. Anything else is a bug of pdsnap and is
 * returned unchanged, so that main reports it as unexpected and PDSNAP_DEBUG prints its stack.
 */
export function startupError(error: unknown, context: string): unknown {
  return isOperatorFixable(error) ? new UsageError(`${context}: ${(error as Error).message}`) : error;
}

function isOperatorFixable(error: unknown): boolean {
  const known = [KeyFileError, KeyRecordError, StateLocationError, StateUnavailableError, CursorSecretError, ExposedFileError];
  if (known.some((type) => error instanceof type)) return true;
  // Named, not imported: importing s3-objects would load the AWS SDK into every serve.
  if (error instanceof Error && error.name === 'BucketError') return true;
  if (sqliteEnvironmentFailure(error) !== undefined) return true;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string') return false;
  // A system call the machine refused (EACCES, ENOENT, EADDRINUSE...). SQLite refusing its file (full,
  // locked, read-only, damaged, not a database) is above; a statement SQLite refuses is a bug of pdsnap.
  return typeof (error as NodeJS.ErrnoException).syscall === 'string';
}
