import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/lib/sqlite.js';
import { blobPath } from '../../src/publish/bundle-files.js';
import { bundleFilePath } from '../helpers/bundle-file.js';
import { REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';

// The committed sample is dated for this instant.
const NOW = '2026-11-22T12:00:00.000Z';

let sources: string;
/** One build at the default part size: read as it is, or copied for a test to damage (a build is byte-identical). */
let pristine: Awaited<ReturnType<typeof build>> & { store: string };
beforeAll(async () => {
  sources = await tempDir('format-sources');
  await cp(path.join(REPO_ROOT, 'data/sources'), sources, { recursive: true });
  const store = await tempDir('format-pristine');
  pristine = { store, ...(await build(store)) };
});

/** A store of its own holding the pristine build, for a test that damages it. */
async function pristineCopy(prefix: string) {
  const store = await tempDir(prefix);
  await cp(pristine.store, store, { recursive: true });
  return { store, dataset: pristine.dataset };
}

async function build(store: string, env: Record<string, string> = {}) {
  const result = await runCli(['build', '--datasets', 'smart-money', '--sources', sources, '--store', store, '--now', NOW, '--json'], {
    env,
  });
  expect(result.exitCode, String(result.stderr)).toBe(0);
  const dataset = JSON.parse(String(result.stdout)).datasets[0];
  const manifest = JSON.parse(await readFile(path.join(store, 'bundles/smart-money', dataset.snapshotId, 'manifest.json'), 'utf8'));
  return { dataset, manifest };
}

describe('bundles of NDJSON parts', () => {
  it('splits a resource into many parts at a small part size, deterministically, and every reader follows them', async () => {
    const small = await tempDir('format-small');
    const { dataset, manifest } = await build(small, { PDSNAP_PART_BYTES: '4096' });
    const tradeParts = manifest.files.filter((f: { path: string }) => f.path.startsWith('trades/'));
    expect(tradeParts.length).toBeGreaterThan(3);
    expect(tradeParts.map((f: { path: string }) => f.path)).toEqual(
      tradeParts.map((_: unknown, i: number) => `trades/${String(i).padStart(5, '0')}.ndjson`),
    );
    for (const part of tradeParts.slice(0, -1)) expect(part.bytes).toBeLessThanOrEqual(4096 + 2048);

    // The same records as with the default part size, and the same bundle again when rebuilt.
    const { dataset: whole } = pristine;
    expect(dataset.records).toEqual(whole.records);
    const again = await build(await tempDir('format-again'), { PDSNAP_PART_BYTES: '4096' });
    expect(again.dataset.snapshotId).toBe(dataset.snapshotId);

    const validate = await runCli(['validate', '--datasets', 'smart-money', '--store', small, '--now', NOW, '--json']);
    expect(validate.exitCode, String(validate.stdout)).toBe(0);
    const inspect = await runCli(['inspect', dataset.snapshotId, '--store', small, '--json']);
    expect(inspect.exitCode).toBe(0);
    expect(JSON.parse(String(inspect.stdout))).toMatchObject({ verified: true });
  });

  it.each([1, 2])('refuses a bundle of the older format %i with a message that says to rebuild', async (format) => {
    const { store, dataset } = await pristineCopy('format-old');
    const file = path.join(store, 'bundles/smart-money', dataset.snapshotId, 'manifest.json');
    const { servingIndex: _index, ...manifest } = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...manifest, format }));
    const validate = await runCli(['validate', '--store', store, '--now', NOW, '--json']);
    expect(validate.exitCode).toBe(2);
    const smartMoney = JSON.parse(String(validate.stdout)).datasets.find((d: { dataset: string }) => d.dataset === 'smart-money');
    expect(smartMoney.rules[0].message).toContain(
      `bundle format ${format} is not read by this pdsnap (it reads formats 3 and 4): rebuild it with pdsnap build`,
    );
    const inspect = await runCli(['inspect', dataset.snapshotId, '--store', store]);
    expect(inspect.exitCode).toBe(2);
  });
});

/**
 * Puts other bytes in a bundle's serving index: the manifest's entry rewritten for them (a sample's
 * index is one chunk), and the bytes in the blob their digest names. The id stays: the index takes
 * no part in it.
 */
