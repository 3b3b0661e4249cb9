/**
 * docs/design.md §7: a no-change local rescan of 100,000 files takes at most 1.5× `find` printing inode, size and mtime.
 *
 * The engine's scan is `scanLocal` with a base lookup; here the base items come from a first scan, so every file
 * matches its base and nothing is hashed — exactly a rescan where nothing changed. Both sides run on a warm page
 * cache (one untimed run each first), alternately, and the medians are compared.
 */
import { spawnSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { opendir, lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { loadIgnoreRules, scanLocal } from '../../main/sync/local/scan.js';
import { BaseTree } from '../../main/sync/trees/trees.js';
import { benchmarkMain, cleanup, log, median, ms, ratio, SIZES, sharedTree, timed, type BenchResult } from './common.js';

function runFind(root: string): number {
  const start = performance.now();
  const result = spawnSync('find', [root, '-printf', '%i %s %T@ %p\n'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const took = performance.now() - start;
  if (result.status !== 0) throw new Error(`find exited with ${result.status}`);
  return took;
}

/** The same walk as scanLocal with parts left out, to show where its time goes. */
type StatMode = 'none' | 'await' | 'sync' | 'batch';

async function walk(root: string, options: { lstat: StatMode; ignore: ((path: string, type: 'file' | 'folder') => boolean) | null }): Promise<number> {
  let seen = 0;
  const visit = async (dir: string, prefix: string): Promise<void> => {
    const folders: Array<[string, string]> = [];
    const batch: Array<Promise<unknown>> = [];
    for await (const entry of await opendir(dir)) {
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      const type = entry.isDirectory() ? 'folder' : 'file';
      if (options.ignore?.(path, type)) continue;
      if (options.lstat === 'await') await lstat(join(dir, entry.name));
      else if (options.lstat === 'sync') lstatSync(join(dir, entry.name));
      else if (options.lstat === 'batch') {
        batch.push(lstat(join(dir, entry.name)));
        if (batch.length >= 64) await Promise.all(batch.splice(0));
      }
      seen++;
      if (type === 'folder') folders.push([join(dir, entry.name), path]);
    }
    await Promise.all(batch);
    for (const [abs, path] of folders) await visit(abs, path);
  };
  await visit(root, '');
  return seen;
}

benchmarkMain(async (): Promise<BenchResult> => {
  try {
    const { root, tree } = await sharedTree(SIZES.files);
    const isIgnored = await loadIgnoreRules(root);
    const first = await scanLocal(root, { isIgnored, needsHash: () => false, isSynced: () => false });
    const expected = tree.files.length + tree.folders.length;
    if (first.items.size !== expected) throw new Error(`the scan found ${first.items.size} items, expected ${expected}`);
    const base = new BaseTree();
    let id = 1;
    for (const item of first.items.values()) {
      base.set(id, {
        remoteId: id++,
        parentId: null,
        remoteName: item.path.slice(item.path.lastIndexOf('/') + 1),
        path: item.path,
        type: item.type,
        inode: item.inode,
        size: item.size,
        mtimeMs: item.mtimeMs,
        hash: null,
        remoteSize: item.size,
        remoteUpdatedAt: '',
      });
    }
    // As the engine scans: with the test built from its base.
    const options = { isIgnored, ...base.scanLookup() };

    // Warm-up (page cache, JIT), then alternate.
    runFind(root);
    await scanLocal(root, options);
    const findTimes: number[] = [];
    const scanTimes: number[] = [];
    for (let rep = 0; rep < SIZES.reps; rep++) {
      findTimes.push(runFind(root));
      const { ms: took, value } = await timed(() => scanLocal(root, options));
      const hashed = [...value.items.values()].filter((i) => i.hash !== undefined).length;
      if (hashed > 0) throw new Error(`${hashed} files were hashed in a no-change rescan`);
      scanTimes.push(took);
      log(`rep ${rep + 1}: find ${ms(findTimes.at(-1)!)}, scanLocal ${ms(took)}`);
    }
    const find = median(findTimes);
    const scan = median(scanTimes);
    // Each pair runs back to back, so a change in the machine's load hits both sides alike.
    const pairs = scanTimes.map((t, i) => t / findTimes[i]!);
    const r = median(pairs);

    // Where the time goes: the same walk with parts left out or done another way.
    const variants: Array<[string, StatMode, boolean]> = [
      ['readdir', 'none', false],
      ['readdir+ignore', 'none', true],
      ['readdir+ignore+await lstat (as scanLocal)', 'await', true],
      ['readdir+ignore+lstatSync', 'sync', true],
      ['readdir+ignore+lstat 64 at a time', 'batch', true],
    ];
    const parts: Record<string, number[]> = {};
    for (let rep = 0; rep < Math.min(SIZES.reps, 2); rep++) {
      for (const [name, mode, ignoring] of variants) {
        (parts[name] ??= []).push((await timed(() => walk(root, { lstat: mode, ignore: ignoring ? isIgnored : null }))).ms);
      }
    }
    const breakdown = Object.entries(parts).map(([name, times]) => `${name} ${ms(median(times))}`).join(', ');
    return {
      id: 'rescan',
      target: 'no-change local rescan ≤ 1.5× find',
      size: tree.describe,
      measured: ratio(r),
      goal: '≤ 1.50×',
      pass: r <= 1.5,
      details: [
        `ratio = median of ${pairs.length} back-to-back pairs (${pairs.map(ratio).join(', ')}); ratio of the medians ${ratio(scan / find)}`,
        `scanLocal median ${ms(scan)} (runs: ${scanTimes.map(ms).join(', ')})`,
        `find -printf median ${ms(find)} (runs: ${findTimes.map(ms).join(', ')})`,
        `where the time goes (the same walk, medians): ${breakdown}`,
      ],
    };
  } finally {
    await cleanup();
  }
});
