/**
 * The part of the trees a plan must see: after changes made on the drive only, to a folder that was in sync
 * (`deltaScope`), or after any changes, found by comparing the three trees with base (`changeScope`).
 *
 * A pass that applies a remote delta (remote-changes.ts) to a folder left in sync, with nothing changed here, would
 * plan over every item to find what the delta touched: at 100,000 items that is most of the pass. Only the entries
 * the delta touched can need an operation, and what decides about them is near them: the folders they left and
 * arrived in (their siblings give names and clashes), everything inside a folder touched (a folder trashed or moved
 * takes it along), and the folders above (a path is made of them). The plan of the trees cut to that scope is the plan
 * of the whole trees; a property test (`test/sync/scope.property.test.ts`) holds the two equal.
 *
 * The same holds for changes made here: a synced item changed or gone here is touched like one changed on the drive,
 * and a local item at a path no synced item has brings its folder's children in, and, when it lies in a folder new
 * here, all of that folder. A restart after a few changes, or a file saved in a folder of a million, then plans a few
 * folders, not the whole tree (at 100,000 items the whole plan is ~1.5 s and most of a pass's memory).
 */
import { baseName, nameRules, type NameRules, parentOf } from '../model/names.js';
import { givenNamesHeld, heldTogether } from './plan.js';
import { parentsIn, syncedRowsOf } from '../trees/queries.js';
import type { BaseItem, LocalItem, RelPath, RemoteId, RemoteItem, Trees } from '../model/types.js';

export interface PlanScope {
  /** Folders whose children the plan sees, all of them (null: the root). */
  folders: ReadonlySet<RemoteId | null>;
  /** Folders touched themselves: everything inside them, at any depth, is seen. */
  subtrees: ReadonlySet<RemoteId>;
  /** Local folders no synced item has (made here, or moved here from outside): everything inside them is seen. */
  localSubtrees?: ReadonlySet<RelPath>;
}

/** Beyond this share of the synced items changed, the whole trees are planned (cutting them costs more than it saves). */
const SCOPE_SHARE = 0.25;

/** The folder's volume's name rules (names.ts `NameRules`); what is not given is as Linux's. */
export interface ChangeScopeOptions extends Partial<NameRules> {
  /** The share of base beyond which it answers null (SCOPE_SHARE). */
  share?: number;
  /**
   * When what is new here is beyond that share and little else differs (an initial sync, a big folder copied in): plan
   * it a slice of about this many items at a time, instead of the whole trees at once.
   */
  slice?: number;
}

/** A plan scope; `slice` when it holds only part of what is new here (the rest comes in later plans). */
export type ChangeScope = PlanScope & { slice?: true };

/**
 * The scope of everything that differs from base, in one walk over the three trees like the planner's `settled`;
 * `in-sync` when nothing does (the planner's `settled` holds: there is nothing to plan); null when much of the tree
 * changed, or when base itself does not hold together (two rows at one path, a row outside its parent) or the
 * drive's names do not give the names used here (their folders' siblings all decide): those are planned whole.
 *
 * With `slice`, much that is new here and little else is planned a slice at a time: the first folders new here (by
 * path), each whole, up to about `slice` items, among those whose folder on the drive holds nothing new (an entry
 * there could be the same item made on both sides, which the whole folder's plan must see). Every operation of such
 * a plan is one the whole plan makes; the items left out are planned when their turn comes. An initial sync of a
 * million files then holds the operations and planning of a slice, not of a million.
 */
export function changeScope({ base, local, remote }: Trees, options: ChangeScopeOptions = {}): ChangeScope | 'in-sync' | null {
  const touched: RemoteId[] = [];
  const paths = new Set<RelPath>();
  /** Synced folders by their path here: where a local item new here finds the folder it is in. */
  const folderAt = new Map<RelPath, RemoteId>();
  let renamedIn: Set<RemoteId | null> | null = null;
  for (const b of syncedRowsOf(base, local, remote)) {
    if (!heldTogether(base, b, paths)) return null;
    if (b.folder) folderAt.set(b.path, b.id);
    if (baseName(b.path) !== b.remoteName) (renamedIn ??= new Set()).add(b.parentId);
    if (!b.localSame || !b.remoteSame) touched.push(b.id);
  }
  if (renamedIn !== null && !givenNamesHeld(base, renamedIn, nameRules(options))) return null;
  for (const id of remote.keys()) if (!base.has(id)) touched.push(id);
  const newHere: RelPath[] = [];
  for (const path of local.keys()) if (!paths.has(path)) newHere.push(path);
  if (touched.length + newHere.length === 0) return 'in-sync';
  const most = base.size * (options.share ?? SCOPE_SHARE);
  const sliced = touched.length + newHere.length > most;
  if (sliced && (options.slice === undefined || touched.length > most)) return null;
  const scope = deltaScope(base, remote, touched);
  const folders = new Set(scope.folders);
  // What is here inside a touched folder is seen by its path too: a folder forgotten and made anew has another id.
  const localSubtrees = new Set<RelPath>();
  for (const id of scope.subtrees) {
    const b = base.get(id);
    if (b) localSubtrees.add(b.path);
  }
  /** Each top item new here (the synced folder it is in, and how many items it holds). */
  const tops = new Map<RelPath, { parent: RemoteId | null; items: number }>();
  for (const path of newHere) {
    // The synced folder it lies in, and the folder new here it lies in below that (or itself).
    let top = path;
    let parent = parentOf(path);
    while (parent !== '' && !folderAt.has(parent)) {
      top = parent;
      parent = parentOf(parent);
    }
    const at = tops.get(top);
    if (at) at.items++;
    else tops.set(top, { parent: parent === '' ? null : folderAt.get(parent)!, items: 1 });
    if (top !== path || local.get(path)?.type === 'folder') localSubtrees.add(top);
  }
  if (!sliced) {
    for (const { parent } of tops.values()) folders.add(parent);
    return { folders, subtrees: scope.subtrees, localSubtrees };
  }
  // Folders of the drive where something is new or changed: what is new here in them is not sliced.
  const busy = new Set<RemoteId | null>(scope.folders);
  let taken = 0;
  for (const top of [...tops.keys()].sort()) {
    const { parent, items } = tops.get(top)!;
    if (busy.has(parent)) continue;
    if (taken >= options.slice!) localSubtrees.delete(top);
    else {
      folders.add(parent);
      taken += items;
    }
  }
  // Nothing could be sliced: the whole trees.
  return taken === 0 ? null : { folders, subtrees: scope.subtrees, localSubtrees, slice: true };
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
  // A folder new here is synced as the pass goes (its entry made): it is then a touched folder like any other.
  const subtrees = scope.localSubtrees ?? new Set<RelPath>();
  if (subtrees.size > 0) {
    for (const b of base.values()) {
      if (b.type !== 'folder' || !(subtrees.has(b.path) || withinAny(b.path, subtrees))) continue;
      ids.add(b.remoteId);
      deep.add(b.remoteId);
      seen.add(b.remoteId);
    }
  }
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
    if (!scopedLocal.has(path) && (localFolders.has(parentOf(path)) || (subtrees.size > 0 && withinAny(path, subtrees)))) scopedLocal.set(path, l);
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

/** The path lies inside one of these folders. */
function withinAny(path: RelPath, folders: ReadonlySet<RelPath>): boolean {
  for (let parent = parentOf(path); parent !== ''; parent = parentOf(parent)) if (folders.has(parent)) return true;
  return false;
}
