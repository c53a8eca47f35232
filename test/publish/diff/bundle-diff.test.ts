import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordKey } from '../../../src/model/record-keys.js';
import { type BundleSide, diffBundles, type ResourceDiff } from '../../../src/publish/diff/bundle-diff.js';
import { inFolder } from '../../../src/publish/bundle-files.js';
import { BundleIntegrityError } from '../../../src/publish/store-errors.js';
import { tempDir } from '../../helpers/cli.js';

/**
 * The diff engine against a plain model of what it must find, over bundles written as real parts:
 * identical lines pair as a multiset, then the rest pair by key (the k-th old line of a key with
 * the k-th new one), in each side's order. The engine walks both sides in step and hashes only
 * where they disagree; the model compares everything with everything.
 */

type Trade = { investorSlug: string; issuerName: string; titleOfClass: string; kind: string; value: number };

/** Canonical JSON of a flat record: keys sorted. */
function line(trade: Trade): string {
  return JSON.stringify(Object.fromEntries(Object.entries(trade).sort(([a], [b]) => (a < b ? -1 : 1))));
}

async function writeSide(root: string, label: string, lines: string[], parts: number): Promise<BundleSide & { directory: string }> {
  const directory = path.join(root, label);
  await mkdir(path.join(directory, 'trades'), { recursive: true });
  const files = [];
  const size = Math.ceil(lines.length / parts) || 1;
  for (let part = 0; part * size < lines.length || (part === 0 && lines.length === 0); part += 1) {
    const slice = lines.slice(part * size, (part + 1) * size);
    const text = slice.map((l) => `${l}\n`).join('');
    const file = `trades/${String(part).padStart(5, '0')}.ndjson`;
    await writeFile(path.join(directory, file), text);
    files.push({
      path: file,
      bytes: Buffer.byteLength(text),
      sha256: createHash('sha256').update(text).digest('hex'),
      records: slice.length,
    });
  }
  return { label, directory, locate: inFolder(directory), files };
}

function model(before: string[], after: string[], limit: number): Omit<ResourceDiff, 'resource'> {
  const remainingAfter = after.map((text, index) => ({ text, index }));
  const leftBefore: { text: string; index: number }[] = [];
  let unchanged = 0;
  before.forEach((text, index) => {
    const twin = remainingAfter.findIndex((candidate) => candidate.text === text);
    if (twin === -1) leftBefore.push({ text, index });
    else {
      unchanged += 1;
      remainingAfter.splice(twin, 1);
    }
  });
  const keyOf = (text: string) => recordKey('trades', JSON.parse(text));
  const changedRecords: { key: string; fields: string[] }[] = [];
  const changedFields: Record<string, number> = {};
  const removedKeys: string[] = [];
  for (const { text } of leftBefore) {
    const key = keyOf(text);
    const match = remainingAfter.findIndex((candidate) => keyOf(candidate.text) === key);
    if (match === -1) {
      removedKeys.push(key);
      continue;
    }
    const [old, now] = [JSON.parse(text), JSON.parse(remainingAfter[match]!.text)];
    remainingAfter.splice(match, 1);
    const fields = Object.keys({ ...old, ...now })
      .filter((field) => JSON.stringify(old[field]) !== JSON.stringify(now[field]))
      .sort();
    for (const field of fields) changedFields[field] = (changedFields[field] ?? 0) + 1;
    changedRecords.push({ key, fields });
  }
  return {
    before: before.length,
    after: after.length,
    unchanged,
    changed: changedRecords.length,
    removed: removedKeys.length,
    added: remainingAfter.length,
    changedRecords: changedRecords.slice(0, limit),
    removedKeys: removedKeys.slice(0, limit),
    addedKeys: remainingAfter.slice(0, limit).map((candidate) => keyOf(candidate.text)),
    changedFields,
  };
}

