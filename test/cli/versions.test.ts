/**
 * `drivesync versions` and the trash's two kinds of entry, as a person uses them: each save made by `sync` is a
 * version, `versions FILE` lists them, `--restore N` brings one back (the next sync here and on another computer gets
 * it), `trash ls` lists deletions only, `--versions` the rest, `trash restore` of a version is a version restore, and
 * `--keep` sets how long versions are kept. Both server profiles.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../main/state/config.js';
import { statePaths } from '../../main/state/paths.js';
import { PROFILES } from '../helpers/server.js';
import { cli, expectOneLineError, makeTree, newAccount, signedInHome, tempDir, useCliTestServer, type Finished } from './helpers.js';

const ok = (result: Finished): Finished => {
  expect(result.code, result.stderr).toBe(0);
  return result;
};

describe.each(PROFILES)('versions against the %s profile', (profile) => {
  const server = useCliTestServer({ profile });
  let home: string;
  let other: string;
  let dir: string;
  let otherDir: string;

  beforeAll(async () => {
    const account = await newAccount(server, 'versions');
    [home, other] = await Promise.all([signedInHome(server, account), signedInHome(server, account)]);
    dir = join(tempDir(), 'Drive');
    otherDir = join(tempDir(), 'Drive');
    mkdirSync(otherDir);
    makeTree(dir, { 'Docs/plan.txt': 'plan 1', 'gone.txt': 'gone 1' });
    ok(await cli(['sync', dir, '--once'], { home }));
    ok(await cli(['sync', otherDir, '--once'], { home: other }));
  });

  it('lists the versions each save made, restores one on every computer, and keeps the trash for deletions', async () => {
    const plan = join(dir, 'Docs', 'plan.txt');
    writeFileSync(plan, 'plan two');
    ok(await cli(['sync', dir, '--once'], { home }));
    ok(await cli(['sync', otherDir, '--once'], { home: other }));
    writeFileSync(join(otherDir, 'Docs', 'plan.txt'), 'plan three, from the other computer');
    ok(await cli(['sync', otherDir, '--once'], { home: other }));
    ok(await cli(['sync', dir, '--once'], { home }));
    expect(readFileSync(plan, 'utf8')).toBe('plan three, from the other computer');

    const table = ok(await cli(['versions', plan], { home })).stdout;
    expect(table).toMatch(/plan\.txt: saved \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, 35 B \(current\)/);
    expect(table).toMatch(/^N\s+SAVED\s+SIZE\s+REPLACED$/m);
    expect(table).toMatch(/^1\s+\S+ \S+\s+8 B\s+\S+ \S+$/m);
    expect(table).toMatch(/^2\s+\S+ \S+\s+6 B\s+\S+ \S+$/m);
    const listed = JSON.parse(ok(await cli(['versions', plan, '--json'], { home })).stdout);
    // The other computer finds the same versions: the drive alone says what they are.
    expect(JSON.parse(ok(await cli(['versions', join(otherDir, 'Docs', 'plan.txt'), '--json'], { home: other })).stdout)).toEqual(listed);
    expect(listed.versions.map((v: { number: number; size: number }) => [v.number, v.size])).toEqual([
      [1, 8],
      [2, 6],
    ]);

    // No deletion yet: the trash holds versions only, and says so.
    expect(ok(await cli(['trash', 'ls'], { home })).stdout.trim()).toBe('nothing deleted; 2 earlier versions of files (--versions)');
    expect(JSON.parse(ok(await cli(['trash', 'ls', '--json'], { home })).stdout)).toEqual([]);
    const versions = ok(await cli(['trash', 'ls', '--versions'], { home })).stdout;
    expect(versions).toMatch(/^ID\s+REPLACED\s+SIZE\s+PATH\s+OF$/m);
    expect(versions.match(/Docs\/plan\.txt\s+a file on the drive$/gm)).toHaveLength(2);

    const restored = ok(await cli(['versions', plan, '--restore', '2'], { home })).stdout;
    expect(restored).toContain('is version 2 again');
    ok(await cli(['sync', dir, '--once'], { home }));
    ok(await cli(['sync', otherDir, '--once'], { home: other }));
    expect(readFileSync(plan, 'utf8')).toBe('plan 1');
    expect(readFileSync(join(otherDir, 'Docs', 'plan.txt'), 'utf8')).toBe('plan 1');
    const after = JSON.parse(ok(await cli(['versions', plan, '--json'], { home })).stdout);
    expect(after.versions.map((v: { size: number }) => v.size)).toEqual([35, 8, 6]);

    // `trash restore` of one version, by its id, is a version restore too: no numbered copy.
    const eight = after.versions.find((v: { size: number }) => v.size === 8).id;
    ok(await cli(['trash', 'restore', String(eight)], { home }));
    ok(await cli(['sync', dir, '--once'], { home }));
    expect(readFileSync(plan, 'utf8')).toBe('plan two');
    // By its path, with several versions of that path: which one is asked for.
    const many = await cli(['trash', 'restore', 'Docs/plan.txt'], { home });
    expect(many.code).toBe(1);
    expectOneLineError(many, /earlier versions of Docs\/plan\.txt are in the trash: drivesync versions Docs\/plan\.txt lists them/);

    const tooFar = await cli(['versions', plan, '--restore', '9'], { home });
    expect(tooFar.code).toBe(2);
    expectOneLineError(tooFar, /--restore takes a version number from 1 to \d/);
    const folder = await cli(['versions', join(dir, 'Docs')], { home });
    expect(folder.code).toBe(1);
    expectOneLineError(folder, /is a folder: versions are kept for each file/);
  });

  it('a deleted file is one deletion, its earlier versions apart; restoring one of them brings the file back holding it', async () => {
    writeFileSync(join(dir, 'gone.txt'), 'gone two');
    ok(await cli(['sync', dir, '--once'], { home }));
    rmSync(join(dir, 'gone.txt'));
    ok(await cli(['sync', dir, '--once'], { home }));
    const deleted = JSON.parse(ok(await cli(['trash', 'ls', '--json'], { home })).stdout) as Array<{ path: string; size: number }>;
    expect(deleted.map((e) => [e.path, e.size])).toEqual([['gone.txt', 8]]);
    const versions = JSON.parse(ok(await cli(['trash', 'ls', '--versions', '--json'], { home })).stdout) as Array<{ id: number; path: string; current: boolean }>;
    const older = versions.filter((v) => v.path === 'gone.txt');
    expect(older.map((v) => v.current)).toEqual([false]);

    ok(await cli(['trash', 'restore', String(older[0]!.id)], { home }));
    ok(await cli(['sync', dir, '--once'], { home }));
    expect(readFileSync(join(dir, 'gone.txt'), 'utf8')).toBe('gone 1');
    expect(JSON.parse(ok(await cli(['trash', 'ls', '--json'], { home })).stdout)).toEqual([]);
  });

  it('--keep sets how long versions are kept, in the shared configuration; bad values are one-line usage errors', async () => {
    expect(ok(await cli(['versions'], { home })).stdout).toContain("earlier versions are kept until the drive's trash is emptied");
    expect(ok(await cli(['versions', '--keep', '30'], { home })).stdout).toContain('deleted for good 30 days after a newer one replaced them');
    expect(loadConfig(statePaths({ DRIVESYNC_HOME: home })).keepVersionsDays).toBe(30);
    expect(JSON.parse(ok(await cli(['versions', '--json'], { home })).stdout)).toEqual({ keepVersionsDays: 30 });
    ok(await cli(['versions', '--keep', 'forever'], { home }));
    expect(loadConfig(statePaths({ DRIVESYNC_HOME: home })).keepVersionsDays).toBeUndefined();
    for (const bad of ['0', 'soon', '1.5']) {
      const refused = await cli(['versions', '--keep', bad], { home });
      expect(refused.code, bad).toBe(2);
      expectOneLineError(refused, /--keep takes a whole number of days from 1, or forever/);
    }
  });
});
