/**
 * `drivesync sync DIR` started while the folder's disk is full (its lock cannot be written): it says so in one line and
 * waits for space, as a running sync does; `--once` says it and stops. The full disk is the nemesis preload's (a real
 * one cannot be filled and emptied on demand here without root), and the product's code runs unchanged against it.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, cli, expectNoStack, newAccount, remoteTree, ROOT, signedInHome, spawnCli, tempDir, useCliTestServer } from './helpers.js';
import { eventually } from '../helpers/eventually.js';

const PRELOAD = join(ROOT, 'test', 'helpers', 'nemesis-preload.mjs');
const server = useCliTestServer();
afterAll(cleanUp);

describe('sync DIR started on a full disk', () => {
  it('says so once, waits for space and then syncs; --once says it and stops, nothing synced', async () => {
    const account = await newAccount(server);
    const home = await signedInHome(server, account);
    const dir = tempDir();
    writeFileSync(join(dir, 'kept.txt'), 'kept');
    const full = join(tempDir(), 'full');
    writeFileSync(full, '');
    const env = { NODE_OPTIONS: `--import=${PRELOAD}`, DRIVESYNC_TEST_FULL_FILE: full, DRIVESYNC_TEST_FULL_ROOT: dir };

    const once = await cli(['sync', dir, '--once'], { home, env });
    expect(once.code).toBe(1);
    expect(once.stderr).toMatch(/the disk holding .* is full: drivesync cannot write its state there; nothing was synced/);
    expectNoStack(once);
    expect(await remoteTree(server, account.token)).toEqual({});

    const running = spawnCli(['sync', dir], { home, env });
    await eventually(() => running.stderr(), (err) => /is full: drivesync cannot write its state there; trying again every \d+ s/.test(err), { within: 20_000 });
    rmSync(full);
    await running.waitFor(/watching .* for changes/, 60_000);
    expect(await remoteTree(server, account.token)).toEqual({ 'kept.txt': 'kept' });
    expect(running.stderr().match(/is full/g)).toHaveLength(1);
    expectNoStack(await running.stop('SIGINT'));
  }, 120_000);
});
