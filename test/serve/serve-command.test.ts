import { stat } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, bearer, get, newKey } from './helpers/harness.js';
import { makeStore } from './helpers/test-store.js';

import { CLI } from '../helpers/cli.js';

describe('pdsnap serve', () => {
  it('prints its address on stderr, serves, creates a 0600 cursor secret beside the keys file, and stops cleanly on SIGTERM', async () => {
    const now = new Date('2026-11-22T12:00:00.000Z');
    const { root } = await makeStore(now);
    const key = await newKey(root, ALL_SCOPES);
    const args = [
      '--store',
      path.join(root, 'snapshots'),
      '--port',
      '0',
      '--keys',
      path.join(root, 'keys.json'),
      '--usage-db',
      path.join(root, 'usage.sqlite'),
      '--now',
      '2026-11-22T12:00:00Z',
      '--log-level',
      'silent',
      '--drain-delay',
      '0s',
    ];
    const child = execa('node', [CLI, 'serve', ...args], { reject: false });
    const base = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
        if (match?.[1]) resolve(match[1]);
      });
      child.on('exit', () => reject(new Error(`server exited early: ${seen}`)));
    });
    const answer = await get(base, '/v1/articles?limit=1', bearer(key));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(1);
    expect((await stat(path.join(root, 'cursor-secret'))).mode & 0o777).toBe(0o600);

    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('shutting down');
  });
});
