import { wholeNumberFromEnv } from './env-number.js';
import { withPath } from './error-path.js';
import { failPoint } from './fault-point.js';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * An inter-process lock that knows who holds it.
 *
 * The lock is a folder (mkdir is atomic on every local and network file system) holding
 * `holder.json` {host, pid, startedAt}; the holder touches the folder every STALE_MS / 2. A waiter
 * takes a lock over at once when its holder is a dead process on this host, or when the folder has
 * not been touched for STALE_MS (a holder on another host died). Anything it cannot judge, such as a
 * regular file at the lock's path or a folder touched in the future by nobody known, fails within
 * one attempt, naming the path and what to do: never a silent wait. proper-lockfile, used before,
 * records no holder, so it could do neither.
 */
export interface FileLockOptions {
  /** How long to wait for a live holder before giving up with a LockError. */
  waitMs: number;
}

export interface LockHolder {
  host: string;
  pid: number;
  startedAt: string;
}

export class LockError extends Error {
  override readonly name = 'LockError';
  constructor(
    message: string,
    readonly lockPath: string,
    readonly holder?: LockHolder,
  ) {
    super(message);
  }
}

const DEFAULT_STALE_MS = 10_000;
const MIN_STALE_MS = 1_000;
const POLL_MS = 100;

/**
 * After how long an untouched lock counts as abandoned: 10 s, or PDSNAP_LOCK_STALE_MS (at least
 * 1,000) for stores on slow network file systems, and for tests.
 */
export function lockStaleMs(env: NodeJS.ProcessEnv = process.env): number {
  try {
    const expected = `a whole number of milliseconds, at least ${MIN_STALE_MS}`;
    return wholeNumberFromEnv(env, 'PDSNAP_LOCK_STALE_MS', expected, (value) => value >= MIN_STALE_MS) ?? DEFAULT_STALE_MS;
  } catch (error) {
    throw new LockError((error as Error).message, '');
  }
}

/** Runs `work` while holding the lock folder `lockPath` (created with its parents when missing). */
export async function withFileLock<T>(lockPath: string, options: FileLockOptions, work: () => Promise<T>): Promise<T> {
  const staleMs = lockStaleMs();
  await mkdir(path.dirname(lockPath), { recursive: true });
  const me: LockHolder = { host: hostname(), pid: process.pid, startedAt: new Date().toISOString() };
  await acquire(lockPath, me, options.waitMs, staleMs);
  const refresh = setInterval(
    () => {
      const at = new Date();
      utimes(lockPath, at, at).catch(() => undefined);
    },
    Math.floor(staleMs / 2),
  );
  refresh.unref();
  try {
    return await work();
  } finally {
    clearInterval(refresh);
    await release(lockPath, me);
  }
}

async function acquire(lockPath: string, me: LockHolder, waitMs: number, staleMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    let made = false;
    try {
      await mkdir(lockPath);
      made = true;
      failPoint('lock-holder-write');
      await writeFile(path.join(lockPath, 'holder.json'), `${JSON.stringify(me)}\n`);
      return;
    } catch (error) {
      // A lock made but not recorded (a full disk) is taken back at once: left behind, it would hold
      // off every other command until it went stale, as "held by an unknown process".
      if (made) {
        await rm(lockPath, { recursive: true, force: true }).catch(() => undefined);
        throw withPath(error, path.join(lockPath, 'holder.json'));
      }
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const verdict = await judge(lockPath, staleMs);
    if (verdict.kind === 'gone') continue;
    if (verdict.kind === 'abandoned') {
      await takeOver(lockPath, verdict.holder);
      continue;
    }
    if (verdict.kind === 'unusable') throw new LockError(verdict.reason, lockPath, verdict.holder);
    if (Date.now() >= deadline) {
      const who = verdict.holder
        ? `pid ${verdict.holder.pid} on ${verdict.holder.host}, since ${verdict.holder.startedAt}`
        : 'an unknown process';
      throw new LockError(
        `${lockPath} is held by ${who}; gave up after ${Math.round(waitMs / 1000)} s (another pdsnap is publishing: run again once it is done; if no pdsnap process is running, remove ${lockPath})`,
        lockPath,
        verdict.holder,
      );
    }
    await sleep(POLL_MS);
  }
}

