import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ALL_SCOPES, bearer, get, newKey } from './helpers/harness.js';
import { startServe } from './helpers/serve-process.js';
import { makeStore } from './helpers/test-store.js';

describe('pdsnap serve', () => {
  it('prints its address on stderr, serves, logs each request while it runs, creates a 0600 cursor secret beside the keys file, and stops cleanly on SIGTERM', async () => {
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
    ]);
    const answer = await get(server.base, '/v1/articles?limit=1', bearer(key));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(1);
    // The log is written in batches, but a lone line of an idle server still goes out (within 200 ms), not only at exit.
    const requestId = answer.headers.get('x-request-id')!;
    for (let waited = 0; !server.stdout().includes(requestId); waited += 50) {
      if (waited > 10_000) throw new Error(`no log line for ${requestId} while serving: ${server.stdout()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const logged = server
      .stdout()
      .split('\n')
      .find((line) => line.includes(requestId));
    expect(JSON.parse(logged!)).toMatchObject({
      msg: 'request completed',
      status: 200,
    });
    expect((await stat(path.join(root, 'cursor-secret'))).mode & 0o777).toBe(0o600);

    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain('shutting down');
  });

  it('takes --reload-interval as a duration like every other, and refuses a plain number of milliseconds with what to write', async () => {
    const { root } = await makeStore(new Date('2026-11-22T12:00:00.000Z'));
    for (const value of ['2000', '0', '2', '2w']) {
      const result = await runCli(['serve', '--store', path.join(root, 'snapshots'), '--reload-interval', value, '--port', '0']);
      expect(result.exitCode, value).toBe(3);
      expect(String(result.stderr), value).toContain(`--reload-interval: "${value}" is not a duration`);
    }
    expect(String((await runCli(['serve', '--reload-interval', '2000'])).stderr)).toContain(
      'this option took milliseconds until 2026-12-06): write it like 2s or 500ms, or 0s for never',
    );
  });
});
