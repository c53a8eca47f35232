import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Every temporary folder of a run (the tests' own, and those of the CLI, serve, redis-server and
 * s3rver processes they start) is made under one root, set as TMPDIR before any worker starts,
 * and removed when the run ends: a run leaves nothing behind in /tmp.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-tests-'));
  process.env.TMPDIR = root;
  return async () => {
    await rm(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
