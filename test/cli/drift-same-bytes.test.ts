import path from 'node:path';
import { expect, it } from 'vitest';
import { checkDrift, sideOf } from '../../src/cli/pipeline/drift.js';
import { FolderStore } from '../../src/publish/folder-store.js';
import { DEFAULT_DRIFT_THRESHOLDS } from '../../src/validate/drift.js';
import { REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';

/**
 * An unchanged rebuild compares a snapshot with one that lists the very same files: drift then reads
 * the watched resource once for both sides instead of diffing them. It must judge exactly as the
 * diff does.
 */
it('judges a snapshot of the same bytes as the full comparison does, reading the records once', async () => {
  const store = await tempDir('drift-same-bytes');
  const built = await runCli([
    ...['build', '--datasets', 'smart-money', '--sources', path.join(REPO_ROOT, 'data/sources')],
    ...['--store', store, '--now', '2026-11-22T12:00:00.000Z', '--json'],
  ]);
  expect(built.exitCode, String(built.stderr)).toBe(0);
  const bundle = await new FolderStore(store).openBundle(JSON.parse(String(built.stdout)).datasets[0].snapshotId);
  const baseline = sideOf(bundle.manifest, bundle.locate);
  const same = { ...baseline, label: 'the same bytes again' };
  // The same files listed in another order: the same records, compared the long way.
  const reordered = { ...same, files: [...baseline.files].reverse() };
  const thresholds = DEFAULT_DRIFT_THRESHOLDS['smart-money'];

  const [once, diffed] = [
    await checkDrift('smart-money', baseline, same, thresholds),
    await checkDrift('smart-money', baseline, reordered, thresholds),
  ];
  expect(once).toEqual(diffed);
  expect(once.rules.length).toBeGreaterThan(5);
  expect(once.rules.every((rule) => rule.status === 'pass')).toBe(true);
  expect(once.rules.map((rule) => rule.observed)).toContain('2026-09-30 -> 2026-09-30');
});
