/**
 * `drivesync pause [DIR] [--for D]`, `resume [DIR]` and `remove DIR`, on a running `drivesync sync DIR` (another
 * process, as a person at a second terminal) and with nothing running.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanUp,
  cli,
  expectNoStack,
  expectOneLineError,
  makeTree,
  newAccount,
  remoteTree,
  signedInHome,
  spawnCli,
  statusJson,
  tempDir,
  useCliTestServer,
} from './helpers.js';
import { parseDuration } from '../../main/cli/commands/control.js';
import { eventually } from '../helpers/eventually.js';

afterAll(() => cleanUp());
const server = useCliTestServer();

describe('durations', () => {
  it.each([
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['1h30m', 5_400_000],
    ['1d', 86_400_000],
    ['45s', 45_000],
    ['0m', null],
    ['', null],
    ['soon', null],
    ['30', null],
    ['-5m', null],
  ])('%s', (text, ms) => expect(parseDuration(text)).toBe(ms));
});

describe.concurrent('pause, resume, remove', () => {
  it('on a running sync: a pause holds changes back until resumed; a timed pause ends by itself', async () => {
    const account = await newAccount(server, 'pause-running');
    const home = await signedInHome(server, account);
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, { 'a.txt': 'a' });
    const running = spawnCli(['sync', dir], { home });
    try {
      await running.waitFor(/watching/, 20_000);
      const paused = await cli(['pause', dir], { home });
      expect(paused.code, paused.stderr).toBe(0);
      expect(paused.stdout).toMatch(/^paused .*Drive until you resume it; the sync in process \d+ pauses now$/m);
      await running.waitFor(/^paused: drivesync resume .* goes on$/m, 10_000);
      writeFileSync(join(dir, 'held.txt'), 'held');
      await new Promise((r) => setTimeout(r, 2500));
      expect(Object.keys(await remoteTree(server, account.token))).toEqual(['a.txt']);
      const text = await cli(['status'], { home });
      expect(text.stdout).toMatch(/state:\s+paused/);
      expect(text.stdout).toMatch(/paused:\s+until resumed \(drivesync resume .* goes on\)/);

      const resumed = await cli(['resume', join(dir, 'held.txt')], { home });
      expect(resumed.stdout).toMatch(/^resumed .*Drive; the sync in process \d+ goes on now$/m);
      await eventually(() => remoteTree(server, account.token), (tree) => tree['held.txt'] === 'held', { within: 20_000 });
      expect(running.stdout()).toMatch(/^resumed$/m);

      // For two seconds: it goes on by itself, with nothing written to the config.
      const timed = await cli(['pause', '--for', '2s'], { home });
      expect(timed.stdout).toMatch(/^paused .*Drive until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d; the sync in process \d+ pauses now$/m);
      await running.waitFor(/^paused until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d: /m, 10_000);
      writeFileSync(join(dir, 'later.txt'), 'later');
      await eventually(() => remoteTree(server, account.token), (tree) => tree['later.txt'] === 'later', { within: 20_000 });
      expect(running.stdout().match(/^resumed$/gm)).toHaveLength(2);
    } finally {
      expectNoStack(await running.stop('SIGINT'));
    }
  });

  it('a sync started while its folder is paused waits, and says so', async () => {
    const account = await newAccount(server, 'pause-first');
    const home = await signedInHome(server, account);
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, { 'a.txt': 'a' });
    expect((await cli(['sync', dir, '--once'], { home })).code).toBe(0);
    const paused = await cli(['pause', dir], { home });
    expect(paused.stdout).toMatch(/until you resume it; it stays paused when it next starts$/m);
    writeFileSync(join(dir, 'b.txt'), 'b');
    const running = spawnCli(['sync', dir], { home });
    try {
      await running.waitFor(/^paused: drivesync resume .* goes on$/m, 20_000);
      await new Promise((r) => setTimeout(r, 2000));
      expect(Object.keys(await remoteTree(server, account.token))).toEqual(['a.txt']);
      expect(running.stdout()).not.toMatch(/^in sync/m);
      await cli(['resume', dir], { home });
      await eventually(() => remoteTree(server, account.token), (tree) => tree['b.txt'] === 'b', { within: 20_000 });
    } finally {
      expectNoStack(await running.stop('SIGINT'));
    }
  });

  it('remove stops a running sync and forgets the folder; its files stay; a later sync merges, deleting nothing', async () => {
    const account = await newAccount(server, 'remove-running');
    const home = await signedInHome(server, account);
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, { 'a.txt': 'a', 'sub/b.txt': 'b' });
    const running = spawnCli(['sync', dir], { home });
    await running.waitFor(/watching/, 20_000);
    const removed = await cli(['remove', dir], { home });
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/^stopped syncing .*Drive \(the sync in process \d+ stopped\); its files stay, here and on the drive$/m);
    const ended = await running.exited(10_000);
    expect(ended.code).toBe(0);
    expect(ended.stdout).toMatch(/is no longer synced \(drivesync remove\); its files stay$/m);
    expect(existsSync(join(dir, '.drivesync'))).toBe(false);
    expect((await statusJson(home)).roots).toEqual([]);
    expect(await remoteTree(server, account.token)).toEqual({ 'a.txt': 'a', sub: '/', 'sub/b.txt': 'b' });

    // Changed here while not synced, then synced again: a merge, nothing deleted on either side.
    writeFileSync(join(dir, 'new.txt'), 'new');
    const again = await cli(['sync', dir, '--once'], { home });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(await remoteTree(server, account.token)).toEqual({ 'a.txt': 'a', 'new.txt': 'new', sub: '/', 'sub/b.txt': 'b' });
  });

  it('with nothing running; and one-line errors', async () => {
    const account = await newAccount(server, 'control-idle');
    const home = await signedInHome(server, account);
    expectOneLineError(await cli(['pause'], { home }), /no folder is synced yet \(drivesync sync DIR syncs one\)/);
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, { 'a.txt': 'a' });
    expect((await cli(['sync', dir, '--once'], { home })).code).toBe(0);
    const bad = await cli(['pause', dir, '--for', 'soon'], { home });
    expect(bad.code).toBe(2);
    expectOneLineError(bad, /--for takes a duration such as 30m, 2h, 1h30m or 1d \(got soon\)/);
    expectOneLineError(await cli(['pause', tempDir()], { home }), /is not in a synced folder \(drivesync status lists them\)/);
    expectOneLineError(await cli(['remove', join(dir, 'nowhere')], { home }), /is inside the synced folder .*; remove that one/);
    expect((await cli(['resume', dir], { home })).stdout).toMatch(/was not paused$/m);
    expect((await cli(['pause', dir, '--for', '1h'], { home })).code).toBe(0);
    expect((await statusJson(home)).roots[0]).toMatchObject({ paused: { until: expect.any(String) } });
    const removed = await cli(['remove', dir], { home });
    expect(removed.stdout).toMatch(/^stopped syncing .*Drive; its files stay, here and on the drive$/m);
    expect(existsSync(join(dir, 'a.txt'))).toBe(true);
    expect((await statusJson(home)).roots).toEqual([]);
  });
});
