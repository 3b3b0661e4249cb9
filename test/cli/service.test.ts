/**
 * The background service: `drivesync run` syncs every configured folder in one process and follows the config;
 * `service install|status|logs|remove` with an XDG autostart entry where no systemd user manager runs (these
 * machines), and the systemd user unit checked by systemd-analyze.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../../main/state/lock.js';
import { unitText } from '../../main/state/service.js';
import { eventually } from '../helpers/eventually.js';
import { BIN, cli, expectOneLineError, makeTree, newAccount, remoteTree, signedInHome, spawnCli, tempDir, useCliTestServer } from './helpers.js';

/** A process runs: alive, and not a zombie waiting for a parent that is gone to reap it. */
function running(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Services a test started on its own (detached): stopped after it, whatever happened. */
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

describe('the background service', () => {
  const server = useCliTestServer();

  it('drivesync run syncs every configured folder in one process, follows pause and resume, refuses a second run, and stops cleanly', async () => {
    const account = await newAccount(server, 'run');
    const home = await signedInHome(server, account);
    const drive = join(tempDir(), 'Drive');
    const work = join(tempDir(), 'Work');
    makeTree(drive, { 'a.txt': 'a' });
    makeTree(work, { 'w.txt': 'w' });
    for (const dir of [drive, work]) expect((await cli(['sync', dir, '--once'], { home })).code).toBe(0);

    const run = spawnCli(['run'], { home });
    await run.waitFor(/^drivesync run: syncing 2 folders \(process \d+\)$/m);
    await run.waitFor(/^Work: syncing /m);
    const twice = await cli(['run'], { home });
    expect(twice.code).toBe(1);
    expectOneLineError(twice, new RegExp(`drivesync run already runs in process ${run.child.pid} for this state folder`));
    // Each folder syncs: a file saved in either goes up, and comes down into the other.
    writeFileSync(join(drive, 'from-drive.txt'), 'saved in Drive');
    await eventually(() => remoteTree(server, account.token), (tree) => tree['from-drive.txt'] === 'saved in Drive', { within: 30_000 });
    await eventually(() => existsSync(join(work, 'from-drive.txt')), { within: 30_000 });
    // pause and resume reach it through the config.
    expect((await cli(['pause', work], { home })).stdout).toMatch(new RegExp(`the sync in process ${run.child.pid} pauses now`));
    await run.waitFor(/^Work: paused$/m);
    expect((await cli(['resume', work], { home })).code).toBe(0);
    await run.waitFor(/^Work: resumed$/m);
    const status = JSON.parse((await cli(['status', '--json'], { home })).stdout);
    expect(status.roots.map((r: { running: boolean }) => r.running)).toEqual([true, true]);
    expect(status.service).toBe(run.child.pid);
    expect((await cli(['status'], { home })).stdout).toMatch(new RegExp(`^service: +drivesync run syncs the folders, in process ${run.child.pid}`, 'm'));
    run.child.kill('SIGTERM');
    const finished = await run.exited();
    expect(finished.code, finished.stderr).toBe(0);
    expect(finished.stdout).toMatch(/^drivesync run: stopping \(SIGTERM\)$/m);
    expect(existsSync(join(home, 'run.pid'))).toBe(false);
  });

  it('service install without a systemd user manager: an XDG autostart entry, and the service runs now; status, logs, remove', async () => {
    const account = await newAccount(server, 'service');
    const home = await signedInHome(server, account);
    const drive = join(tempDir(), 'Drive');
    makeTree(drive, { 'a.txt': 'a' });
    expect((await cli(['sync', drive, '--once'], { home })).code).toBe(0);
    const xdg = tempDir();
    const env = { XDG_CONFIG_HOME: xdg, DRIVESYNC_NO_SYSTEMD: '1' };
    expect((await cli(['service', 'status'], { home, env })).stdout).toMatch(/^installed: no \(drivesync service install\)$/m);
    const installed = await cli(['service', 'install'], { home, env });
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toMatch(/there is no systemd user manager here: the service starts at login from an XDG autostart entry instead/);
    const entry = readFileSync(join(xdg, 'autostart', 'drivesync-service.desktop'), 'utf8');
    expect(entry).toContain(`Exec="env" "DRIVESYNC_HOME=${home}" "${process.execPath}" "${BIN}" "run"`);
    const status = JSON.parse((await cli(['service', 'status', '--json'], { home, env })).stdout);
    expect(status).toMatchObject({ installed: 'autostart', running: true, folders: [drive] });
    started.push(status.pid);
    await eventually(async () => (await cli(['service', 'logs', '-n', '5'], { home, env })).stdout, (out) => /drivesync run: syncing 1 folder/.test(out));
    writeFileSync(join(drive, 'while-serviced.txt'), 'the service sends it');
    await eventually(() => remoteTree(server, account.token), (tree) => tree['while-serviced.txt'] === 'the service sends it', { within: 30_000 });
    const removed = await cli(['service', 'remove'], { home, env });
    expect(removed.stdout).toMatch(new RegExp(`^removed: drivesync run no longer starts at login, and process ${status.pid} stopped`, 'm'));
    expect(existsSync(join(xdg, 'autostart', 'drivesync-service.desktop'))).toBe(false);
    expect(existsSync(join(home, 'run.pid'))).toBe(false);
    expect(running(status.pid)).toBe(false);
    expect((await cli(['service', 'remove'], { home, env })).stdout).toBe('the service is not installed\n');
    expect((await cli(['service', 'logs', '-n', 'x'], { home, env })).code).toBe(2);
  });

  it('the systemd user unit passes systemd-analyze verify: started at login, restarted on failure, the state folder kept', () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'drivesync.service');
    const text = unitText([process.execPath, BIN, 'run'], { DRIVESYNC_HOME: '/home/me/drive state/%weird' });
    writeFileSync(file, text);
    expect(text).toMatch(/^Restart=on-failure$/m);
    expect(text).toMatch(/^WantedBy=default\.target$/m);
    expect(text).toContain('Environment="DRIVESYNC_HOME=/home/me/drive state/%%weird"');
    const verified = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
    expect(verified.error, 'systemd-analyze is installed (Debian: systemd)').toBeUndefined();
    expect(verified.status, verified.stderr).toBe(0);
    // A unit systemd reads with complaints prints them; this one has none.
    expect(verified.stderr.trim()).toBe('');
  });
});
