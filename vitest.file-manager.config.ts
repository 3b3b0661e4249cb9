import { defineConfig } from 'vitest/config';

/**
 * `npm run file-manager-check`: a real Nautilus under Xvfb with the extension installed, on a folder a real
 * `drivesync sync DIR` syncs (test/file-manager/nautilus.xvfb.ts). Too heavy for `npm test` (Nautilus, Xvfb, a desktop
 * session); it needs the Debian packages it names when they are missing.
 */
export default defineConfig({
  test: {
    include: ['test/file-manager/*.xvfb.ts'],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
  },
});
