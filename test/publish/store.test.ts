import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/publish/canonical-json.js';
import type { ManifestFields } from '../../src/publish/staged-bundle.js';
import { FolderStore } from '../../src/publish/folder-store.js';
import { BundleIntegrityError } from '../../src/publish/store-errors.js';
import { bundleFilePath } from '../helpers/bundle-file.js';
import { article } from '../helpers/records.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');

function fields(generatedAt = NOW.toISOString()): ManifestFields {
  return {
    generatedAt,
    facts: { generatedAt, latestPublishedAt: '2026-11-21T09:00:00.000Z' },
    freshUntil: '2026-11-28T09:00:00.000Z',
    allowStale: false,
    sources: [{ path: 'articles/a.md', bytes: 10, sha256: 'a'.repeat(64) }],
  };
}

async function publish(store: FolderStore, records: unknown[], generatedAt?: string) {
  const staged = await store.stageArrays('articles', { articles: records });
  return store.commit(staged, fields(generatedAt), NOW);
}

async function readAll(records: AsyncIterable<unknown>): Promise<unknown[]> {
  const all: unknown[] = [];
  for await (const record of records) all.push(record);
  return all;
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[2,{"y":2,"z":1}]},"b":1}');
  });
  it.each([NaN, Infinity, undefined])('refuses %s instead of writing null', (bad) => {
    expect(() => canonicalJson({ a: [1, bad] })).toThrow(/\$\.a\[1\]/);
  });
});

