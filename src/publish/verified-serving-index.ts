import { closeSync, openSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { type DigestedPiece, findChunkMismatch, findPieceMismatch } from '../lib/chunk-digest.js';
import { type Manifest, PART_PATH, recordsPerResource } from '../model/manifest.js';
import { asBundleDamage, fileMismatch } from './bundle-file-damage.js';
import { checkServingIndex, type IndexedPart, RECORDS_IN_PARTS_LAYOUT } from './serving-index.js';
import type { FileLocator, ListedFile } from './bundle-files.js';
import { BundleIntegrityError } from './store-errors.js';

/** A file a manifest lists: its path in the bundle, size and digest. */
type SizedFile = ListedFile & { bytes: number };

/**
 * The serving index of an opened bundle (OpenedBundle.verifiedServingIndex), checked before anyone
 * reads through it; its path, or null for a dataset without one. From layout 4 the index names
 * bytes of the NDJSON parts instead of holding the records, so the parts are checked with it:
 * whatever it names was verified too.
 * - `contents` (validate, gate): the whole-file and chunk digests of the index, every part's
 *   digest, and that the index serves exactly the manifest's records (each place it names a whole
 *   line of its part, every line named once: checkServingIndex).
 * - `bytes` (serve): the index's chunk digests and every part's digest, on every core at once and
 *   off the event loop (findPieceMismatch), and the table layout: the bytes are then exactly those
 *   that gate checked. Nothing is counted again.
 * Every file is reached through `locate`, the bundle's own way of finding its files (blobs, or its folder).
 */
export async function verifyServingIndex(manifest: Manifest, locate: FileLocator, depth: 'contents' | 'bytes'): Promise<string | null> {
  const entry = manifest.servingIndex;
  if (!entry) return null;
  const { snapshotId } = manifest;
  const file = locate(entry);
  const fail = (listed: string, mismatch: string | null) => {
    if (mismatch) throw new BundleIntegrityError(snapshotId, `${listed} ${mismatch}`);
  };
  const parts = entry.schema >= RECORDS_IN_PARTS_LAYOUT ? manifest.files : [];
  if (depth === 'contents') {
    await verifyListedFile(snapshotId, file, entry);
    if (entry.chunks) fail(entry.path, await damageAsIntegrity(snapshotId, entry.path, findChunkMismatch(file, entry.bytes, entry.chunks)));
    for (const part of parts) await verifyListedFile(snapshotId, locate(part), part);
    const readers = parts.map((part) => partReader(locate(part), part));
    try {
      fail(entry.path, checkServingIndex(file, entry.schema, recordsPerResource(manifest.files), readers));
    } finally {
      for (const reader of readers) reader.close();
    }
    return file;
  }
  // A bundle built before chunk digests were listed: its index by the whole-file digest, one core's work.
  if (!entry.chunks) await verifyListedFile(snapshotId, file, entry);
  const pieces: Array<DigestedPiece & { listed: SizedFile }> = [];
  if (entry.chunks) {
    const chunks = entry.chunks;
    fail(entry.path, await damageAsIntegrity(snapshotId, entry.path, sizeMismatch(file, entry.bytes)));
    const count = Math.ceil(entry.bytes / chunks.bytes);
    if (count !== chunks.sha256.length) fail(entry.path, `lists ${chunks.sha256.length} chunk digests for ${count} chunks`);
    chunks.sha256.forEach((sha256, index) => {
      const start = index * chunks.bytes;
      pieces.push({ file, start, bytes: Math.min(chunks.bytes, entry.bytes - start), sha256, listed: entry });
    });
  }
  for (const part of parts) {
    const partFile = locate(part);
    fail(part.path, await damageAsIntegrity(snapshotId, part.path, sizeMismatch(partFile, part.bytes)));
    pieces.push({ file: partFile, start: 0, bytes: part.bytes, sha256: part.sha256, listed: part });
  }
  // The largest first, so that the lanes end together.
  pieces.sort((a, b) => b.bytes - a.bytes);
  const first = await damageAsIntegrity(snapshotId, entry.path, findPieceMismatch(pieces));
  if (first !== null) {
    const piece = pieces[first]!;
    // A part is one piece; the index is named by the chunk that differs.
    const chunk = piece.listed === entry ? ` in bytes ${piece.start} to ${piece.start + piece.bytes - 1}` : '';
    fail(piece.listed.path, `does not match its sha256${chunk}`);
  }
  fail(entry.path, checkServingIndex(file, entry.schema, null));
  return file;
}

/** Streams one listed file's bytes through SHA-256 and compares size and digest with the manifest. */
export async function verifyListedFile(snapshotId: string, file: string, entry: SizedFile): Promise<void> {
  let mismatch;
  try {
    mismatch = await fileMismatch(file, entry);
  } catch (error) {
    throw asBundleDamage(snapshotId, entry.path, error);
  }
  if (mismatch !== null) throw new BundleIntegrityError(snapshotId, `${entry.path} ${mismatch}`);
}

async function sizeMismatch(file: string, bytes: number): Promise<string | null> {
  const { size } = await stat(file);
  return size === bytes ? null : `has ${size} bytes; manifest says ${bytes}`;
}

/** A read that fails because the file is missing (or cannot be read) is the bundle's damage, named like verifyListedFile names it. */
async function damageAsIntegrity<T>(snapshotId: string, listed: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw asBundleDamage(snapshotId, listed, error);
  }
}

/** Random reads of one part (verified just before), for checkServingIndex. */
function partReader(file: string, entry: SizedFile): IndexedPart & { close(): void } {
  const [, resource, number] = PART_PATH.exec(entry.path)!;
  let fd: number | null = null;
  return {
    resource: resource!,
    part: Number(number),
    size: entry.bytes,
    read(start, bytes) {
      fd ??= openSync(file, 'r');
      const buffer = Buffer.allocUnsafe(bytes);
      let filled = 0;
      while (filled < bytes) {
        const read = readSync(fd, buffer, filled, bytes - filled, start + filled);
        if (read === 0) break;
        filled += read;
      }
      return buffer.subarray(0, filled);
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
