import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchBucket, formatBucket } from './bucket.js';
import { benchFetch, formatFetch } from './fetch.js';
import { benchHostile, formatHostile } from './hostile-sources.js';
import { benchScaleAt, formatScale, type ScaleResult } from './scale.js';
import { benchServer, formatServer } from './server.js';
import { benchSmartMoney, formatSmartMoney } from './smart-money.js';

/**
 * npm run bench [-- smart-money|server|hostile|scale|bucket|fetch] — benchmarks, not tests: they print figures for
 * docs/performance.md, and fail only when the Smart Money build breaks its 1 GiB memory budget, when its
 * outputs disagree with the DuckDB twin's, or when its builds from the ZIPs and from the TSVs publish different parts.
 * BENCH_FILERS overrides the number of filers per quarter (default 9000, the size of a real quarter);
 * BENCH_SERVER_PARTS picks parts of the server benchmark (load, compression, public, auth, redis).
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repoRoot, 'dist/bin/pdsnap.js');
const which = process.argv[2] ?? 'all';
const filers = Number(process.env.BENCH_FILERS ?? 9000);

let failed = false;
if (which === 'all' || which === 'smart-money') {
  const result = await benchSmartMoney(cli, repoRoot, filers);
  process.stdout.write(`${formatSmartMoney(result)}\n\n`);
  failed ||=
    !result.withinBudget || result.zip.mismatches.length > 0 || result.tsv.mismatches.length > 0 || result.recordDifferences.length > 0;
}
if (which === 'all' || which === 'server') {
  // BENCH_CLI: another build of pdsnap to load (an earlier commit's, for before and after on one machine).
  process.stdout.write(`${formatServer(await benchServer(process.env.BENCH_CLI ?? cli, repoRoot))}\n`);
}
if (which === 'scale') {
  // Not part of `all` either: at 3x it generates and builds about 20 million INFOTABLE rows.
  // BENCH_SCALES lists the factors of BENCH_FILERS (default 1,3).
  const results: ScaleResult[] = [];
  for (const factor of (process.env.BENCH_SCALES ?? '1,3').split(',').map(Number)) {
    results.push(await benchScaleAt(cli, repoRoot, factor, filers));
    process.stdout.write(`${formatScale(results.slice(-1))}\n`);
  }
  process.stdout.write(`\n${formatScale(results)}\n`);
}
if (which === 'bucket') {
  // Not part of `all`: a full-scale build, then publishing it to an S3 server and serving from it.
  process.stdout.write(`${formatBucket(await benchBucket(cli, repoRoot, filers))}\n`);
}
if (which === 'fetch') {
  // Not part of `all`: its time is the SEC rate limit's, by design (600 filings take about 80 s).
  process.stdout.write(`${formatFetch(await benchFetch(cli))}\n`);
}
if (which === 'hostile') {
  // Not part of `all`: it plants a 1 GiB ZIP member and a 100,000-document submission.
  const only = process.env.BENCH_CASES?.split(',');
  const runs = await benchHostile(process.env.BENCH_CLI ?? cli, only, Number(process.env.BENCH_TIMEOUT_S ?? 300) * 1000);
  process.stdout.write(`${formatHostile(runs)}\n`);
}
process.exitCode = failed ? 1 : 0;
