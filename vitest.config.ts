import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    globalSetup: ['./test/global-setup.ts'],
    // End-to-end tests spawn the built CLI and real servers; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
