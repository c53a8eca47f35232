import { close, constants, fstat, open as openFd, type Stats } from 'node:fs';
import { open, readdir, realpath, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { digestStream, type FileDigest, sha256Hex } from '../lib/file-digest.js';
import type { BuildNote, SourceFile } from '../model/report.js';
import { formatBytes } from '../lib/byte-size.js';
import { MAX_FOLDER_DEPTH, MAX_SOURCE_FILE_BYTES } from './source-limits.js';
import { compareText } from '../lib/text-order.js';

/**
 * The one place that finds and opens source files.
 *
 * - Folders are walked in sorted order (builds are deterministic); names starting with `.` are skipped.
 * - Symlinks to files and to folders are followed, and each one is named in a build note with the
 *   path it resolves to; a file reached through one carries that resolved path in its provenance
 *   (the manifest's `sources[].resolvedPath`). Each real folder is read once, so a link back to an
 *   ancestor (a loop) or a second link to the same folder is noted and not followed again, and
 *   folders nest at most MAX_FOLDER_DEPTH deep.
 * - Only regular files are read. A FIFO, socket or device is refused with a note and never opened
 *   by the walk; files are opened non-blocking and checked again on the open descriptor, so a FIFO
 *   put in place of a file after the walk cannot block the build either.
 * - A file read whole may be at most MAX_SOURCE_FILE_BYTES (callers may pass another cap); a larger
 *   one is refused before it is read.
 */

/** A source file read into memory, with its provenance. */
export interface LoadedSource {
  /** Path relative to the sources root, with forward slashes: what reports and manifests show. */
  relativePath: string;
  absolutePath: string;
  content: Buffer;
  provenance: SourceFile;
}

/** A source file that cannot be read at all: the reader rejects it, naming it with this reason. */
export class UnreadableSource extends Error {
  constructor(
    /** Relative to the sources root. */
    readonly source: string,
    readonly reason: string,
    readonly location = 'file',
  ) {
    super(location === 'file' ? `${source}: ${reason}` : `${source}, ${location}: ${reason}`);
    this.name = 'UnreadableSource';
  }
}

export interface SourceListing {
  /** Regular files (reached directly or through symlinks), as paths under the listed folder. */
  files: string[];
  /** Symlinks followed (with their resolved path), special files refused, loops not followed. */
  notes: BuildNote[];
}

/** Lists the regular files under dir (recursively), sorted. A missing dir lists nothing. */
export async function listSourceFiles(sourcesRoot: string, dir: string): Promise<SourceListing> {
  const listing: SourceListing = { files: [], notes: [] };
  let realDir: string;
  try {
    realDir = await realpath(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return listing;
    throw error;
  }
  const realRoot = await realRootOf(sourcesRoot);
  const note = (file: string, message: string) => listing.notes.push({ source: relativeSourcePath(sourcesRoot, file), message });
  const shown = (real: string) => shownPath(realRoot, real);
  const visited = new Set([realDir]);

  const walk = async (folder: string, realFolder: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      if (depth === 0) throw error;
      note(folder, `folder not read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      return;
    }
    for (const entry of entries.sort((a, b) => compareText(a.name, b.name))) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(folder, entry.name);
      let real = path.join(realFolder, entry.name);
      let kind: Stats | typeof entry = entry;
      if (entry.isSymbolicLink()) {
        try {
          kind = await stat(full);
          real = await realpath(full);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          note(
            full,
            code === 'ELOOP'
              ? 'symlink not followed: it points back to itself'
              : `symlink not followed: its target cannot be read (${code})`,
          );
          continue;
        }
        note(full, `symlink followed to ${shown(real)}`);
      }
      if (kind.isDirectory()) {
        if (visited.has(real)) {
          note(full, `folder not read again: it is ${shown(real)}, read already (a symlink loop or a second link)`);
        } else if (depth + 1 > MAX_FOLDER_DEPTH) {
          note(full, `folder not read: deeper than ${MAX_FOLDER_DEPTH} levels`);
        } else {
          visited.add(real);
          await walk(full, real, depth + 1);
        }
      } else if (kind.isFile()) {
        listing.files.push(full);
      } else {
        note(full, `refused: ${describeSpecial(kind)} is not a regular file; it was not opened`);
      }
    }
  };
  await walk(dir, realDir, 0);
  return listing;
}

/** The files only; for callers (and tests) that need no notes. */
export async function listFiles(dir: string): Promise<string[]> {
  return (await listSourceFiles(dir, dir)).files;
}

export function relativeSourcePath(sourcesRoot: string, absolutePath: string): string {
  return path.relative(sourcesRoot, absolutePath).split(path.sep).join('/');
}

/** Reads a regular file of at most maxBytes whole; anything else is an UnreadableSource. */
export async function loadSource(sourcesRoot: string, absolutePath: string, maxBytes = MAX_SOURCE_FILE_BYTES): Promise<LoadedSource> {
  const relativePath = relativeSourcePath(sourcesRoot, absolutePath);
  const handle = await openRegularFile(relativePath, absolutePath);
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw tooLarge(relativePath, size, maxBytes);
    // Read at most one byte past the cap, in case the file grows while it is read.
    const buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) break;
    }
    if (length > maxBytes) throw tooLarge(relativePath, length, maxBytes);
    const content = buffer.subarray(0, length);
    const resolvedPath = await resolvedPathOf(sourcesRoot, absolutePath);
    return {
      relativePath,
      absolutePath,
      content,
      provenance: { path: relativePath, bytes: content.length, sha256: sha256Hex(content), ...(resolvedPath ? { resolvedPath } : {}) },
    };
  } finally {
    await handle.close();
  }
}

/**
 * Provenance of a file streamed rather than held (data set members), refusing what is not a regular
 * file. `read`: the size and digest of its bytes as a reader already streamed them to the end
 * (readSourcePieces' onDigest), so that it is not read a second time.
 */
export async function sourceProvenance(sourcesRoot: string, absolutePath: string, read?: FileDigest): Promise<SourceFile> {
  const relativePath = relativeSourcePath(sourcesRoot, absolutePath);
  let digest = read;
  if (digest === undefined) {
    const handle = await openRegularFile(relativePath, absolutePath);
    digest = await digestStream(handle.createReadStream());
  }
  const resolvedPath = await resolvedPathOf(sourcesRoot, absolutePath);
  return { path: relativePath, bytes: digest.bytes, sha256: digest.sha256, ...(resolvedPath ? { resolvedPath } : {}) };
}

/** Pieces a data set member is read in: it is hundreds of MB. */
const READ_PIECE_BYTES = 1 << 20;

/**
 * The bytes of a regular file in pieces of 1 MiB, read into the same buffer each time: each piece
 * is valid until the next one is asked for (scanTsvLines copies what it keeps). One buffer instead
 * of a new one per read: a new buffer per MiB of a 345 MB file made V8 collect the whole heap
 * every few dozen MB, for memory that was garbage the moment it was scanned. `onDigest`, when
 * given, gets the size and SHA-256 of the bytes once they have been read to the end (never for a
 * read given up before), hashed as they pass: the file's provenance without a second read.
 */
export async function* readSourcePieces(
  sourcesRoot: string,
  absolutePath: string,
  onDigest?: (digest: FileDigest) => void,
): AsyncGenerator<Buffer, void, undefined> {
  const handle = await openRegularFile(relativeSourcePath(sourcesRoot, absolutePath), absolutePath);
  try {
    const hash = onDigest ? createHash('sha256') : null;
    const buffer = Buffer.allocUnsafe(READ_PIECE_BYTES);
    let bytes = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const piece = buffer.subarray(0, bytesRead);
      hash?.update(piece);
      bytes += bytesRead;
      yield piece;
    }
    if (hash) onDigest!({ bytes, sha256: hash.digest('hex') });
  } finally {
    await handle.close();
  }
}

/**
 * A raw descriptor of a regular file, for a library that reads it itself (yauzl reads ZIPs) and
 * closes it. Opened non-blocking and checked like every other source file.
 */
export function openSourceDescriptor(sourcesRoot: string, absolutePath: string): Promise<number> {
  const relativePath = relativeSourcePath(sourcesRoot, absolutePath);
  return new Promise((resolve, reject) => {
    openFd(absolutePath, constants.O_RDONLY | constants.O_NONBLOCK, (error, fd) => {
      if (error) return reject(new UnreadableSource(relativePath, `cannot be opened (${error.code ?? error.message})`));
      fstat(fd, (statError, info) => {
        if (!statError && info.isFile()) return resolve(fd);
        close(fd, () => reject(statError ?? new UnreadableSource(relativePath, `${describeSpecial(info)} is not a regular file`)));
      });
    });
  });
}

async function openRegularFile(relativePath: string, absolutePath: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    // Non-blocking: opening a FIFO for reading would otherwise wait for a writer forever.
    handle = await open(absolutePath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new UnreadableSource(relativePath, `cannot be opened (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const info = await handle.stat();
  if (!info.isFile()) {
    await handle.close();
    throw new UnreadableSource(relativePath, `${describeSpecial(info)} is not a regular file`);
  }
  return handle;
}

function tooLarge(relativePath: string, size: number, maxBytes: number): UnreadableSource {
  return new UnreadableSource(relativePath, `${size} bytes: larger than the ${formatBytes(maxBytes)} a source file may be`);
}

function describeSpecial(kind: {
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isDirectory(): boolean;
}): string {
  if (kind.isFIFO()) return 'a FIFO (named pipe)';
  if (kind.isSocket()) return 'a socket';
  if (kind.isCharacterDevice()) return 'a character device';
  if (kind.isBlockDevice()) return 'a block device';
  if (kind.isDirectory()) return 'a folder';
  return 'a special file';
}

const realRoots = new Map<string, Promise<string>>();

function realRootOf(sourcesRoot: string): Promise<string> {
  let real = realRoots.get(sourcesRoot);
  if (!real) {
    real = realpath(sourcesRoot).catch(() => path.resolve(sourcesRoot));
    realRoots.set(sourcesRoot, real);
  }
  return real;
}

/**
 * Where a file really is when a symlink below the sources root led to it: relative to the root
 * when it is inside, else absolute. Undefined when no symlink was crossed (the root itself may be one).
 */
async function resolvedPathOf(sourcesRoot: string, absolutePath: string): Promise<string | undefined> {
  const realRoot = await realRootOf(sourcesRoot);
  const real = await realpath(absolutePath);
  const expected = path.join(realRoot, path.relative(sourcesRoot, absolutePath));
  return real === expected ? undefined : shownPath(realRoot, real);
}

function shownPath(realRoot: string, real: string): string {
  const relative = path.relative(realRoot, real);
  return relative.startsWith('..') || path.isAbsolute(relative) ? real : relative.split(path.sep).join('/');
}
