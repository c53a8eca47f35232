import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replaceFileAtomically } from '../../src/lib/atomic-file.js';
import { tempDir } from '../helpers/cli.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('atomic');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('replaceFileAtomically', () => {
  it('replaces the content and leaves no temp file', async () => {
    const file = path.join(dir, 'keys.json');
    await writeFile(file, 'old');
    await replaceFileAtomically(file, 'new', { mode: 0o600 });
    expect(await readFile(file, 'utf8')).toBe('new');
    expect(await readdir(dir)).toEqual(['keys.json']);
  });

  it('names the file it was to replace when the write fails, and leaves the old content', async () => {
    // A file where the target's folder belongs: the temp file cannot even be opened (ENOTDIR).
    const blocker = path.join(dir, 'not-a-folder');
    await writeFile(blocker, 'x');
    const file = path.join(blocker, 'keys.json');
    const error = await replaceFileAtomically(file, 'new').catch((e: NodeJS.ErrnoException) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message.startsWith(`${file}: ENOTDIR`)).toBe(true);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOTDIR');
    expect((error as NodeJS.ErrnoException).syscall).toBe('open');
    expect(typeof (error as NodeJS.ErrnoException).errno).toBe('number');
    expect(await readFile(blocker, 'utf8')).toBe('x');
  });
});
