import { stat } from 'node:fs/promises';

/** A file that must be its owner's alone and is not: the message names the file and what to do. */
export class ExposedFileError extends Error {
  override readonly name = 'ExposedFileError';
}

/**
 * Refuses a file that group or others can read, or that another user owns: what it holds (a
 * secret, or the list of every key with its name, scopes and hash) is for the user running pdsnap
 * only. Throws ENOENT as it is when the file does not exist.
 */
export async function requirePrivateFile(file: string): Promise<void> {
  const info = await stat(file);
  const mode = (info.mode & 0o777).toString(8);
  if ((info.mode & 0o077) !== 0) throw new ExposedFileError(`${file} is readable by group or others (mode ${mode}): run chmod 600 ${file}`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid)
    throw new ExposedFileError(`${file} belongs to user ${info.uid}, not to the user running pdsnap (${uid})`);
}
