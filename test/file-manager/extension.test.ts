/**
 * The file manager extension (extensions/file-manager/drivesync_file_manager.py) as Nautilus runs it: the real
 * Nautilus 4.0 introspection data (gir1.2-nautilus-4.0), files handed to it as Nautilus hands them, and the socket
 * served by a real `drivesync sync DIR` on the reference server. `drivesync file-manager install|remove` put it in
 * place and take it away.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, cli, makeTree, newAccount, signedInHome, spawnCli, tempDir, useCliTestServer } from '../cli/helpers.js';

const HARNESS = resolve(import.meta.dirname, 'harness.py');

afterAll(() => cleanUp());
const server = useCliTestServer();

function harness(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    // Debian's python3, where python3-gi and the typelibs are (not a python3 of the user's own on PATH).
    const child = spawn('/usr/bin/python3', [HARNESS, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('close', (code) => done({ code, out, err }));
  });
}

describe('the file manager extension', () => {
  it('in Nautilus, Nemo and Caja: an emblem on each file from the socket without blocking, and a link copied from its menu', { timeout: 120_000 }, async () => {
    const account = await newAccount(server, 'fm-extension');
    const home = await signedInHome(server, account);
    const runtime = tempDir('runtime');
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, { 'report.txt': 'report', 'docs/plan.txt': 'plan' });
    const running = spawnCli(['sync', dir], { home, env: { XDG_RUNTIME_DIR: runtime } });
    try {
      await running.waitFor(/^watching .* for changes/m, 30_000);
      symlinkSync('/etc/hostname', join(dir, 'elsewhere'));
      const copy = join(dir, 'report (conflicted copy 2026-01-01 120000 laptop).txt');
      writeFileSync(copy, 'theirs');
      await running.waitFor(/uploaded report \(conflicted copy/m, 20_000);
      const files = [join(dir, 'report.txt'), join(dir, 'docs'), join(dir, 'elsewhere'), copy, '/etc/hostname'];
      // One source for the three file managers, each with its own introspection data (GTK 4 for Nautilus, 3 for the others).
      for (const [fm, gtk] of [['Nautilus', 4], ['Nemo', 3], ['Caja', 3]] as const) {
        const log = join(tempDir('fm-log'), 'extension.log');
        writeFileSync(log, '');
        const result = await harness([...files, '--', join(dir, 'report.txt')], { XDG_RUNTIME_DIR: runtime, DRIVESYNC_FM_LOG: log, HARNESS_FM: fm });
        expect(result.code, result.err).toBe(0);
        const seen = JSON.parse(result.out) as { emblems: Record<string, string | null>; menu: Array<[string, string, boolean]>; log: string[] };
        expect(seen.emblems, fm).toEqual({
          [join(dir, 'report.txt')]: 'drivesync-synced',
          [join(dir, 'docs')]: 'drivesync-synced',
          [join(dir, 'elsewhere')]: 'drivesync-ignored',
          [copy]: 'drivesync-conflict',
          // Outside every synced folder: no emblem.
          '/etc/hostname': null,
        });
        expect(seen.menu.map(([name, , sensitive]) => [name, sensitive]), fm).toEqual([
          ['Drivesync::copy-link', true],
          ['Drivesync::share', true],
          ['Drivesync::versions', true],
          ['Drivesync::star', true],
        ]);
        expect(seen.log[0]).toBe(`loaded in ${fm} (GTK ${gtk})`);
        const copied = seen.log.find((l) => l.startsWith('copying '));
        expect(copied, fm).toMatch(/^copying http:\/\/127\.0\.0\.1:\d+\/drive\/s\/\S+$/);
        const page = await fetch(copied!.slice('copying '.length));
        expect(await page.text()).toBe('report');
      }
    } finally {
      await running.stop('SIGINT');
    }
  });

  it('with no drivesync running, shows nothing and answers at once', { timeout: 60_000 }, async () => {
    const log = join(tempDir('fm-log'), 'extension.log');
    writeFileSync(log, '');
    const result = await harness(['/etc/hostname', '--', '/etc/hostname'], { XDG_RUNTIME_DIR: tempDir('runtime-empty'), DRIVESYNC_FM_LOG: log, HARNESS_WAIT_S: '1' });
    expect(result.code, result.err).toBe(0);
    const seen = JSON.parse(result.out) as { emblems: Record<string, string | null>; menu: unknown[]; seconds: number };
    expect(seen).toMatchObject({ emblems: { '/etc/hostname': null }, menu: [] });
  });

  it('installs under $XDG_DATA_HOME for Nautilus, Nemo and Caja, with its emblems, and removes all of it', async () => {
    const data = tempDir('xdg-data');
    const home = tempDir('home');
    const installed = await cli(['file-manager', 'install'], { home, env: { XDG_DATA_HOME: data } });
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toMatch(/^installed the file manager extension for Nautilus, Nemo and Caja \(10 files under /m);
    for (const folder of ['nautilus-python', 'nemo-python', 'caja-python']) {
      expect(readFileSync(join(data, folder, 'extensions', 'drivesync_file_manager.py'), 'utf8')).toBe(readFileSync(resolve(import.meta.dirname, '../../extensions/file-manager/drivesync_file_manager.py'), 'utf8'));
    }
    expect(existsSync(join(data, 'icons/hicolor/scalable/emblems/drivesync-synced.svg'))).toBe(true);
    const removed = await cli(['file-manager', 'remove'], { home, env: { XDG_DATA_HOME: data } });
    expect(removed.stdout).toMatch(/^removed the file manager extension \(10 files\)/m);
    expect(existsSync(join(data, 'nautilus-python', 'extensions', 'drivesync_file_manager.py'))).toBe(false);
    expect((await cli(['file-manager', 'remove'], { home, env: { XDG_DATA_HOME: data } })).stdout).toMatch(/was not installed/);
  });
});
