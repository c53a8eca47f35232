import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProcessTempDir, spaceTag } from '../../src/lib/process-temp-dir.js';
import { tempDir } from '../helpers/cli.js';
import { deadPid } from '../helpers/dead-pid.js';

const host = spaceTag();

describe('makeProcessTempDir', () => {
  it('makes a folder named after this host and process, after removing those a dead process of this host left', async () => {
    const parent = await tempDir('process-temp');
    const dead = await deadPid();
    const abandoned = path.join(parent, `pdsnap-bucket-${host}-${dead}-AbC123`);
    await mkdir(path.join(abandoned, 'bundles'), { recursive: true });
    await writeFile(path.join(abandoned, 'bundles', 'part.ndjson'), 'x\n');
    const kept = [
      `pdsnap-bucket-${host}-${process.ppid}-AbC124`, // its process still runs
      `pdsnap-bucket-0123456789ab-${dead}-AbC125`, // another host's or pid namespace's: never judged here
      `pdsnap-bucket-${host}-${dead}-AbC126`, // a file, not a folder
      `pdsnap-bucket-${host}-${dead}-AbC127`, // a symbolic link
      `pdsnap-cache-${host}-${dead}-AbC128`, // another prefix
      'pdsnap-bucket-XyZ987', // the old naming, owner unknown
    ];
    await mkdir(path.join(parent, kept[0]!));
    await mkdir(path.join(parent, kept[1]!));
    await writeFile(path.join(parent, kept[2]!), '');
    await symlink(path.join(parent, kept[0]!), path.join(parent, kept[3]!));
    await mkdir(path.join(parent, kept[4]!));
    await mkdir(path.join(parent, kept[5]!));

    const made = await makeProcessTempDir('pdsnap-bucket', parent);

    expect(path.basename(made)).toMatch(new RegExp(`^pdsnap-bucket-${host}-${process.pid}-[A-Za-z0-9]{6}$`));
    expect((await readdir(parent)).sort()).toEqual([...kept, path.basename(made)].sort());
  });
});
