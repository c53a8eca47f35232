import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A cursor secret file that must not be used as it is; the message names the file and what to do. */
export class CursorSecretError extends Error {
  override readonly name = 'CursorSecretError';
}

/** Where the cursor secret lives unless --cursor-secret-file says otherwise: beside the keys file. */
export function defaultCursorSecretFile(keysFile: string): string {
  return path.join(path.dirname(keysFile), 'cursor-secret');
}

/**
 * Reads the secret that signs cursors, creating it (32 random bytes, hex, mode 0600) when the file
 * does not exist. It is kept in a file rather than made per process so that cursors stay valid
 * across a restart and across several server processes of one deployment.
 */
export async function loadOrCreateCursorSecret(file: string): Promise<string> {
  try {
    await refuseExposed(file);
    return checked(await readFile(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(path.dirname(file), { recursive: true });
  try {
    await writeFile(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    // Another process created it between our read and our write: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return checked(await readFile(file, 'utf8'), file);
}

/**
 * Whoever reads the secret can forge cursors: it must be the server's user's alone. A file that
 * group or others can read, or that another user owns, is refused rather than used.
 */
async function refuseExposed(file: string): Promise<void> {
  const info = await stat(file);
  const mode = (info.mode & 0o777).toString(8);
  if ((info.mode & 0o077) !== 0)
    throw new CursorSecretError(`${file} is readable by group or others (mode ${mode}): run chmod 600 ${file}`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid)
    throw new CursorSecretError(`${file} belongs to user ${info.uid}, not to the user running pdsnap (${uid})`);
}

function checked(text: string, file: string): string {
  const secret = text.trim();
  if (secret.length < 32) throw new CursorSecretError(`${file}: the cursor secret must be at least 32 characters`);
  return secret;
}
