import { type Manifest, type ResourceEntry, resourceOfPath } from '../model/manifest.js';
import type { FileLocator } from './bundle-files.js';
import { LineCursor } from './line-cursor.js';
import { BundleIntegrityError } from './store-errors.js';

/**
 * Streams the records of one part, in order, verified as it is read (line-cursor.ts): a caller
 * that acts on records before the part ends must drop what it did when this throws.
 */
async function* readPartRecords(snapshotId: string, locate: FileLocator, entry: ResourceEntry): AsyncGenerator<unknown> {
  const cursor = new LineCursor(snapshotId, [entry], locate);
  try {
    for (let line = cursor.peek() ?? (await cursor.load()); line !== null; line = cursor.peek() ?? (await cursor.load())) {
      cursor.take();
      yield parseLine(snapshotId, entry, line.bytes, line.number);
    }
  } finally {
    await cursor.close();
  }
}

/** Every record of a resource, part after part, in published order. */
export async function* readResourceRecords(
  manifest: { snapshotId: string; files: readonly Manifest['files'][number][] },
  locate: FileLocator,
  resource: string,
): AsyncGenerator<unknown> {
  for (const entry of manifest.files) {
    if (resourceOfPath(entry.path) === resource) yield* readPartRecords(manifest.snapshotId, locate, entry);
  }
}

export function parseLine(snapshotId: string, entry: ResourceEntry, line: Buffer, number: number): unknown {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    throw new BundleIntegrityError(snapshotId, `${entry.path} line ${number} is not JSON`);
  }
}
