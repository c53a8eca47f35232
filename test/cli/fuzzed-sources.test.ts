import fc from 'fast-check';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOW, SAMPLE_SOURCES } from '../helpers/hostile-inputs.js';
import { listFiles } from '../../src/ingest/source-files.js';
import { runCliProcess, tempDir } from '../helpers/cli.js';

/**
 * The whole build on a sample tree with several files mutated at random (fast-check, fixed seeds so
 * a failure replays): it never crashes (no "error" outcome, no exit 3) and never fails a dataset
 * for a record that breaks its schema; bad files are rejections, the rest is published.
 */

const SOURCE_FILE = /\.(md|json|xml|atom|yaml|csv|txt)$/;

describe('pdsnap build on randomly damaged sources', () => {
  it.each([1, 2])('never crashes and never publishes a record that fails its schema (seed %i)', async (seed) => {
    const sources = await tempDir('fuzzed-sources');
    await cp(SAMPLE_SOURCES, sources, { recursive: true });
    const files = (await listFiles(sources)).filter((file) => SOURCE_FILE.test(file));
    const damage = fc.sample(
      fc.record({
        file: fc.integer({ min: 0, max: files.length - 1 }),
        cuts: fc.array(fc.record({ at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 6 }) }), { minLength: 1, maxLength: 4 }),
      }),
      { numRuns: 8, seed },
    );
    for (const { file, cuts } of damage) {
      let bytes = await readFile(files[file]!);
      for (const { at, bytes: inserted } of cuts) {
        const position = at % (bytes.length + 1);
        bytes = Buffer.concat([bytes.subarray(0, position), inserted, bytes.subarray(position + inserted.length)]);
      }
      await writeFile(files[file]!, bytes);
    }
    // A process of its own, with a timeout: fuzzed input that sent a reader into a loop would hang it.
    const result = await runCliProcess(
      ['build', '--sources', sources, '--store', path.join(sources, '..', `store-${seed}`), '--now', NOW, '--json'],
      { timeout: 60_000 },
    );
    expect([0, 2], String(result.stderr)).toContain(result.exitCode);
    const report = JSON.parse(String(result.stdout)) as { datasets: { dataset: string; outcome: string; reason: string | null }[] };
    for (const dataset of report.datasets) {
      expect(dataset.outcome, `${dataset.dataset}: ${dataset.reason}`).not.toBe('error');
      expect(dataset.reason ?? '').not.toMatch(/schema check|unexpected error|content rules failed/);
    }
  });
});
