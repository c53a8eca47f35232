import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccess, type Access, type Admission, type Profile } from '../../../src/serve/access/index.js';
import { createKey, revokeKey } from '../../../src/serve/access/key-store.js';
import { UsageStore } from '../../../src/serve/access/usage-store.js';

let dir: string;
let keysFile: string;
let usageDbFile: string;
let clock: Date;
let access: Access;
const open: Access[] = [];

function openAccess(): Access {
  const opened = createAccess({ keysFile, usageDbFile, now: () => clock });
  open.push(opened);
  return opened;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const seconds = (iso: string) => Date.parse(iso) / 1000;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-access-'));
  keysFile = path.join(dir, 'keys.json');
  usageDbFile = path.join(dir, 'usage.sqlite');
  clock = new Date('2026-11-22T10:15:00Z');
  access = openAccess();
});
afterEach(async () => {
  for (const a of open.splice(0)) a.close();
  await rm(dir, { recursive: true, force: true });
});

describe('authenticate', () => {
  it('accepts a created key on both profiles and returns its metadata, not its secret', async () => {
    const { record, secret } = await createKey(keysFile, { name: 'ci', scopes: ['articles:read'], tier: 'premium' }, clock);
    const outcome = access.authenticate('A', bearer(secret), 'articles:read');
    expect(outcome).toEqual({ ok: true, key: { id: record.id, name: 'ci', tier: 'premium', scopes: ['articles:read'] } });
    expect(access.authenticate('B', bearer(secret)).ok).toBe(true);
  });

  it('refuses a missing key: Profile A invalid_api_key, Profile B unauthorized', () => {
    expect(access.authenticate('A', {}, 'articles:read')).toMatchObject({ ok: false, status: 401, code: 'invalid_api_key' });
    expect(access.authenticate('B', {})).toMatchObject({ ok: false, status: 401, code: 'unauthorized' });
  });

  it('refuses a wrong key: Profile A invalid_api_key, Profile B invalid_key', async () => {
    const { secret } = await createKey(keysFile, { name: 'ci', scopes: ['articles:read'], tier: 'member' }, clock);
    const wrong = `${secret.slice(0, -4)}AAAA` === secret ? `${secret.slice(0, -4)}BBBB` : `${secret.slice(0, -4)}AAAA`;
    expect(access.authenticate('A', bearer(wrong), 'articles:read')).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(access.authenticate('B', bearer(wrong))).toMatchObject({ status: 401, code: 'invalid_key' });
    expect(access.authenticate('B', { authorization: `Basic ${secret}` })).toMatchObject({ status: 401, code: 'invalid_key' });
  });

  it('refuses a key revoked while the server runs: Profile A invalid_api_key, Profile B invalid_key', async () => {
    const { record, secret } = await createKey(keysFile, { name: 'ci', scopes: ['articles:read'], tier: 'member' }, clock);
    expect(access.authenticate('A', bearer(secret), 'articles:read').ok).toBe(true);
    await revokeKey(keysFile, record.id, clock);
    expect(access.authenticate('A', bearer(secret), 'articles:read')).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(access.authenticate('B', { 'x-api-key': secret })).toMatchObject({ status: 401, code: 'invalid_key', message: 'API key has been revoked' });
  });

  it('accepts X-API-Key on Profile B only', async () => {
    const { secret } = await createKey(keysFile, { name: 'ci', scopes: ['articles:read'], tier: 'member' }, clock);
    expect(access.authenticate('B', { 'x-api-key': secret }).ok).toBe(true);
    expect(access.authenticate('A', { 'x-api-key': secret }, 'articles:read')).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });

  it('refuses a Profile B request whose Bearer and X-API-Key disagree', async () => {
    const a = await createKey(keysFile, { name: 'a', scopes: ['articles:read'], tier: 'member' }, clock);
    const b = await createKey(keysFile, { name: 'b', scopes: ['articles:read'], tier: 'member' }, clock);
    expect(access.authenticate('B', { ...bearer(a.secret), 'x-api-key': b.secret })).toMatchObject({ status: 401, code: 'invalid_key' });
    expect(access.authenticate('B', { ...bearer(a.secret), 'x-api-key': a.secret }).ok).toBe(true);
  });

  it('answers 403 insufficient_scope on Profile A for a valid key without the operation scope', async () => {
    const { secret } = await createKey(keysFile, { name: 'ci', scopes: ['articles:read', 'calendar:read'], tier: 'member' }, clock);
    expect(access.authenticate('A', bearer(secret), 'calendar:read').ok).toBe(true);
    const outcome = access.authenticate('A', bearer(secret), 'smart-money:read');
    expect(outcome).toMatchObject({ ok: false, status: 403, code: 'insufficient_scope' });
    if (outcome.ok) throw new Error('unreachable');
    expect(outcome.message).toContain('smart-money:read');
    expect(outcome.headers['X-RateLimit-Limit']).toBe('60');
  });

  it('holds scopes on Profile B too: a key without the scope gets 403 insufficient_scope', async () => {
    const { secret } = await createKey(keysFile, { name: 'ci', scopes: ['smart-money:read'], tier: 'member' }, clock);
    expect(access.authenticate('B', { 'x-api-key': secret }, 'articles:read')).toMatchObject({ ok: false, status: 403, code: 'insufficient_scope' });
    expect(access.authenticate('B', { 'x-api-key': secret }).ok).toBe(true);
  });

  it('releases a server-error request from the month it was counted in, but not from its window', () => {
    clock = new Date('2026-11-22T10:15:00Z');
    const first = access.admit('A', 'key_aaaaaaaaaaaa', 'member');
    if (!first.allowed) throw new Error('unreachable');
    expect(first.month).toBe('2026-11');
    access.release('key_aaaaaaaaaaaa', first.month);
    const second = access.admit('A', 'key_aaaaaaaaaaaa', 'member');
    expect(second.headers['X-Quota-Remaining']).toBe('9999');
    expect(second.headers['X-RateLimit-Remaining']).toBe('58');
  });

  it('puts member-tier headers on a 401, with nothing consumed', () => {
    const outcome = access.authenticate('B', {});
    if (outcome.ok) throw new Error('unreachable');
    expect(outcome.headers).toEqual(access.headersForUnauthenticated('B'));
    expect(outcome.headers).toMatchObject({ 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '60', 'X-Quota-Tier': 'free', 'X-Quota-Used': '0' });
  });

  it('never echoes the presented key in an error message', async () => {
    const { secret } = await createKey(keysFile, { name: 'ci', scopes: ['articles:read'], tier: 'member' }, clock);
    await revokeKey(keysFile, `key_${secret.slice(9, 21)}`, clock);
    for (const profile of ['A', 'B'] as Profile[]) {
      const outcome = access.authenticate(profile, bearer(secret), 'articles:read');
      expect(JSON.stringify(outcome)).not.toContain(secret.slice(22));
    }
  });
});

