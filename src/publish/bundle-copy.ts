import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Manifest } from '../model/manifest.js';
import { digestingPassThrough } from '../lib/file-digest.js';
import { bundleFiles } from './manifest-check.js';
import { BundleIntegrityError } from './store-errors.js';

/**
 * Copies every file a manifest lists from one bundle folder to another, hashing the bytes on the
 * way: a file that differs from the manifest is refused (named), never copied on. The manifest
 * itself is not copied (the store writes it last).
 */
export async function copyBundleFiles(manifest: Manifest, from: string, to: string): Promise<void> {
  for (const entry of bundleFiles(manifest)) {
    const target = path.join(to, entry.path);
    await mkdir(path.dirname(target), { recursive: true });
    const digesting = digestingPassThrough();
    try {
      await pipeline(createReadStream(path.join(from, entry.path)), digesting.stream, createWriteStream(target, { flags: 'wx' }));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        throw new BundleIntegrityError(manifest.snapshotId, `${entry.path} is missing`);
      throw error;
    }
    checkDigest(manifest.snapshotId, entry, digesting.digest(), path.join(from, entry.path));
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