type Verdict =
  | { kind: 'gone' }
  | { kind: 'held'; holder?: LockHolder }
  | { kind: 'abandoned'; holder?: LockHolder }
  | { kind: 'unusable'; reason: string; holder?: LockHolder };

async function judge(lockPath: string, staleMs: number): Promise<Verdict> {
  let info;
  try {
    info = await stat(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'gone' };
    throw error;
  }
  if (!info.isDirectory()) {
    return {
      kind: 'unusable',
      reason: `${lockPath} is not a pdsnap lock (it is a file, not a folder): remove it if no pdsnap process is running`,
    };
  }
  const holder = await readHolder(lockPath);
  if (holder && holder.host === hostname()) {
    // A live pid is the holder only if it started before the lock was taken: a restarted container
    // with the same host name reuses low pids (pdsnap is often pid 1), which would keep a dead
    // holder's lock "held" for ever.
    const reused = (processStartMs(holder.pid) ?? Number.NEGATIVE_INFINITY) > Date.parse(holder.startedAt) + PID_REUSE_SLACK_MS;
    return processIsAlive(holder.pid) && !reused ? { kind: 'held', holder } : { kind: 'abandoned', holder };
  }
  const age = Date.now() - info.mtimeMs;
  if (age > staleMs) return { kind: 'abandoned', ...(holder ? { holder } : {}) };
  if (age < -staleMs) {
    return {
      kind: 'unusable',
      reason: `${lockPath} was last touched in the future (${info.mtime.toISOString()}), so it can never go stale: remove it if no pdsnap process is running`,
      ...(holder ? { holder } : {}),
    };
  }
  return { kind: 'held', ...(holder ? { holder } : {}) };
}

async function readHolder(lockPath: string): Promise<LockHolder | undefined> {
  try {
    const value = JSON.parse(await readFile(path.join(lockPath, 'holder.json'), 'utf8')) as Partial<LockHolder>;
    if (typeof value.host === 'string' && Number.isInteger(value.pid) && typeof value.startedAt === 'string') {
      return { host: value.host, pid: value.pid!, startedAt: value.startedAt };
    }
  } catch {
    // Missing or torn: a holder killed between mkdir and writing holder.json. Judged by age alone.
  }
  return undefined;
}

/** Clock steps and the 10 ms resolution of a process's start time: a pid reused sooner is not told apart. */
const PID_REUSE_SLACK_MS = 5_000;

/**
 * When a process of this host started, from /proc (Linux: start time in clock ticks after boot,
 * at the kernel's fixed 100 ticks a second); null where that cannot be read.
 */
export function processStartMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    if (!Number.isFinite(startTicks) || !Number.isFinite(bootSeconds)) return null;
    return bootSeconds * 1000 + startTicks * 10;
  } catch {
    return null;
  }
}

/** Whether a process of this host is alive (one of another user counts: it exists). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Moves an abandoned lock aside (rename is atomic, so of two waiters only one succeeds) and removes
 * it. If what was moved is not the lock that was judged abandoned, another waiter took over first:
 * it is put back, and the caller judges again.
 */
async function takeOver(lockPath: string, judged: LockHolder | undefined): Promise<void> {
  const aside = `${lockPath}.abandoned-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = await readHolder(aside);
  const same =
    judged === undefined
      ? moved === undefined
      : moved?.host === judged.host && moved.pid === judged.pid && moved.startedAt === judged.startedAt;
  if (!same) {
    await rename(aside, lockPath).catch(() => undefined);
    return;
  }
  await rm(aside, { recursive: true, force: true });
}

async function release(lockPath: string, me: LockHolder): Promise<void> {
  const holder = await readHolder(lockPath);
  // Never remove a lock that another process has taken over meanwhile.
  if (holder && (holder.pid !== me.pid || holder.startedAt !== me.startedAt || holder.host !== me.host)) return;
  await rm(lockPath, { recursive: true, force: true });
}