/** Admits n requests and returns the last admission. */
function admitMany(a: Access, n: number, profile: Profile, keyId: string, tier: 'member' | 'premium'): Admission {
  let last: Admission | undefined;
  for (let i = 0; i < n; i++) last = a.admit(profile, keyId, tier);
  if (!last) throw new Error('n must be positive');
  return last;
}

describe('per-minute limit', () => {
  it('refuses the 61st member request of a window with Retry-After, and admits the first of the next window', () => {
    clock = new Date('2026-11-22T10:15:20Z');
    const sixtieth = admitMany(access, 60, 'A', 'key_aaaaaaaaaaaa', 'member');
    expect(sixtieth).toMatchObject({ allowed: true, headers: { 'X-RateLimit-Remaining': '0' } });

    clock = new Date('2026-11-22T10:15:59.900Z');
    const sixtyFirst = access.admit('A', 'key_aaaaaaaaaaaa', 'member');
    expect(sixtyFirst).toMatchObject({ allowed: false, status: 429, code: 'rate_limited' });
    expect(sixtyFirst.headers).toMatchObject({
      'Retry-After': '1',
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(seconds('2026-11-22T10:16:00Z')),
    });

    clock = new Date('2026-11-22T10:16:00Z');
    const next = access.admit('A', 'key_aaaaaaaaaaaa', 'member');
    expect(next).toMatchObject({ allowed: true, headers: { 'X-RateLimit-Remaining': '59', 'X-RateLimit-Reset': String(seconds('2026-11-22T10:17:00Z')) } });
    expect(next.headers).not.toHaveProperty('Retry-After');
  });

  it('counts each key separately', () => {
    admitMany(access, 60, 'B', 'key_aaaaaaaaaaaa', 'member');
    expect(access.admit('B', 'key_aaaaaaaaaaaa', 'member').allowed).toBe(false);
    expect(access.admit('B', 'key_bbbbbbbbbbbb', 'member').allowed).toBe(true);
  });
});

