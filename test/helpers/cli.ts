import { execa, type Options, type ResultPromise } from 'execa';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The built CLI: `npm test` compiles before vitest runs, so tests exercise what users run. */
export const CLI = path.join(REPO_ROOT, 'dist/src/cli/main.js');

/** Runs `pdsnap <args>` as a real process; never throws on a non-zero exit. */
export function runCli(args: string[], options: Options = {}) {
  return execa('node', [CLI, ...args], { reject: false, cwd: REPO_ROOT, ...options }) as ResultPromise<Options & { reject: false }>;
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `pdsnap-${prefix}-`));
}
