import { DATASETS, type DatasetName } from '../model/dataset.js';
import type { CurrentPointer } from '../model/manifest.js';
import type { PointerStates } from './snapshot-store.js';
import { InvalidPointerError } from './store-errors.js';

/**
 * Each dataset's pointer as list, gc and sync judge it, the same for every store: none; ok; or
 * broken, with the reason: a pointer that cannot be read or parsed, or one that names a bundle
 * whose manifest is not in the store (a store restored by hand, a manifest deleted). One pointer
 * that cannot be read (EACCES) is that dataset's problem, not every dataset's.
 */
export async function judgePointers(store: {
  /** The pointer, fresh from the store; throws InvalidPointerError when it cannot be used. */
  readPointer(dataset: DatasetName): Promise<CurrentPointer | null>;
  hasManifest(snapshotId: string): Promise<boolean>;
  /** Where the pointer is, for messages: a file or an object's URL. */
  pointerLocation(dataset: DatasetName): string;
}): Promise<PointerStates> {
  const states = {} as PointerStates;
  for (const dataset of DATASETS) {
    try {
      const pointer = await store.readPointer(dataset);
      if (pointer && !(await store.hasManifest(pointer.snapshotId))) {
        const reason = `${store.pointerLocation(dataset)} points at ${pointer.snapshotId}, which is not in the store`;
        states[dataset] = { state: 'broken', snapshotId: pointer.snapshotId, reason };
      } else states[dataset] = pointer ? { state: 'ok', snapshotId: pointer.snapshotId } : { state: 'none' };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (!(error instanceof InvalidPointerError) && code === undefined) throw error;
      const reason = error instanceof InvalidPointerError ? error.message : `${store.pointerLocation(dataset)} cannot be read (${code})`;
      states[dataset] = { state: 'broken', reason };
    }
  }
  return states;
}
