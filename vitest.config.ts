import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most of the suite waits (on the reference server, on the watcher's stability wait, on timers) rather than
    // computes: three test files at a time on two cores finish sooner than two.
    maxWorkers: 3,
    globalSetup: ['test/global-setup.ts'],
  },
});
