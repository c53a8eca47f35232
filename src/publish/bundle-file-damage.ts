import { BundleIntegrityError } from './snapshot-id.js';

/**
 * What is at a bundle file's path, when it keeps the file from being read, is damage to that
 * bundle, named like a wrong digest, so that readers report that dataset and go on with the rest:
 * the file gone, a folder in its place (a hand restore), a parent that is a file, a symlink loop.
 * Anything else (EACCES, EIO, EMFILE) is returned as it is: the bundle may be whole, and a server
 * tries it again at its next poll instead of refusing it until the pointer moves.
 */
export function asBundleDamage(label: string, file: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return new BundleIntegrityError(label, `${file} is missing`);
  if (code === 'EISDIR') return new BundleIntegrityError(label, `${file} is a folder, not a file`);
  if (code === 'ENOTDIR') return new BundleIntegrityError(label, `${file} is missing: a file stands where one of its folders belongs`);
  if (code === 'ELOOP') return new BundleIntegrityError(label, `${file} is a symbolic link that loops`);
  return error;
}
