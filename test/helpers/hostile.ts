import { cp, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hostileCase, MARKER, NOW, SAMPLE_SOURCES, type Dataset } from '../../bench/hostile-inputs.js';
import { runCliMeasured, tempDir } from './cli.js';

/**
 * Builds the committed sample tree (dated for NOW) with one hostile file planted, through the real
 * CLI, measuring the process's peak RSS. What tests of test/cli/hostile-*.test.ts share.
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
  timedOut: boolean;
  stderr: string;
  peakRssBytes: number;
  dataset: DatasetReport;
  records: number;
  store: string;
  sources: string;
  outside: string;
}

export const total = (records: Record<string, number>) => Object.values(records).reduce((a, b) => a + b, 0);

/** A build's wall-clock bound: generous (minutes before the fixes), not a speed target (bench/ has those). */
const BUILD_TIMEOUT_MS = 45_000;

export async function buildSources(sources: string, dataset: Dataset, args: string[] = [], outside = ''): Promise<HostileBuild> {
  const store = await tempDir('hostile-store');
  const { result, peakRssBytes } = await runCliMeasured(
    ['build', '--datasets', dataset, '--sources', sources, '--store', store, '--now', NOW, '--json', ...args],
    { timeout: BUILD_TIMEOUT_MS },
  );
  if (result.timedOut) throw new Error(`pdsnap build did not finish within ${BUILD_TIMEOUT_MS / 1000} s`);
  const report = JSON.parse(String(result.stdout)) as { datasets: DatasetReport[] };
  const built = report.datasets[0]!;
  return {
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    stderr: String(result.stderr),
    peakRssBytes,
    dataset: built,
    records: total(built.records),
    store,
    sources,
    outside,
  };
}

/**
 * Copies the sample, plants the case, builds its dataset, and undoes what must not outlive the build.
 * `plant`, when given, writes the same hostile input as the case's own plant, faster.
 */
export async function buildCase(
  id: string,
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
    return await buildSources(sources, hostile.dataset, args, outside);
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
  const bundle = path.join(store, 'bundles', dataset, pointer.snapshotId);
  const manifest = JSON.parse(await readFile(path.join(bundle, 'manifest.json'), 'utf8')) as {
    sources: { path: string; resolvedPath?: string }[];
    files: { path: string }[];
  };
  const records: unknown[] = [];
  for (const file of manifest.files.filter((entry) => entry.path.startsWith(`${resource}/`))) {
    const text = await readFile(path.join(bundle, file.path), 'utf8');
    for (const line of text.split('\n')) if (line !== '') records.push(JSON.parse(line));
  }
  return { manifest, records };
}

export const MiB = 1024 * 1024;
