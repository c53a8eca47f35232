import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { SourceFile } from '../model/report.js';

/** A source file read into memory, with its provenance. */
export interface LoadedSource {
  /** Path relative to the sources root, with forward slashes: what reports and manifests show. */
  relativePath: string;
  absolutePath: string;
  content: Buffer;
  provenance: SourceFile;
}

/** Lists the files under dir (recursively), sorted, so that builds are deterministic. Missing dir -> []. */
export async function listFiles(dir: string, accept: (name: string) => boolean = () => true): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const out: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full, accept)));
    else if (entry.isFile() && accept(entry.name)) out.push(full);
  }
  return out;
}

export function relativeSourcePath(sourcesRoot: string, absolutePath: string): string {
  return path.relative(sourcesRoot, absolutePath).split(path.sep).join('/');
}

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export async function loadSource(sourcesRoot: string, absolutePath: string): Promise<LoadedSource> {
  const content = await readFile(absolutePath);
  const relativePath = relativeSourcePath(sourcesRoot, absolutePath);
  return {
    relativePath,
    absolutePath,
    content,
    provenance: { path: relativePath, bytes: content.length, sha256: sha256Hex(content) },
  };
}

/** Provenance of a large file without holding it in memory. */
export async function fileProvenance(sourcesRoot: string, absolutePath: string): Promise<SourceFile> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(absolutePath)) hash.update(chunk as Buffer);
  const { size } = await stat(absolutePath);
  return { path: relativeSourcePath(sourcesRoot, absolutePath), bytes: size, sha256: hash.digest('hex') };
}
