import { cp, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { flushDirtyPages, measureProcess, seconds } from './measure.js';

/**
 * The days after a full-scale Smart Money build, as the scheduled job meets them, in a folder store
 * with its derivation cache (cache/ inside it):
 * - a day whose inputs did not change: the build reuses what it derived, and the store grows by a
 *   manifest (targets: at most 5 s, at most 1 MB);
 * - a day when EDGAR filings arrived (the sample's EDGAR filings, copied in beside the data sets):
 *   only those are read, the data sets come from the cache, and only the batches of investors the
 *   filings touch are derived; the others are read back from the parts the day before published.
 */
export interface DailyRebuildResult {
  unchanged: { wallMs: number; cpuMs: number; storeGrowthBytes: number; reused: boolean };
  newFilings: {
    filings: number;
    wallMs: number;
    cpuMs: number;
    storeGrowthBytes: number;
    dataSetsFromCache: number;
    /** Investors read back from the day before's parts, and investors derived. */
    investorsReadBack: number;
    investorsDerived: number;
  };
}

export async function measureDailyRebuild(
  cli: string,
  repoRoot: string,
  options: { sources: string; edgarFrom: string; store: string; builtAt: string },
): Promise<DailyRebuildResult> {
  const day = (n: number) => new Date(Date.parse(options.builtAt) + n * 86_400_000).toISOString();
  const build = async (now: string) => {
    const args = [cli, 'build', '--datasets', 'smart-money', '--all-filers', '--sources', options.sources, '--store', options.store];
    const before = await storeBytes(options.store);
    await flushDirtyPages();
    const run = await measureProcess('node', [...args, '--now', now, '--json', '--quiet'], repoRoot);
    if (run.exitCode !== 0) throw new Error(`rebuild failed (exit ${run.exitCode}): ${run.stderr}\n${run.stdout.slice(0, 2000)}`);
    const notes = (JSON.parse(run.stdout).datasets[0].notes as { source: string; message: string }[]).map(
      (n) => `${n.source}: ${n.message}`,
    );
    return { run, notes, growth: (await storeBytes(options.store)) - before };
  };

  process.stderr.write('rebuilding the same inputs a day later...\n');
  const same = await build(day(1));
  process.stderr.write("rebuilding with a day's EDGAR filings added...\n");
  await cp(options.edgarFrom, path.join(options.sources, 'filings', 'edgar'), { recursive: true });
  const filings = (await readdir(path.join(options.sources, 'filings', 'edgar'), { recursive: true })).filter(
    (name) => name.endsWith('primary_doc.xml') || name.endsWith('.txt'),
  ).length;
  const added = await build(day(2));
  return {
    unchanged: {
      wallMs: same.run.wallMs,
      cpuMs: same.run.cpuMs,
      storeGrowthBytes: same.growth,
      reused: same.notes.some((note) => note.startsWith('derivation cache: the inputs are those of an earlier build')),
    },
    newFilings: {
      filings,
      wallMs: added.run.wallMs,
      cpuMs: added.run.cpuMs,
      storeGrowthBytes: added.growth,
      dataSetsFromCache: added.notes.filter((note) => note.endsWith('taken from the derivation cache')).length,
      ...investorsReadBack(added.notes),
    },
  };
}

/** What the build's investor note says: `N of M investor(s) read back from the parts of an earlier build, K derived`. */
function investorsReadBack(notes: string[]): { investorsReadBack: number; investorsDerived: number } {
  for (const note of notes) {
    const match = /(\d+) of \d+ investor\(s\) read back from the parts of an earlier build, (\d+) derived/.exec(note);
    if (match) return { investorsReadBack: Number(match[1]), investorsDerived: Number(match[2]) };
  }
  throw new Error(`the rebuild gave no investor reuse note: ${notes.join('; ')}`);
}

/** Bytes of the store's bundles, blobs and pointers: its derivation cache (cache/) left out. */
async function storeBytes(store: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(store, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (!entry.isFile() || path.relative(store, file).startsWith(`cache${path.sep}`)) continue;
    total += (await stat(file)).size;
  }
  return total;
}

export function formatDailyRebuild(r: DailyRebuildResult): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  return [
    `  rebuild, same inputs ${seconds(r.unchanged.wallMs)} wall, ${seconds(r.unchanged.cpuMs)} CPU (target at most 5 s); store grew ${kb(r.unchanged.storeGrowthBytes)} (target at most 1 MB); ${r.unchanged.reused ? 'reused the derivation' : 'DERIVED AGAIN'}`,
    `  rebuild, new filings ${seconds(r.newFilings.wallMs)} wall, ${seconds(r.newFilings.cpuMs)} CPU with ${r.newFilings.filings} EDGAR filings added; ${r.newFilings.dataSetsFromCache} data set(s) from the cache; ${r.newFilings.investorsDerived} investor(s) derived, ${r.newFilings.investorsReadBack} read back; store grew ${kb(r.newFilings.storeGrowthBytes)}`,
  ].join('\n');
}
