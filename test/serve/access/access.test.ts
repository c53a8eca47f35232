import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../../src/lib/sqlite.js';
import { FileState } from '../../../src/serve/access/file-state.js';
import { createAccess, type Access, type Admission, type Profile } from '../../../src/serve/access/index.js';
import { openRedisState } from '../../../src/serve/access/redis-state.js';
import type { NewKeyInput, StateStore } from '../../../src/serve/access/state-store.js';
import { startRedis, type TestRedis } from '../../helpers/redis-server.js';

/**
 * The same behaviour from both state stores: the files (JSON keys, SQLite usage) and a real Redis.
 * Key lookups are uncached here (maxAge 0), so a revocation is visible on the next request.
 */
describe.each(['file', 'redis'] as const)('access over the %s state', (backend) => {
  let dir: string;
  let redis: TestRedis | null = null;
  let clock: Date;
  let access: Access;
  let store: StateStore;
  const open: Access[] = [];

  async function openStore(): Promise<StateStore> {
    if (backend === 'file') {
      return FileState.open({ keysFile: path.join(dir, 'keys.json'), usageDbFile: path.join(dir, 'usage.sqlite'), keysMaxAgeMs: 0 });
    }
    return openRedisState(redis!.url, { keyCacheMs: 0 });
  }

  async function openAccess(): Promise<Access> {
    store = await openStore();
    const opened = createAccess({ store, now: () => clock });
    open.push(opened);
    return opened;
  }

  const createKey = (input: NewKeyInput, now: Date) => store.keys.create(input, now);
  const revokeKey = (id: string, now: Date) => store.keys.revoke(id, now);

  beforeAll(async () => {
    if (backend === 'redis') redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.dispose();
  });
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-access-'));
    if (redis) {
      const client = new Redis(redis.url);
      await client.flushdb();
      await client.quit();
    }
    clock = new Date('2026-11-22T10:15:00Z');
    access = await openAccess();
  });
  afterEach(async () => {
    for (const a of open.splice(0)) await a.close();
    await rm(dir, { recursive: true, force: true });
  });

  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const seconds = (iso: string) => Date.parse(iso) / 1000;

  describe('authenticate', () => {
    it('accepts a created key on both profiles and returns its metadata, not its secret', async () => {
      const { record, secret } = await createKey({ name: 'ci', scopes: ['articles:read'], tier: 'premium' }, clock);
      const outcome = await access.authenticate('A', bearer(secret), 'articles:read');
      expect(outcome).toEqual({ ok: true, key: { id: record.id, name: 'ci', tier: 'premium', scopes: ['articles:read'] } });
      expect((await access.authenticate('B', bearer(secret))).ok).toBe(true);
    });

    it('refuses a missing key: Profile A invalid_api_key, Profile B unauthorized', async () => {
      expect(await access.authenticate('A', {}, 'articles:read')).toMatchObject({ ok: false, status: 401, code: 'invalid_api_key' });
      expect(await access.authenticate('B', {})).toMatchObject({ ok: false, status: 401, code: 'unauthorized' });
    });

    it('refuses a wrong key: Profile A invalid_api_key, Profile B invalid_key', async () => {
      const { secret } = await createKey({ name: 'ci', scopes: ['articles:read'], tier: 'member' }, clock);
      const wrong = `${secret.slice(0, -4)}AAAA` === secret ? `${secret.slice(0, -4)}BBBB` : `${secret.slice(0, -4)}AAAA`;
      expect(await access.authenticate('A', bearer(wrong), 'articles:read')).toMatchObject({ status: 401, code: 'invalid_api_key' });
      expect(await access.authenticate('B', bearer(wrong))).toMatchObject({ status: 401, code: 'invalid_key' });
      expect(await access.authenticate('B', { authorization: `Basic ${secret}` })).toMatchObject({ status: 401, code: 'invalid_key' });
    });

    it('refuses a key revoked while the server runs: Profile A invalid_api_key, Profile B invalid_key', async () => {
      const { record, secret } = await createKey({ name: 'ci', scopes: ['articles:read'], tier: 'member' }, clock);
      expect((await access.authenticate('A', bearer(secret), 'articles:read')).ok).toBe(true);
      await revokeKey(record.id, clock);
      expect(await access.authenticate('A', bearer(secret), 'articles:read')).toMatchObject({ status: 401, code: 'invalid_api_key' });
      expect(await access.authenticate('B', { 'x-api-key': secret })).toMatchObject({
        status: 401,
        code: 'invalid_key',
        message: 'API key has been revoked',
      });
    });

    it('accepts X-API-Key on Profile B only', async () => {
      const { secret } = await createKey({ name: 'ci', scopes: ['articles:read'], tier: 'member' }, clock);
      expect((await access.authenticate('B', { 'x-api-key': secret })).ok).toBe(true);
      expect(await access.authenticate('A', { 'x-api-key': secret }, 'articles:read')).toMatchObject({
        status: 401,
        code: 'invalid_api_key',
      });
    });

    it('refuses a Profile B request whose Bearer and X-API-Key disagree', async () => {
      const a = await createKey({ name: 'a', scopes: ['articles:read'], tier: 'member' }, clock);
      const b = await createKey({ name: 'b', scopes: ['articles:read'], tier: 'member' }, clock);
      expect(await access.authenticate('B', { ...bearer(a.secret), 'x-api-key': b.secret })).toMatchObject({
        status: 401,
        code: 'invalid_key',
      });
      expect((await access.authenticate('B', { ...bearer(a.secret), 'x-api-key': a.secret })).ok).toBe(true);
    });

    it('answers 403 insufficient_scope on Profile A for a valid key without the operation scope', async () => {
      const { secret } = await createKey({ name: 'ci', scopes: ['articles:read', 'calendar:read'], tier: 'member' }, clock);
      expect((await access.authenticate('A', bearer(secret), 'calendar:read')).ok).toBe(true);
      const outcome = await access.authenticate('A', bearer(secret), 'smart-money:read');
      expect(outcome).toMatchObject({ ok: false, status: 403, code: 'insufficient_scope' });
      if (outcome.ok) throw new Error('unreachable');
      expect(outcome.message).toContain('smart-money:read');
      expect(outcome.headers['X-RateLimit-Limit']).toBe('60');
    });

    it('holds scopes on Profile B too: a key without the scope gets 403 insufficient_scope', async () => {
      const { secret } = await createKey({ name: 'ci', scopes: ['smart-money:read'], tier: 'member' }, clock);
      expect(await access.authenticate('B', { 'x-api-key': secret }, 'articles:read')).toMatchObject({
        ok: false,
        status: 403,
        code: 'insufficient_scope',
      });
      expect((await access.authenticate('B', { 'x-api-key': secret })).ok).toBe(true);
    });

    it('counts a request outside the key scopes in its per-minute window, never in its month, and answers 429 past the window', async () => {
      clock = new Date('2026-11-22T10:15:00Z');
      const { record, secret } = await createKey({ name: 'ci', scopes: ['articles:read'], tier: 'member' }, clock);
      for (let i = 1; i <= 60; i++) {
        const refused = await access.authorize('A', bearer(secret), 'smart-money:read');
        expect(refused, String(i)).toMatchObject({ ok: false, status: 403, code: 'insufficient_scope', key: { id: record.id } });
        expect(refused.headers['X-RateLimit-Remaining'], String(i)).toBe(String(60 - i));
        expect(refused.headers['X-Quota-Remaining'], String(i)).toBe('10000');
      }
      // The 61st of the minute, outside the scopes or not, is refused by the window.
      expect(await access.authorize('A', bearer(secret), 'smart-money:read')).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(await access.authorize('B', { 'x-api-key': secret }, 'articles:read')).toMatchObject({ status: 429, code: 'rate_limited' });
      // Nothing of it is billed: the month counts no request, only the two 429s.
      expect(await store.usage.monthlyUsage('2026-11')).toEqual([{ keyId: record.id, tier: 'member', requests: 0, rejected: 2 }]);
      clock = new Date('2026-11-22T10:16:00Z');
      const next = await access.authorize('A', bearer(secret), 'articles:read');
      expect(next).toMatchObject({ ok: true, headers: { 'X-RateLimit-Remaining': '59', 'X-Quota-Remaining': '9999' } });
    });

    it('releases a server-error request from the month it was counted in, but not from its window', async () => {
      clock = new Date('2026-11-22T10:15:00Z');
      const first = await access.admit('A', 'key_aaaaaaaaaaaa', 'member');
      if (!first.allowed) throw new Error('unreachable');
      expect(first.month).toBe('2026-11');
      await access.release('key_aaaaaaaaaaaa', first.month);
      const second = await access.admit('A', 'key_aaaaaaaaaaaa', 'member');
      expect(second.headers['X-Quota-Remaining']).toBe('9999');
      expect(second.headers['X-RateLimit-Remaining']).toBe('58');
    });

    it('puts member-tier headers on a 401, with nothing consumed', async () => {
      const outcome = await access.authenticate('B', {});
      if (outcome.ok) throw new Error('unreachable');
      expect(outcome.headers).toEqual(access.headersForUnauthenticated('B'));
      expect(outcome.headers).toMatchObject({
        'X-RateLimit-Limit': '60',
        'X-RateLimit-Remaining': '60',
        'X-Quota-Tier': 'free',
        'X-Quota-Used': '0',
      });
    });

    it('never echoes the presented key in an error message', async () => {
      const { secret } = await createKey({ name: 'ci', scopes: ['articles:read'], tier: 'member' }, clock);
      await revokeKey(`key_${secret.slice(9, 21)}`, clock);
      for (const profile of ['A', 'B'] as Profile[]) {
        const outcome = await access.authenticate(profile, bearer(secret), 'articles:read');
        expect(JSON.stringify(outcome)).not.toContain(secret.slice(22));
      }
    });
  });

  /** Admits n requests and returns the last admission. */
  async function admitMany(a: Access, n: number, profile: Profile, keyId: string, tier: 'member' | 'premium'): Promise<Admission> {
    let last: Admission | undefined;
    for (let i = 0; i < n; i++) last = await a.admit(profile, keyId, tier);
    if (!last) throw new Error('n must be positive');
    return last;
  }

  describe('per-minute limit', () => {
    it('refuses the 61st member request of a window with Retry-After, and admits the first of the next window', async () => {
      clock = new Date('2026-11-22T10:15:20Z');
      const sixtieth = await admitMany(access, 60, 'A', 'key_aaaaaaaaaaaa', 'member');
      expect(sixtieth).toMatchObject({ allowed: true, headers: { 'X-RateLimit-Remaining': '0' } });

      clock = new Date('2026-11-22T10:15:59.900Z');
      const sixtyFirst = await access.admit('A', 'key_aaaaaaaaaaaa', 'member');
      expect(sixtyFirst).toMatchObject({ allowed: false, status: 429, code: 'rate_limited' });
      expect(sixtyFirst.headers).toMatchObject({
        'Retry-After': '1',
        'X-RateLimit-Limit': '60',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(seconds('2026-11-22T10:16:00Z')),
      });

      clock = new Date('2026-11-22T10:16:00Z');
      const next = await access.admit('A', 'key_aaaaaaaaaaaa', 'member');
      expect(next).toMatchObject({
        allowed: true,
        headers: { 'X-RateLimit-Remaining': '59', 'X-RateLimit-Reset': String(seconds('2026-11-22T10:17:00Z')) },
      });
      expect(next.headers).not.toHaveProperty('Retry-After');
    });

    it('admits exactly the limit when two servers on one state take a key concurrently', async () => {
      const other = await openAccess();
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? access : other).admit(i % 3 === 0 ? 'A' : 'B', 'key_999999999999', 'member')),
      );
      expect(outcomes.filter((o) => o.allowed)).toHaveLength(60);
      expect(outcomes.filter((o) => !o.allowed && o.status === 429 && o.code === 'rate_limited')).toHaveLength(40);
      const remaining = outcomes
        .filter((o) => o.allowed)
        .map((o) => Number(o.headers['X-RateLimit-Remaining']))
        .sort((a, b) => a - b);
      expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => i));
    });

    it('counts each key separately', async () => {
      await admitMany(access, 60, 'B', 'key_aaaaaaaaaaaa', 'member');
      expect((await access.admit('B', 'key_aaaaaaaaaaaa', 'member')).allowed).toBe(false);
      expect((await access.admit('B', 'key_bbbbbbbbbbbb', 'member')).allowed).toBe(true);
    });
  });

  describe('monthly quota', () => {
    /** Member requests spread one per second, so the minute limit (60) never interferes. */
    async function spreadAdmits(n: number, profile: Profile): Promise<Admission> {
      let last: Admission | undefined;
      for (let i = 0; i < n; i++) {
        last = await access.admit(profile, 'key_cccccccccccc', 'member');
        clock = new Date(clock.getTime() + 1000);
      }
      if (!last) throw new Error('n must be positive');
      return last;
    }

    /**
     * Sets a key's count of the month in the store itself, as thousands of earlier requests would
     * have left it: counting them one by one would only test the counter 20,000 times over.
     */
    async function seedMonthCount(keyId: string, month: string, requests: number): Promise<void> {
      if (backend === 'file') {
        const db = openSqlite(path.join(dir, 'usage.sqlite'));
        const changed = db.prepare('UPDATE monthly_usage SET requests = ? WHERE key_id = ? AND month = ?').run(requests, keyId, month);
        db.close();
        expect(Number(changed.changes)).toBe(1);
      } else {
        const client = new Redis(redis!.url);
        await client.hset(`pdsnap:usage:${month}`, `${keyId}:requests`, requests);
        await client.quit();
      }
    }

    it('goes from included to metered overage to the hard cap, and opens again in the next UTC month', async () => {
      clock = new Date('2026-11-29T00:00:00Z');
      await spreadAdmits(1, 'B');
      await seedMonthCount('key_cccccccccccc', '2026-11', 9_998);
      expect(await spreadAdmits(1, 'B')).toMatchObject({ allowed: true, headers: { 'X-Quota-Used': '9999', 'X-Quota-Remaining': '1' } });
      const lastIncluded = await spreadAdmits(1, 'B');
      expect(lastIncluded).toMatchObject({ allowed: true, headers: { 'X-Quota-Used': '10000', 'X-Quota-Remaining': '0' } });

      const firstOverage = await spreadAdmits(1, 'A');
      expect(firstOverage).toMatchObject({ allowed: true, headers: { 'X-Quota-Remaining': '0', 'X-Quota-Limit': '20000' } });

      await seedMonthCount('key_cccccccccccc', '2026-11', 19_998);
      await spreadAdmits(1, 'A');
      const lastBeforeCap = await spreadAdmits(1, 'B');
      expect(lastBeforeCap).toMatchObject({ allowed: true, headers: { 'X-Quota-Used': '20000' } });

      clock = new Date('2026-11-30T12:00:00Z');
      const capped = await access.admit('A', 'key_cccccccccccc', 'member');
      expect(capped).toMatchObject({ allowed: false, status: 429, code: 'quota_exceeded' });
      expect(capped.headers).toMatchObject({
        'Retry-After': String(12 * 3600),
        'X-Quota-Reset': String(seconds('2026-12-01T00:00:00Z')),
        'X-Quota-Remaining': '0',
      });

      clock = new Date('2026-11-30T23:59:59Z');
      const lastSecond = await access.admit('B', 'key_cccccccccccc', 'member');
      expect(lastSecond).toMatchObject({
        allowed: false,
        code: 'quota_exceeded',
        headers: { 'Retry-After': '1', 'X-Quota-Used': '20000' },
      });

      clock = new Date('2026-12-01T00:00:00Z');
      expect(await access.admit('B', 'key_cccccccccccc', 'member')).toMatchObject({
        allowed: true,
        headers: { 'X-Quota-Used': '1', 'X-Quota-Remaining': '9999' },
      });
    });

    it('records refused requests apart from the billable ones', async () => {
      await admitMany(access, 61, 'B', 'key_dddddddddddd', 'member');
      await access.close();
      const reopened = await openStore();
      try {
        expect(await reopened.usage.monthlyUsage('2026-11')).toEqual([
          { keyId: 'key_dddddddddddd', tier: 'member', requests: 60, rejected: 1 },
        ]);
      } finally {
        await reopened.close();
      }
    });

    it('keeps month and minute counts across a restart of the server', async () => {
      await admitMany(access, 42, 'A', 'key_eeeeeeeeeeee', 'premium');
      await access.close();
      const restarted = await openAccess();
      expect(await restarted.admit('B', 'key_eeeeeeeeeeee', 'premium')).toMatchObject({
        allowed: true,
        headers: { 'X-Quota-Used': '43', 'X-RateLimit-Remaining': String(300 - 43), 'X-Quota-Tier': 'premium' },
      });
    });
  });

  describe('headers on success', () => {
    it('carries every Profile A header with resets in Unix seconds', async () => {
      clock = new Date('2026-11-22T10:15:42Z');
      const admission = await access.admit('A', 'key_ffffffffffff', 'member');
      expect(admission).toEqual({
        allowed: true,
        month: '2026-11',
        headers: {
          'X-RateLimit-Limit': '60',
          'X-RateLimit-Remaining': '59',
          'X-RateLimit-Reset': String(seconds('2026-11-22T10:16:00Z')),
          'X-Quota-Limit': '20000',
          'X-Quota-Remaining': '9999',
          'X-Quota-Reset': String(seconds('2026-12-01T00:00:00Z')),
        },
      });
    });
  });
});
