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

export function plan(trees: Trees, options: PlanOptions = {}): Plan {
  const caseInsensitive = options.caseInsensitive ?? false;
  const isIgnored = options.isIgnored ?? (() => false);
  const key = (name: string) => nameKey(name, caseInsensitive);
  const { base, local } = trees;
  const remote = reachableRemote(trees.remote);
  const operations: Operation[] = [];
  const skipped: Plan['skipped'] = [];
  let deletions = 0;

  // --- Local side: where is each base item now? -------------------------------------------------------------
  const basePaths = new Set<RelPath>();
  for (const b of base.values()) basePaths.add(b.path);
  const claimedLocal = new Set<RelPath>(); // local paths explained by a base item
  const byInode = new Map<number, LocalItem[]>();
  for (const item of local.values()) {
    if (!basePaths.has(item.path)) {
      const list = byInode.get(item.inode) ?? [];
      list.push(item);
      byInode.set(item.inode, list);
    }
  }
  const statuses = new Map<RemoteId, Status>();
  const ordered = [...base.values()].sort((a, b) => a.path.localeCompare(b.path) || a.remoteId - b.remoteId);
  for (const b of ordered) {
    let item = local.get(b.path);
    let moved = false;
    if (!item || item.type !== b.type || claimedLocal.has(item.path)) {
      item = undefined;
      const candidates = (byInode.get(b.inode) ?? []).filter((c) => c.type === b.type && !claimedLocal.has(c.path));
      if (b.inode > 0 && candidates.length > 0) {
        item = candidates[0];
        moved = true;
      }
    }
    if (item) claimedLocal.add(item.path);
    const r = remote.get(b.remoteId);
    const remoteMoved = r !== undefined && (r.parentId !== b.parentId || r.name !== b.remoteName);
    const remoteChanged =
      r !== undefined && b.type === 'file' && (r.size !== b.remoteSize || (!remoteMoved && r.updatedAt !== b.remoteUpdatedAt));
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
  const isRemoteAncestor = (ancestor: RemoteId, id: RemoteId | null): boolean => {
    for (let cur = id, guard = 0; cur !== null && guard < 10_000; guard++) {
      if (cur === ancestor) return true;
      cur = remote.get(cur)?.parentId ?? null;
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

  const emit = (op: Operation) => operations.push(op);
  /**
   * A local item at the recorded path of a synced item it is not (a file replaced by a folder, or the reverse):
   * the synced item's row leaves that path this pass (trashed, forgotten or brought back elsewhere), then the
   * new item is handled.
   */
  const replacesSynced = (path: RelPath): boolean => basePaths.has(path) && !claimedLocal.has(path);

  // --- Synced items, shallowest first so a folder's decision covers its subtree -----------------------------
  const bySyncedDepth = [...statuses.values()].sort(
    (a, b) => a.base.path.split('/').length - b.base.path.split('/').length || a.base.path.localeCompare(b.base.path),
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
        if (leaving) continue;
        if (!survives) {
          const count = 1 + inside.length;
          emit({ kind: 'trash-local', rule: 'D1', path: l.path, remoteId: b.remoteId, count });
          deletions += count;
          vacating.add(l.path);
          for (const child of inside) {
            const synced = byCurrentPath.get(child.path);
            if (synced) handled.add(synced.base.remoteId);
          }
          // Children gone on both sides are forgotten with the folder (their base rows lie under its path).
          for (const other of statuses.values()) {
            if (!other.local && !other.remote && isWithin(other.base.path, l.path)) handled.add(other.base.remoteId);
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
        if (leaving) continue;
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
      const sameName = there.name === b.remoteName && parentOf(here.path) === parent;
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
    } else if (s.localMoved) {
      const newParent = parentOf(here.path);
      const parentId = remoteIdAt(newParent);
      if (parentId === undefined) continue; // the new parent has no remote entry yet
      if (parentId !== null && isRemoteAncestor(b.remoteId, parentId)) continue; // its new parent moves out first
      const localName = baseName(here.path);
      const name = localName === baseName(b.path) ? b.remoteName : localName;
      if (parentId !== there.parentId || name !== there.name) {
        if (!validRemoteName(name)) {
          skipped.push({ path: here.path, reason: refusedName(name) });
          continue;
        }
        if (parentId === there.parentId) {
          emit({ kind: 'rename-remote', rule: 'M1', remoteId: b.remoteId, name, path: here.path });
        } else {
          emit({ kind: 'move-remote', rule: 'M1', remoteId: b.remoteId, parentId, name, path: here.path });
        }
        continue;
      }
      // The local move lands where the entry already is (M4). A content change is handled below.
      if (!contentChanged) {
        emit({ kind: 'record', rule: 'M4', remoteId: b.remoteId, path: here.path });
        continue;
      }
    }
    // Same place on both sides: content.
    if (b.type === 'file') {
      const localChanged = s.localState === 'changed';
      if (localChanged && s.remoteChanged) {
        emit({ kind: 'conflict', rule: 'C3', remoteId: b.remoteId, path: here.path });
      } else if (localChanged) {
        emit({ kind: 'replace-remote', rule: 'C1', path: here.path, remoteId: b.remoteId });
      } else if (s.remoteChanged) {
        emit({ kind: 'download', rule: 'C2', remoteId: b.remoteId, path: here.path });
      } else if (s.localState === 'touched' || here.inode !== b.inode) {
        emit({ kind: 'record', rule: 'C4', remoteId: b.remoteId, path: here.path });
      }
    }
  }

  // --- Remote entries not synced yet, parents first ----------------------------------------------------------
  const newRemote = [...remote.values()].filter((r) => !base.has(r.id));
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
      if (!validRemoteName(name)) {
        skipped.push({ path: l.path, reason: refusedName(name) });
        continue;
      }
      emit({ kind: 'create-remote-folder', rule: 'N2', path: l.path, parentId, name });
    } else {
      emit({ kind: 'upload', rule: 'N2', path: l.path, parentId, name });
    }
  }

  return { operations, deletions, skipped };
}

/** Names a folder can be created with, and any entry renamed to (uploads keep any name). */
function validRemoteName(name: string): boolean {
  const length = [...name].length;
  return length >= REMOTE_NAME.min && length <= REMOTE_NAME.max && name.trim() !== '';
}

const refusedName = (name: string) =>
  `the service accepts new folder names and renames of ${REMOTE_NAME.min} to ${REMOTE_NAME.max} characters ("${name}")`;
