import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyFileError } from '../../../src/serve/access/key-record.js';
import { KeyNotFoundError, KeyStore, createKey, readKeys, revokeKey } from '../../../src/serve/access/key-store.js';

const NOW = new Date('2026-11-22T08:00:00Z');
let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-keys-'));
  file = path.join(dir, 'nested', 'keys.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('key store', () => {
  it('stores only a SHA-256 of a newly created secret, never the secret itself', async () => {
    const { record, secret } = await createKey(file, { name: 'ci', scopes: ['articles:read'], tier: 'member' }, NOW);
    expect(secret).toMatch(/^pds_live_[0-9a-f]{12}_[A-Za-z0-9_-]{32}$/);
    expect(record.id).toBe(`key_${secret.slice(9, 21)}`);
    const onDisk = await readFile(file, 'utf8');
    expect(onDisk).not.toContain(secret);
    expect(onDisk).not.toContain(secret.slice(22));
    expect(JSON.parse(onDisk).keys[0]).toEqual({
      id: record.id,
      name: 'ci',
      scopes: ['articles:read'],
      tier: 'member',
      createdAt: '2026-11-22T08:00:00.000Z',
      revokedAt: null,
      secretSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('finds a key by its secret and by nothing else', async () => {
    const { record, secret } = await createKey(file, { name: 'a', scopes: ['calendar:read'], tier: 'premium' }, NOW);
    const store = new KeyStore(file);
    expect(store.find(secret)?.id).toBe(record.id);
    const tampered = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    expect(store.find(tampered)).toBeNull();
    expect(store.find(record.id)).toBeNull();
    expect(store.find('')).toBeNull();
    expect(store.find(`${secret}${'x'.repeat(500)}`)).toBeNull();
  });

  it('sees keys created and revoked after it was opened, as a running server must', async () => {
    const store = new KeyStore(file);
    expect(await store.list()).toEqual([]);
    const { record, secret } = await createKey(file, { name: 'late', scopes: ['articles:read'], tier: 'member' }, NOW);
    expect(store.find(secret)?.revokedAt).toBeNull();
    await revokeKey(file, record.id, new Date('2026-11-23T00:00:00Z'));
    expect(store.find(secret)?.revokedAt).toBe('2026-11-23T00:00:00.000Z');
  });

  it('reads the file again for a fresh lookup, however long it may otherwise reuse what it read', async () => {
    const { record } = await createKey(file, { name: 'cached', scopes: ['articles:read'], tier: 'member' }, NOW);
    const store = new KeyStore(file, undefined, 3_600_000);
    try {
      expect((await store.keyById(record.id))?.revokedAt).toBeNull();
      await revokeKey(file, record.id, new Date('2026-11-23T00:00:00Z'));
      expect((await store.keyById(record.id, true))?.revokedAt).toBe('2026-11-23T00:00:00.000Z');
    } finally {
      store.close();
    }
  });

  it('keeps the first revocation date when a key is revoked twice', async () => {
    const { record } = await createKey(file, { name: 'x', scopes: ['articles:read'], tier: 'member' }, NOW);
    await revokeKey(file, record.id, new Date('2026-11-23T00:00:00Z'));
    const again = await revokeKey(file, record.id, new Date('2026-11-24T00:00:00Z'));
    expect(again).toMatchObject({ alreadyRevoked: true, record: { revokedAt: '2026-11-23T00:00:00.000Z' } });
  });

  it('rejects revoking an unknown id', async () => {
    await expect(revokeKey(file, 'key_000000000000', NOW)).rejects.toThrow(KeyNotFoundError);
  });

  it('keeps every key when several are created concurrently', async () => {
    await Promise.all(
      Array.from({ length: 5 }, (_, i) => createKey(file, { name: `k${i}`, scopes: ['articles:read'], tier: 'member' }, NOW)),
    );
    expect((await readKeys(file)).map((k) => k.name).sort()).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
  });

  it('names the file and the field of a broken keys file, and refuses to start on it', async () => {
    await createKey(file, { name: 'x', scopes: ['articles:read'], tier: 'member' }, NOW);
    const json = JSON.parse(await readFile(file, 'utf8'));
    json.keys[0].tier = 'gold';
    await writeFile(file, JSON.stringify(json));
    expect(() => new KeyStore(file)).toThrow(KeyFileError);
    expect(() => new KeyStore(file)).toThrow(`${file}: keys[0].tier:`);
  });

  it('keeps the last good keys when the file is broken while running, and reports it', async () => {
    const { secret } = await createKey(file, { name: 'x', scopes: ['articles:read'], tier: 'member' }, NOW);
    const errors: Error[] = [];
    const store = new KeyStore(file, (e) => errors.push(e));
    await writeFile(file, '{ not json');
    expect(store.find(secret)?.name).toBe('x');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain('not valid JSON');
  });

  it('refuses every key once the file is gone while running, and says so once', async () => {
    const { secret } = await createKey(file, { name: 'x', scopes: ['articles:read'], tier: 'member' }, NOW);
    const errors: Error[] = [];
    const store = new KeyStore(file, (e) => errors.push(e));
    expect(store.find(secret)?.name).toBe('x');
    await rm(file);
    expect(store.find(secret)).toBeNull();
    expect(store.find(secret)).toBeNull();
    expect(errors.map((e) => e.message)).toEqual([`${file} is gone: no key is valid until it is back (every request answers 401)`]);
  });
});
