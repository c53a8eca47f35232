import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASET_RESOURCES } from '../../src/model/dataset.js';
import type { DriftAcceptance } from '../../src/model/manifest.js';
import { diffBundles } from '../../src/publish/diff/bundle-diff.js';
import { bundleFiles } from '../../src/publish/manifest-check.js';
import { FolderStore } from '../../src/publish/folder-store.js';
import { openStore } from '../../src/publish/open-store.js';
import { parseBucketLocation } from '../../src/publish/s3-location.js';
import type { SnapshotStore } from '../../src/publish/snapshot-store.js';
import type { ManifestFields } from '../../src/publish/staged-bundle.js';
import { CurrentMovedError, StoreUnavailableError } from '../../src/publish/store-errors.js';
import { bundleFilePath } from '../helpers/bundle-file.js';
import { tempDir } from '../helpers/cli.js';
import { article } from '../helpers/records.js';
import { startS3, type TestS3 } from '../helpers/s3-server.js';

/**
 * The store contract (src/publish/snapshot-store.ts), the same cases against both implementations:
 * a folder, and a bucket on a real s3rver. Whatever a command does on one, it does on the other.
 */

interface StoreUnderTest {
  name: string;
  /** A new, empty store of this kind. */
  fresh(): Promise<SnapshotStore>;
  /** The local file that holds a bundle's file (`manifest.json`, or a name its manifest lists). */
  fileOf(store: SnapshotStore, snapshotId: string, name: string): Promise<string>;
  /** A store of this kind that cannot exist. */
  missing(): SnapshotStore;
  /** The digests of the blobs the store holds. */
  blobs(store: SnapshotStore): Promise<string[]>;
}

let s3: TestS3;
const savedEnv: Record<string, string | undefined> = {};
let stores = 0;
let fileInTheWay: string;

beforeAll(async () => {
  s3 = await startS3('contract');
  fileInTheWay = path.join(await tempDir('contract-file'), 'a-file');
  await writeFile(fileInTheWay, 'not a folder\n');
  // The bucket store reads the SDK's settings from the environment; put back afterwards.
  for (const [name, value] of Object.entries(s3.env)) {
    savedEnv[name] = process.env[name];
    process.env[name] = value;
  }
});
afterAll(async () => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await s3?.dispose();
});

/** Where a bundle's file is, relative to the store: its manifest in the bundle's folder, any other file a blob. */
async function keyOf(store: SnapshotStore, snapshotId: string, name: string): Promise<string> {
  if (name === 'manifest.json') return `bundles/articles/${snapshotId}/manifest.json`;
  const entry = bundleFiles(await store.readManifest(snapshotId)).find((file) => file.path === name)!;
  return `blobs/sha256/${entry.sha256}`;
}

const folder: StoreUnderTest = {
  name: 'a folder',
  fresh: async () => new FolderStore(await tempDir('contract-folder')),
  fileOf: async (store, snapshotId, name) =>
    name === 'manifest.json'
      ? path.join(store.location, await keyOf(store, snapshotId, name))
      : bundleFilePath(store.location, snapshotId, name),
  // Under a file: the folder can never be created (ENOTDIR).
  missing: () => new FolderStore(path.join(fileInTheWay, 'store')),
  blobs: async (store) => filesUnder(path.join(store.location, 'blobs')),
};

const bucket: StoreUnderTest = {
  name: 'a bucket',
  // gc may delete an unlisted blob at once: no upload of these tests is under way while it runs.
  fresh: async () => openStore(`s3://${s3.bucket}/store-${++stores}`, { uploadGraceMs: 0 }),
  fileOf: async (store, snapshotId, name) =>
    s3.objectFile(`${parseBucketLocation(store.location).prefix}${await keyOf(store, snapshotId, name)}`),
  missing: () => openStore('s3://no-such-bucket/prefix'),
  blobs: async (store) =>
    (await filesUnder(path.join(s3.dir, s3.bucket, `${parseBucketLocation(store.location).prefix}blobs`)))
      .map((name) => name.replace('._S3rver_object', ''))
      .filter((name) => /^[0-9a-f]{64}$/.test(name)),
};

async function filesUnder(folder: string): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []))
    if (entry.isFile()) names.push(entry.name);
  return names.sort();
}

