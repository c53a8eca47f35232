/**
 * Named points inside publishing where a test can stop the real process (PDSNAP_PAUSE_AT=<point>):
 * the process announces the point on stderr and waits to be killed. This lets the crash-safety test
 * kill the CLI at exact moments instead of guessing with timers. Unset in normal runs: a no-op.
 */
export type FaultPoint =
  | 'resources-staged'
  | 'manifest-written'
  | 'bundle-renamed'
  | 'pointer-written'
  // A bucket store: after the first object of a bundle is uploaded, after the pointer record.
  | 'object-uploaded'
  | 'pointer-recorded';

export async function faultPoint(point: FaultPoint): Promise<void> {
  if (process.env.PDSNAP_PAUSE_AT !== point) return;
  process.stderr.write(`pdsnap: paused at ${point}\n`);
  await new Promise(() => {
    setInterval(() => {}, 1 << 30);
  });
}

/**
 * Named writes where a test can make the real process fail as a full disk would
 * (PDSNAP_FAIL_AT=<point>, or <point>:<n> for the first n times only): the write throws ENOSPC,
 * without a path, as Node's own write errors do.
 */
export type FailPoint =
  | 'part-write'
  | 'index-open'
  | 'index-finish'
  | 'manifest-write'
  | 'pointer-write'
  | 'object-download'
  // Writing a lock's holder.json, right after its folder was made (lib/file-lock.ts).
  | 'lock-holder-write';

export function failPoint(point: FailPoint): void {
  const [at, times] = (process.env.PDSNAP_FAIL_AT ?? '').split(':');
  if (at !== point) return;
  const count = (failed.get(point) ?? 0) + 1;
  failed.set(point, count);
  if (times !== undefined && count > Number(times)) return;
  throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

const failed = new Map<FailPoint, number>();

/**
 * A derived record that fails its schema, as a derivation bug would make it
 * (PDSNAP_FAIL_AT=record-schema): the reason the schema check then gives every record, or null in
 * normal runs. Read once per bundle, not per record.
 */
export function recordSchemaFault(): string | null {
  return process.env.PDSNAP_FAIL_AT === 'record-schema' ? '/ fails its schema (PDSNAP_FAIL_AT=record-schema)' : null;
}

/**
 * A download from a bucket cut off mid-object (PDSNAP_FAIL_AT=object-download), as a dropped
 * connection does: the error a reader gets is not corruption, so it is tried again.
 */
export function downloadCut(): Error | null {
  if (process.env.PDSNAP_FAIL_AT !== 'object-download') return null;
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/**
 * The first try of each upload to a bucket cut off mid-object (PDSNAP_FAIL_AT=object-upload-once),
 * as a dropped connection does: the error has no HTTP status, and the upload is tried again.
 */
export function uploadCut(attempt: number): Error | null {
  if (process.env.PDSNAP_FAIL_AT !== 'object-upload-once' || attempt > 1) return null;
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/**
 * A derivation worker thread that dies at its first batch (PDSNAP_FAIL_AT=derive-worker), as one
 * that runs out of memory would: the thread ends at once, without a word to the main thread.
 */
export function deriveWorkerDies(): void {
  if (process.env.PDSNAP_FAIL_AT === 'derive-worker') process.exit(1);
}
