import { chmod, cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleFilePath } from '../helpers/bundle-file.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { KeyedFileCache } from '../../src/lib/keyed-file-cache.js';

/**
 * The derivation cache of a Smart Money build (docs/performance.md, A daily build): the same inputs
 * give the same snapshot with the cache, without it, and from it; the store's files are reused when
 * it holds them, derived again when it does not; a damaged entry is never trusted.
 */
const NOW = '2026-11-22T12:00:00.000Z';
const hour = (h: number) => `2026-11-22T${String(h).padStart(2, '0')}:00:00.000Z`;

let sources: string;

beforeAll(async () => {
  sources = await tempDir('cache-sources');
  // The sample's EDGAR filings and two small Form 13F data sets.
  const sample = await runCli(['sample', '--out', sources, '--now', NOW, '--scale', '40', '--force']);
  expect(sample.exitCode, String(sample.stderr)).toBe(0);
});

async function build(store: string, now: string, extra: string[] = [], from = sources, env: Record<string, string> = {}) {
  const result = await runCli(
    ['build', '--datasets', 'smart-money', '--all-filers', '--sources', from, '--store', store, '--now', now, '--json', ...extra],
    { env },
  );
  expect(result.exitCode, String(result.stderr) + String(result.stdout)).toBe(0);
  const report = JSON.parse(String(result.stdout)).datasets[0] as { snapshotId: string; notes: { source: string; message: string }[] };
  return { id: report.snapshotId, notes: report.notes.map((note) => `${note.source}: ${note.message}`) };
}

/** The sample's 65 investors in batches of 2 on average (8 at most), so that a change touches a few of many. */
const SMALL_BATCHES = { PDSNAP_BATCH_INVESTORS: '2' };

/** How many investors the build read back from earlier parts, and how many it derived. */
function investorsReadBack(notes: string[]): { readBack: number; derived: number } {
  const note = notes.find((n) => n.startsWith('derivation cache (investors): '));
  const match = note && /(\d+) of (\d+) investor\(s\) read back from the parts of an earlier build, (\d+) derived/.exec(note);
  if (!match) throw new Error(`no investor reuse note in ${notes.join('; ')}`);
  return { readBack: Number(match[1]), derived: Number(match[3]) };
}

