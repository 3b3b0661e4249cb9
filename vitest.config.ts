import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real servers, engines and commands on two cores that may be busy: a case that passes in 10 s alone can need 40.
    // A deadline only catches a hang; what a test checks is in its assertions.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most of the suite waits (on the reference server, on the watcher's stability wait, on timers) rather than
    // computes: three test files at a time on two cores finish sooner than two.
    maxWorkers: 3,
    globalSetup: ['test/global-setup.ts'],
  },
});
