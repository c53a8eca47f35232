import { stat } from 'node:fs/promises';
import { UsageError } from './errors.js';

/**
 * A path the user named (or a default they rely on) that must exist before anything starts: a
 * missing one is a usage error (exit 3) that names the option and the path, never an empty build,
 * a server answering 503 to everything or a zero bill.
 */
export async function requireExisting(file: string, kind: 'file' | 'folder', what: string, hint: string): Promise<void> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new UsageError(`${what} ${file} does not exist (${hint})`);
    throw new UsageError(`${what} ${file} cannot be read: ${code ?? (error as Error).message}`);
  }
  if (kind === 'folder' ? !info.isDirectory() : !info.isFile()) throw new UsageError(`${what} ${file} is not a ${kind} (${hint})`);
}

/** The store a command reads or changes must be there; a missing one is named as the user gave it. */
export async function requireStore(store: { exists(): Promise<boolean> }, shown: string): Promise<void> {
  if (!(await store.exists())) throw new UsageError(`store ${shown} does not exist`);
}