/** A seeded generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Two versions of a list of trades, the second made from the first the way real snapshots differ. */
function versions(seed: number): { before: string[]; after: string[] } {
  const next = random(seed);
  let serial = 0;
  const nextValue = () => {
    serial += 1;
    return serial;
  };
  const trade = (investor: number, issuer: number): Trade => ({
    investorSlug: `investor-${investor}`,
    issuerName: `ISSUER ${issuer}`,
    titleOfClass: 'COM',
    kind: 'equity',
    value: nextValue(),
  });
  const before: Trade[] = [];
  for (let i = 0; i < 150 + Math.floor(next() * 150); i += 1) before.push(trade(Math.floor(i / 10), Math.floor(next() * 40)));
  const after: Trade[] = [];
  for (let i = 0; i < before.length; i += 1) {
    const roll = next();
    if (roll < 0.05) continue; // removed
    if (roll < 0.1)
      after.push({ ...before[i]!, value: nextValue() }); // changed
    else if (roll < 0.13) {
      // a new investor's block, and the old line after it
      for (let k = 0; k < 1 + Math.floor(next() * 30); k += 1) after.push(trade(1000 + i, k));
      after.push(before[i]!);
    } else if (roll < 0.15 && after.length > 5)
      after.splice(Math.floor(next() * after.length), 0, before[i]!); // moved back
    else after.push(before[i]!);
  }
  return { before: before.map(line), after: after.map(line) };
}

/**
 * Diffs two versions that differ by a block of `blockLength` lines added or removed (`name`), checks
 * the result against the model, and returns how many lines the walk left over.
 */
async function blockDiff(
  root: string,
  name: 'added' | 'removed',
  before: string[],
  after: string[],
  blockLength: number,
  divergenceLimit?: number,
): Promise<number> {
  const stats = { leftOver: 0 };
  const old = await writeSide(root, `${name}-old`, before, 2);
  const now = await writeSide(root, `${name}-new`, after, 3);
  const [diff] = await diffBundles(old, now, ['trades'], {
    limit: 3,
    stats,
    ...(divergenceLimit === undefined ? {} : { divergenceLimit }),
  });
  expect(diff, name).toEqual({ resource: 'trades', ...model(before, after, 3) });
  expect(diff![name], name).toBe(blockLength);
  return stats.leftOver;
}

