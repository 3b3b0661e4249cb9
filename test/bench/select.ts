/**
 * What selective sync costs a pass: the planner with a selection (`planSelected`) on an in-sync folder of 100,000
 * files in 100 folders, with nothing excluded (the settled shortcut), with one folder of the drive excluded and not
 * here (E3: its entries stay listed), and with one synced folder just excluded (E1: its copy is to go). In memory, no
 * I/O: what a poll or a rescan pays on top of the scan and the listing.
 */
import { planSelected, type Selection } from '../../main/sync/plan/selective.js';
import { BaseTree, LocalTree, RemoteView } from '../../main/sync/trees/trees.js';
import type { BaseItem, Trees } from '../../main/sync/model/types.js';
import { benchmarkMain, count, median, ms, SIZES, timed } from './common.js';

const FOLDERS = 100;

/**
 * An in-sync folder: every item the same in base, here and on the drive; `withOther`: one more folder of the drive,
 * not here, with 1% of the files.
 */
function inSync(files: number, withOther: boolean): { trees: Trees; notHere: number; synced: number } {
  const base = new BaseTree();
  let id = 0;
  let inode = 0;
  const stamp = '2026-01-01T00:00:00.000000Z';
  const folders: BaseItem[] = [];
  for (let f = 0; f < FOLDERS; f++) {
    const b: BaseItem = { remoteId: ++id, parentId: null, remoteName: `folder-${f}`, path: `folder-${f}`, type: 'folder', inode: ++inode, size: 0, mtimeMs: 1, hash: null, remoteSize: 0, remoteUpdatedAt: stamp };
    base.set(b.remoteId, b);
    folders.push(b);
  }
  for (let i = 0; i < files; i++) {
    const folder = folders[i % FOLDERS]!;
    const name = `file-${i}.txt`;
    base.set(++id, { remoteId: id, parentId: folder.remoteId, remoteName: name, path: `${folder.path}/${name}`, type: 'file', inode: ++inode, size: 25, mtimeMs: 1, hash: 'h', remoteSize: 25, remoteUpdatedAt: stamp });
  }
  base.drain();
  const local = LocalTree.fromBase(base);
  const remote = RemoteView.ofBase(base);
  const notHere = ++id;
  if (!withOther) return { trees: { base, local, remote }, notHere, synced: folders[0]!.remoteId };
  remote.set(notHere, { id: notHere, parentId: null, name: 'elsewhere', type: 'folder', size: 0, updatedAt: stamp });
  for (let i = 0; i < files / FOLDERS; i++) remote.set(++id, { id, parentId: notHere, name: `other-${i}.txt`, type: 'file', size: 25, updatedAt: stamp });
  return { trees: { base, local, remote }, notHere, synced: folders[0]!.remoteId };
}

benchmarkMain(async () => {
  const files = SIZES.files;
  const plain = inSync(files, false);
  const { trees, notHere, synced } = inSync(files, true);
  const cases: Array<[string, Trees, Selection]> = [
    ['in sync, nothing excluded (the settled shortcut)', plain.trees, { excluded: new Set() }],
    ['in sync, a folder of the drive excluded, not here (E3)', trees, { excluded: new Set([notHere]) }],
    ['a synced folder just excluded (E1: the full table plans)', trees, { excluded: new Set([notHere, synced]) }],
  ];
  const times: Record<string, number[]> = {};
  const planned: Record<string, string> = {};
  for (let rep = 0; rep <= SIZES.reps; rep++) {
    for (const [name, tree, selection] of cases) {
      const { ms: took, value } = await timed(async () => planSelected(tree, selection));
      // The first round warms the code up and is not counted.
      if (rep > 0) (times[name] ??= []).push(took);
      planned[name] = `${value.quiet ? 'quiet' : `${value.operations.length} operation${value.operations.length === 1 ? '' : 's'}`}`;
    }
  }
  const medians = Object.values(times).map(median);
  // What an exclusion adds to a pass that finds nothing to do: the quiet pass with one, against the one without.
  const added = medians[1]! - medians[0]!;
  return {
    id: 'select',
    target: 'an exclusion adds at most 0.5 s to a no-change pass at 100,000 files',
    size: `${count(files)} files in ${FOLDERS} folders, plus ${count(files / FOLDERS)} excluded`,
    measured: ms(added),
    goal: '≤ 500 ms',
    pass: added <= 500,
    details: Object.entries(times).map(([name, t]) => `${name}: ${ms(median(t))} a pass (median of ${t.length}; ${planned[name]})`),
  };
});