describe('FolderStore', () => {
  let root: string;
  let store: FolderStore;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'pdsnap-store-'));
    store = new FolderStore(root);
  });

  it('publishes a bundle whose resource bytes are the canonical JSON of the records', async () => {
    const records = [article('b-story'), article('a-story')];
    const result = await publish(store, records);
    expect(result).toMatchObject({ published: true, madeCurrent: true, previousSnapshotId: null });
    expect(result.snapshotId).toMatch(/^articles-20261122T120000Z-[0-9a-f]{12}$/);
    const bytes = await readFile(await bundleFilePath(root, result.snapshotId, 'articles/00000.ndjson'), 'utf8');
    expect(bytes).toBe(records.map((record) => `${canonicalJson(record)}\n`).join(''));
    const loaded = await store.openCurrent('articles');
    expect(await readAll(loaded!.records('articles'))).toEqual(records);
    expect(loaded?.manifest.files).toEqual([expect.objectContaining({ path: 'articles/00000.ndjson', records: 2 })]);
  });

  it('gives the same snapshot id to the same content and makes a second publish a no-op', async () => {
    const first = await publish(store, [article('one')]);
    const manifestBefore = await readFile(path.join(root, 'bundles/articles', first.snapshotId, 'manifest.json'));
    const second = await publish(store, [article('one')]);
    expect(second).toEqual({
      snapshotId: first.snapshotId,
      published: false,
      madeCurrent: false,
      previousSnapshotId: first.snapshotId,
      keptNewerCurrent: null,
      repairedPointer: null,
      repairedPointerFile: null,
      republishedDamaged: null,
      removedLeftovers: [],
    });
    expect(await readFile(path.join(root, 'bundles/articles', first.snapshotId, 'manifest.json'))).toEqual(manifestBefore);
    expect(await readdir(path.join(root, 'tmp'))).toEqual([]);
  });

  it('gives different content a different snapshot id', async () => {
    const a = await publish(store, [article('one')]);
    const b = await publish(store, [article('two')]);
    expect(b.snapshotId).not.toBe(a.snapshotId);
    expect(b.previousSnapshotId).toBe(a.snapshotId);
  });

  it('refuses to stage a record that fails its schema, leaving nothing behind', async () => {
    const bad = { ...article('x'), slug: 'Not A Slug' };
    await expect(store.stageArrays('articles', { articles: [bad] })).rejects.toThrow(/record 0: \/slug/);
    expect(await readdir(path.join(root, 'tmp'))).toEqual([]);
    expect(await store.currentPointer('articles')).toBeNull();
  });

  it('refuses a bundle with one flipped byte in a resource', async () => {
    const { snapshotId } = await publish(store, [article('one')]);
    const file = await bundleFilePath(root, snapshotId, 'articles/00000.ndjson');
    const bytes = await readFile(file);
    bytes[5] = bytes[5]! ^ 0x01;
    await writeFile(file, bytes);
    const bundle = await store.openBundle(snapshotId);
    await expect(readAll(bundle.records('articles'))).rejects.toThrow(BundleIntegrityError);
    await expect(readAll(bundle.records('articles'))).rejects.toThrow(/does not match its sha256/);
    await expect(store.verifyBundle(snapshotId)).rejects.toThrow(/does not match its sha256/);
  });

  it('refuses a bundle whose manifest was edited after publishing', async () => {
    const { snapshotId } = await publish(store, [article('one')]);
    const file = path.join(root, 'bundles/articles', snapshotId, 'manifest.json');
    const manifest = JSON.parse(await readFile(file, 'utf8'));
    manifest.freshUntil = '2030-01-01T00:00:00.000Z';
    await writeFile(file, JSON.stringify(manifest));
    await expect(store.openBundle(snapshotId)).rejects.toThrow(/does not match its snapshot id/);
  });

  it('rolls current back to an earlier snapshot and refuses one of another dataset', async () => {
    const a = await publish(store, [article('one')]);
    const b = await publish(store, [article('two')]);
    expect((await store.currentPointer('articles'))?.snapshotId).toBe(b.snapshotId);
    await store.rollback('articles', a.snapshotId, NOW);
    expect((await store.currentPointer('articles'))?.snapshotId).toBe(a.snapshotId);
    await expect(store.rollback('calendar', a.snapshotId, NOW)).rejects.toThrow(/does not belong to dataset calendar/);
  });

  it('gc --keep 1 keeps the current bundle and the one before it', async () => {
    const ids: string[] = [];
    for (let day = 10; day <= 14; day++) {
      ids.push((await publish(store, [article(`story-${day}`)], `2026-11-${day}T00:00:00.000Z`)).snapshotId);
    }
    await store.rollback('articles', ids[2]!, NOW); // current is now the middle one
    const result = await store.gc(1, false);
    expect(result.kept.sort()).toEqual([ids[1]!, ids[2]!, ids[4]!].sort());
    expect(result.deleted.sort()).toEqual([ids[0]!, ids[3]!].sort());
    const left = (await store.listSnapshots()).map((s) => s.snapshotId).sort();
    expect(left).toEqual(result.kept.sort());
    expect((await store.openCurrent('articles'))?.manifest.snapshotId).toBe(ids[2]);
  });

  it('gc keeps the snapshot that was current before, not a candidate published between the two', async () => {
    const wasCurrent = await publish(store, [article('a')], '2026-11-10T00:00:00.000Z');
    const staged = await store.stageArrays('articles', { articles: [article('b')] });
    const candidate = await store.commit(staged, fields('2026-11-11T00:00:00.000Z'), NOW, { promote: false });
    const current = await publish(store, [article('c')], '2026-11-12T00:00:00.000Z');
    expect(candidate.madeCurrent).toBe(false);
    const result = await store.gc(1, false);
    expect(result.kept).toContain(wasCurrent.snapshotId);
    expect(result.kept).toContain(current.snapshotId);
    expect(result.deleted).toEqual([candidate.snapshotId]);
  });

  it('leaves current on a snapshot generated later when an older build commits after it', async () => {
    const newer = await publish(store, [article('newer')], '2026-11-22T12:00:00.000Z');
    const older = await publish(store, [article('older')], '2026-11-22T06:00:00.000Z');
    expect(older).toMatchObject({ published: true, madeCurrent: false, keptNewerCurrent: { snapshotId: newer.snapshotId } });
    expect((await store.currentPointer('articles'))?.snapshotId).toBe(newer.snapshotId);
    await store.rollback('articles', older.snapshotId, NOW); // rollback still moves it back on purpose
    expect((await store.currentPointer('articles'))?.snapshotId).toBe(older.snapshotId);
  });

  it('sorts manifest sources by code unit, not by the machine locale', async () => {
    const staged = await store.stageArrays('articles', { articles: [article('one')] });
    const sources = ['articles/b.md', 'articles/aab.md', 'articles/Z.md', 'articles/ä.md'].map((p) => ({
      path: p,
      bytes: 1,
      sha256: 'b'.repeat(64),
    }));
    const { snapshotId } = await store.commit(staged, { ...fields(), sources }, NOW);
    const manifest = (await store.openBundle(snapshotId)).manifest;
    expect(manifest.sources.map((s) => s.path)).toEqual(['articles/Z.md', 'articles/aab.md', 'articles/b.md', 'articles/ä.md']);
  });

  it('ignores a stray folder among the bundles instead of failing gc half way', async () => {
    for (let day = 10; day <= 13; day++) await publish(store, [article(`s-${day}`)], `2026-11-${day}T00:00:00.000Z`);
    await mkdir(path.join(root, 'bundles/articles/notes-from-ops'), { recursive: true });
    const result = await store.gc(1, false);
    expect(result.deleted).toHaveLength(2);
    expect(result.deleted.concat(result.kept)).not.toContain('notes-from-ops');
    expect(await readdir(path.join(root, 'bundles/articles'))).toContain('notes-from-ops');
  });

  it('gc --dry-run deletes nothing', async () => {
    const ids: string[] = [];
    for (let day = 10; day <= 13; day++) {
      ids.push((await publish(store, [article(`s-${day}`)], `2026-11-${day}T00:00:00.000Z`)).snapshotId);
    }
    const result = await store.gc(1, true);
    expect(result.deleted.sort()).toEqual([ids[0]!, ids[1]!].sort());
    expect(await store.listSnapshots()).toHaveLength(4);
  });
});
