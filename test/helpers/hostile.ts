import { cp, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleFilePath } from './bundle-file.js';
import { hostileCase, MARKER, NOW, SAMPLE_SOURCES, type Dataset } from './hostile-inputs.js';
import { expect } from 'vitest';
import { runCli, runCliMeasured, tempDir } from './cli.js';

/**
 * Builds the committed sample tree (dated for NOW) with one hostile file planted, through the real
 * CLI. What tests of test/cli/hostile-*.test.ts share. A case whose file is made to cost memory or
 * time (deep nesting, an alias bomb, a huge member) is built in a process of its own, which gives
 * its peak RSS and a timeout; the others, whose point is what is rejected and published, run in the
 * test's process (test/helpers/cli.ts). bench/hostile-sources.ts measures every case.
 */

export interface Rejection {
  source: string;
  location: string;
  reason: string;
}
export interface Note {
  source: string;
  message: string;
}
export interface DatasetReport {
  outcome: string;
  records: Record<string, number>;
  rejected: Rejection[];
  notes: Note[];
  reason: string | null;
}

export interface HostileBuild {
  exitCode: number | undefined;
  stderr: string;
  /** The build process's peak RSS, in bytes; null when the build ran in the test's process. */
  peakRssBytes: number | null;
  dataset: DatasetReport;
  records: number;
  store: string;
  sources: string;
  outside: string;
}

export const MiB = 1024 * 1024;

export const total = (records: Record<string, number>) => Object.values(records).reduce((a, b) => a + b, 0);

/** A build's wall-clock bound: generous (minutes before the fixes), not a speed target (bench/ has those). */
const BUILD_TIMEOUT_MS = 45_000;

export type HowBuilt = 'here' | 'measured';

export async function buildSources(
  sources: string,
  dataset: Dataset,
  args: string[] = [],
  outside = '',
  how: HowBuilt = 'here',
): Promise<HostileBuild> {
  const store = await tempDir('hostile-store');
  const command = ['build', '--datasets', dataset, '--sources', sources, '--store', store, '--now', NOW, '--json', ...args];
  let run: { exitCode: number | undefined; stdout: string; stderr: string; peakRssBytes: number | null };
  if (how === 'measured') {
    const { result, peakRssBytes } = await runCliMeasured(command, { timeout: BUILD_TIMEOUT_MS });
    if (result.timedOut) throw new Error(`pdsnap build did not finish within ${BUILD_TIMEOUT_MS / 1000} s`);
    run = { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr), peakRssBytes };
  } else {
    run = { ...(await runCli(command)), peakRssBytes: null };
  }
  const report = JSON.parse(run.stdout) as { datasets: DatasetReport[] };
  const built = report.datasets[0]!;
  return {
    exitCode: run.exitCode,
    stderr: run.stderr,
    peakRssBytes: run.peakRssBytes,
    dataset: built,
    records: total(built.records),
    store,
    sources,
    outside,
  };
}

/** The build's process stayed under `bound` bytes of peak RSS (a build made by buildCase(..., 'measured')). */
export function expectBoundedMemory(build: HostileBuild, bound = 400 * MiB): void {
  expect(build.peakRssBytes, 'built in a process of its own').not.toBeNull();
  expect(build.peakRssBytes).toBeLessThan(bound);
}

/**
 * Copies the sample, plants the case, builds its dataset, and undoes what must not outlive the build.
 * `plant`, when given, writes the same hostile input as the case's own plant, faster.
 */
export async function buildCase(
  id: string,
  how: HowBuilt = 'here',
  args: string[] = [],
  plant?: (sources: string, outside: string) => Promise<void>,
): Promise<HostileBuild> {
  const hostile = hostileCase(id);
  const root = await mkdtemp(path.join(tmpdir(), `pdsnap-hostile-${id}-`));
  const sources = path.join(root, 'sources');
  const outside = path.join(root, 'outside');
  await cp(SAMPLE_SOURCES, sources, { recursive: true });
  const undo = plant ? await plant(sources, outside) : await hostile.plant(sources, outside);
  try {
    return await buildSources(sources, hostile.dataset, args, outside, how);
  } finally {
    if (undo) await undo();
  }
}

const baselines = new Map<Dataset, Promise<HostileBuild>>();

/** The untouched sample's build of a dataset, once per test file. */
export function baseline(dataset: Dataset): Promise<HostileBuild> {
  let built = baselines.get(dataset);
  if (!built) {
    built = buildSources(SAMPLE_SOURCES, dataset);
    baselines.set(dataset, built);
  }
  return built;
}

/** Rejections of a build that the untouched sample does not have: what the planted file caused. */
export async function newRejections(build: HostileBuild, dataset: Dataset): Promise<Rejection[]> {
  const known = new Set((await baseline(dataset)).dataset.rejected.map((r) => JSON.stringify(r)));
  return build.dataset.rejected.filter((r) => !known.has(JSON.stringify(r)));
}

export async function newNotes(build: HostileBuild, dataset: Dataset): Promise<Note[]> {
  const known = new Set((await baseline(dataset)).dataset.notes.map((n) => JSON.stringify(n)));
  return build.dataset.notes.filter((n) => !known.has(JSON.stringify(n)));
}

/** Whether any file of the store (bundles, manifests) contains text: nothing expanded may be published. */
export async function storeContains(store: string, text: string): Promise<boolean> {
  for (const entry of await readdir(store, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const content = await readFile(path.join(entry.parentPath, entry.name), 'utf8');
    if (content.includes(text)) return true;
  }
  return false;
}

export { MARKER };

/** The current bundle's manifest and the records of one resource (`articles`, `investors`...), from its NDJSON parts. */
export async function published(
  store: string,
  dataset: Dataset,
  resource: string,
): Promise<{ manifest: { sources: { path: string; resolvedPath?: string }[] }; records: unknown[] }> {
  const pointer = JSON.parse(await readFile(path.join(store, 'current', `${dataset}.json`), 'utf8')) as { snapshotId: string };
  const manifest = JSON.parse(await readFile(path.join(store, 'bundles', dataset, pointer.snapshotId, 'manifest.json'), 'utf8')) as {
    sources: { path: string; resolvedPath?: string }[];
    files: { path: string }[];
  };
  const records: unknown[] = [];
  for (const file of manifest.files.filter((entry) => entry.path.startsWith(`${resource}/`))) {
    const text = await readFile(await bundleFilePath(store, pointer.snapshotId, file.path), 'utf8');
    for (const line of text.split('\n')) if (line !== '') records.push(JSON.parse(line));
  }
  return { manifest, records };
}
