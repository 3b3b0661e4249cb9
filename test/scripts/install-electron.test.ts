/**
 * `npm run install-electron` (scripts/install-electron.mjs) runs the electron package's own installer; when the
 * download cannot be made it says so in one line, without the installer's stack trace, and exits 1. The download is
 * pointed at a closed port on this computer (ELECTRON_MIRROR) with an empty download cache, so nothing is fetched
 * and nothing is put into node_modules, whatever the network.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'install-electron.mjs');
const cache = tempDir('electron-cache');
afterAll(() => rmSync(cache, { recursive: true, force: true }));

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

describe('npm run install-electron', () => {
  it('without a way to download, says so in one line and exits 1', () => {
    const installed = existsSync(join(ROOT, 'node_modules', 'electron', 'path.txt'));
    const started = Date.now();
    const result = spawnSync(process.execPath, [SCRIPT], {
      cwd: ROOT,
      env: { ...process.env, ELECTRON_MIRROR: 'http://127.0.0.1:9/', electron_config_cache: cache, force_no_cache: 'true' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    if (installed) {
      // The binary is already in place on this machine: the installer has nothing to download.
      expect(result.status, result.stderr).toBe(0);
      expect(lines(result.stdout)).toHaveLength(1);
      return;
    }
    expect(result.status, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    expect(lines(result.stderr), result.stderr).toEqual([
      expect.stringMatching(/^drivesync: could not download the Electron \d+\.\d+\.\d+ binary from 127\.0\.0\.1:9 \(no network\?\): \S.*$/),
    ]);
    expect(result.stderr).not.toMatch(/^\s+at |Error:/m);
    expect(existsSync(join(ROOT, 'node_modules', 'electron', 'path.txt'))).toBe(false);
  });

  it('is what the missing-binary message suggests', () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts['install-electron']).toBe('node scripts/install-electron.mjs');
    expect(readFileSync(join(ROOT, 'scripts', 'check-electron.mjs'), 'utf8')).toContain('`npm run install-electron`');
  });
});
