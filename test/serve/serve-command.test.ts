import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, bearer, get, newKey } from './helpers/harness.js';
import { startServe } from './helpers/serve-process.js';
import { makeStore } from './helpers/test-store.js';

describe('pdsnap serve', () => {
  it('prints its address on stderr, serves, creates a 0600 cursor secret beside the keys file, and stops cleanly on SIGTERM', async () => {
    const now = new Date('2026-11-22T12:00:00.000Z');
    const { root } = await makeStore(now);
    const key = await newKey(root, ALL_SCOPES);
    const server = await startServe([
      '--store',
      path.join(root, 'snapshots'),
      '--keys',
      path.join(root, 'keys.json'),
      '--usage-db',
      path.join(root, 'usage.sqlite'),
      '--now',
      '2026-11-22T12:00:00Z',
      '--log-level',
      'silent',
    ]);
    const answer = await get(server.base, '/v1/articles?limit=1', bearer(key));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(1);
    expect((await stat(path.join(root, 'cursor-secret'))).mode & 0o777).toBe(0o600);

    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain('shutting down');
  });
});
