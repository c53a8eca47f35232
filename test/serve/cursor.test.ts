import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CursorProblem } from '../../src/serve/api-error.js';
import { CursorCodec, queryFingerprint } from '../../src/serve/cursor.js';
import { defaultCursorSecretFile, loadOrCreateCursorSecret } from '../../src/serve/cursor-secret.js';

const codec = new CursorCodec('s'.repeat(40));
const binding = {
  snapshotId: 'articles-20261122T110000Z-0123456789ab',
  operationId: 'listArticles',
  queryHash: queryFingerprint({ locale: 'en-US' }),
};

describe('CursorCodec', () => {
  it('round-trips an offset in a URL-safe token', () => {
    const token = codec.encode(binding, 40);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(codec.decode(token, binding)).toBe(40);
  });

  it.each([
    ['another snapshot', { ...binding, snapshotId: 'articles-20261123T110000Z-0123456789ab' }, /another snapshot/],
    ['another operation', { ...binding, operationId: 'listSmartMoneyTrades' }, /another operation/],
    ['other filters', { ...binding, queryHash: queryFingerprint({ locale: 'ko-KR' }) }, /other query parameters/],
  ])('refuses a cursor presented for %s', (_label, expected, message) => {
    expect(() => codec.decode(codec.encode(binding, 20), expected)).toThrow(message);
  });

  it('refuses a cursor signed with another secret, an edited payload and garbage', () => {
    const foreign = new CursorCodec('t'.repeat(40)).encode(binding, 20);
    const [payload, signature] = codec.encode(binding, 20).split('.') as [string, string];
    const edited = Buffer.from(Buffer.from(payload, 'base64url').toString().replace(',20]', ',0]')).toString('base64url');
    for (const bad of [foreign, `${edited}.${signature}`, 'abc', '', 'a.b.c', `${payload}.`]) {
      expect(() => codec.decode(bad, binding)).toThrow(CursorProblem);
    }
  });

  it('refuses every other spelling of the signature, also those that decode to the same bytes', () => {
    const [payload, signature] = codec.encode(binding, 20).split('.') as [string, string];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = signature.at(-1)!;
    const spellings = [...alphabet].filter((c) => c !== last).map((c) => `${payload}.${signature.slice(0, -1)}${c}`);
    // Some of them are the same bytes to a base64url decoder: the point of the test.
    expect(
      spellings.filter((s) => Buffer.from(s.split('.')[1]!, 'base64url').equals(Buffer.from(signature, 'base64url'))).length,
    ).toBeGreaterThan(0);
    for (const bad of spellings) expect(() => codec.decode(bad, binding), bad).toThrow(CursorProblem);
    expect(codec.decode(`${payload}.${signature}`, binding)).toBe(20);
  });

  it('fingerprints filters independently of their order and ignores absent ones', () => {
    expect(queryFingerprint({ a: 1, b: 'x' })).toBe(queryFingerprint({ b: 'x', a: 1, c: undefined }));
    expect(queryFingerprint({ a: 1 })).not.toBe(queryFingerprint({ a: 2 }));
  });
});

describe('cursor secret file', () => {
  it('is created beside the keys file with mode 0600 and reused afterwards', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-secret-'));
    const file = defaultCursorSecretFile(path.join(dir, 'keys.json'));
    expect(file).toBe(path.join(dir, 'cursor-secret'));
    const first = await loadOrCreateCursorSecret(file);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateCursorSecret(file)).toBe(first);
    expect((await readFile(file, 'utf8')).trim()).toBe(first);
  });

  it('refuses a secret shorter than 32 characters', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-secret-'));
    const file = path.join(dir, 'short');
    await writeFile(file, 'too-short\n', { mode: 0o600 });
    await expect(loadOrCreateCursorSecret(file)).rejects.toThrow(/at least 32 characters/);
  });
});
