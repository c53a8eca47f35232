import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { withPath } from './error-path.js';

/** Writes data to a file and forces it to disk, so a rename that follows publishes complete bytes. */
export async function writeDurable(file: string, data: string | Buffer, mode = 0o666): Promise<void> {
  const handle = await open(file, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Forces a file's bytes to disk (a staged copy, before it is renamed into place). */
export async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a rename or a new entry in dir durable; some file systems refuse to fsync a dir, which is harmless. */
export async function syncDir(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // EISDIR/EINVAL/EPERM on platforms that cannot fsync directories: nothing more can be done.
  } finally {
    await handle?.close();
  }
}

/**
 * Replaces file atomically: write a temp file beside it, fsync, rename over the target.
 * Readers see the old content or the new one, never a mix; a crash leaves at most a stray temp file.
 * `mode` (before the umask) is for files that hold secrets: 0o600.
 */
export async function replaceFileAtomically(file: string, data: string, options: { mode?: number } = {}): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeDurable(temp, data, options.mode);
    await rename(temp, file);
  } catch (error) {
    // A full disk leaves a short temp file: it is of no use to anyone. Node names no file in a
    // write's ENOSPC, and only the temp file in an open's error: the message names the target.
    await rm(temp, { force: true }).catch(() => undefined);
    throw withPath(error, file);
  }
  await syncDir(dir);
}