/** Overwrites a stored file's bytes, as bit rot or a hand edit would. */
async function damage(kind: StoreUnderTest, store: SnapshotStore, snapshotId: string, name: string, edit: (bytes: Buffer) => Buffer) {
  const file = await kind.fileOf(store, snapshotId, name);
  await writeFile(file, edit(await readFile(file)));
}

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-22T12:00:00.000Z');
const at = (hours: number) => new Date(T0 + hours * HOUR);

function fields(generatedAt: Date): ManifestFields {
  const iso = generatedAt.toISOString();
  return {
    generatedAt: iso,
    facts: { generatedAt: iso, latestPublishedAt: '2026-11-21T09:00:00.000Z' },
    freshUntil: '2026-11-28T09:00:00.000Z',
    allowStale: false,
    sources: [{ path: 'articles/a.md', bytes: 10, sha256: 'a'.repeat(64) }],
  };
}

async function publish(store: SnapshotStore, slugs: string[], generatedAt: Date, promote = true) {
  const { staged } = await store.stage('articles', (sink) => {
    for (const slug of slugs) sink.add('articles', article(slug));
  });
  return store.commit(staged, fields(generatedAt), generatedAt, { promote });
}

async function current(store: SnapshotStore): Promise<string | null> {
  return (await store.currentPointer('articles'))?.snapshotId ?? null;
}

/** Changes one byte and keeps the size: only a digest tells. */
const flipByte = (bytes: Buffer) => {
  const copy = Buffer.from(bytes);
  copy[10] = copy[10] === 0x61 ? 0x62 : 0x61;
  return copy;
};

