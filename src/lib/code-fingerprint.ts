import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let memo: string | null = null;

/**
 * A digest of the code that runs: every module of the bundled CLI (`dist/bin`), or of the source
 * tree when it runs from TypeScript (the test runner) or from `dist/src`. What a build derived is
 * cached under it, so that any change of the code, however small, misses every earlier entry: a
 * version number bumped by hand would one day be forgotten. Read once per process (a few MB).
 */
export function codeFingerprint(): string {
  if (memo !== null) return memo;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = codeRoot(here);
  const hash = createHash('sha256');
  for (const file of codeFiles(root)) {
    hash.update(`${path.relative(root, file)}\0`);
    hash.update(readFileSync(file));
  }
  memo = hash.digest('hex');
  return memo;
}

/** The folder the running code is in: `dist/bin` of the bundle, else the nearest `src`. */
function codeRoot(from: string): string {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (path.basename(dir) === 'bin' && path.basename(path.dirname(dir)) === 'dist') return dir;
    if (path.basename(dir) === 'src') return dir;
  }
  return from;
}

function codeFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(?:js|mjs|ts)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}
