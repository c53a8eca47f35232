import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';

// The committed sample is dated for this instant.
const NOW = '2026-11-22T12:00:00.000Z';

describe('a store damaged from outside pdsnap', () => {
  it('a regular file where the publish lock belongs fails the build at once, naming the path and what to do', async () => {
    const sources = await tempDir('sources');
    await cp(path.join(REPO_ROOT, 'data/sources'), sources, { recursive: true });
    const store = await tempDir('store');
    await mkdir(store, { recursive: true });
    await writeFile(path.join(store, 'publish.lock'), 'left by a restore script\n');
    const result = await runCli(['build', '--datasets', 'articles', '--sources', sources, '--store', store, '--now', NOW, '--json']);
    expect(result.exitCode).toBe(3);
    const report = JSON.parse(String(result.stdout));
    expect(report.datasets[0].outcome).toBe('error');
    expect(report.datasets[0].reason).toContain(
      `${path.join(store, 'publish.lock')} is not a pdsnap lock (it is a file, not a folder): remove it if no pdsnap process is running`,
    );
  });
});
