import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccess } from '../../../src/serve/access/index.js';
import { runCli, tempDir } from '../../helpers/cli.js';

let dir: string;
let keysFile: string;
let usageDb: string;

beforeEach(async () => {
  dir = await tempDir('keys-cli');
  keysFile = path.join(dir, 'keys.json');
  usageDb = path.join(dir, 'usage.sqlite');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function createKeyWithCli(name: string, tier: 'member' | 'premium') {
  const result = await runCli([
    'keys',
    '--keys',
    keysFile,
    'create',
    '--name',
    name,
    '--scopes',
    'articles:read,calendar:read',
    '--tier',
    tier,
    '--json',
  ]);
  expect(result.exitCode).toBe(0);
  return { created: JSON.parse(String(result.stdout)) as { id: string; key: string; tier: string }, stderr: String(result.stderr) };
}

describe('pdsnap keys', () => {
  it('prints a new key once with a warning, stores only its hash, and never lists it', async () => {
    const { created, stderr } = await createKeyWithCli('ci bot', 'premium');
    expect(created).toMatchObject({ name: 'ci bot', tier: 'premium', scopes: ['articles:read', 'calendar:read'], revokedAt: null });
    expect(created.key).toMatch(/^pds_live_/);
    expect(stderr).toContain('shown once');
    expect(await readFile(keysFile, 'utf8')).not.toContain(created.key);

    const list = await runCli(['keys', '--keys', keysFile, 'list', '--json']);
    expect(list.exitCode).toBe(0);
    expect(String(list.stdout)).not.toContain(created.key);
    expect(JSON.parse(String(list.stdout)).keys).toEqual([expect.objectContaining({ id: created.id, name: 'ci bot' })]);
    expect(JSON.parse(String(list.stdout)).keys[0]).not.toHaveProperty('secretSha256');
  });

  it('revokes a key so that a running server refuses it', async () => {
    const { created } = await createKeyWithCli('soon revoked', 'member');
    const access = createAccess({ keysFile, usageDbFile: usageDb, now: () => new Date('2026-11-22T08:00:00Z') });
    try {
      expect((await access.authenticate('B', { 'x-api-key': created.key })).ok).toBe(true);
      const revoke = await runCli(['keys', 'revoke', created.id, '--keys', keysFile]);
      expect(revoke.exitCode).toBe(0);
      expect(String(revoke.stdout)).toContain(`revoked ${created.id}`);
      expect(await access.authenticate('B', { 'x-api-key': created.key })).toMatchObject({ ok: false, code: 'invalid_key' });
    } finally {
      await access.close();
    }
  });

  it('dates creation and revocation by the clock pdsnap reads everywhere (PDSNAP_CLOCK when set)', async () => {
    const env = { PDSNAP_CLOCK: '2026-11-01T00:00:00Z' };
    const create = await runCli(['keys', '--keys', keysFile, 'create', '--name', 'dated', '--scopes', 'articles:read', '--json'], { env });
    const created = JSON.parse(String(create.stdout)) as { id: string; createdAt: string };
    expect(created.createdAt).toBe('2026-11-01T00:00:00.000Z');
    await runCli(['keys', 'revoke', created.id, '--keys', keysFile], { env: { PDSNAP_CLOCK: '2026-11-02T00:00:00Z' } });
    const listed = JSON.parse(String((await runCli(['keys', '--keys', keysFile, 'list', '--json'])).stdout)) as {
      keys: { id: string; revokedAt: string }[];
    };
    expect(listed.keys.find((k) => k.id === created.id)?.revokedAt).toBe('2026-11-02T00:00:00.000Z');
  });

  it('rejects an unknown scope, an unknown tier, a missing name and an unknown id with exit 3', async () => {
    const cases = [
      [['create', '--name', 'x', '--scopes', 'articles:write'], '--scopes'],
      [['create', '--name', 'x', '--scopes', 'articles:read', '--tier', 'gold'], '--tier'],
      [['create', '--scopes', 'articles:read'], '--name'],
      [['revoke', 'key_000000000000'], 'key_000000000000'],
    ] as const;
    for (const [args, mentioned] of cases) {
      const result = await runCli(['keys', '--keys', keysFile, ...args]);
      expect(result.exitCode, args.join(' ')).toBe(3);
      expect(String(result.stderr)).toContain(mentioned);
    }
  });
});

describe('pdsnap usage', () => {
  it('reports requests, overage, billable amount and the hard cap per key for the month of --now', async () => {
    const member = (await createKeyWithCli('member key', 'member')).created;
    const premium = (await createKeyWithCli('premium key', 'premium')).created;
    let clock = new Date('2026-11-01T00:00:00Z');
    const access = createAccess({ keysFile, usageDbFile: usageDb, now: () => clock });
    try {
      // One request a second keeps the minute limit out of the way.
      for (let i = 0; i < 10_500; i++) {
        await access.admit('B', member.id, 'member');
        clock = new Date(clock.getTime() + 1000);
      }
      for (let i = 0; i < 3; i++) await access.admit('A', premium.id, 'premium');
    } finally {
      await access.close();
    }

    const result = await runCli(['usage', '--usage-db', usageDb, '--keys', keysFile, '--now', '2026-11-22T08:00:00Z', '--json']);
    expect(result.exitCode).toBe(0);
    const report = JSON.parse(String(result.stdout));
    expect(report.month).toBe('2026-11');
    const byId = Object.fromEntries(report.keys.map((k: { keyId: string }) => [k.keyId, k]));
    expect(byId[member.id]).toMatchObject({
      name: 'member key',
      requests: 10_500,
      included: 10_000,
      overage: 500,
      billableUsd: '1.00',
      hardCapReached: false,
    });
    expect(byId[premium.id]).toMatchObject({ requests: 3, overage: 0, billableUsd: '0.00' });
    expect(report.totals).toMatchObject({ requests: 10_503, billableCents: 100 });

    const december = await runCli(['usage', '--usage-db', usageDb, '--keys', keysFile, '--month', '2026-12', '--json']);
    expect(JSON.parse(String(december.stdout)).totals.requests).toBe(0);
  });

  it('rejects a malformed --month with exit 3', async () => {
    const result = await runCli(['usage', '--usage-db', usageDb, '--keys', keysFile, '--month', '2026-13']);
    expect(result.exitCode).toBe(3);
    expect(String(result.stderr)).toContain('--month');
  });
});
