import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { processIsAlive } from './file-lock.js';

/**
 * A temporary folder that belongs to this process: `<prefix>-<host>-<pid>-XXXXXX`. The process
 * removes it when it ends; one that was killed cannot, so before making its own, a process removes
 * the folders of its prefix that a dead process of the same host left behind. Without that, a
 * server restarted after every crash would leave a full copy of the bundles behind each time.
 * Only folders of this user, of this host and of a pid that no longer runs are removed; a folder
 * of another host (a /tmp shared between containers) is never judged.
 */
export async function makeProcessTempDir(prefix: string, parent: string = tmpdir()): Promise<string> {
  await removeAbandoned(prefix, parent);
  return mkdtemp(path.join(parent, `${prefix}-${hostTag()}-${process.pid}-`));
}

async function removeAbandoned(prefix: string, parent: string): Promise<void> {
  const pattern = new RegExp(`^${prefix}-(.+)-(\\d+)-[A-Za-z0-9]{6}$`);
  const host = hostTag();
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const match = pattern.exec(name);
    if (!match || match[1] !== host) continue;
    const pid = Number(match[2]);
    if (pid === process.pid || processIsAlive(pid)) continue;
    const folder = path.join(parent, name);
    const info = await lstat(folder).catch(() => null);
    if (!info?.isDirectory() || info.uid !== process.getuid?.()) continue;
    await rm(folder, { recursive: true, force: true });
  }
}

/** The host name as it may stand in a folder name. */
function hostTag(): string {
  return hostname().replace(/[^A-Za-z0-9.]/g, '_');
}
