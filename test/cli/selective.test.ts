/**
 * `drivesync exclude`, `include`, `excluded [--json]` and `sync DIR --exclude … --new-folders …`: with nothing running
 * (the command applies the change itself, in one pass), and on a running `drivesync sync DIR` in another process (it
 * follows the config).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, cli, expectNoStack, expectOneLineError, makeTree, newAccount, remoteTree, signedInHome, spawnCli, tempDir, useCliTestServer } from './helpers.js';
import { eventually } from '../helpers/eventually.js';

afterAll(() => cleanUp());
const server = useCliTestServer();

const configOf = (home: string) => JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')) as { selective?: Record<string, { excluded: number[]; newFolders?: string }> };

const FILES = { 'Photos/a.jpg': 'aaaa', 'Photos/2019/b.jpg': 'bbbbbb', 'Docs/note.txt': 'note' };

describe.concurrent('selective sync on the command line', () => {
  it('with nothing running: exclude removes the copy and says what it freed; excluded lists it; include brings it back', async () => {
    const account = await newAccount(server, 'exclude-idle');
    const home = await signedInHome(server, account);
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, FILES);
    expect((await cli(['sync', dir, '--once'], { home })).code).toBe(0);

    const excluded = await cli(['exclude', join(dir, 'Photos')], { home });
    expect(excluded.code, excluded.stderr).toBe(0);
    expect(excluded.stdout).toMatch(/^excluded Photos \(10 B, 2 files on the drive\)$/m);
    expect(excluded.stdout).toMatch(/^excluded, removed from this computer \(still on the drive\): Photos$/m);
    expect(excluded.stdout).toMatch(/^Photos is excluded: its copy here is removed \(it stays on the drive\), 10 B freed$/m);
    expect(existsSync(join(dir, 'Photos'))).toBe(false);
    expect(Object.keys(await remoteTree(server, account.token))).toContain('Photos/2019/b.jpg');
    expect(Object.values(configOf(home).selective ?? {})[0]?.excluded).toHaveLength(1);

    const listed = await cli(['excluded'], { home });
    expect(listed.stdout).toMatch(/^ {2}Photos\/ {2}10 B, 2 files$/m);
    const json = JSON.parse((await cli(['excluded', '--json'], { home })).stdout) as { roots: Array<{ root: string; newFolders: string; excluded: Array<{ path: string; bytes: number; files: number }> }> };
    expect(json.roots[0]).toMatchObject({ newFolders: 'sync', excluded: [{ path: 'Photos', bytes: 10, files: 2 }] });
    const status = await cli(['status'], { home });
    expect(status.stdout).toMatch(/excluded: {2}1 folder of the drive not synced here \(drivesync excluded lists them\)/);

    // Again: already excluded, nothing to do; a folder inside it is already left out.
    expect((await cli(['exclude', join(dir, 'Photos')], { home })).stderr).toMatch(/Photos is already excluded/);
    expect((await cli(['exclude', join(dir, 'Photos', '2019')], { home })).stderr).toMatch(/already left out: Photos is excluded/);

    const included = await cli(['include', join(dir, 'Photos')], { home });
    expect(included.code, included.stderr).toBe(0);
    expect(included.stdout).toMatch(/^included Photos \(10 B, 2 files to download\)$/m);
    expect(readFileSync(join(dir, 'Photos', '2019', 'b.jpg'), 'utf8')).toBe('bbbbbb');
    expect(configOf(home).selective).toBeUndefined();
  });

  it('including a folder inside an excluded one brings the parent with only that folder in it', async () => {
    const account = await newAccount(server, 'include-inside');
    const home = await signedInHome(server, account);
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, { ...FILES, 'Photos/2020/c.jpg': 'cc', 'Photos/top.jpg': 't' });
    await cli(['sync', dir, '--once'], { home });
    expect((await cli(['exclude', join(dir, 'Photos')], { home })).code).toBe(0);
    const included = await cli(['include', join(dir, 'Photos', '2019')], { home });
    expect(included.code, included.stderr).toBe(0);
    expect(included.stdout).toMatch(/^included Photos\/2019 \(6 B, 1 file to download; Photos comes back with only it inside\)$/m);
    expect(readFileSync(join(dir, 'Photos', '2019', 'b.jpg'), 'utf8')).toBe('bbbbbb');
    expect(readFileSync(join(dir, 'Photos', 'top.jpg'), 'utf8')).toBe('t');
    expect(existsSync(join(dir, 'Photos', '2020'))).toBe(false);
    expect((await cli(['excluded'], { home })).stdout).toMatch(/^ {2}Photos\/2020\/ {2}2 B, 1 file$/m);
  });

  it('exclusions made before the first sync: nothing of them is downloaded; new folders can be left out too', async () => {
    const account = await newAccount(server, 'exclude-first');
    const source = await signedInHome(server, account);
    const first = join(tempDir(), 'Drive');
    makeTree(first, FILES);
    await cli(['sync', first, '--once'], { home: source });

    const home = await signedInHome(server, account);
    const dir = join(tempDir(), 'Laptop');
    mkdirSync(dir);
    const synced = await cli(['sync', dir, '--once', '--exclude', 'Photos', '--new-folders', 'exclude'], { home });
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stderr).toMatch(/excluded Photos \(10 B, 2 files on the drive\)/);
    expect(synced.stderr).toMatch(/new folders made elsewhere are left out until included/);
    expect(existsSync(join(dir, 'Photos'))).toBe(false);
    expect(readFileSync(join(dir, 'Docs', 'note.txt'), 'utf8')).toBe('note');

    makeTree(first, { 'Music/song.mp3': 'la' });
    await cli(['sync', first, '--once'], { home: source });
    const again = await cli(['sync', dir, '--once'], { home });
    expect(again.stdout).toMatch(/^Music is a new folder on the drive; this folder leaves new folders out, so it is not synced here \(drivesync include to sync it\)$/m);
    expect(existsSync(join(dir, 'Music'))).toBe(false);
    expect((await cli(['excluded', dir], { home })).stdout).toMatch(/^ {2}Music\/ {2}2 B, 1 file$/m);
  });

  it('on a running sync: the exclusion reaches it through the config, and it says what it freed', async () => {
    const account = await newAccount(server, 'exclude-running');
    const home = await signedInHome(server, account);
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, FILES);
    const running = spawnCli(['sync', dir], { home });
    try {
      await running.waitFor(/watching/, 20_000);
      const excluded = await cli(['exclude', join(dir, 'Photos')], { home });
      expect(excluded.code, excluded.stderr).toBe(0);
      expect(excluded.stderr).toMatch(/the running sync of .*Drive \(process \d+\) removes its copy here once everything in it is on the drive/);
      await running.waitFor(/Photos is excluded: its copy here is removed \(it stays on the drive\), 10 B freed/, 20_000);
      expect(existsSync(join(dir, 'Photos'))).toBe(false);
      // A local folder made again with its name is left out, not uploaded.
      makeTree(dir, { 'Photos/mine.jpg': 'mine' });
      await eventually(() => running.stderr(), (text) => /Photos: has the place of Photos, a folder of the drive this computer leaves out/.test(text), { within: 20_000 });
      const include = await cli(['include', join(dir, 'Photos')], { home });
      expect(include.code, include.stderr).toBe(0);
      await eventually(() => existsSync(join(dir, 'Photos', '2019', 'b.jpg')), (there) => there, { within: 20_000 });
      // Included: the local folder is merged with the drive's, and what was only here goes up.
      await eventually(() => remoteTree(server, account.token), (tree) => tree['Photos/mine.jpg'] === 'mine', { within: 20_000 });
    } finally {
      expectNoStack(await running.stop('SIGINT'));
    }
  });

  it('deleting here a folder that holds an excluded folder: sync --once refuses without an answer, --yes deletes', async () => {
    const account = await newAccount(server, 'exclude-parent');
    const home = await signedInHome(server, account);
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, { 'Work/plan.txt': 'plan', 'Work/Archive/big.bin': '0123456789', 'keep.txt': 'keep' });
    await cli(['sync', dir, '--once'], { home });
    expect((await cli(['exclude', join(dir, 'Work', 'Archive')], { home })).code).toBe(0);
    rmSync(join(dir, 'Work'), { recursive: true });
    const refused = await cli(['sync', dir, '--once'], { home });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/this pass would delete \d+ of \d+ synced items .*nothing was deleted \(everything else was synced\): drivesync deletions --delete\|--keep/);
    expect(Object.keys(await remoteTree(server, account.token))).toContain('Work/Archive/big.bin');
    const deleted = await cli(['sync', dir, '--once', '--yes'], { home });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(Object.keys(await remoteTree(server, account.token))).toEqual(['keep.txt']);
  });

  it('bad paths get one line each', async () => {
    const account = await newAccount(server, 'exclude-errors');
    const home = await signedInHome(server, account);
    const dir = join(tempDir(), 'Drive');
    makeTree(dir, FILES);
    await cli(['sync', dir, '--once'], { home });
    expectOneLineError(await cli(['exclude', join(dir, 'Docs', 'note.txt')], { home }), /note\.txt is a file; only folders are excluded/);
    expectOneLineError(await cli(['exclude', join(dir, 'Nowhere')], { home }), /Nowhere: no such folder on the drive/);
    expectOneLineError(await cli(['exclude', dir], { home }), /is the synced folder itself/);
    expectOneLineError(await cli(['exclude', tempDir()], { home }), /is not inside a synced folder/);
    const notExcluded = await cli(['include', join(dir, 'Docs')], { home });
    expect(notExcluded.code).toBe(0);
    expect(notExcluded.stderr).toMatch(/^drivesync: Docs is not excluded$|Docs is not excluded/m);
    expectOneLineError(await cli(['sync', dir, '--once', '--new-folders', 'maybe'], { home }), /--new-folders takes exclude or sync/);
  });
});
