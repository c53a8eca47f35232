import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';

/**
 * `pdsnap sync` between two folder stores: what a copy is in the target (test/cli/bucket-store.test.ts
 * covers buckets), and a source that is not whole.
 */

const at = (hour: number) => `2026-11-22T${String(hour).padStart(2, '0')}:00:00.000Z`;
const DATASETS = 'articles,calendar';

let sources: string;
/** A store with builds at 10:00 (current then), 11:00 --no-promote (a candidate) and 12:00 (current). */
let source: string;
const ids: Record<string, string> = {};

async function build(store: string, now: string, ...extra: string[]): Promise<Record<string, string>> {
  const result = await runCli(['build', '--datasets', DATASETS, '--sources', sources, '--store', store, '--now', now, '--json', ...extra]);
  expect(result.exitCode, String(result.stderr)).toBe(0);
  const datasets = JSON.parse(String(result.stdout)).datasets as { dataset: string; snapshotId: string }[];
  return Object.fromEntries(datasets.map((d) => [d.dataset, d.snapshotId]));
}

async function listed(store: string) {
  const list = await runCli(['list', '--store', store, '--json']);
  return JSON.parse(String(list.stdout)) as { snapshots: { snapshotId: string; current: boolean; candidate: boolean }[] };
}

beforeAll(async () => {
  sources = await tempDir('sync-sources');
  await cp(path.join(REPO_ROOT, 'data/sources'), sources, { recursive: true });
  source = await tempDir('sync-source');
  ids.first = (await build(source, at(10))).articles!;
  ids.candidate = (await build(source, at(11), '--no-promote')).articles!;
  ids.current = (await build(source, at(12))).articles!;
});

describe('pdsnap sync between folders', () => {
  it('copies each bundle as what it is: only a candidate is marked one, so drift and gc see the one current before', async () => {
    const target = await tempDir('sync-target');
    const sync = await runCli(['sync', source, target, '--datasets', DATASETS, '--now', at(13), '--json']);
    expect(sync.exitCode, String(sync.stderr)).toBe(0);
    const flags = new Map((await listed(target)).snapshots.map((s) => [s.snapshotId, s]));
    expect(flags.get(ids.first!)).toMatchObject({ current: false, candidate: false });
    expect(flags.get(ids.candidate!)).toMatchObject({ current: false, candidate: true });
    expect(flags.get(ids.current!)).toMatchObject({ current: true, candidate: false });
    // validate compares the current snapshot with the one before it that is no candidate: 10:00's.
    const validate = await runCli(['validate', '--store', target, '--datasets', 'articles', '--now', at(13), '--json']);
    expect(validate.stdout).not.toContain('no earlier snapshot in the store');
  });

  it("skips a source bundle whose manifest is unreadable, saying so; its dataset's pointer stays, exit 2, the others move", async () => {
    const broken = await tempDir('sync-broken-source');
    await cp(source, broken, { recursive: true });
    const calendar = JSON.parse(await readFile(path.join(broken, 'current/calendar.json'), 'utf8')).snapshotId as string;
    await writeFile(path.join(broken, 'bundles/calendar', calendar, 'manifest.json'), 'garbage\n');
    const target = await tempDir('sync-target');
    const sync = await runCli(['sync', broken, target, '--datasets', DATASETS, '--now', at(13)]);
    expect(sync.exitCode).toBe(2);
    expect(sync.stdout).toContain(`skipped ${calendar}: its manifest in ${broken} cannot be read`);
    expect(sync.stdout).toContain(`calendar: not moved: the source's current bundle ${calendar} cannot be read`);
    expect(sync.stdout).toContain(`articles: current is now ${ids.current}`);
    expect(sync.stderr).toContain('the current snapshot of calendar could not be synced');
    const pointers = JSON.parse(String((await runCli(['list', '--store', target, '--json'])).stdout)).pointers;
    expect(pointers.articles).toEqual({ state: 'ok', snapshotId: ids.current });
    expect(pointers.calendar).toEqual({ state: 'none' });
  });
});