describe('diffBundles', () => {
  it('finds what a plain model finds, over 40 seeded pairs of versions, in step or not', async () => {
    const root = await tempDir('bundle-diff');
    for (let seed = 1; seed <= 40; seed += 1) {
      const { before, after } = versions(seed);
      const old = await writeSide(root, `old-${seed}`, before, 1 + (seed % 3));
      const now = await writeSide(root, `new-${seed}`, after, 1 + ((seed + 1) % 3));
      const expected = model(before, after, 5);
      // A small divergence limit makes the walk give up its search and leave lines for the set pairing.
      for (const divergenceLimit of [undefined, 3]) {
        const [diff] = await diffBundles(old, now, ['trades'], { limit: 5, divergenceLimit });
        expect(diff, `seed ${seed}, limit ${divergenceLimit}`).toEqual({ resource: 'trades', ...expected });
      }
    }
  });

  it('gets back in step after a block of added or removed lines longer than its search holds', async () => {
    const root = await tempDir('bundle-diff');
    const trades = Array.from({ length: 4000 }, (_, i) =>
      line({
        investorSlug: `investor-${Math.floor(i / 50)}`,
        issuerName: `ISSUER ${i % 50}`,
        titleOfClass: 'COM',
        kind: 'equity',
        value: i,
      }),
    );
    const block = trades.slice(1000, 1400);
    const without = [...trades.slice(0, 1000), ...trades.slice(1400)];
    for (const [name, before, after] of [
      ['removed', trades, without],
      ['added', without, trades],
    ] as const) {
      const leftOver = await blockDiff(root, name, before, after, block.length, 20);
      // In step for the 2,600 lines after the block: a few times the block is left over, not all that follows.
      expect(leftOver, name).toBeLessThan(6 * block.length);
    }
  });

  it('finds its way back after a block of 10,000 lines, past where a search holds its lines behind a filter', async () => {
    const root = await tempDir('bundle-diff');
    const trade = (investor: string, i: number) =>
      line({ investorSlug: investor, issuerName: `ISSUER ${i % 50}`, titleOfClass: 'COM', kind: 'equity', value: i });
    const trades = Array.from({ length: 16_000 }, (_, i) => trade(`investor-${Math.floor(i / 50)}`, i));
    const block = Array.from({ length: 10_000 }, (_, i) => trade(`new-${Math.floor(i / 50)}`, i));
    const grown = [...trades.slice(0, 3000), ...block, ...trades.slice(3000)];
    for (const [name, before, after] of [
      ['added', trades, grown],
      ['removed', grown, trades],
    ] as const) {
      const leftOver = await blockDiff(root, name, before, after, block.length);
      // The 13,000 lines after the block are found in step again at once: only the block is left over.
      expect(leftOver, name).toBeLessThanOrEqual(block.length + 100);
    }
  });

  it('pairs repeated lines and repeated keys one to one, so the counts add up', async () => {
    const root = await tempDir('bundle-diff');
    const a = line({ investorSlug: 'i', issuerName: 'A', titleOfClass: 'COM', kind: 'equity', value: 1 });
    const a2 = line({ investorSlug: 'i', issuerName: 'A', titleOfClass: 'COM', kind: 'equity', value: 2 });
    const b = line({ investorSlug: 'i', issuerName: 'B', titleOfClass: 'COM', kind: 'equity', value: 1 });
    const [diff] = await diffBundles(
      await writeSide(root, 'old', [a, a, a, b, a2], 2),
      await writeSide(root, 'new', [a2, b, a], 1),
      ['trades'],
      {
        limit: 9,
      },
    );
    // a2, b and one a are unchanged; the two other a (key i: A | COM | equity) have no twin left: removed.
    expect(diff).toMatchObject({ before: 5, after: 3, unchanged: 3, changed: 0, removed: 2, added: 0 });
    expect(diff!.removedKeys).toEqual(['i: A | COM | equity', 'i: A | COM | equity']);
  });

  it('counts like the model when lines and keys repeat, whichever copies pair', async () => {
    const root = await tempDir('bundle-diff');
    for (let seed = 1; seed <= 30; seed += 1) {
      const next = random(seed);
      // Few distinct lines and keys, so that both repeat often.
      const pick = () =>
        line({
          investorSlug: 'i',
          issuerName: `I${Math.floor(next() * 4)}`,
          titleOfClass: 'COM',
          kind: 'equity',
          value: Math.floor(next() * 3),
        });
      const before = Array.from({ length: 10 + Math.floor(next() * 40) }, pick);
      const after = before.filter(() => next() > 0.2).concat(Array.from({ length: Math.floor(next() * 10) }, pick));
      after.sort(() => next() - 0.5);
      const expected = model(before, after, 0);
      for (const divergenceLimit of [undefined, 2]) {
        const [diff] = await diffBundles(
          await writeSide(root, `r-old-${seed}`, before, 2),
          await writeSide(root, `r-new-${seed}`, after, 2),
          ['trades'],
          {
            limit: 0,
            divergenceLimit,
          },
        );
        const counts = (d: Omit<ResourceDiff, 'resource'>) => [d.before, d.after, d.unchanged, d.changed, d.removed, d.added];
        expect(counts(diff!), `seed ${seed}`).toEqual(counts(expected));
        expect(diff!.before).toBe(diff!.unchanged + diff!.removed + diff!.changed);
        expect(diff!.after).toBe(diff!.unchanged + diff!.added + diff!.changed);
      }
    }
  });

  it('hands every record of an observed resource to the observer once, in step or left over', async () => {
    const root = await tempDir('bundle-diff');
    const { before, after } = versions(7);
    const seen = { before: [] as string[], after: [] as string[] };
    await diffBundles(await writeSide(root, 'old', before, 2), await writeSide(root, 'new', after, 3), ['trades'], {
      limit: 1,
      divergenceLimit: 4,
      observe: { resources: new Set(['trades']), record: (side, _resource, record) => seen[side].push(line(record as Trade)) },
    });
    expect(seen.before.sort()).toEqual([...before].sort());
    expect(seen.after.sort()).toEqual([...after].sort());
  });

  it('hands each record of identical bundles to the observer once, without comparing them', async () => {
    const root = await tempDir('bundle-diff');
    const { before } = versions(5);
    const seen = { before: 0, after: 0 };
    const [diff] = await diffBundles(await writeSide(root, 'one', before, 2), await writeSide(root, 'two', before, 2), ['trades'], {
      limit: 1,
      observe: { resources: new Set(['trades']), record: (side) => (seen[side] += 1) },
    });
    expect(diff).toMatchObject({ unchanged: before.length, changed: 0, added: 0, removed: 0 });
    expect(seen).toEqual({ before: before.length, after: before.length });
  });

  it('refuses a damaged part on either side, naming the bundle and the part', async () => {
    const root = await tempDir('bundle-diff');
    const { before, after } = versions(3);
    const damages: [string, (file: string, text: string) => Promise<void>, RegExp][] = [
      ['digest', (file, text) => writeFile(file, text.replace('investor', 'INVESTOR')), /trades\/00001\.ndjson does not match its sha256$/],
      ['size', (file, text) => writeFile(file, `${text}${text}`), /trades\/00001\.ndjson has \d+ bytes; manifest says \d+$/],
      ['missing', (file) => rm(file), /trades\/00001\.ndjson is missing$/],
    ];
    for (const [damage, apply, reason] of damages) {
      for (const side of ['old', 'new'] as const) {
        const old = await writeSide(root, `${damage}-${side}-old`, before, 2);
        const now = await writeSide(root, `${damage}-${side}-new`, after, 2);
        const target = side === 'old' ? old : now;
        const file = path.join(target.directory, target.files[1]!.path);
        await apply(file, await readFile(file, 'utf8'));
        const failure = diffBundles(old, now, ['trades'], { limit: 1 });
        await expect(failure, `${damage} on ${side}`).rejects.toBeInstanceOf(BundleIntegrityError);
        await expect(failure, `${damage} on ${side}`).rejects.toThrow(
          new RegExp(`^bundle ${target.label} failed verification: ${reason.source}`),
        );
      }
    }
    // A record count that disagrees with the manifest, the bytes themselves intact.
    const old = await writeSide(root, 'count-old', before, 1);
    const now = await writeSide(root, 'count-new', after, 1);
    const wrong = { ...now, files: [{ ...now.files[0]!, records: now.files[0]!.records + 1 }] };
    await expect(diffBundles(old, wrong, ['trades'], { limit: 1 })).rejects.toThrow(
      `bundle count-new failed verification: trades/00000.ndjson holds ${after.length} records; manifest says ${after.length + 1}`,
    );
    // A last line without its line break, size and digest as the manifest says.
    const text = (await readFile(path.join(now.directory, now.files[0]!.path), 'utf8')).slice(0, -1);
    await writeFile(path.join(now.directory, now.files[0]!.path), text);
    const cut = {
      ...now,
      files: [{ ...now.files[0]!, bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') }],
    };
    await expect(diffBundles(old, cut, ['trades'], { limit: 1 })).rejects.toThrow(
      'bundle count-new failed verification: trades/00000.ndjson does not end with a line break',
    );
  });
});

describe('diffBundles with parts shared by digest', () => {
  /** Three blocks of 100 trades; `changed` blocks get other values. */
  function blocks(changed: number[]): string[][] {
    return [0, 1, 2].map((block) =>
      Array.from({ length: 100 }, (_, i) =>
        line({
          investorSlug: `investor-${block}`,
          issuerName: `ISSUER ${i}`,
          titleOfClass: 'COM',
          kind: 'equity',
          value: changed.includes(block) ? 1000 + i : i,
        }),
      ),
    );
  }

  it('counts a part whose digest is a part of the other side as unchanged without reading it, wherever it stands', async () => {
    const root = await tempDir('bundle-diff');
    const old = blocks([]);
    for (const [name, now] of [
      ['in place', blocks([0, 2])],
      ['moved', [blocks([0, 2])[1]!, blocks([0, 2])[0]!, blocks([0, 2])[2]!]],
    ] as const) {
      const before = await writeSide(root, `shared-old-${name}`, old.flat(), 3);
      const after = await writeSide(root, `shared-new-${name}`, now.flat(), 3);
      const twin = after.files.find((file) => file.sha256 === before.files[1]!.sha256)!;
      expect(twin, name).toBeDefined();
      // Not read: gone on both sides, and the diff still answers.
      await rm(path.join(before.directory, before.files[1]!.path));
      await rm(path.join(after.directory, twin.path));
      const stats = { leftOver: 0, partsSkipped: 0 };
      const [diff] = await diffBundles(before, after, ['trades'], { limit: 5, stats });
      expect(diff, name).toEqual({ resource: 'trades', ...model(old.flat(), now.flat(), 5) });
      expect(stats.partsSkipped, name).toBe(2);
    }
  });

  it('reads shared parts all the same for an observer, which sees every record once', async () => {
    const root = await tempDir('bundle-diff');
    const [old, now] = [blocks([]).flat(), blocks([0]).flat()];
    const seen = { before: 0, after: 0 };
    const stats = { leftOver: 0, partsSkipped: 0 };
    const [diff] = await diffBundles(
      await writeSide(root, 'observed-old', old, 3),
      await writeSide(root, 'observed-new', now, 3),
      ['trades'],
      {
        limit: 1,
        stats,
        observe: { resources: new Set(['trades']), record: (side) => (seen[side] += 1) },
      },
    );
    expect(diff).toMatchObject({ unchanged: 200, changed: 100 });
    expect(seen).toEqual({ before: 300, after: 300 });
    expect(stats.partsSkipped).toBe(0);
  });
});
