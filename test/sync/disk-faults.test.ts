/**
 * The engine against a disk that fails on demand, through its file-system port (the real executor and engine; only
 * the port's calls are wrapped), and its randomness port.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFileSystem, type FileSystem } from '../../main/sync/local/ports.js';
import { localTree, newAccount, sorted, type Account, SCENARIO_CASES } from '../helpers/sync.js';

/** node:fs, except that renames onto a path named `blocked` fail with `code` while `failing` holds. */
function faultyDisk(blocked: string, code: string) {
  const state = { failing: true, renames: [] as Array<[string, string]> };
  const fs: FileSystem = {
    ...nodeFileSystem,
    rename: async (from, to) => {
      state.renames.push([from, to]);
      if (state.failing && basename(to) === blocked) {
        throw Object.assign(new Error(`${code}: refused by the disk, rename '${from}' -> '${to}'`), { code });
      }
      return nodeFileSystem.rename(from, to);
    },
  };
  return { fs, state };
}

describe.each(SCENARIO_CASES)('disk faults (%s, %s)', (mode, profile) => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode, profile });
  });
  afterEach(() => account.close());

  it('a download the disk refuses to put in place fails alone; nothing is lost, and the next sync completes', async () => {
    const a = account.computer('alpha');
    for (const name of ['blocked.txt', 'fine.txt', 'other.txt']) writeFileSync(join(a.root, name), `content of ${name}`);
    await a.sync();
    const disk = faultyDisk('blocked.txt', 'EACCES');
    const b = account.computer('beta', { fs: disk.fs });

    const first = await b.sync();
    expect(first.inSync).toBe(false);
    expect(first.failed).toHaveLength(1);
    expect(first.failed[0]).toMatchObject({ path: 'blocked.txt' });
    expect(first.failed[0]!.message).toMatch(/EACCES/);
    expect(first.failed[0]!.message.split('\n')).toHaveLength(1);
    expect(sorted(localTree(b.root))).toEqual({ 'fine.txt': 'content of fine.txt', 'other.txt': 'content of other.txt' });
    // The refused temp file does not linger.
    expect(readdirSync(join(b.root, '.drivesync', 'tmp'))).toEqual([]);

    disk.state.failing = false;
    const second = await b.sync();
    expect(second).toMatchObject({ inSync: true, failed: [] });
    expect(sorted(localTree(b.root))).toEqual(sorted(localTree(a.root)));
    // Nothing was taken as deleted on either side.
    expect(sorted(await account.remoteTree())).toEqual(sorted(localTree(a.root)));
    expect(b.trashed).toEqual([]);
  });

  it('a folder that cannot be listed keeps its synced files as they were: nothing is taken as deleted', async () => {
    const state = { failing: false };
    const fs: FileSystem = {
      ...nodeFileSystem,
      readDir: (path) => {
        if (state.failing && basename(path) === 'locked') throw Object.assign(new Error(`EACCES: permission denied, scandir '${path}'`), { code: 'EACCES' });
        return nodeFileSystem.readDir(path);
      },
    };
    const a = account.computer('alpha', { fs });
    mkdirSync(join(a.root, 'locked'));
    writeFileSync(join(a.root, 'locked', 'one.txt'), '1');
    writeFileSync(join(a.root, 'locked', 'two.txt'), '2');
    writeFileSync(join(a.root, 'top.txt'), 'top');
    await a.sync();
    const synced = sorted(await account.remoteTree());
    const errors: string[] = [];
    a.engine.on('item-error', (e) => errors.push(`${e.path}: ${e.message}`));
    const states: string[] = [];
    a.engine.on('state', (state, detail) => states.push(`${state}: ${detail ?? ''}`));

    // As `chmod 000 locked` would, which the watcher sees as a change of the folder's attributes.
    const chmod = (failing: boolean) => {
      state.failing = failing;
      utimesSync(join(a.root, 'locked'), new Date(), new Date());
    };
    chmod(true);
    // What cannot be read is not in sync, and says why.
    expect(await a.sync()).toMatchObject({ done: 0, inSync: false, failed: [{ path: 'locked', message: 'cannot be read: permission denied' }] });
    expect(errors).toEqual(['locked: cannot be read: permission denied']);
    // An item's problem is not the folder's: it stays idle, saying how many items are left out.
    expect(states.at(-1)).toBe('idle: 1 item not synced');
    expect(states.some((s) => s.startsWith('error'))).toBe(false);
    // The first pass of a restarted engine, too, knows the folder's files only from base.
    await a.restart();
    expect(await a.sync()).toMatchObject({ done: 0, inSync: false });
    expect(sorted(await account.remoteTree())).toEqual(synced);

    chmod(false);
    expect(await a.sync()).toMatchObject({ done: 0, inSync: true, failed: [] });
    expect(sorted(await account.remoteTree())).toEqual(synced);
    expect(a.trashed).toEqual([]);
  });

  it('a synced file replaced at its path after the plan (same size and time, another file) is not moved as the synced one', async () => {
    const a = account.computer('alpha');
    writeFileSync(join(a.root, 'doc.txt'), 'version one');
    await a.sync();
    // Beta, as the executor looks at doc.txt once armed: another program puts a different file there, with the same
    // size and modification time.
    let armed = false;
    let replaced = false;
    const fs: FileSystem = {
      ...nodeFileSystem,
      stat: async (p) => {
        if (armed && !replaced && p === join(b.root, 'doc.txt')) {
          replaced = true;
          const { atime, mtime } = statSync(p);
          rmSync(p);
          writeFileSync(p, 'version two');
          utimesSync(p, atime, mtime);
        }
        return nodeFileSystem.stat(p);
      },
    };
    const b = account.computer('beta', { fs });
    await b.sync();
    mkdirSync(join(a.root, 'archive'));
    renameSync(join(a.root, 'doc.txt'), join(a.root, 'archive', 'doc.txt'));
    await a.sync();
    // Beta plans to follow the move.
    armed = true;
    expect(await b.sync()).toMatchObject({ inSync: true, failed: [] });
    expect(replaced).toBe(true);
    // The new file is not taken for the synced one: the move is planned again, and the edit follows it to the drive
    // in the same pass (the version it replaces goes to the drive's trash).
    expect(sorted(localTree(b.root))).toEqual({ archive: '/', 'archive/doc.txt': 'version two' });
    expect(sorted(await account.remoteTree())).toEqual({ archive: '/', 'archive/doc.txt': 'version two' });
  });

  it('temp files are named by the randomness port', async () => {
    const a = account.computer('alpha');
    writeFileSync(join(a.root, 'one.txt'), '1');
    await a.sync();
    const disk = faultyDisk('never', 'EIO');
    let n = 0;
    const b = account.computer('beta', { fs: disk.fs, randomId: () => `fixed-${n++}` });
    await b.sync();
    expect(disk.state.renames).toEqual([[join(b.root, '.drivesync', 'tmp', 'fixed-0.part'), join(b.root, 'one.txt')]]);
    expect(existsSync(join(b.root, 'one.txt'))).toBe(true);
  });
});
