/**
 * The planner: a pure function from the three trees to the operations of one pass. No I/O, no clock, no
 * randomness. Its rules are the decision table of docs/sync-rules.md; each operation carries its row's id.
 *
 * A pass emits only operations whose prerequisites already hold (a parent that exists on the other side, a path
 * that is free); the rest wait for the next pass. The engine repeats plan → execute until a plan is empty.
 */
import { baseName, isWithin, joinPath, nameKey, numberedName, parentOf, safeLocalName } from './names.js';
import type { BaseItem, LocalItem, Operation, Plan, RelPath, RemoteId, RemoteItem, Trees } from './types.js';

export interface PlanOptions {
  /** Names that differ only by case are one name on this volume. */
  caseInsensitive?: boolean;
  /** Local paths never uploaded (temp files, .syncignore). */
  isIgnored?: (path: RelPath, type: LocalItem['type']) => boolean;
}

/** Deployed versions refuse folder names and renames outside 3 to 200 characters. */
export const REMOTE_NAME = { min: 3, max: 200 } as const;

type LocalState = 'same' | 'touched' | 'changed' | 'deleted';

interface Status {
  base: BaseItem;
  remote: RemoteItem | undefined;
  /** Where the item is locally now (its base path, or where it moved), if it still exists. */
  local: LocalItem | undefined;
  localState: LocalState;
  localMoved: boolean;
  remoteChanged: boolean;
  remoteMoved: boolean;
}

/** Remote items whose chain of parents reaches the sync root; anything else is outside the synced tree. */
function reachableRemote(remote: ReadonlyMap<RemoteId, RemoteItem>): Map<RemoteId, RemoteItem> {
  const verdict = new Map<RemoteId, boolean>();
  const walk = (id: RemoteId): boolean => {
    const known = verdict.get(id);
    if (known !== undefined) return known;
    verdict.set(id, false); // a cycle ends here as unreachable
    const item = remote.get(id);
    const ok = item !== undefined && (item.parentId === null || (remote.get(item.parentId)?.type === 'folder' && walk(item.parentId)));
    verdict.set(id, ok);
    return ok;
  };
  const out = new Map<RemoteId, RemoteItem>();
  for (const [id, item] of remote) if (walk(id)) out.set(id, item);
  return out;
}

function localStateOf(base: BaseItem, local: LocalItem): LocalState {
  if (base.type === 'folder') return 'same';
  if (local.size === base.size && local.mtimeMs === base.mtimeMs && local.inode === base.inode) return 'same';
  if (local.hash !== undefined && base.hash !== null && local.hash === base.hash) return 'touched';
  return 'changed';
}

/**
 * True when both sides are exactly as last synced: every synced item is at its recorded path with its recorded
 * inode, size and mtime, the listing says what base says of it, and nothing else exists on either side. Then no
 * row of the table applies, so a poll or rescan that found no change costs no planning (and no per-item garbage).
 */
export function settled({ base, local, remote }: Trees): boolean {
  if (local.size !== base.size || remote.size !== base.size) return false;
  const paths = new Set<RelPath>();
  for (const b of base.values()) {
    if (paths.has(b.path)) return false;
    paths.add(b.path);
    if (b.parentId === null) {
      if (parentOf(b.path) !== '') return false;
    } else {
      const parent = base.get(b.parentId);
      if (parent === undefined || parent.type !== 'folder' || parent.path !== parentOf(b.path)) return false;
    }
    const l = local.get(b.path);
    if (l === undefined || l.type !== b.type || l.inode !== b.inode) return false;
    const r = remote.get(b.remoteId);
    if (r === undefined || r.type !== b.type || r.parentId !== b.parentId || r.name !== b.remoteName) return false;
    if (b.type === 'file') {
      if (l.size !== b.size || l.mtimeMs !== b.mtimeMs) return false;
      if (r.size !== b.remoteSize || r.updatedAt !== b.remoteUpdatedAt) return false;
    }
  }
  return true;
}

export function plan(trees: Trees, options: PlanOptions = {}): Plan {
  return settled(trees) ? { operations: [], deletions: 0, skipped: [], notes: [] } : planChanges(trees, options);
}

