import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASET_RESOURCES } from '../../src/model/dataset.js';
import type { DriftAcceptance } from '../../src/model/manifest.js';
import { diffBundles } from '../../src/publish/bundle-diff.js';
import { FolderStore } from '../../src/publish/folder-store.js';
import { openStore } from '../../src/publish/open-store.js';
import { parseBucketLocation } from '../../src/publish/s3-location.js';
import type { SnapshotStore } from '../../src/publish/snapshot-store.js';
import type { ManifestFields } from '../../src/publish/staged-bundle.js';
import { CurrentMovedError, StoreUnavailableError } from '../../src/publish/store-errors.js';
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
  /** Overwrites a stored object's bytes, as bit rot or a hand edit would (path relative to the store). */
  damage(store: SnapshotStore, file: string, edit: (bytes: Buffer) => Buffer): Promise<void>;
  remove(store: SnapshotStore, file: string): Promise<void>;
  /** A store of this kind that cannot exist. */
  missing(): SnapshotStore;
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

const folder: StoreUnderTest = {
  name: 'a folder',
  fresh: async () => new FolderStore(await tempDir('contract-folder')),
  damage: async (store, file, edit) => {
    const full = path.join(store.location, file);
    await writeFile(full, edit(await readFile(full)));
  },
  remove: async (store, file) => rm(path.join(store.location, file)),
  // Under a file: the folder can never be created (ENOTDIR).
  missing: () => new FolderStore(path.join(fileInTheWay, 'store')),
};

const bucket: StoreUnderTest = {
  name: 'a bucket',
  fresh: async () => openStore(`s3://${s3.bucket}/store-${++stores}`),
  damage: async (store, file, edit) => {
    const full = s3.objectFile(`${parseBucketLocation(store.location).prefix}${file}`);
    await writeFile(full, edit(await readFile(full)));
  },
  remove: async (store, file) => rm(s3.objectFile(`${parseBucketLocation(store.location).prefix}${file}`)),
  missing: () => openStore('s3://no-such-bucket/prefix'),
};

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

const part = (snapshotId: string) => `bundles/articles/${snapshotId}/articles/00000.ndjson`;
const manifestFile = (snapshotId: string) => `bundles/articles/${snapshotId}/manifest.json`;

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
        return { label: id, directory: bundle.directory, files: bundle.manifest.files };
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
      await kind.damage(store, part(first.snapshotId), flipByte);
      await expect(store.verifyBundle(first.snapshotId)).rejects.toThrow(/articles\/00000\.ndjson/);
      const repaired = await publish(store, ['a', 'b'], at(0));
      expect(repaired.republishedDamaged).toMatch(/articles\/00000\.ndjson/);
      await store.verifyBundle(first.snapshotId);

      await kind.damage(store, manifestFile(first.snapshotId), (bytes) =>
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
      await kind.remove(store, manifestFile(first.snapshotId));
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

  it('refuses, before any work, a store that cannot exist', async () => {
    const missing = kind.missing();
    try {
      await expect(missing.prepare()).rejects.toThrow(StoreUnavailableError);
    } finally {
      await missing.close();
    }
  });
});
