/**
 * A tree no one here made: packages from this repository's own node_modules (at least 5,000 files; all of it with
 * DRIVESYNC_REAL_TREE=all, as `npm run soak` does), synced up by one computer and down by another, then compared
 * path by path and byte by byte. Real trees hold what hand-made ones do not: folders named `js`, `ui`, `v2`, `en`
 * (which the service refuses to create), dotfiles, deep nesting, binary files, symbolic links (left out by design).
 */
import { createHash } from 'node:crypto';
import { cpSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { newAccount, type Account, type SyncMode } from '../helpers/sync.js';
import type { ProfileName } from '../helpers/server.js';

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WHOLE = process.env.DRIVESYNC_REAL_TREE === 'all';
const AT_LEAST = 5_000;

/** Every file below `root` as path → sha256, and every folder as path → '/'; symbolic links left out. */
function snapshot(root: string, skipTop?: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      if (prefix === '' && name === skipTop) continue;
      const abs = join(dir, name);
      const path = prefix === '' ? name : `${prefix}/${name}`;
      const stats = lstatSync(abs);
      if (stats.isSymbolicLink()) continue;
      if (stats.isDirectory()) {
        out.set(path, '/');
        walk(abs, path);
      } else out.set(path, createHash('sha256').update(readFileSync(abs)).digest('hex'));
    }
  };
  walk(root, '');
  return out;
}

const countFiles = (dir: string): number => {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const stats = lstatSync(join(dir, name));
    if (stats.isDirectory()) n += countFiles(join(dir, name));
    else if (stats.isFile()) n++;
  }
  return n;
};

/** Copies packages of node_modules into `root/node_modules` until at least AT_LEAST files are there. */
function copyRealTree(root: string): number {
  const source = join(PROJECT, 'node_modules');
  if (WHOLE) {
    cpSync(source, join(root, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    return countFiles(join(root, 'node_modules'));
  }
  let files = 0;
  for (const name of readdirSync(source).sort()) {
    if (name.startsWith('.')) continue;
    cpSync(join(source, name), join(root, 'node_modules', name), { recursive: true, verbatimSymlinks: true });
    files += countFiles(join(source, name));
    if (files >= AT_LEAST) break;
  }
  return files;
}

describe.each<[SyncMode, ProfileName]>([
  ['once', 'documents'],
  ['live', 'deployed'],
])('a real tree, up from one computer and down to another (%s, %s)', (mode, profile) => {
  let account: Account;
  afterEach(() => account.close());

  it(`${WHOLE ? 'all of' : `at least ${AT_LEAST.toLocaleString('en-US')} files of`} node_modules arrives whole, byte for byte`, async () => {
    account = await newAccount(undefined, { mode, profile });
    const a = account.computer('alpha');
    const b = account.computer('beta');
    const files = copyRealTree(a.root);
    expect(files).toBeGreaterThanOrEqual(AT_LEAST);
    // What makes a real tree hard here: folders whose names the drive refuses to create (under 3 characters).
    const shortFolders = [...snapshot(a.root, '.drivesync').keys()].filter((path) => path.split('/').slice(0, -1).some((name) => [...name].length < 3));
    expect(shortFolders.length).toBeGreaterThan(0);
    const up = await a.sync();
    expect(up.failed).toEqual([]);
    expect(up.inSync).toBe(true);
    const down = await b.sync();
    expect(down.failed).toEqual([]);
    expect(down.inSync).toBe(true);
    const sent = snapshot(a.root, '.drivesync');
    const got = snapshot(b.root, '.drivesync');
    const missing = [...sent.keys()].filter((path) => !got.has(path));
    const extra = [...got.keys()].filter((path) => !sent.has(path));
    const differing = [...sent].filter(([path, hash]) => got.has(path) && got.get(path) !== hash).map(([path]) => path);
    expect({ missing: missing.slice(0, 20), extra: extra.slice(0, 20), differing: differing.slice(0, 20) }).toEqual({ missing: [], extra: [], differing: [] });
    expect(got.size).toBe(sent.size);
  }, 600_000);
});
