import type { DatasetName } from '../model/dataset.js';

/**
 * The errors of a snapshot store, the same for a folder and a bucket: what commands and the server
 * tell apart (an unknown id is the user's, damage is the store's, a moved pointer means try again).
 */

export class SnapshotNotFoundError extends Error {
  override readonly name = 'SnapshotNotFoundError';
  constructor(
    readonly snapshotId: string,
    detail = 'does not exist in this store',
  ) {
    super(`snapshot ${snapshotId} ${detail}`);
  }
}

export class BundleIntegrityError extends Error {
  override readonly name = 'BundleIntegrityError';
  constructor(
    readonly snapshotId: string,
    readonly reason: string,
  ) {
    super(`bundle ${snapshotId} failed verification: ${reason}`);
  }
}

/** A current pointer that exists but cannot be used: empty, garbage, or not naming a snapshot. */
export class InvalidPointerError extends Error {
  override readonly name = 'InvalidPointerError';
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file} is not a valid current pointer (${reason}): pdsnap build or pdsnap rollback rewrites it`);
  }
}

/** What publishing did to the store, also when it failed half way (see PublishFailure). */
export interface PublishState {
  bundlePublished: boolean;
  pointerMoved: boolean;
}

/** A publish that failed after it changed the store: says exactly what is in place. */
export class PublishFailure extends Error {
  override readonly name = 'PublishFailure';
  constructor(
    readonly snapshotId: string,
    readonly state: PublishState,
    failure: Error,
  ) {
    super(
      `${failure.message}; ${state.bundlePublished ? `bundle ${snapshotId} is in place (complete and verified)` : 'no bundle was added'}, ` +
        `${state.pointerMoved ? 'current points at it' : 'current is unchanged'}`,
    );
  }
}

/** Current moved between judging a candidate and promoting it: nothing was changed. */
export class CurrentMovedError extends Error {
  override readonly name = 'CurrentMovedError';
  constructor(dataset: DatasetName, expected: string | null, found: string | null) {
    super(
      `current/${dataset}.json moved from ${expected ?? 'none'} to ${found ?? 'none'} while the candidate was checked; current not changed, run promote again`,
    );
  }
}

/**
 * A store that cannot take the work at all (a bucket that does not exist, a folder that cannot be
 * created): found before anything is ingested, and the user's to fix (exit 3).
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/**
 * A request the bucket refused or that failed in transit (s3-objects.ts): the machine's or the
 * operator's to fix, never "unexpected". Told by name, so that the AWS SDK stays unloaded.
 */
export function isBucketError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'BucketError';
}
