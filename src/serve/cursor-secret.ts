import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { requirePrivateFile } from '../lib/private-file.js';

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
    // Whoever reads the secret can forge cursors: it must be the server's user's alone.
    await requirePrivateFile(file);
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

function checked(text: string, file: string): string {
  const secret = text.trim();
  if (secret.length < 32) throw new CursorSecretError(`${file}: the cursor secret must be at least 32 characters`);
  return secret;
}