async function replaceIndex(store: string, snapshotId: string, bytes: Buffer): Promise<void> {
  const manifestFile = path.join(store, 'bundles/smart-money', snapshotId, 'manifest.json');
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
  expect(bytes.length).toBeLessThan(manifest.servingIndex.chunks.bytes);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  manifest.servingIndex = {
    ...manifest.servingIndex,
    bytes: bytes.length,
    sha256,
    chunks: { bytes: manifest.servingIndex.chunks.bytes, sha256: [sha256] },
  };
  await mkdir(path.dirname(blobPath(store, sha256)), { recursive: true });
  await writeFile(blobPath(store, sha256), bytes);
  await writeFile(manifestFile, JSON.stringify(manifest));
}

describe('the serving index in a Smart Money bundle', () => {
  it('is the same file for the same records, and takes no part in the snapshot id', async () => {
    const one = pristine;
    const two = await build(await tempDir('index-two'));
    expect(two.dataset.snapshotId).toBe(one.dataset.snapshotId);
    expect(two.manifest.servingIndex).toEqual(one.manifest.servingIndex);
    // An index written by another SQLite (other bytes, other digest) leaves the id as it is.
    const { store, dataset } = await pristineCopy('index-other-bytes');
    const bytes = await readFile(await bundleFilePath(store, dataset.snapshotId, 'serving-index.sqlite'));
    bytes.writeUInt32BE(bytes.readUInt32BE(96) + 1, 96); // the header's "written by SQLite version" field
    await replaceIndex(store, dataset.snapshotId, bytes);
    const validate = await runCli(['validate', '--datasets', 'smart-money', '--store', store, '--now', NOW, '--json']);
    expect(validate.exitCode, String(validate.stdout)).toBe(0);
  });

  it('is verified by validate and gate: a damaged index or one that disagrees with the manifest is named', async () => {
    const { store, dataset } = await pristineCopy('index-damaged');
    const index = await bundleFilePath(store, dataset.snapshotId, 'serving-index.sqlite');
    const original = await readFile(index);
    const damaged = Buffer.from(original);
    damaged.writeUInt8(damaged.readUInt8(damaged.length - 100) ^ 0xff, damaged.length - 100);
    await writeFile(index, damaged);
    const gate = await runCli(['gate', '--datasets', 'smart-money', '--store', store, '--now', NOW, '--json']);
    expect(gate.exitCode).toBe(2);
    expect(JSON.parse(String(gate.stdout)).datasets[0].rules[0].message).toContain('serving-index.sqlite does not match its sha256');

    // A well-formed index that disagrees with the manifest's records: one investor fewer, or a place
    // that is not the lines it says.
    const withIndex = async (change: string) => {
      const copy = path.join(await tempDir('index-copy'), 'copy.sqlite');
      await writeFile(copy, original);
      const db = openSqlite(copy);
      db.exec(change);
      db.close();
      await replaceIndex(store, dataset.snapshotId, await readFile(copy));
      const validate = await runCli(['validate', '--datasets', 'smart-money', '--store', store, '--now', NOW, '--json']);
      expect(validate.exitCode).toBe(2);
      return JSON.parse(String(validate.stdout)).datasets[0].rules[0].message as string;
    };
    expect(await withIndex('DELETE FROM investors WHERE ord = (SELECT max(ord) FROM investors)')).toContain(
      `serving-index.sqlite table investors holds ${dataset.records.investors - 1} rows; the manifest lists ${dataset.records.investors} investors records`,
    );
    expect(await withIndex("UPDATE line_blocks SET bytes = bytes - 1 WHERE resource = 'trades' AND first_ord = 1")).toContain(
      'serving-index.sqlite trades block of ords 1..64 does not hold 64 whole lines',
    );
    expect(await withIndex('UPDATE investors SET positions_start = positions_start + 1 WHERE ord = 1')).toMatch(
      /serving-index\.sqlite investor [a-z0-9-]+ \(part 0, bytes \d+\.\.\d+\): its positions are not at bytes \d+\.\.\d+ of the line/,
    );
  });
});