describe('monthly quota', () => {
  /** Member requests spread one per second, so the minute limit (60) never interferes. */
  function spreadAdmits(n: number, profile: Profile): Admission {
    let last: Admission | undefined;
    for (let i = 0; i < n; i++) {
      last = access.admit(profile, 'key_cccccccccccc', 'member');
      clock = new Date(clock.getTime() + 1000);
    }
    if (!last) throw new Error('n must be positive');
    return last;
  }

  it('goes from included to metered overage to the hard cap, and opens again in the next UTC month', () => {
    clock = new Date('2026-11-29T00:00:00Z');
    const lastIncluded = spreadAdmits(10_000, 'B');
    expect(lastIncluded).toMatchObject({ allowed: true, headers: { 'X-Quota-Used': '10000', 'X-Quota-Remaining': '0' } });

    const firstOverage = spreadAdmits(1, 'A');
    expect(firstOverage).toMatchObject({ allowed: true, headers: { 'X-Quota-Remaining': '0', 'X-Quota-Limit': '20000' } });

    const lastBeforeCap = spreadAdmits(9_999, 'B');
    expect(lastBeforeCap).toMatchObject({ allowed: true, headers: { 'X-Quota-Used': '20000' } });

    clock = new Date('2026-11-30T12:00:00Z');
    const capped = access.admit('A', 'key_cccccccccccc', 'member');
    expect(capped).toMatchObject({ allowed: false, status: 429, code: 'quota_exceeded' });
    expect(capped.headers).toMatchObject({
      'Retry-After': String(12 * 3600),
      'X-Quota-Reset': String(seconds('2026-12-01T00:00:00Z')),
      'X-Quota-Remaining': '0',
    });

    clock = new Date('2026-11-30T23:59:59Z');
    const lastSecond = access.admit('B', 'key_cccccccccccc', 'member');
    expect(lastSecond).toMatchObject({ allowed: false, code: 'quota_exceeded', headers: { 'Retry-After': '1', 'X-Quota-Used': '20000' } });

    clock = new Date('2026-12-01T00:00:00Z');
    expect(access.admit('B', 'key_cccccccccccc', 'member')).toMatchObject({
      allowed: true,
      headers: { 'X-Quota-Used': '1', 'X-Quota-Remaining': '9999' },
    });
  });

  it('records refused requests apart from the billable ones', () => {
    admitMany(access, 61, 'B', 'key_dddddddddddd', 'member');
    access.close();
    const store = UsageStore.open(usageDbFile);
    try {
      expect(store.monthlyUsage('2026-11')).toEqual([{ keyId: 'key_dddddddddddd', tier: 'member', requests: 60, rejected: 1 }]);
    } finally {
      store.close();
    }
  });

  it('keeps month and minute counts across a restart of the server', () => {
    admitMany(access, 42, 'A', 'key_eeeeeeeeeeee', 'premium');
    access.close();
    const restarted = openAccess();
    expect(restarted.admit('B', 'key_eeeeeeeeeeee', 'premium')).toMatchObject({
      allowed: true,
      headers: { 'X-Quota-Used': '43', 'X-RateLimit-Remaining': String(300 - 43), 'X-Quota-Tier': 'premium' },
    });
  });
});

describe('headers on success', () => {
  it('carries every Profile A header with resets in Unix seconds', () => {
    clock = new Date('2026-11-22T10:15:42Z');
    const admission = access.admit('A', 'key_ffffffffffff', 'member');
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
