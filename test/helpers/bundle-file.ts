import { FolderStore } from '../../src/publish/folder-store.js';
import { bundleFiles } from '../../src/publish/manifest-check.js';
import type { BundlePartFiles } from '../../src/serve/indexes/part-lines.js';

/**
 * Where a file a bundle lists is in a folder store, by the name the manifest gives it
 * (`articles/00000.ndjson`, `serving-index.sqlite`): a blob, shared by every snapshot that lists
 * the same bytes, or (format 3) a file in the bundle's own folder. For tests that damage one.
 */
export async function bundleFilePath(store: string, snapshotId: string, name: string): Promise<string> {
  const bundle = await new FolderStore(store).openBundle(snapshotId);
  const entry = bundleFiles(bundle.manifest).find((file) => file.path === name);
  if (!entry) throw new Error(`${snapshotId} lists no ${name}`);
  return bundle.locate(entry);
}

/** A folder store's bundle as a serving index of layout 4 reads it: the parts the manifest lists, and where each one is. */
export async function bundleParts(store: string, snapshotId: string): Promise<BundlePartFiles> {
  const bundle = await new FolderStore(store).openBundle(snapshotId);
  return { files: bundle.manifest.files, locate: bundle.locate };
}
