/**
 * `sync --limit-up/--limit-down` (remembered in the config, shown by status, held to against a real transfer) and
 * `drivesync activity` (what changed, where, on which side; --json; --follow as it happens).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { PROFILES } from '../helpers/server.js';
import { cli, expectOneLineError, makeTree, newAccount, remoteTree, signedInHome, spawnCli, statusJson, tempDir, useCliTestServer } from './helpers.js';

describe.each(PROFILES)('limits and activity against the %s profile', (profile) => {
  const server = useCliTestServer({ profile });

  it('--limit-up and --limit-down are remembered, shown by status, and hold a transfer to the rate; 0 lifts one; a bad rate is a usage error', async () => {
    const account = await newAccount(server, 'limits');
    const home = await signedInHome(server, account);
    const dir = join(tempDir(), 'Drive');
    mkdirSync(dir, { recursive: true });
    const content = randomBytes(600 * 1024);
    writeFileSync(join(dir, 'big.bin'), content);
    const started = Date.now();
    const limited = await cli(['sync', dir, '--once', '--limit-up', '200K', '--limit-down', '1.5M'], { home });
    const tookMs = Date.now() - started;
    expect(limited.code, limited.stderr).toBe(0);
    // 600 KiB at 200 KiB/s, with a one-second burst: at least two seconds.
    expect(tookMs).toBeGreaterThanOrEqual(2000);
    expect(Object.keys(await remoteTree(server, account.token))).toEqual(['big.bin']);
    const config = JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'));
    expect(config.bandwidth).toEqual({ upBytesPerSecond: 200 * 1024, downBytesPerSecond: 1.5 * 1024 * 1024 });
    expect((await statusJson(home)) as unknown).toMatchObject({ bandwidth: { upBytesPerSecond: 204800, downBytesPerSecond: 1572864 } });
    expect((await cli(['status'], { home })).stdout).toMatch(/^limits: +up 200 KB\/s, down 1\.5 MB\/s$/m);

    expect((await cli(['sync', dir, '--once', '--limit-up', '0'], { home })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')).bandwidth).toEqual({ downBytesPerSecond: 1572864 });
    for (const bad of ['fast', '-2M', '2X']) {
      const refused = await cli(['sync', dir, '--once', '--limit-down', bad], { home });
      expect(refused.code, bad).toBe(2);
      expectOneLineError(refused, /--limit-down takes a rate such as 2M, 500K or 0 for no limit/);
    }
  });

  it('activity lists what changed, on which side, newest last; --json; --follow prints what happens as it happens', async () => {
    const account = await newAccount(server, 'activity');
    const home = await signedInHome(server, account);
    const other = await signedInHome(server, account);
    const dir = join(tempDir(), 'Drive');
    const there = join(tempDir(), 'Other');
    makeTree(dir, { 'notes.txt': 'notes', 'Docs/plan.txt': 'plan' });
    mkdirSync(there, { recursive: true });
    const none = await cli(['activity'], { home });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toMatch(/^nothing has changed yet/);
    expect((await cli(['sync', dir, '--once'], { home })).code).toBe(0);
    expect((await cli(['sync', there, '--once'], { home: other })).code).toBe(0);
    writeFileSync(join(there, 'from-there.txt'), 'made on the other computer');
    expect((await cli(['sync', there, '--once'], { home: other })).code).toBe(0);
    renameSync(join(dir, 'notes.txt'), join(dir, 'renamed.txt'));
    expect((await cli(['sync', dir, '--once'], { home })).code).toBe(0);

    const text = await cli(['activity'], { home });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}up {4}uploaded notes\.txt {2}\(.*Drive\)$/m);
    expect(text.stdout).toMatch(/ {2}up {4}created the folder on the drive: Docs {2}/);
    expect(text.stdout).toMatch(/ {2}down {2}downloaded from-there\.txt {2}/);
    expect(text.stdout).toMatch(/ {2}up {4}renamed on the drive: renamed\.txt {2}/);
    const json = JSON.parse((await cli(['activity', dir, '--json'], { home })).stdout);
    expect(json.map((l: { side: string; kind: string; path: string }) => `${l.side} ${l.kind} ${l.path}`)).toEqual(
      expect.arrayContaining(['up upload notes.txt', 'down download from-there.txt', 'up rename-remote renamed.txt']),
    );
    expect(json.every((l: { root: string }) => l.root === dir)).toBe(true);
    const times = json.map((l: { at: string }) => l.at);
    expect(times).toEqual([...times].sort());
    expect(JSON.parse((await cli(['activity', '--json', '--last', '1'], { home })).stdout)).toHaveLength(1);
    expect((await cli(['activity', '--last', 'many'], { home })).code).toBe(2);

    // --follow: what a running sync does appears as it happens.
    const following = spawnCli(['activity', '--follow', '--last', '0'], { home });
    const running = spawnCli(['sync', dir], { home });
    await running.waitFor(/watching/);
    writeFileSync(join(dir, 'live.txt'), 'saved while followed');
    await eventually(() => following.stdout(), (out) => /up {4}uploaded live\.txt/.test(out), { within: 30_000 });
    expect(following.stdout()).not.toMatch(/notes\.txt/);
    running.child.kill('SIGTERM');
    following.child.kill('SIGINT');
    expect((await following.exited()).code).toBe(0);
    expect((await running.exited()).code).toBe(0);
  });
});
