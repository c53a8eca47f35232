import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Manifest } from '../src/model/manifest.js';
import { FolderStore } from '../src/publish/folder-store.js';

/** What one snapshot's bundle holds, in bytes: every file its manifest lists, and the manifest. */
export interface BundleSize {
  /** The whole bundle: its manifest, NDJSON parts and (Smart Money) serving index. */
  bytes: number;
  ndjsonBytes: number;
  servingIndexBytes: number;
  manifest: Manifest;
}

/**
 * The size of a snapshot's bundle in a folder store, from its manifest: in bundle format 4 the files
 * are blobs shared with other snapshots and the bundle's folder holds the manifest only, and the
 * store's folder also holds the derivation cache, so neither a folder's size says it.
 */
export async function bundleSize(store: string, snapshotId: string): Promise<BundleSize> {
  const folder = new FolderStore(store);
  const { manifest } = await folder.openBundle(snapshotId);
  const ndjsonBytes = manifest.files.reduce((sum, file) => sum + file.bytes, 0);
  const servingIndexBytes = manifest.servingIndex?.bytes ?? 0;
  const manifestBytes = (await stat(path.join(folder.bundleDir(snapshotId), 'manifest.json'))).size;
  return { bytes: manifestBytes + ndjsonBytes + servingIndexBytes, ndjsonBytes, servingIndexBytes, manifest };
}
