#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072 node --max-semi-space-size=2 --heap-growing-percent=30
// Entry point of the `drivesync` command: the compiled CLI lives in dist/ (built by `npm run build`, run by prepare).
try {
  await import('../dist/main/cli/index.js');
} catch (error) {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/main/cli')) {
    process.stderr.write('drivesync: not built yet; run `npm run build` in the project folder\n');
    process.exit(1);
  }
  throw error;
}
