import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    globalSetup: ['./test/global-setup.ts'],
    // End-to-end tests spawn the built CLI and real servers; give them room on a 2-core machine.
    testTimeout: 120_000,
    // Most of a test's time is spent waiting on the processes it starts (the CLI, servers): with
    // vitest's default of one worker per core but one on a 2-core machine, a core sat idle.
    maxWorkers: 3,
    hookTimeout: 60_000,
    // Test files share a worker's module cache instead of importing every module again per file
    // (vitest's import time fell from 58 to 14 s of the run). Safe here because no test mocks a
    // module, what src keeps at module level is caches of pure results, and the one helper that
    // swaps globals for a while (the streams, environment and folder of an in-process CLI command,
    // test/helpers/cli.ts) puts them back.
    isolate: false,
    // Each module's transform (TypeScript to JavaScript) is kept in node_modules/.experimental-vitest-cache
    // between runs, keyed by the file's content: a second run transformed in 2.4 s what took 10 to 14 s.
    experimental: { fsModuleCache: true },
    // Child processes, not threads: the tests run CLI commands in their worker, and a command's
    // working folder is set with process.chdir, which worker threads do not have (test/helpers/cli.ts).
    pool: 'forks',
    server: {
      deps: {
        // The bundled CLI is loaded by Node itself, as users run it, not through Vite's transform
        // (which would rewrite its import() calls and import.meta).
        external: [/\/dist\/bin\//],
      },
    },
  },
});
