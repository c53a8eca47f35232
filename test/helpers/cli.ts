import { execa, type Options, type ResultPromise } from 'execa';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The bundled CLI (`npm test` bundles before vitest runs), so tests exercise what users run. */
export const CLI = path.join(REPO_ROOT, 'dist/bin/pdsnap.js');

/** Runs `pdsnap <args>` as a real process; never throws on a non-zero exit. */
export function runCli(args: string[], options: Options = {}) {
  return execa('node', [CLI, ...args], { reject: false, cwd: REPO_ROOT, ...options }) as ResultPromise<Options & { reject: false }>;
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `pdsnap-${prefix}-`));
}

/** The preload that makes a pdsnap process write its peak RSS at exit (compiled with the CLI). */
const PEAK_RSS = pathToFileURL(path.join(REPO_ROOT, 'dist/preload/peak-rss.js')).href;

/** Runs `pdsnap <args>` like runCli and measures the process's peak resident set size, in bytes. */
export async function runCliMeasured(args: string[], options: Options = {}) {
  const file = path.join(await tempDir('peak-rss'), 'bytes');
  const result = await execa('node', ['--import', PEAK_RSS, CLI, ...args], {
    reject: false,
    cwd: REPO_ROOT,
    ...options,
    env: { ...options.env, PDSNAP_PEAK_RSS_FILE: file },
  });
  const peakRssBytes = Number(await readFile(file, 'utf8').catch(() => 'NaN'));
  return { result, peakRssBytes };
}
