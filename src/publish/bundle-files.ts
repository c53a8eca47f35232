import path from 'node:path';

/** A file a manifest lists: its name in the bundle, and its digest, which names its blob. */
export interface ListedFile {
  path: string;
  sha256: string;
}

/**
 * Where the bytes of a file a manifest lists are on this machine. A bundle of format 4 keeps them
 * in the store's blobs, named by their SHA-256 and shared by every bundle that lists the same bytes;
 * a bundle of format 3, and a staged bundle, in a folder of its own, by their names.
 */
export type FileLocator = (file: ListedFile) => string;

/** A staged bundle, or a bundle of format 3: each file under `directory`, by its name. */
export function inFolder(directory: string): FileLocator {
  return (file) => path.join(directory, file.path);
}

/** `<root>/blobs/sha256`: the folder of a folder store's blobs. */
export function blobsFolder(root: string): string {
  return path.join(root, 'blobs', 'sha256');
}

/** `<root>/blobs/sha256/<first two hex>/<hex>`: two hex of fan-out keep each folder small. */
export function blobPath(root: string, sha256: string): string {
  return path.join(blobsFolder(root), sha256.slice(0, 2), sha256);
}

/** A bundle of format 4 in a folder store rooted at `root`. */
export function inBlobs(root: string): FileLocator {
  return (file) => blobPath(root, file.sha256);
}

/** The first format whose files are blobs. */
export const BLOB_FORMAT = 4;
