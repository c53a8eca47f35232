import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { digestingPassThrough } from '../lib/file-digest.js';
import type { FileLocator } from './bundle-files.js';
import { BundleIntegrityError } from './store-errors.js';

/**
 * Copies files of a bundle into a staging folder, by their names, hashing the bytes on the way: a
 * file that differs from the manifest is refused (named), never copied on. The manifest itself is
 * not copied (the store writes it last).
 */
export async function copyBundleFiles(
  snapshotId: string,
  entries: ReadonlyArray<{ path: string; bytes: number; sha256: string }>,
  locate: FileLocator,
  to: string,
): Promise<void> {
  for (const entry of entries) {
    const target = path.join(to, entry.path);
    await mkdir(path.dirname(target), { recursive: true });
    const digesting = digestingPassThrough();
    try {
      await pipeline(createReadStream(locate(entry)), digesting.stream, createWriteStream(target, { flags: 'wx' }));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BundleIntegrityError(snapshotId, `${entry.path} is missing`);
      throw error;
    }
    checkDigest(snapshotId, entry, digesting.digest(), locate(entry));
  }
}

/** Size and SHA-256 of what was read against the manifest's entry; `where` names the object or file. */
export function checkDigest(
  snapshotId: string,
  entry: { path: string; bytes: number; sha256: string },
  got: { bytes: number; sha256: string },
  where: string,
): void {
  if (got.bytes !== entry.bytes)
    throw new BundleIntegrityError(snapshotId, `${entry.path} has ${got.bytes} bytes; manifest says ${entry.bytes} (${where})`);
  if (got.sha256 !== entry.sha256) throw new BundleIntegrityError(snapshotId, `${entry.path} does not match its sha256 (${where})`);
}
