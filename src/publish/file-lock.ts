import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';

export interface FileLockOptions {
  /** The lock's own path; default `<target>.lock`. */
  lockfilePath?: string;
  /** Attempts before giving up while another process holds the lock. */
  retries: number;
  maxWaitMs: number;
}

/**
 * Runs `work` while holding an inter-process lock on `target` (a folder or a file, which need not
 * exist). A process killed while holding it cannot release it: the next one takes it over once it
 * has not been refreshed for 10 s.
 */
export async function withFileLock<T>(target: string, options: FileLockOptions, work: () => Promise<T>): Promise<T> {
  await mkdir(path.dirname(options.lockfilePath ?? target), { recursive: true });
  const release = await lockfile.lock(target, {
    realpath: false,
    ...(options.lockfilePath ? { lockfilePath: options.lockfilePath } : {}),
    stale: 10_000,
    retries: { retries: options.retries, minTimeout: Math.min(100, options.maxWaitMs), maxTimeout: options.maxWaitMs },
  });
  try {
    return await work();
  } finally {
    await release();
  }
}
