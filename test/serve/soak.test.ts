import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, bearer, newKey } from './helpers/harness.js';
import { startServe } from './helpers/serve-process.js';
import { makeStore } from './helpers/test-store.js';

/**
 * Many requests against a real `pdsnap serve` whose V8 collects garbage every few thousand
 * allocations, so that every native object the server creates (SQLite statements and databases
 * above all) is finalized while requests are in flight. On Node.js 24.19+ with better-sqlite3 12
 * this aborted the process ("Assertion failed: (env) != nullptr"); it must stay up and stop cleanly.
 */
describe('pdsnap serve under forced garbage collection', () => {
  it('answers every one of 600 requests and exits 0 on SIGTERM', async () => {
    const { root } = await makeStore(new Date('2026-11-22T12:00:00.000Z'));
    const key = await newKey(root, ALL_SCOPES, 'premium');
    const server = await startServe(
      [
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
      ],
      {},
      ['--gc-interval=20000'],
    );
    const base = server.base;
    const paths = ['/v1/articles?limit=5', '/api/v1/economic-calendar?limit=5', '/v1/smart-money/consensus', '/v1/nope'];
    const statuses = new Map<number, number>();
    for (let round = 0; round < 60; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => fetch(`${base}${paths[(round + i) % paths.length]}`, { headers: bearer(key) })),
      );
      for (const answer of answers) {
        await answer.arrayBuffer();
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      }
    }
    // The fixed clock never moves the window: 300 admitted (premium), then 429s; never a 5xx, never a reset.
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(600);
    expect([...statuses.keys()].every((status) => status < 500)).toBe(true);
    expect(statuses.get(429)).toBeGreaterThan(0);

    expect(await server.stop(), server.stderr()).toBe(0);
  });
});
