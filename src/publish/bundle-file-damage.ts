import { digestFile } from '../lib/file-digest.js';
import { BundleIntegrityError } from './store-errors.js';

/**
 * A bundle file that is there but cannot be read: a folder in its place or under a file (a hand
 * restore), a looping link, no permission. The bundle cannot be used as it stands, so readers
 * report it like damage, naming the file; but its bytes may be whole, and the fix is quick, so a
 * server tries it again at its next poll instead of refusing it until the pointer moves.
 */
export class UnreadableBundleFileError extends BundleIntegrityError {
  constructor(
    snapshotId: string,
    readonly file: string,
    readonly code: string,
    why: string,
  ) {
    super(snapshotId, `${file} cannot be read: ${why}`);
  }
}

const WHY: Record<string, string> = {
  EISDIR: 'a folder is in its place',
  ENOTDIR: 'a file stands where one of its folders belongs',
  ELOOP: 'it is a symbolic link that loops',
  EACCES: 'permission denied (EACCES)',
  EPERM: 'operation not permitted (EPERM)',
};

/**
 * What a failed read of a bundle file means: a missing file is damage, a file in the way cannot be
 * read (above); any other error (EIO, EMFILE) is returned as it is, for the caller to try again.
 */
export function asBundleDamage(snapshotId: string, file: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return new BundleIntegrityError(snapshotId, `${file} is missing`);
  const why = code === undefined ? undefined : WHY[code];
  return why === undefined ? error : new UnreadableBundleFileError(snapshotId, file, code!, why);
}

/** What is wrong with a file's bytes against its manifest entry (size, then SHA-256), or null. Read errors are thrown. */
export async function fileMismatch(file: string, entry: { bytes: number; sha256: string }): Promise<string | null> {
  const digest = await digestFile(file);
  if (digest.bytes !== entry.bytes) return `has ${digest.bytes} bytes; manifest says ${entry.bytes}`;
  if (digest.sha256 !== entry.sha256) return 'does not match its sha256';
  return null;
}