/** The decision table applied to every item; `plan` skips it when the trees are settled. */
export function planChanges(trees: Trees, options: PlanOptions = {}): Plan {
  const caseInsensitive = options.caseInsensitive ?? false;
  const isIgnored = options.isIgnored ?? (() => false);
  const key = (name: string) => nameKey(name, caseInsensitive);
  const { base, local } = trees;
  const remote = reachableRemote(trees.remote);
  const operations: Operation[] = [];
  const skipped: Plan['skipped'] = [];
  const notes: Plan['notes'] = [];
  let deletions = 0;

  // --- Local side: where is each base item now? -------------------------------------------------------------
  const basePaths = new Set<RelPath>();
  for (const b of base.values()) basePaths.add(b.path);
  const claimedLocal = new Set<RelPath>(); // local paths explained by a base item
  // Which synced item a local item is: at the recorded path of a synced item of its type, that item (even with a
  // new inode, as after an atomic save) — unless its inode is another synced item's, which then moved over it.
  // Anything else may be a synced item that moved, found by inode.
  const baseTypesAt = new Map<RelPath, Set<LocalItem['type']>>();
  for (const b of base.values()) baseTypesAt.set(b.path, (baseTypesAt.get(b.path) ?? new Set()).add(b.type));
  const inodeOwner = new Map<number, BaseItem>();
  for (const b of base.values()) if (b.inode > 0 && !inodeOwner.has(b.inode)) inodeOwner.set(b.inode, b);
  /**
   * A file system gives a freed inode number to the next file made, so a file with a synced file's inode is that
   * file moved only if the synced file left its own place (nothing there, or another synced file moved in, as in a
   * swap), or kept its size and mtime (a rename keeps both): an atomic save of `a` (its old inode freed) followed by
   * a new file `b` is not `a` moved to `b`.
   */
  const sameFileMoved = (b: BaseItem, candidate: LocalItem): boolean => {
    if (b.type !== 'file') return true;
    const there = local.get(b.path);
    if (there === undefined || there.type !== 'file') return true;
    const owner = inodeOwner.get(there.inode);
    if (owner !== undefined && owner !== b) return true;
    return candidate.size === b.size && candidate.mtimeMs === b.mtimeMs;
  };
  /** The synced item (other than one recorded at the item's own path) whose inode this local item has. */
  const movedOver = (item: LocalItem): BaseItem | undefined => {
    const owner = inodeOwner.get(item.inode);
    return owner && owner.type === item.type && owner.path !== item.path && sameFileMoved(owner, item) ? owner : undefined;
  };
  /**
   * Another synced item of the item's type, with its inode, recorded at the same path: that one moved here (its row
   * follows its move while the row of the item it replaced waits for the folder to settle in live mode).
   */
  const recordedHereToo = (item: LocalItem, b: BaseItem): boolean => {
    const owner = inodeOwner.get(item.inode);
    return owner !== undefined && owner !== b && owner.type === item.type && owner.path === item.path;
  };
  const byInode = new Map<number, LocalItem[]>();
  for (const item of local.values()) {
    if (!baseTypesAt.get(item.path)?.has(item.type) || movedOver(item)) {
      const list = byInode.get(item.inode) ?? [];
      list.push(item);
      byInode.set(item.inode, list);
    }
  }
  const statuses = new Map<RemoteId, Status>();
  // Parents before children (a child's status looks at its folder's).
  const ordered = byDepthThenPath([...base.values()], (b) => b.path, (b) => b.remoteId);
  for (const b of ordered) {
    let item = local.get(b.path);
    let moved = false;
    // Its path says what it is only while its folder is still the one at the parent path (a folder deleted or
    // replaced takes the meaning of the paths below it along). A row whose folder has no row goes by its path.
    const folder = b.parentId === null ? undefined : statuses.get(b.parentId);
    const folderHere = b.parentId === null ? parentOf(b.path) === '' : folder === undefined || folder.local?.path === parentOf(b.path);
    const atPath =
      item !== undefined &&
      item.type === b.type &&
      !claimedLocal.has(item.path) &&
      folderHere &&
      (item.inode === b.inode || (movedOver(item) === undefined && !recordedHereToo(item, b)));
    // Its inode at a new path means it moved, even when something new now sits at the old path (`mv a b; touch a`).
    // Without that, the item at its path is itself (an atomic save gives a file a new inode in place).
    if (!atPath || item!.inode !== b.inode) {
      // Moved to an ignored path (into a temp name or an ignored folder): it left the synced tree, as if deleted.
      // (An item synced under an ignored name, as a temp-named file another client uploaded, may keep its name.)
      const baseIgnored = isIgnored(b.path, b.type);
      const inTree = (path: RelPath, type: LocalItem['type']) =>
        (parentOf(path) === '' || !isIgnored(parentOf(path), 'folder')) && (baseIgnored || !isIgnored(path, type));
      const candidates =
        b.inode > 0
          ? (byInode.get(b.inode) ?? []).filter(
              (c) => c.type === b.type && !claimedLocal.has(c.path) && inTree(c.path, c.type) && sameFileMoved(b, c),
            )
          : [];
      if (candidates.length > 0) {
        item = candidates[0];
        moved = true;
      } else if (!atPath) {
        item = undefined;
        // Not at its path and its inode gone (an atomic save), but its folder moved: it is what now has its name in
        // the folder's new place.
        const folderNow = folder?.local;
        if (folderNow && folderNow.path !== parentOf(b.path)) {
          const expected = joinPath(folderNow.path, baseName(b.path));
          const found = local.get(expected);
          if (
            found !== undefined &&
            found.type === b.type &&
            !claimedLocal.has(expected) &&
            !basePaths.has(expected) &&
            inTree(expected, found.type)
          ) {
            item = found;
            moved = true;
          }
        }
      }
    }
    if (item) claimedLocal.add(item.path);
    const r = remote.get(b.remoteId);
    const remoteMoved = r !== undefined && (r.parentId !== b.parentId || r.name !== b.remoteName);
    // An updated_at recorded as '' is unknown (a move whose answer did not carry the entry): only the size tells.
    const remoteChanged =
      r !== undefined &&
      b.type === 'file' &&
      (r.size !== b.remoteSize || (!remoteMoved && b.remoteUpdatedAt !== '' && r.updatedAt !== b.remoteUpdatedAt));
    statuses.set(b.remoteId, {
      base: b,
      remote: r,
      local: item,
      localState: item ? localStateOf(b, item) : 'deleted',
      localMoved: moved,
      remoteChanged,
      remoteMoved,
    });
  }

  /** Current local path of a synced item, if it exists locally. */
  const currentPath = (id: RemoteId | null): RelPath | undefined => (id === null ? '' : statuses.get(id)?.local?.path);
  /** The synced item whose current local path is `path` ('' is the root). */
  const byCurrentPath = new Map<RelPath, Status>();
  for (const s of statuses.values()) if (s.local) byCurrentPath.set(s.local.path, s);
  const remoteIdAt = (path: RelPath): RemoteId | null | undefined => {
    if (path === '') return null;
    const s = byCurrentPath.get(path);
    return s && s.remote && s.base.type === 'folder' ? s.base.remoteId : undefined;
  };

  // Remote children, for subtree questions.
  const remoteChildren = new Map<RemoteId | null, RemoteItem[]>();
  for (const r of remote.values()) {
    const list = remoteChildren.get(r.parentId) ?? [];
    list.push(r);
    remoteChildren.set(r.parentId, list);
  }
  const remoteSubtree = (id: RemoteId): RemoteItem[] => {
    const out: RemoteItem[] = [];
    const stack = [...(remoteChildren.get(id) ?? [])];
    while (stack.length > 0) {
      const r = stack.pop()!;
      out.push(r);
      stack.push(...(remoteChildren.get(r.id) ?? []));
    }
    return out;
  };
  /** Remote parents as they will be once this pass's move-remote operations are done. */
  const plannedParent = new Map<RemoteId, RemoteId | null>();
  const remoteParent = (id: RemoteId): RemoteId | null =>
    plannedParent.has(id) ? plannedParent.get(id)! : (remote.get(id)?.parentId ?? null);
  /**
   * Could `ancestor` be above `id` at some point of this pass: now, after some of its moves (the executor runs them
   * in any order), or after all of them? Follows both the current and the planned parent of every entry.
   */
  const mayBeRemoteAncestor = (ancestor: RemoteId, id: RemoteId | null): boolean => {
    const seen = new Set<RemoteId>();
    const stack: Array<RemoteId | null> = [id];
    while (stack.length > 0) {
      const cur = stack.pop()!;
      if (cur === null || seen.has(cur)) continue;
      if (cur === ancestor) return true;
      seen.add(cur);
      stack.push(remote.get(cur)?.parentId ?? null);
      if (plannedParent.has(cur)) stack.push(plannedParent.get(cur)!);
    }
    return false;
  };
  /** Is `ancestor` above `id` in the remote tree as this pass's moves leave it? */
  const isRemoteAncestor = (ancestor: RemoteId, id: RemoteId | null): boolean => {
    for (let cur = id, guard = 0; cur !== null && guard < 10_000; guard++) {
      if (cur === ancestor) return true;
      cur = remoteParent(cur);
    }
    return false;
  };
  /** A local folder that exists and stays this pass, so something can be put into it. */
  const parentReady = (parent: RelPath | undefined): parent is RelPath =>
    parent !== undefined && (parent === '' || (local.has(parent) && !vacating.has(parent) && !underVacating(parent)));
  const sortedLocal = [...local.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const localSubtree = (path: RelPath): LocalItem[] => sortedLocal.filter((l) => l.path !== path && isWithin(l.path, path));

  // Paths taken by this pass's operations or by items that stay; used for free-name checks.
  const occupied = new Map<string, RelPath>(); // key(parent/name) → path
  const occKey = (path: RelPath) => `${key(parentOf(path))}\u0000${key(baseName(path))}`;
  for (const l of local.values()) occupied.set(occKey(l.path), l.path);
  const freeLocalPath = (parent: RelPath, name: string, self?: RelPath): RelPath => {
    const safe = safeLocalName(name);
    for (let n = 1; ; n++) {
      const candidate = joinPath(parent, numberedName(safe, n));
      const holder = occupied.get(occKey(candidate));
      if (holder === undefined || holder === self) return candidate;
    }
  };
  const occupy = (path: RelPath) => occupied.set(occKey(path), path);
  const vacating = new Set<RelPath>(); // local paths this pass deletes or moves away from

  const handled = new Set<RemoteId>(); // base items covered by an ancestor's operation this pass
  /** True when an ancestor of `path` is deleted or moved by this pass: anything inside waits for the next one. */
  const underVacating = (path: RelPath): boolean => {
    for (let p = parentOf(path); p !== ''; p = parentOf(p)) if (vacating.has(p)) return true;
    return false;
  };

  /** Remote folder names this pass creates or moves in, as `parentId NUL name` (the service refuses twins). */
  const newRemoteFolders = new Set<string>();
  const folderKey = (parentId: RemoteId | null, name: string) => `${parentId}\u0000${name}`;
  const emit = (op: Operation) => {
    operations.push(op);
    if (op.kind === 'create-remote-folder') newRemoteFolders.add(folderKey(op.parentId, op.name));
    if (op.kind === 'move-remote') plannedParent.set(op.remoteId, op.parentId);
    if ((op.kind === 'move-remote' || op.kind === 'rename-remote') && remote.get(op.remoteId)?.type === 'folder') {
      newRemoteFolders.add(folderKey(op.kind === 'move-remote' ? op.parentId : remote.get(op.remoteId)!.parentId, op.name));
    }
  };
  /** Synced items below a synced folder, by the remote parents recorded in base. */
  const baseChildren = new Map<RemoteId, RemoteId[]>();
  for (const b of base.values()) {
    if (b.parentId === null) continue;
    const list = baseChildren.get(b.parentId);
    if (list) list.push(b.remoteId);
    else baseChildren.set(b.parentId, [b.remoteId]);
  }
  /** Synced items below `id` by their recorded remote parents, not going below an item `prune` rejects. */
  const baseDescendants = (id: RemoteId, prune: (id: RemoteId) => boolean = () => false): RemoteId[] => {
    const out: RemoteId[] = [];
    const seen = new Set<RemoteId>([id]);
    const stack = [...(baseChildren.get(id) ?? [])];
    while (stack.length > 0) {
      const cur = stack.pop()!;
      if (seen.has(cur) || prune(cur)) continue;
      seen.add(cur);
      out.push(cur);
      stack.push(...(baseChildren.get(cur) ?? []));
    }
    return out;
  };
  /**
   * A local item at the recorded path of a synced item it is not (a file replaced by a folder, or the reverse):
   * the synced item's row leaves that path this pass (trashed, forgotten or brought back elsewhere), then the
   * new item is handled.
   */
  const goneFrom = new Set<RelPath>(); // recorded paths of synced items that are nowhere locally
  for (const st of statuses.values()) if (!st.local) goneFrom.add(st.base.path);
  // (An item recorded there that moved away locally does not count: its row follows when its move is sent.)
  const replacesSynced = (path: RelPath): boolean => goneFrom.has(path) && !claimedLocal.has(path);

  /** A synced item that is where its synced folder's move took it (same name, the folder moved locally). */
  const followedItsFolder = (s: Status): boolean => {
    const b = s.base;
    if (b.parentId === null || !s.local) return false;
    const folder = statuses.get(b.parentId);
    const folderNow = folder?.local?.path;
    return (
      folder !== undefined &&
      folder.localMoved &&
      folderNow !== undefined &&
      folderNow !== parentOf(b.path) &&
      s.local.path === joinPath(folderNow, baseName(b.path))
    );
  };

  // A synced file whose entry is gone while a new file entry has its folder and name is that file replaced: how
  // clients of this service save an edit (upload a new entry, trash the old). Paired oldest first; only for a file
  // still at its place locally (else the rules for a deleted entry and a new one apply).
  const replacedBy = new Map<RemoteId, RemoteId>();
  const replacing = new Set<RemoteId>();
  {
    const fresh = new Map<string, RemoteItem[]>();
    const candidates = [...remote.values()].filter((r) => r.type === 'file' && !base.has(r.id));
    for (const r of candidates.sort((x, y) => x.id - y.id)) {
      const k = folderKey(r.parentId, r.name);
      const list = fresh.get(k);
      if (list) list.push(r);
      else fresh.set(k, [r]);
    }
    const gone = candidates.length === 0 ? [] : [...statuses.values()].filter((st) => !st.remote && st.local && !st.localMoved);
    for (const st of gone.sort((x, y) => x.base.remoteId - y.base.remoteId)) {
      const b = st.base;
      if (b.type !== 'file' || (b.parentId !== null && !remote.has(b.parentId))) continue;
      const next = fresh.get(folderKey(b.parentId, b.remoteName))?.shift();
      if (next === undefined) continue;
      replacedBy.set(b.remoteId, next.id);
      replacing.add(next.id);
    }
  }

  // Local moves the remote contradicts with a cycle (M1 ↔ M3): items stuck (their remote place is inside them
  // locally), and all items waiting on such a cycle, for the tie-break at the end of the pass.
  const stuck = new Set<RemoteId>();
  const crossMoves: Status[] = [];
  /** Where a locally moved item goes back to its remote place (M3), if that is possible this pass. */
  const goBack = (s: Status): RelPath | undefined => {
    const here = s.local!;
    const home = currentPath(s.remote!.parentId);
    if (!parentReady(home)) return undefined;
    const target = freeLocalPath(home, s.remote!.name, here.path);
    return target === here.path || isWithin(target, here.path) ? undefined : target;
  };
  const moveBack = (s: Status, target: RelPath) => {
    occupy(target);
    vacating.add(s.local!.path);
    emit({ kind: 'move-local', rule: 'M3', remoteId: s.base.remoteId, from: s.local!.path, to: target });
  };

  // --- Synced items, shallowest first so a folder's decision covers its subtree -----------------------------
  // Depth of where the item is now (its local path if it exists locally), so that a folder moved or trashed this
  // pass is seen before anything that is inside it now, even an item that moved in.
  const bySyncedDepth = byDepthThenPath(
    [...statuses.values()],
    (s) => s.local?.path ?? s.base.path,
    (s) => s.base.remoteId,
  );
  for (const s of bySyncedDepth) {
    const b = s.base;
    if (handled.has(b.remoteId)) continue;
    const r = s.remote;
    const l = s.local;
    if (l && underVacating(l.path)) continue;

    // Both sides gone.
    if (!r && !l) {
      emit({ kind: 'forget', rule: 'D3', remoteId: b.remoteId });
      continue;
    }

    // Replaced remotely: another client saved an edit as a new entry (this service has no content replace).
    const replacement = replacedBy.get(b.remoteId);
    if (!r && l && replacement !== undefined) {
      if (s.localState === 'changed') {
        emit({ kind: 'conflict', rule: 'C3', remoteId: replacement, path: l.path, replaces: b.remoteId });
      } else {
        emit({ kind: 'download', rule: 'C2', remoteId: replacement, path: l.path, replaces: b.remoteId });
      }
      continue;
    }

    // Deleted remotely, still here locally.
    if (!r && l) {
      if (b.type === 'folder') {
        const inside = localSubtree(l.path);
        let leaving = false;
        let survives = false;
        for (const child of inside) {
          const synced = byCurrentPath.get(child.path);
          if (!synced) survives ||= !isIgnored(child.path, child.type);
          else if (synced.remote) {
            if (synced.localMoved) survives = true; // moved in here locally: keeps the folder
            else leaving = true; // moved out remotely: let it leave first
          } else if (synced.localState === 'changed') survives = true;
        }
        if (leaving && !survives) continue; // trash only once what moved out has left; a folder that survives need not wait
        if (!survives) {
          const count = 1 + inside.length;
          emit({ kind: 'trash-local', rule: 'D1', path: l.path, remoteId: b.remoteId, count });
          deletions += count;
          vacating.add(l.path);
          for (const child of inside) {
            const synced = byCurrentPath.get(child.path);
            if (synced) handled.add(synced.base.remoteId);
          }
        } else {
          // Something inside is new or edited: the folder survives and is created again remotely.
          emit({ kind: 'forget', rule: 'D5', remoteId: b.remoteId });
        }
        continue;
      }
      if (s.localState === 'changed') {
        emit({ kind: 'forget', rule: 'D4', remoteId: b.remoteId }); // edit beats delete: uploaded as new next pass
      } else {
        emit({ kind: 'trash-local', rule: 'D1', path: l.path, remoteId: b.remoteId, count: 1 });
        deletions += 1;
        vacating.add(l.path);
      }
      continue;
    }

    // Deleted locally, still there remotely.
    if (r && !l) {
      if (b.type === 'folder') {
        const inside = remoteSubtree(b.remoteId);
        let leaving = false;
        let survives = false;
        for (const child of inside) {
          const synced = statuses.get(child.id);
          if (!synced) survives = true;
          else if (synced.local) {
            if (synced.remoteMoved) survives = true; // moved in here remotely: keeps the folder
            else leaving = true; // moved out locally: let it leave first
          } else if (synced.remoteChanged) survives = true;
        }
        if (leaving && !survives) continue; // trash only once what moved out has left; a folder that survives need not wait
        if (!survives) {
          const count = 1 + inside.length;
          emit({ kind: 'trash-remote', rule: 'D2', remoteId: b.remoteId, count });
          deletions += count;
          for (const child of inside) handled.add(child.id);
        } else {
          const parent = currentPath(r.parentId);
          if (parentReady(parent)) {
            const path = freeLocalPath(parent, r.name);
            occupy(path);
            emit({ kind: 'create-local-folder', rule: 'D6', remoteId: b.remoteId, path });
          }
        }
        continue;
      }
      if (s.remoteChanged) {
        // Edit beats delete: the remote version comes back.
        const parent = currentPath(r.parentId);
        if (parentReady(parent)) {
          const path = freeLocalPath(parent, r.name);
          occupy(path);
          emit({ kind: 'download', rule: 'D4', remoteId: b.remoteId, path });
        }
      } else {
        emit({ kind: 'trash-remote', rule: 'D2', remoteId: b.remoteId, count: 1 });
        deletions += 1;
      }
      continue;
    }

    // Present on both sides.
    const here = l!;
    const there = r!;
    const contentChanged = b.type === 'file' && (s.localState === 'changed' || s.remoteChanged);
    if (s.remoteMoved) {
      // The remote location wins when both moved (rule M3); the local item follows it.
      const parent = currentPath(there.parentId);
      if (!parentReady(parent)) continue; // parent not there yet
      // Neither side renamed it and it is already in that folder: its local name (maybe made safe or numbered) stays.
      const sameName = there.name === b.remoteName && baseName(here.path) === baseName(b.path) && parentOf(here.path) === parent;
      const target = sameName ? here.path : freeLocalPath(parent, there.name, here.path);
      if (target !== here.path) {
        if (isWithin(target, here.path)) continue; // cannot move a folder into itself yet; its new parent moves first
        occupy(target);
        vacating.add(here.path);
        emit({ kind: 'move-local', rule: s.localMoved ? 'M3' : 'M2', remoteId: b.remoteId, from: here.path, to: target });
        continue;
      }
      // Already where the remote entry is. A content change is handled below, and its operation records the place.
      if (!contentChanged) {
        emit({ kind: 'record', rule: s.localMoved ? 'M4' : 'M2', remoteId: b.remoteId, path: here.path });
        continue;
      }
    } else if (s.localMoved && followedItsFolder(s)) {
      // It only moved along with its folder, whose own operation records the new paths below it.
      if (!contentChanged) continue;
    } else if (s.localMoved) {
      const newParent = parentOf(here.path);
      const parentId = remoteIdAt(newParent);
      if (parentId === undefined) continue; // the new parent has no remote entry yet
      // Its new parent is inside it remotely, now or once this pass's moves are done (two moves that are each fine
      // can make a cycle together; and a move must not depend on another of the same pass being done first).
      const insideAtSomePoint = parentId !== null && mayBeRemoteAncestor(b.remoteId, parentId);
      const insideAfter = parentId !== null && isRemoteAncestor(b.remoteId, parentId);
      if (insideAtSomePoint && !insideAfter) continue; // moves of this pass take the new parent out (A/B → B/A)
      if (insideAfter) {
        // If a local move not sent yet (and not itself stuck) takes that folder out, wait for it. Otherwise the
        // other side moved the folder in there (a cross move): the remote location wins and the local item goes
        // back to it (M3), which lets the remote move follow. If its remote place is inside it locally too, it is
        // stuck until something else moves; should nothing else be able to, the end of the pass breaks the tie.
        let pending = false;
        for (let cur: RemoteId | null = parentId, guard = 0; cur !== null && cur !== b.remoteId && guard < 10_000; guard++) {
          const st = statuses.get(cur);
          if (st?.localMoved && !st.remoteMoved && !followedItsFolder(st) && !plannedParent.has(cur) && !stuck.has(cur)) {
            pending = true;
          }
          cur = remoteParent(cur);
        }
        const back = goBack(s);
        if (back === undefined) stuck.add(b.remoteId);
        else if (!pending) {
          moveBack(s, back);
          continue;
        }
        crossMoves.push(s);
        continue;
      }
      const localName = baseName(here.path);
      const name = localName === baseName(b.path) ? b.remoteName : localName;
      if (parentId !== there.parentId || name !== there.name) {
        if (!validRemoteName(name)) {
          // M5: the service refuses to rename to this name; the entry keeps its name on the drive (and its id, its
          // shares and links), moves if it moved, and the base maps the local name to it. A content change made
          // with the rename is the content rows' (below), which record the new path too.
          if (parentId !== there.parentId) {
            notes.push({ path: here.path, message: keptName(name, there.name) });
            emit({ kind: 'move-remote', rule: 'M5', remoteId: b.remoteId, parentId, name: there.name, path: here.path });
            continue;
          }
          if (!contentChanged) {
            notes.push({ path: here.path, message: keptName(name, there.name) });
            emit({ kind: 'record', rule: 'M5', remoteId: b.remoteId, path: here.path });
            continue;
          }
        } else {
          if (parentId === there.parentId) emit({ kind: 'rename-remote', rule: 'M1', remoteId: b.remoteId, name, path: here.path });
          else emit({ kind: 'move-remote', rule: 'M1', remoteId: b.remoteId, parentId, name, path: here.path });
          continue;
        }
      } else if (!contentChanged) {
        // The local move lands where the entry already is (M4). A content change is handled below.
        emit({ kind: 'record', rule: 'M4', remoteId: b.remoteId, path: here.path });
        continue;
      }
    }
    // Same place on both sides: content.
    if (b.type === 'folder') {
      if (here.inode !== b.inode) emit({ kind: 'record', rule: 'C4', remoteId: b.remoteId, path: here.path }); // re-created in place
    } else {
      const localChanged = s.localState === 'changed';
      if (localChanged && s.remoteChanged) {
        emit({ kind: 'conflict', rule: 'C3', remoteId: b.remoteId, path: here.path });
      } else if (localChanged) {
        emit({ kind: 'replace-remote', rule: 'C1', path: here.path, remoteId: b.remoteId });
      } else if (s.remoteChanged) {
        emit({ kind: 'download', rule: 'C2', remoteId: b.remoteId, path: here.path });
      } else if (s.localState === 'touched' || here.inode !== b.inode || (b.remoteUpdatedAt === '' && there.updatedAt !== '')) {
        emit({ kind: 'record', rule: 'C4', remoteId: b.remoteId, path: here.path });
      }
    }
  }

  // Items are visited by where they are locally, so a remote folder can be trashed after something the other side
  // moved into it got its own trash-remote: the folder's operation covers (and counts) it.
  const trashedRemote = new Set<RemoteId>();
  for (const op of operations) if (op.kind === 'trash-remote') trashedRemote.add(op.remoteId);
  for (let i = operations.length - 1; i >= 0; i--) {
    const op = operations[i]!;
    if (op.kind !== 'trash-remote') continue;
    for (let cur = remote.get(op.remoteId)?.parentId ?? null, guard = 0; cur !== null && guard < 10_000; guard++) {
      if (trashedRemote.has(cur)) {
        operations.splice(i, 1);
        deletions -= op.count;
        break;
      }
      cur = remote.get(cur)?.parentId ?? null;
    }
  }

  // --- Remote entries not synced yet, parents first ----------------------------------------------------------
  const newRemote = [...remote.values()].filter((r) => !base.has(r.id) && !replacing.has(r.id));
  const depth = (r: RemoteItem): number => {
    let d = 0;
    for (let cur: RemoteItem | undefined = r; cur && cur.parentId !== null && d < 10_000; d++) cur = remote.get(cur.parentId);
    return d;
  };
  newRemote.sort((a, b) => depth(a) - depth(b) || a.id - b.id);
  const matchedLocal = new Set<RelPath>();
  for (const r of newRemote) {
    const parent = currentPath(r.parentId);
    if (!parentReady(parent)) continue; // parent arrives first
    const safe = safeLocalName(r.name);
    const natural = joinPath(parent, safe);
    const holderPath = occupied.get(occKey(natural));
    const holder = holderPath !== undefined ? local.get(holderPath) : undefined;
    if (holder && replacesSynced(holder.path)) continue; // the synced item recorded there leaves first
    if (holder && !claimedLocal.has(holder.path) && !matchedLocal.has(holder.path) && !isIgnored(holder.path, holder.type)) {
      // Both sides created something at the same place.
      matchedLocal.add(holder.path);
      if (vacating.has(holder.path)) continue;
      if (holder.type === 'folder' && r.type === 'folder') {
        emit({ kind: 'record', rule: 'N3', remoteId: r.id, path: holder.path });
      } else if (holder.type === 'file' && r.type === 'file') {
        emit({ kind: 'merge', rule: 'N4', remoteId: r.id, path: holder.path });
      } else {
        emit({ kind: 'conflict', rule: 'N5', remoteId: r.id, path: holder.path });
        vacating.add(holder.path); // moved aside: anything inside it waits
      }
      continue;
    }
    if (holderPath !== undefined && vacating.has(holderPath)) continue; // wait until the old item is gone
    const path = freeLocalPath(parent, r.name);
    occupy(path);
    emit(
      r.type === 'folder'
        ? { kind: 'create-local-folder', rule: 'N1', remoteId: r.id, path }
        : { kind: 'download', rule: 'N1', remoteId: r.id, path },
    );
  }

  // --- Local items not synced yet -----------------------------------------------------------------------------
  /** The file that creates a new local folder remotely (N6): the shallowest uploadable file below it, if any. */
  const carrierOf = (folder: RelPath): LocalItem | undefined => {
    let best: LocalItem | undefined;
    let bestDepth = Infinity;
    for (const l of localSubtree(folder)) {
      if (l.type !== 'file' || claimedLocal.has(l.path) || matchedLocal.has(l.path) || isIgnored(l.path, l.type)) continue;
      let depth = 0;
      let blocked = false;
      for (let p = parentOf(l.path); p !== folder; p = parentOf(p), depth++) {
        if (claimedLocal.has(p) || isIgnored(p, 'folder')) blocked = true;
      }
      if (!blocked && depth < bestDepth) {
        best = l;
        bestDepth = depth;
      }
    }
    return best;
  };
  const foldersOnTheWay = (folder: RelPath, file: RelPath) => {
    const chain: Array<{ path: RelPath; name: string }> = [];
    for (let p = parentOf(file); ; p = parentOf(p)) {
      chain.unshift({ path: p, name: baseName(p) });
      if (p === folder) return chain;
    }
  };

  /** Remote entries this pass renames, moves or trashes: their names are free next pass. */
  const remoteLeaving = new Set<RemoteId>();
  for (const op of operations) {
    if (op.kind === 'rename-remote' || op.kind === 'move-remote') remoteLeaving.add(op.remoteId);
    if (op.kind === 'trash-remote') for (const id of [op.remoteId, ...remoteSubtree(op.remoteId).map((r) => r.id)]) remoteLeaving.add(id);
  }
  for (const l of sortedLocal) {
    if (claimedLocal.has(l.path) || matchedLocal.has(l.path)) continue;
    if (isIgnored(l.path, l.type)) continue;
    if (replacesSynced(l.path)) continue; // the synced item recorded there leaves first
    const parent = parentOf(l.path);
    if (!parentReady(parent)) continue;
    const parentId = remoteIdAt(parent);
    if (parentId === undefined) continue; // its folder is created remotely first
    const name = baseName(l.path);
    if (l.type === 'folder') {
      // The service refuses a folder whose name a sibling folder has. If that sibling leaves this pass, wait for
      // it; otherwise the new entry gets a numbered name (the local folder keeps its name; the base maps them).
      const taken = (candidate: string) =>
        newRemoteFolders.has(folderKey(parentId, candidate)) ||
        (remoteChildren.get(parentId) ?? []).find((r) => r.type === 'folder' && r.name === candidate);
      const clash = taken(name);
      if (typeof clash === 'object' && remoteLeaving.has(clash.id)) continue;
      if (!clash && !validRemoteName(name)) {
        // N6: the service refuses to create a folder of this name, but an upload's relativePath creates any folder
        // on its way: the folder is made by uploading the first file inside it. An empty one cannot be made.
        const carrier = carrierOf(l.path);
        if (carrier) {
          newRemoteFolders.add(folderKey(parentId, name));
          emit({ kind: 'upload', rule: 'N6', path: carrier.path, parentId, name: baseName(carrier.path), folders: foldersOnTheWay(l.path, carrier.path) });
        } else skipped.push({ path: l.path, reason: emptyRefused(name), fails: false });
        continue;
      }
      let remoteName = name;
      for (let n = 2; taken(remoteName); n++) remoteName = numberedName(name, n);
      if (!validRemoteName(remoteName)) {
        skipped.push({ path: l.path, reason: refusedName(remoteName), fails: true });
        continue;
      }
      emit({ kind: 'create-remote-folder', rule: 'N2', path: l.path, parentId, name: remoteName });
    } else {
      emit({ kind: 'upload', rule: 'N2', path: l.path, parentId, name });
    }
  }

  // A trashed local folder's synced descendants that are gone on both sides are forgotten with it (applyOutcome
  // drops their rows); they may have been visited before it, as they are visited by their recorded path.
  const forgottenWith = new Set<RemoteId>();
  for (const op of operations) {
    if (op.kind !== 'trash-local' || op.remoteId === null) continue;
    const movedOut = (id: RemoteId) => {
      const where = statuses.get(id)?.local?.path;
      return where !== undefined && !isWithin(where, op.path);
    };
    for (const id of baseDescendants(op.remoteId, movedOut)) forgottenWith.add(id);
  }
  for (let i = operations.length - 1; i >= 0; i--) {
    const op = operations[i]!;
    if (op.kind === 'forget' && op.rule === 'D3' && forgottenWith.has(op.remoteId)) operations.splice(i, 1);
  }

  // Tie-break: nothing else can happen this pass, yet local moves wait on each other in a cycle the remote
  // contradicts. The first of them that can go back to its remote place does (M3: the remote location wins).
  if (operations.length === 0) {
    for (const s of crossMoves) {
      const back = goBack(s);
      if (back !== undefined) {
        moveBack(s, back);
        break;
      }
    }
  }

  // A folder can be found to move or go (or to be moved aside by N5) after an operation on something inside it
  // was emitted: items are visited by where they are, not by where they go. Such an operation waits for the next
  // pass, so that the operations of one pass never depend on each other's order.
  for (let i = operations.length - 1; i >= 0; i--) {
    const op = operations[i]!;
    if (localPathsOf(op).some(underVacating)) {
      operations.splice(i, 1);
      if (op.kind === 'trash-local' || op.kind === 'trash-remote') deletions -= op.count;
    }
  }

  return { operations, deletions, skipped, notes };
}

/** The local paths an operation reads or writes. */
function localPathsOf(op: Operation): RelPath[] {
  switch (op.kind) {
    case 'move-local':
      return [op.from, op.to];
    case 'trash-remote':
    case 'forget':
      return [];
    default:
      return [op.path];
  }
}

/** Sorted shallowest path first, then by path (code units), then by id; keys computed once. */
function byDepthThenPath<T>(items: T[], pathOf: (item: T) => RelPath, idOf: (item: T) => number): T[] {
  const keyed = items.map((item) => {
    const path = pathOf(item);
    let depth = 1;
    for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) depth++;
    return { item, path, depth, id: idOf(item) };
  });
  keyed.sort((a, b) => a.depth - b.depth || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.id - b.id));
  return keyed.map((k) => k.item);
}

/** Names a folder can be created with, and any entry renamed to (uploads keep any name). */
function validRemoteName(name: string): boolean {
  const length = [...name].length;
  return length >= REMOTE_NAME.min && length <= REMOTE_NAME.max && name.trim() !== '';
}

const refusedName = (name: string) =>
  `the drive accepts folder names and renames of ${REMOTE_NAME.min} to ${REMOTE_NAME.max} characters, so "${name}" cannot be made there; rename it`;

const emptyRefused = (name: string) =>
  `an empty folder named "${name}" cannot be made on the drive (folder names need ${REMOTE_NAME.min} to ${REMOTE_NAME.max} characters); it is synced once it holds a file, or under a longer name`;

const keptName = (name: string, kept: string) =>
  `the drive does not accept "${name}" as a name (${REMOTE_NAME.min} to ${REMOTE_NAME.max} characters); it is kept there as "${kept}"`;
