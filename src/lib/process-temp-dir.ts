import { createHash } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { processIsAlive } from './file-lock.js';

/**
 * A temporary folder that belongs to this process: `<prefix>-<space>-<pid>-XXXXXX`, where `space`
 * names the host and its process-id namespace. The process removes it when it ends; one that was
 * killed cannot, so before making its own, a process removes the folders of its prefix that a dead
 * process of the same space left behind. Without that, a server restarted after every crash would
 * leave a full copy of the bundles behind each time. Only folders of this user, of this space and
 * of a pid that no longer runs are removed: a folder made in another container that shares /tmp,
 * even one with the same host name, is never judged, since its pids are not ours to test.
 */
export async function makeProcessTempDir(prefix: string, parent: string = tmpdir()): Promise<string> {
  await removeAbandoned(prefix, parent);
  return mkdtemp(path.join(parent, `${prefix}-${spaceTag()}-${process.pid}-`));
}

async function removeAbandoned(prefix: string, parent: string): Promise<void> {
  const pattern = new RegExp(`^${prefix}-([0-9a-f]{12})-(\\d+)-[A-Za-z0-9]{6}$`);
  const space = spaceTag();
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const match = pattern.exec(name);
    if (!match || match[1] !== space) continue;
    const pid = Number(match[2]);
    if (pid === process.pid || processIsAlive(pid)) continue;
    const folder = path.join(parent, name);
    const info = await lstat(folder).catch(() => null);
    if (!info?.isDirectory() || info.uid !== process.getuid?.()) continue;
    // Best effort: a folder that cannot be removed now (another process sweeping it at the same
    // time, a file in use) stays for a later start; the command itself must not fail for it.
    await rm(folder, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Host name and pid namespace (where Linux tells it), as 12 hex digits that fit any folder name. */
export function spaceTag(): string {
  let namespace = '';
  try {
    namespace = readlinkSync('/proc/self/ns/pid');
  } catch {}
  return createHash('sha256').update(`${hostname()}\0${namespace}`).digest('hex').slice(0, 12);
}