describe.each([folder, bucket])('the store contract on $name', (kind) => {
  it('publishes, reads back, and makes a second publish of the same content a no-op', async () => {
    const store = await kind.fresh();
    try {
      const first = await publish(store, ['a', 'b'], at(0));
      expect(first).toMatchObject({ published: true, madeCurrent: true, previousSnapshotId: null });
      expect(await current(store)).toBe(first.snapshotId);
      expect((await store.readManifest(first.snapshotId)).generatedAt).toBe(at(0).toISOString());
      const bundle = await store.openBundle(first.snapshotId);
      const slugs: string[] = [];
      for await (const record of bundle.records('articles')) slugs.push((record as { slug: string }).slug);
      expect(slugs).toEqual(['a', 'b']);
      const again = await publish(store, ['a', 'b'], at(0));
      expect(again).toMatchObject({ snapshotId: first.snapshotId, published: false, madeCurrent: false, republishedDamaged: null });
    } finally {
      await store.close();
    }
  });

  it('publishes a candidate without moving current, promotes it with an acceptance, and refuses a promote judged against a moved current', async () => {
    const store = await kind.fresh();
    try {
      const base = await publish(store, ['a'], at(0));
      const candidate = await publish(store, ['a', 'b'], at(1), false);
      expect(candidate).toMatchObject({ published: true, madeCurrent: false });
      expect(await current(store)).toBe(base.snapshotId);
      const listed = await store.listSnapshots();
      expect(listed.map((s) => [s.snapshotId, s.current, s.candidate])).toEqual([
        [candidate.snapshotId, false, true],
        [base.snapshotId, true, false],
      ]);

      await expect(store.promote('articles', candidate.snapshotId, at(2), 'articles-20261122T000000Z-000000000000', null)).rejects.toThrow(
        CurrentMovedError,
      );
      expect(await current(store)).toBe(base.snapshotId);

      const acceptance: DriftAcceptance = {
        reason: 'one story added on purpose',
        by: 'promote',
        acceptedAt: at(2).toISOString(),
        baseline: base.snapshotId,
        checks: [{ rule: 'drift.articles.added', observed: '1', limit: '0', status: 'fail', failsAt: null, message: 'one added' }],
      };
      const moved = await store.promote('articles', candidate.snapshotId, at(2), base.snapshotId, acceptance);
      expect(moved.previousSnapshotId).toBe(base.snapshotId);
      expect(await current(store)).toBe(candidate.snapshotId);
      expect(await store.acceptedDrift(await store.readManifest(candidate.snapshotId))).toEqual(acceptance);
      expect((await store.listSnapshots()).find((s) => s.snapshotId === candidate.snapshotId)).toMatchObject({
        current: true,
        candidate: false,
      });
    } finally {
      await store.close();
    }
  });

  it('keeps the snapshot generated last current, rolls back on request, and diffs any two snapshots', async () => {
    const store = await kind.fresh();
    try {
      const older = await publish(store, ['a'], at(0));
      const newer = await publish(store, ['a', 'b'], at(2));
      const late = await publish(store, ['a', 'c'], at(1));
      expect(late).toMatchObject({ published: true, madeCurrent: false, keptNewerCurrent: { snapshotId: newer.snapshotId } });
      expect(await current(store)).toBe(newer.snapshotId);
      // history reads the manifests newest first
      expect((await store.listSnapshots()).map((s) => s.snapshotId)).toEqual([newer.snapshotId, late.snapshotId, older.snapshotId]);

      expect(await store.rollback('articles', older.snapshotId, at(3))).toEqual({
        previousSnapshotId: newer.snapshotId,
        repairedPointer: null,
      });
      expect(await current(store)).toBe(older.snapshotId);

      const side = async (id: string) => {
        const bundle = await store.openBundle(id);
        return { label: id, locate: bundle.locate, files: bundle.manifest.files };
      };
      const [diff] = await diffBundles(
        await side(older.snapshotId),
        await side(newer.snapshotId),
        Object.keys(DATASET_RESOURCES.articles),
        {
          limit: 5,
        },
      );
      expect(diff).toMatchObject({ resource: 'articles', added: 1, removed: 0, changed: 0, addedKeys: ['en-US/b'] });
    } finally {
      await store.close();
    }
  });

  it('gc keeps current and the one before it, and deletes the rest with their acceptances', async () => {
    const store = await kind.fresh();
    try {
      const ids = [];
      for (let hour = 0; hour < 4; hour++) ids.push((await publish(store, ['a', `s${hour}`], at(hour))).snapshotId);
      const result = await store.gc(1, false);
      expect(result.deleted.sort()).toEqual([ids[0], ids[1]].sort());
      expect(result.kept.sort()).toEqual([ids[2], ids[3]].sort());
      expect((await store.listSnapshots()).map((s) => s.snapshotId)).toEqual([ids[3], ids[2]]);
      await expect(store.readManifest(ids[0]!)).rejects.toThrow(/does not exist/);
    } finally {
      await store.close();
    }
  });

  it('republishes a damaged bundle when the same content is built again: a part edited in place, then an edited manifest', async () => {
    const store = await kind.fresh();
    try {
      const first = await publish(store, ['a', 'b'], at(0));
      await damage(kind, store, first.snapshotId, 'articles/00000.ndjson', flipByte);
      await expect(store.verifyBundle(first.snapshotId)).rejects.toThrow(/articles\/00000\.ndjson/);
      const repaired = await publish(store, ['a', 'b'], at(0));
      expect(repaired.republishedDamaged).toMatch(/articles\/00000\.ndjson/);
      await store.verifyBundle(first.snapshotId);

      await damage(kind, store, first.snapshotId, 'manifest.json', (bytes) =>
        Buffer.from(bytes.toString().replace('"allowStale": false', '"allowStale": true')),
      );
      await expect(store.readManifest(first.snapshotId)).rejects.toThrow(/does not match its snapshot id/);
      const again = await publish(store, ['a', 'b'], at(0));
      expect(again.republishedDamaged).toMatch(/manifest/);
      expect((await store.verifyBundle(first.snapshotId)).snapshotId).toBe(first.snapshotId);
    } finally {
      await store.close();
    }
  });

  it('calls the current pointer broken when its bundle has lost its manifest', async () => {
    const store = await kind.fresh();
    try {
      const first = await publish(store, ['a'], at(0));
      await rm(await kind.fileOf(store, first.snapshotId, 'manifest.json'));
      const states = await store.pointerStates();
      expect(states.articles).toMatchObject({ state: 'broken', snapshotId: first.snapshotId });
      expect(states.articles.reason).toContain(`points at ${first.snapshotId}, which is not in the store`);
    } finally {
      await store.close();
    }
  });

  it('makes the build generated last current when two race into an empty store in the same second', async () => {
    for (let round = 0; round < 10; round++) {
      const one = await kind.fresh();
      const location = one.location;
      const other = kind === folder ? new FolderStore(location) : openStore(location);
      try {
        const early = new Date(T0 + 500);
        const late = new Date(T0 + 700);
        // Both stage first, then commit at once: each reads an empty pointer before the other writes.
        const stage = async (store: SnapshotStore, slug: string) =>
          (
            await store.stage('articles', (sink) => {
              sink.add('articles', article(slug));
            })
          ).staged;
        const [a, b] = [await stage(one, `early-${round}`), await stage(other, `late-${round}`)];
        const [earlyResult, lateResult] = await Promise.all([one.commit(a, fields(early), early), other.commit(b, fields(late), late)]);
        expect(await current(one), `round ${round}`).toBe(lateResult.snapshotId);
        if (!earlyResult.madeCurrent) {
          expect(earlyResult.keptNewerCurrent).toMatchObject({ snapshotId: lateResult.snapshotId, generatedAt: late.toISOString() });
        }
      } finally {
        await one.close();
        await other.close();
      }
    }
  });

  it('stores each file once: an unchanged snapshot adds its manifest and no blob, and gc deletes a blob only when no kept manifest lists it', async () => {
    const store = await kind.fresh();
    try {
      const first = await publish(store, ['a', 'b'], at(0));
      const second = await publish(store, ['a', 'b'], at(1));
      expect(second).toMatchObject({ published: true, madeCurrent: true });
      expect(second.snapshotId).not.toBe(first.snapshotId);
      const shared = (await store.readManifest(first.snapshotId)).files[0]!.sha256;
      expect((await store.readManifest(second.snapshotId)).files[0]!.sha256).toBe(shared);
      expect(await kind.blobs(store)).toEqual([shared]);

      const third = await publish(store, ['c'], at(2));
      const own = (await store.readManifest(third.snapshotId)).files[0]!.sha256;
      expect(await kind.blobs(store)).toEqual([shared, own].sort());
      // first goes; second, the one before current, keeps the shared blob listed.
      const kept = await store.gc(1, false);
      expect(kept.deleted).toEqual([first.snapshotId]);
      expect(kept.blobs).toEqual({ deleted: 0, bytes: 0, skipped: null });
      expect(await kind.blobs(store)).toEqual([shared, own].sort());

      await publish(store, ['d'], at(3));
      const dry = await store.gc(1, true);
      expect(dry.deleted).toEqual([second.snapshotId]);
      expect(dry.blobs.deleted).toBe(1);
      expect(await kind.blobs(store)).toContain(shared);
      const swept = await store.gc(1, false);
      expect(swept.blobs).toMatchObject({ deleted: 1, skipped: null });
      expect(await kind.blobs(store)).not.toContain(shared);
      await store.verifyBundle(third.snapshotId);
    } finally {
      await store.close();
    }
  });

  it('reads a range of a blob it holds, and answers null for a blob it lacks or a range past its end', async () => {
    const store = await kind.fresh();
    try {
      const { snapshotId } = await publish(store, ['a', 'b'], at(0));
      const part = (await store.readManifest(snapshotId)).files[0]!;
      const whole = Buffer.from((await store.readBlobRange(part.sha256, 0, part.bytes))!);
      expect(
        whole
          .toString('utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line).slug),
      ).toEqual(['a', 'b']);
      const secondLine = whole.indexOf(0x0a) + 1;
      expect(Buffer.from((await store.readBlobRange(part.sha256, secondLine, part.bytes - secondLine))!)).toEqual(
        whole.subarray(secondLine),
      );
      expect(await store.readBlobRange(part.sha256, 1, part.bytes)).toBeNull();
      expect(await store.readBlobRange('f'.repeat(64), 0, 10)).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('reads and serves a bundle of format 3, whose files are in its own folder', async () => {
    const store = await kind.fresh();
    try {
      const { staged } = await store.stage('articles', (sink) => {
        sink.add('articles', article('legacy'));
      });
      const old = await store.commit({ ...staged, format: 3 }, fields(at(0)), at(0));
      expect((await store.readManifest(old.snapshotId)).format).toBe(3);
      expect(await kind.blobs(store)).toEqual([]);
      await store.verifyBundle(old.snapshotId);
      const slugs: string[] = [];
      for await (const record of (await store.openBundle(old.snapshotId)).records('articles'))
        slugs.push((record as { slug: string }).slug);
      expect(slugs).toEqual(['legacy']);
      // A later build in the current format shares nothing with it, and gc deletes the old folder whole.
      await publish(store, ['new'], at(1));
      await publish(store, ['newer'], at(2));
      expect((await store.gc(1, false)).deleted).toEqual([old.snapshotId]);
      await expect(store.readManifest(old.snapshotId)).rejects.toThrow(/does not exist/);
    } finally {
      await store.close();
    }
  });

  it('refuses, before any work, a store that cannot exist', async () => {
    const missing = kind.missing();
    try {
      await expect(missing.prepare()).rejects.toThrow(StoreUnavailableError);
    } finally {
      await missing.close();
    }
  });
});
