import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { checkDrift, sideOf } from '../../src/cli/pipeline/drift.js';
import { FolderStore } from '../../src/publish/folder-store.js';
import type { OpenedBundle } from '../../src/publish/snapshot-store.js';
import { DEFAULT_DRIFT_THRESHOLDS } from '../../src/validate/drift.js';
import { REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';

/** The sample's Smart Money snapshot, built once for both tests (neither changes the store). */
let bundle: OpenedBundle;
beforeAll(async () => {
  const store = await tempDir('drift-baseline');
  const built = await runCli([
    ...['build', '--datasets', 'smart-money', '--sources', path.join(REPO_ROOT, 'data/sources')],
    ...['--store', store, '--now', '2026-11-22T12:00:00.000Z', '--json'],
  ]);
  expect(built.exitCode, String(built.stderr)).toBe(0);
  bundle = await new FolderStore(store).openBundle(JSON.parse(String(built.stdout)).datasets[0].snapshotId);
});

/**
 * An unchanged rebuild compares a snapshot with one that lists the very same files: the comparison
 * engine (publish/diff/bundle-diff.ts) then reads the watched resource once for both sides instead
 * of diffing them. It must judge exactly as the diff does.
 */
it('judges a snapshot of the same bytes as the full comparison does, reading the records once', async () => {
  const baseline = sideOf(bundle.manifest, bundle.locate);
  // Counts what the candidate side is asked for: the shortcut reads the baseline only.
  let candidateReads = 0;
  const same = {
    ...baseline,
    label: 'the same bytes again',
    locate: (file: Parameters<typeof baseline.locate>[0]) => {
      candidateReads += 1;
      return baseline.locate(file);
    },
  };
  // The same records with the investors split into two parts: other parts, so compared the long way.
  const investors = baseline.files.find((file) => file.path === 'investors/00000.ndjson')!;
  const lines = await readFile(baseline.locate(investors));
  const cut = lines.indexOf(0x0a) + 1;
  const folder = await tempDir('drift-split-investors');
  const pieces = [lines.subarray(0, cut), lines.subarray(cut)];
  const halves = pieces.map((bytes, index) => ({
    path: `investors/0000${index}.ndjson`,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    records: index === 0 ? 1 : investors.records - 1,
  }));
  await Promise.all(pieces.map((bytes, index) => writeFile(path.join(folder, `${index}.ndjson`), bytes)));
  const split = {
    ...same,
    files: baseline.files.flatMap((file) => (file === investors ? halves : [file])),
    locate: (file: Parameters<typeof baseline.locate>[0]) => {
      candidateReads += 1;
      const half = halves.findIndex((h) => h.path === file.path && h.sha256 === file.sha256);
      return half === -1 ? baseline.locate(file) : path.join(folder, `${half}.ndjson`);
    },
  };
  const thresholds = DEFAULT_DRIFT_THRESHOLDS['smart-money'];

  const once = await checkDrift('smart-money', baseline, same, thresholds);
  expect(candidateReads).toBe(0);
  const diffed = await checkDrift('smart-money', baseline, split, thresholds);
  expect(candidateReads).toBeGreaterThan(0);
  expect(once).toEqual(diffed);
  expect(once.rules.length).toBeGreaterThan(5);
  expect(once.rules.every((rule) => rule.status === 'pass')).toBe(true);
  expect(once.rules.map((rule) => rule.observed)).toContain('2026-09-30 -> 2026-09-30');
});

it('judges by the record counts of its manifest a baseline whose record lost a field to damage, naming the file, instead of failing or passing blind', async () => {
  const candidate = sideOf(bundle.manifest, bundle.locate);
  // The baseline's investors part with one field renamed in its first record, as a flipped bit does.
  const part = bundle.manifest.files.find((file) => file.path === 'investors/00000.ndjson')!;
  const damagedCopy = path.join(await tempDir('drift-damaged-part'), 'investors.ndjson');
  await writeFile(damagedCopy, (await readFile(bundle.locate(part), 'utf8')).replace('"period":', '"perhod":'));
  const baseline = {
    ...candidate,
    label: bundle.manifest.snapshotId,
    locate: (file: Parameters<typeof candidate.locate>[0]) => (file.path === part.path ? damagedCopy : bundle.locate(file)),
  };
  const thresholds = DEFAULT_DRIFT_THRESHOLDS['smart-money'];
  const judged = await checkDrift('smart-money', baseline, { ...candidate, label: 'candidate' }, thresholds);
  expect(judged.baseline).toBe(bundle.manifest.snapshotId);
  expect(judged.rules[0]).toMatchObject({ rule: 'drift.baseline', status: 'warn' });
  expect(judged.rules[0]!.message).toContain('the snapshot to compare with cannot be read');
  expect(judged.rules[0]!.message).toContain('investors/00000.ndjson does not match its sha256');
  expect(judged.rules.slice(1).every((rule) => rule.status === 'pass')).toBe(true);

  // A candidate with two thirds of the investors gone still fails: one damaged blob, which every
  // earlier snapshot may share, must not let it through.
  const shrunk = {
    ...candidate,
    label: 'shrunk candidate',
    files: candidate.files.map((file) => (file === part ? { ...file, records: Math.floor(file.records / 3) } : file)),
  };
  const against = await checkDrift('smart-money', baseline, shrunk, thresholds);
  expect(against.rules.find((rule) => rule.rule === 'drift.investors.shrink')).toMatchObject({ status: 'fail' });
});
