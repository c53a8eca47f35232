import { defineConfig } from 'rolldown';

/**
 * `pdsnap` as users run it: the CLI and the libraries it uses bundled into a few ES modules
 * (one per subcommand, loaded when asked for) in `dist/bin`. Node then reads a handful of files
 * instead of resolving and compiling about 650 modules: an articles build of the sample took
 * 0.89 s of CPU from the compiled modules and 0.59 s from the bundle (docs/performance-log.md,
 * The test suite and the CLI's start-up).
 *
 * better-sqlite3 stays in node_modules (a native addon), and so do the files read from packages
 * at run time (the Redoc script of /docs).
 */
export default defineConfig([
  {
    // The workers land in the chunks folder, beside the chunks that start them
    // (src/lib/worker-script.ts).
    input: {
      pdsnap: 'src/cli/bin.ts',
      // main without the call that runs it: the tests run commands in their own process through it.
      'cli-main': 'src/cli/main.ts',
      'chunks/form13f-worker': 'src/ingest/filings/form13f-worker.ts',
      'chunks/diff-worker': 'src/publish/diff/diff-worker.ts',
      'chunks/smart-money-worker': 'src/cli/pipeline/smart-money-worker.ts',
    },
    platform: 'node',
    external: ['better-sqlite3'],
    output: {
      dir: 'dist/bin',
      format: 'esm',
      entryFileNames: '[name].js',
      chunkFileNames: 'chunks/[name]-[hash].js',
      sourcemap: true,
      cleanDir: true,
    },
  },
  {
    // The preload that makes a measured process write its peak RSS (tests and benchmarks).
    input: { 'peak-rss': 'bench/peak-rss.ts' },
    platform: 'node',
    output: { dir: 'dist/preload', format: 'esm', entryFileNames: '[name].js', cleanDir: true },
  },
]);