const reusedNote = (notes: string[]) => notes.some((note) => note.startsWith('derivation cache: the inputs are those of an earlier build'));
const blobsOf = async (store: string) =>
  (await readdir(path.join(store, 'blobs'), { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();

describe('the derivation cache', () => {
  it('gives the same snapshot ids with the cache, without it and from it, and a rebuild of the same inputs writes no file', async () => {
    const plain = await tempDir('store-no-cache');
    const cached = await tempDir('store-cache');
    const [without, first] = [await build(plain, hour(12), ['--no-cache']), await build(cached, hour(12))];
    expect(first.id).toBe(without.id);
    expect(reusedNote(first.notes)).toBe(false);
    expect((await readdir(path.join(cached, 'cache'))).sort()).toEqual([
      'form13f-intake',
      'investor-batch',
      'investor-batch-places',
      'smart-money-derivation',
    ]);
    await expect(readdir(path.join(plain, 'cache'))).rejects.toThrow(/ENOENT/);

    const blobs = await blobsOf(cached);
    const [again, againWithout] = [await build(cached, hour(13)), await build(plain, hour(13), ['--no-cache'])];
    expect(again.id).toBe(againWithout.id);
    expect(again.id).not.toBe(first.id);
    expect(reusedNote(again.notes)).toBe(true);
    expect(await blobsOf(cached)).toEqual(blobs);
    const validate = await runCli(['validate', '--store', cached, '--datasets', 'smart-money', '--now', hour(13)]);
    expect(validate.exitCode, String(validate.stdout)).toBe(0);
  });

  it('derives again when the store no longer holds a file it kept, or when its entry is damaged', async () => {
    const store = await tempDir('store-cache');
    const plain = await tempDir('store-no-cache');
    const first = await build(store, hour(12));
    // A part gone (a hand cleanup): the cache's files are not there whole, so the build derives them.
    await rm(await bundleFilePath(store, first.id, 'trades/00000.ndjson'));
    const repaired = await build(store, hour(13));
    expect(reusedNote(repaired.notes)).toBe(false);
    expect(repaired.id).toBe((await build(plain, hour(13), ['--no-cache'])).id);

    // A part's blob damaged in place (same size): the build derives again, and its copy repairs the
    // blob, and so every snapshot that shares it; before, every cached rebuild failed on it.
    const part = await bundleFilePath(store, repaired.id, 'investors/00000.ndjson');
    const damaged = await readFile(part);
    damaged[10] = damaged[10]! ^ 0x01;
    await chmod(part, 0o644);
    await writeFile(part, damaged);
    const fixed = await build(store, hour(13).replace('13:00', '13:30'));
    expect(reusedNote(fixed.notes)).toBe(false);
    expect(fixed.notes.some((note) => note.includes('republished damaged') || note.includes('does not match its sha256'))).toBe(true);
    const validated = await runCli(['validate', '--store', store, '--datasets', 'smart-money', '--now', hour(14)]);
    expect(validated.exitCode, String(validated.stdout)).toBe(0);

    // The kept derivation damaged on disk: a miss, never a wrong snapshot.
    const folder = path.join(store, 'cache', 'smart-money-derivation');
    for (const name of await readdir(folder)) {
      const bytes = await readFile(path.join(folder, name));
      bytes[bytes.length - 2] = bytes[bytes.length - 2]! ^ 0x01;
      await writeFile(path.join(folder, name), bytes);
    }
    const rebuilt = await build(store, hour(14));
    expect(reusedNote(rebuilt.notes)).toBe(false);
    expect(rebuilt.id).toBe((await build(plain, hour(14), ['--no-cache'])).id);
  });

  it('reads only what changed when an EDGAR filing is added: the data sets are taken from the cache, and only the investors it touches are derived', async () => {
    const changed = await tempDir('cache-sources-changed');
    await cp(sources, changed, { recursive: true });
    const store = await tempDir('store-cache');
    const first = await build(store, hour(12), [], changed, SMALL_BATCHES);
    expect(investorsReadBack(first.notes)).toEqual({ readBack: 0, derived: 65 });
    // One EDGAR filing folder less: new inputs, the same data sets.
    const edgar = path.join(changed, 'filings', 'edgar');
    const [cik] = (await readdir(edgar)).sort();
    await rm(path.join(edgar, cik!), { recursive: true });
    const next = await build(store, hour(13), [], changed, SMALL_BATCHES);
    expect(reusedNote(next.notes)).toBe(false);
    const taken = next.notes.filter((note) => note.endsWith('read by an earlier build: taken from the derivation cache'));
    expect(taken).toHaveLength(2);
    // The batch that held the investor now gone is derived again (and the next one, should a cut
    // forced at 8 investors have moved); every other one is read back.
    const { readBack, derived } = investorsReadBack(next.notes);
    expect(readBack + derived).toBe(64);
    expect(derived).toBeGreaterThan(0);
    expect(derived).toBeLessThanOrEqual(16);
    expect(next.id).toBe((await build(await tempDir('store-no-cache'), hour(13), ['--no-cache'], changed, SMALL_BATCHES)).id);
    // The same day on derivation threads, batches read back and derived ones interleaved: the same bundle.
    const threaded = await tempDir('store-cache-threads');
    await build(threaded, hour(12), [], sources, SMALL_BATCHES);
    const again = await build(threaded, hour(13), [], changed, { ...SMALL_BATCHES, PDSNAP_DERIVE_THREADS: '2' });
    expect(investorsReadBack(again.notes).readBack).toBe(readBack);
    expect(again.id).toBe(next.id);
  });

  it.each([
    ['on the main thread', '0'],
    ['on derivation threads', '2'],
  ])('derives a batch again when its entry is gone or the bytes where its lines were kept are not whole lines (%s)', async (_, threads) => {
    const env = { ...SMALL_BATCHES, PDSNAP_DERIVE_THREADS: threads };
    const store = await tempDir('store-cache');
    const plain = await tempDir('store-no-cache');
    await build(store, hour(12), [], sources, env);
    const entries = path.join(store, 'cache', 'investor-batch');
    const names = (await readdir(entries)).sort();
    await rm(path.join(entries, names[0]!));
    // The places record rewritten (with a valid cache header) to point one byte further into each part.
    const cache = new KeyedFileCache(path.join(store, 'cache'), 1 << 30);
    const [placesKey] = await readdir(path.join(store, 'cache', 'investor-batch-places'));
    const places = JSON.parse((await cache.get('investor-batch-places', placesKey!))!.toString('utf8')) as Record<
      string,
      { resource: string; spans: { start: number }[] }[]
    >;
    const shifted = Object.keys(places).sort()[1]!;
    for (const place of places[shifted]!) for (const span of place.spans) span.start += 1;
    await cache.put('investor-batch-places', placesKey!, Buffer.from(JSON.stringify(places)));

    // The whole derivation's entry gone too, so that the build goes down to its batches.
    await rm(path.join(store, 'cache', 'smart-money-derivation'), { recursive: true });
    const next = await build(store, hour(13), [], sources, env);
    const { readBack, derived } = investorsReadBack(next.notes);
    expect(readBack + derived).toBe(65);
    expect(derived).toBeGreaterThan(0);
    expect(readBack).toBeGreaterThan(0);
    expect(next.id).toBe((await build(plain, hour(13), ['--no-cache'], sources, env)).id);
  });

  it('lives where --cache names it, and then not in the store', async () => {
    const store = await tempDir('store');
    const elsewhere = path.join(await tempDir('ci-cache'), 'pdsnap');
    await build(store, hour(12), ['--cache', elsewhere]);
    expect((await readdir(elsewhere)).sort()).toEqual([
      'form13f-intake',
      'investor-batch',
      'investor-batch-places',
      'smart-money-derivation',
    ]);
    await expect(readdir(path.join(store, 'cache'))).rejects.toThrow(/ENOENT/);
  });
});
