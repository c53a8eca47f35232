import { mkdir, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockError, lockStaleMs, processStartMs, withFileLock } from '../../src/lib/file-lock.js';
import { tempDir } from '../helpers/cli.js';
import { deadPid } from '../helpers/dead-pid.js';

let dir: string;
let lock: string;
beforeEach(async () => {
  dir = await tempDir('lock');
  lock = path.join(dir, 'publish.lock');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function plantHolder(holder: { host: string; pid: number; startedAt: string }) {
  await mkdir(lock);
  await writeFile(path.join(lock, 'holder.json'), JSON.stringify(holder));
}

describe('withFileLock', () => {
  it('records its holder while held and removes the lock afterwards', async () => {
    const seen = await withFileLock(lock, { waitMs: 0 }, async () => JSON.parse(await readFile(path.join(lock, 'holder.json'), 'utf8')));
    expect(seen).toMatchObject({ host: hostname(), pid: process.pid });
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes its lock back when it cannot record itself in it (a full disk), naming the file', async () => {
    process.env.PDSNAP_FAIL_AT = 'lock-holder-write';
    try {
      await expect(withFileLock(lock, { waitMs: 0 }, async () => 'ran')).rejects.toThrow(
        `${path.join(lock, 'holder.json')}: ENOSPC: no space left on device`,
      );
    } finally {
      delete process.env.PDSNAP_FAIL_AT;
    }
    // Nothing left to hold the next command off: it gets the lock at once.
    expect(await readdir(dir)).toEqual([]);
    expect(await withFileLock(lock, { waitMs: 0 }, async () => 'ran')).toBe('ran');
  });

  it('lets one holder in at a time', async () => {
    const events: string[] = [];
    const hold = (name: string) =>
      withFileLock(lock, { waitMs: 5_000 }, async () => {
        events.push(`${name} in`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        events.push(`${name} out`);
      });
    await Promise.all([hold('a'), hold('b')]);
    expect(events.map((event) => event.split(' ')[1])).toEqual(['in', 'out', 'in', 'out']);
  });

  it('takes over at once, without waiting, a lock whose holder is a dead process on this host', async () => {
    await plantHolder({ host: hostname(), pid: await deadPid(), startedAt: '2026-11-22T00:00:00.000Z' });
    await expect(withFileLock(lock, { waitMs: 0 }, async () => 'ran')).resolves.toBe('ran');
    expect(await readdir(dir)).toEqual([]);
  });

  it('waits for a live holder, then gives up naming it and what to do', async () => {
    // Taken after this process started, as a real holder's lock is: the process start time is real.
    const startedAt = new Date(processStartMs(process.pid)! + 60_000).toISOString();
    await plantHolder({ host: hostname(), pid: process.pid, startedAt });
    const failure = await withFileLock(lock, { waitMs: 300 }, async () => 'ran').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LockError);
    expect((failure as LockError).message).toContain(`${lock} is held by pid ${process.pid} on ${hostname()}, since ${startedAt}`);
    expect((failure as LockError).message).toContain(`if no pdsnap process is running, remove ${lock}`);
    expect((await stat(lock)).isDirectory()).toBe(true);
  });

  it('takes over at once a lock whose pid is alive but started after the lock was taken (a pid reused after a restart)', async () => {
    const startedAt = new Date(processStartMs(process.pid)! - 3_600_000).toISOString();
    await plantHolder({ host: hostname(), pid: process.pid, startedAt });
    await expect(withFileLock(lock, { waitMs: 0 }, async () => 'ran')).resolves.toBe('ran');
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses at once a regular file in the lock's place, naming the path and what to do", async () => {
    await writeFile(lock, 'not a lock');
    const failure = await withFileLock(lock, { waitMs: 60_000 }, async () => 'ran').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LockError);
    expect((failure as LockError).message).toBe(
      `${lock} is not a pdsnap lock (it is a file, not a folder): remove it if no pdsnap process is running`,
    );
  });

  it('refuses at once an unknown lock touched in the future, which could never go stale', async () => {
    await mkdir(lock);
    const future = new Date(Date.now() + 3_600_000);
    await utimes(lock, future, future);
    const failure = await withFileLock(lock, { waitMs: 60_000 }, async () => 'ran').catch((error: unknown) => error);
    expect((failure as LockError).message).toMatch(/was last touched in the future .* remove it if no pdsnap process is running$/);
  });

  it('takes over a lock of another host that nobody has touched for longer than the stale time', async () => {
    await plantHolder({ host: 'elsewhere.example', pid: 1, startedAt: '2026-11-22T00:00:00.000Z' });
    const past = new Date(Date.now() - 60_000);
    await utimes(lock, past, past);
    await expect(withFileLock(lock, { waitMs: 0 }, async () => 'ran')).resolves.toBe('ran');
  });

  it('keeps waiting for a lock of another host that is still being touched', async () => {
    await plantHolder({ host: 'elsewhere.example', pid: 1, startedAt: '2026-11-22T00:00:00.000Z' });
    const failure = await withFileLock(lock, { waitMs: 200 }, async () => 'ran').catch((error: unknown) => error);
    expect((failure as LockError).message).toContain('held by pid 1 on elsewhere.example');
  });
});

describe('lockStaleMs', () => {
  it('is 10 s by default, configurable through PDSNAP_LOCK_STALE_MS, and refuses nonsense', () => {
    expect(lockStaleMs({})).toBe(10_000);
    expect(lockStaleMs({ PDSNAP_LOCK_STALE_MS: '1500' })).toBe(1500);
    expect(() => lockStaleMs({ PDSNAP_LOCK_STALE_MS: '10' })).toThrow(/at least 1000/);
    expect(() => lockStaleMs({ PDSNAP_LOCK_STALE_MS: 'soon' })).toThrow(/whole number/);
  });
});
