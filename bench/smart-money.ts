import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { measureProcess, mib, seconds } from './measure.js';

const NOW = '2026-11-22T12:00:00.000Z';
const MEMORY_BUDGET = 1024 * 1024 * 1024;

export interface SmartMoneyBenchResult {
  filers: number;
  infotableRows: number;
  generateMs: number;
  buildMs: number;
  peakRssBytes: number;
  investors: number;
  trades: number;
  withinBudget: boolean;
}

/**
 * Generates two full-size quarterly Form 13F data sets and times a Smart Money build over them in a
 * child process (the real CLI), recording its peak resident memory.
 */
export async function benchSmartMoney(cli: string, repoRoot: string, filers: number): Promise<SmartMoneyBenchResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-bench-'));
  try {
    const sources = path.join(dir, 'sources');
    process.stderr.write(`generating two Form 13F data sets with ${filers} filers each...\n`);
    const generate = await measureProcess('node', [cli, 'sample', '--out', sources, '--now', NOW, '--scale', String(filers), '--json'], repoRoot);
    if (generate.exitCode !== 0) throw new Error(`sample failed: ${generate.stderr}`);
    const infotableRows = JSON.parse(generate.stdout).datasetRows as number;
    process.stderr.write(`building smart-money over ${infotableRows} information-table rows...\n`);
    const build = await measureProcess(
      'node',
      [cli, 'build', '--datasets', 'smart-money', '--all-filers', '--sources', sources, '--store', path.join(dir, 'store'), '--now', NOW, '--json', '--quiet'],
      repoRoot,
    );
    if (build.exitCode !== 0) throw new Error(`build failed (exit ${build.exitCode}): ${build.stderr}\n${build.stdout.slice(0, 2000)}`);
    const report = JSON.parse(build.stdout).datasets[0];
    return {
      filers,
      infotableRows,
      generateMs: generate.wallMs,
      buildMs: build.wallMs,
      peakRssBytes: build.peakRssBytes,
      investors: report.records['investors'],
      trades: report.records['trades'],
      withinBudget: build.peakRssBytes < MEMORY_BUDGET,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function formatSmartMoney(r: SmartMoneyBenchResult): string {
  return [
    `Smart Money build, 2 quarters x ${r.filers} filers (${r.infotableRows} INFOTABLE rows)`,
    `  generate data sets  ${seconds(r.generateMs)}`,
    `  build wall time     ${seconds(r.buildMs)}`,
    `  build peak RSS      ${mib(r.peakRssBytes)} (budget 1024 MiB: ${r.withinBudget ? 'within' : 'EXCEEDED'})`,
    `  published           ${r.investors} investors, ${r.trades} trade rows`,
  ].join('\n');
}
