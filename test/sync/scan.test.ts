/**
 * The local scan's walk: it stats names relative to the folder it reads (the process's working directory for the
 * moment), and must leave the tree whole and the process somewhere sane even when its working directory vanishes.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, parse } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { refreshPaths, scanLocal, type ScanOptions } from '../../main/sync/local/scan.js';
import { tempDir } from '../helpers/temp.js';

const options: ScanOptions = { isIgnored: () => false, isSynced: () => true, needsHash: () => false };

describe('the local scan', () => {
  const cwd = process.cwd();
  afterEach(() => process.chdir(cwd));

  it('finds every entry and leaves the working directory as it was', async () => {
    const root = tempDir('scan');
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    writeFileSync(join(root, 'a', 'b', 'f.txt'), 'f');
    writeFileSync(join(root, 'top.txt'), 'top');
    const result = await scanLocal(root, options);
    expect([...result.items.keys()].sort()).toEqual(['a', 'a/b', 'a/b/f.txt', 'top.txt']);
    expect(result.items.get('a/b/f.txt')).toMatchObject({ type: 'file', size: 1 });
    expect(process.cwd()).toBe(cwd);
    rmSync(root, { recursive: true });
  });

  it('a working directory deleted meanwhile: the tree comes back whole, and the process is left at the root of the file system', async () => {
    const root = tempDir('scan');
    mkdirSync(join(root, 'A', 'B'), { recursive: true });
    writeFileSync(join(root, 'A', 'B', 'f'), 'x');
    writeFileSync(join(root, 'A', 'g'), 'x');
    const { items } = await scanLocal(root, options);
    const home = tempDir('home');
    process.chdir(home);
    process.cwd(); // Node caches it: the scan will try to return there
    rmSync(home, { recursive: true });
    writeFileSync(join(root, 'A', 'h'), 'x');
    await refreshPaths(root, items, ['A'], options);
    expect([...items.keys()].sort()).toEqual(['A', 'A/B', 'A/B/f', 'A/g', 'A/h']);
    expect(process.cwd()).toBe(parse(root).root);
    rmSync(root, { recursive: true });
  });
});
