/**
 * The part of the trees a plan must see after changes made on the drive only, to a folder that was in sync.
 *
 * A pass that applies a remote delta (remote-changes.ts) to a folder left in sync, with nothing changed here, would
 * plan over every item to find what the delta touched: at 100,000 items that is most of the pass. Only the entries
 * the delta touched can need an operation, and what decides about them is near them: the folders they left and
 * arrived in (their siblings give names and clashes), everything inside a folder touched (a folder trashed or moved
 * takes it along), and the folders above (a path is made of them). The plan of the trees cut to that scope is the plan
 * of the whole trees; a property test (`test/sync/scope.property.test.ts`) holds the two equal.
 */
import { parentOf } from './names.js';
import { parentsIn } from './trees.js';
import type { BaseItem, LocalItem, RelPath, RemoteId, RemoteItem, Trees } from './types.js';

export interface PlanScope {
  /** Folders whose children the plan sees, all of them (null: the root). */
  folders: ReadonlySet<RemoteId | null>;
  /** Folders touched themselves: everything inside them, at any depth, is seen. */
  subtrees: ReadonlySet<RemoteId>;
}

/** The scope of remote changes to `touched` entries, from base (before them) and the remote tree (after them). */
export function deltaScope(base: ReadonlyMap<RemoteId, BaseItem>, remote: ReadonlyMap<RemoteId, RemoteItem>, touched: Iterable<RemoteId>): PlanScope {
  const folders = new Set<RemoteId | null>();
  const subtrees = new Set<RemoteId>();
  for (const id of touched) {
    const b = base.get(id);
    const r = remote.get(id);
    if (b) folders.add(b.parentId);
    if (r) folders.add(r.parentId);
    if (b?.type === 'folder' || r?.type === 'folder') subtrees.add(id);
  }
  return { folders, subtrees };
}

/** The trees cut to a scope: what the plan of the whole would look at for the entries in it. */
export function scopedTrees(trees: Trees, scope: PlanScope): Trees {
  const { base, local, remote } = trees;
  const ids = new Set<RemoteId>(scope.subtrees);
  // Folders whose children are seen: the scope's, and every folder inside a touched one (`deep`), on either side.
  const deep = new Set<RemoteId>(scope.subtrees);
  const seen = new Set<RemoteId | null>([...scope.folders, ...scope.subtrees]);
  // A folder's name here depends on its siblings' (clashes are numbered): the folders above see all their children.
  const above = ancestors([...seen], base, remote);
  for (const id of above) seen.add(id);
  seen.add(null);
  const isFolder = (id: RemoteId) => base.get(id)?.type === 'folder' || remote.get(id)?.type === 'folder';
  const links: Array<[RemoteId, RemoteId | null]> = [...parentsIn(base)];
  for (const r of remote.values()) links.push([r.id, r.parentId]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [id, parentId] of links) {
      if (!seen.has(parentId)) continue;
      ids.add(id);
      if (parentId !== null && deep.has(parentId) && !deep.has(id) && isFolder(id)) {
        deep.add(id);
        seen.add(id);
        grew = true;
      }
    }
  }
  // The folders above, on both sides, so each path is whole.
  for (const id of ancestors([...ids], base, remote)) ids.add(id);
  for (const id of above) ids.add(id);
  const scopedBase = new Map<RemoteId, BaseItem>();
  const scopedRemote = new Map<RemoteId, RemoteItem>();
  for (const id of ids) {
    const b = base.get(id);
    if (b) scopedBase.set(id, b);
    const r = remote.get(id);
    if (r) scopedRemote.set(id, r);
  }
  // Here: what is at the synced items' places, and whatever else is in the scope's folders (a conflicted copy made by
  // an earlier round, an item on its way to the drive).
  const localFolders = new Set<RelPath>();
  for (const id of seen) {
    if (id === null) localFolders.add('');
    else if (base.has(id)) localFolders.add(base.get(id)!.path);
  }
  const scopedLocal = new Map<RelPath, LocalItem>();
  for (const b of scopedBase.values()) {
    const l = local.get(b.path);
    if (l) scopedLocal.set(b.path, l);
  }
  for (const [path, l] of local) {
    if (!scopedLocal.has(path) && localFolders.has(parentOf(path))) scopedLocal.set(path, l);
  }
  return { base: scopedBase, local: scopedLocal, remote: scopedRemote };
}

/** The folders above these entries, following base's parent and the remote one where they differ. */
function ancestors(start: Iterable<RemoteId | null>, base: ReadonlyMap<RemoteId, BaseItem>, remote: ReadonlyMap<RemoteId, RemoteItem>): Set<RemoteId> {
  const found = new Set<RemoteId>();
  const stack: Array<RemoteId | null> = [...start];
  const visited = new Set<RemoteId>();
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === null || visited.has(id)) continue;
    visited.add(id);
    for (const parentId of [base.get(id)?.parentId, remote.get(id)?.parentId]) {
      if (parentId === undefined || parentId === null) continue;
      found.add(parentId);
      stack.push(parentId);
    }
  }
  return found;
}
