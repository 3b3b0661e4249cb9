/**
 * How a finished operation changes the three trees. The executor calls this with what really happened (new ids
 * from the service, new inodes from the disk); the simulation tests call it with made-up ones. Either way the
 * trees change by the same rules, so the tests exercise the engine's own bookkeeping.
 */
import { isWithin, rebase } from './names.js';
import type { BaseItem, LocalItem, RelPath, RemoteId, RemoteItem } from './types.js';

export interface MutableTrees {
  base: Map<RemoteId, BaseItem>;
  local: Map<RelPath, LocalItem>;
  remote: Map<RemoteId, RemoteItem>;
}

export type Outcome =
  /** upload, create-remote-folder, download, create-local-folder, record, merge (same content): now in sync. */
  | { kind: 'synced'; remote: RemoteItem; local: LocalItem; replaces?: RemoteId }
  /** rename-remote, move-remote: the entry's new remote state. */
  | { kind: 'remote-moved'; remote: RemoteItem; local: LocalItem }
  /** move-local: where the item is now. */
  | { kind: 'local-moved'; from: RelPath; to: RelPath; remote: RemoteItem }
  | { kind: 'remote-trashed'; remoteId: RemoteId }
  | { kind: 'local-trashed'; path: RelPath; remoteId: RemoteId | null }
  | { kind: 'forgotten'; remoteId: RemoteId }
  /** conflict, merge (different content): the local version moved aside, the remote one took its place. */
  | { kind: 'conflicted'; copy: LocalItem; movedFrom: RelPath; remote: RemoteItem; local: LocalItem | null };

export function baseFrom(remote: RemoteItem, local: LocalItem): BaseItem {
  return {
    remoteId: remote.id,
    parentId: remote.parentId,
    remoteName: remote.name,
    path: local.path,
    type: remote.type,
    inode: local.inode,
    size: local.size,
    mtimeMs: local.mtimeMs,
    hash: local.hash ?? null,
    remoteSize: remote.size,
    remoteUpdatedAt: remote.updatedAt,
  };
}

/**
 * The base row of an item one side just moved to match the other: the new place, but the content both sides
 * last agreed on, so a content change on either side (made before or with the move) still shows next pass.
 */
function movedBase(before: BaseItem, remote: RemoteItem, path: RelPath, remoteUpdatedAt: string): BaseItem {
  return { ...before, parentId: remote.parentId, remoteName: remote.name, path, remoteUpdatedAt };
}

function removeRemoteSubtree(remote: Map<RemoteId, RemoteItem>, base: Map<RemoteId, BaseItem>, id: RemoteId): void {
  const doomed = new Set<RemoteId>([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const item of remote.values()) {
      if (item.parentId !== null && doomed.has(item.parentId) && !doomed.has(item.id)) {
        doomed.add(item.id);
        grew = true;
      }
    }
  }
  for (const doomedId of doomed) {
    remote.delete(doomedId);
    base.delete(doomedId);
  }
}

function moveLocalSubtree(trees: MutableTrees, from: RelPath, to: RelPath): void {
  const moved: LocalItem[] = [];
  for (const item of trees.local.values()) if (isWithin(item.path, from)) moved.push(item);
  for (const item of moved) trees.local.delete(item.path);
  for (const item of moved) {
    const path = rebase(item.path, from, to);
    trees.local.set(path, { ...item, path });
  }
  for (const [id, b] of trees.base) if (isWithin(b.path, from)) trees.base.set(id, { ...b, path: rebase(b.path, from, to) });
}

export function applyOutcome(trees: MutableTrees, outcome: Outcome): void {
  switch (outcome.kind) {
    case 'synced': {
      if (outcome.replaces !== undefined) {
        trees.remote.delete(outcome.replaces);
        trees.base.delete(outcome.replaces);
      }
      trees.remote.set(outcome.remote.id, outcome.remote);
      trees.local.set(outcome.local.path, outcome.local);
      trees.base.set(outcome.remote.id, baseFrom(outcome.remote, outcome.local));
      return;
    }
    case 'remote-moved': {
      const previous = trees.remote.get(outcome.remote.id);
      trees.remote.set(outcome.remote.id, outcome.remote);
      const before = trees.base.get(outcome.remote.id);
      if (before) {
        // A rename moves updated_at too. Take the new one only if the entry's content was as synced before the
        // move; otherwise keep the old one, so the remote edit still shows next pass.
        const unchanged = previous !== undefined && previous.size === before.remoteSize && previous.updatedAt === before.remoteUpdatedAt;
        const updatedAt = unchanged ? outcome.remote.updatedAt : before.remoteUpdatedAt;
        trees.base.set(outcome.remote.id, movedBase(before, outcome.remote, outcome.local.path, updatedAt));
      } else {
        trees.base.set(outcome.remote.id, baseFrom(outcome.remote, outcome.local));
      }
      // Children keep their base rows; only their recorded local paths follow a folder's move.
      if (before && before.path !== outcome.local.path) {
        for (const [id, b] of trees.base) {
          if (id !== outcome.remote.id && isWithin(b.path, before.path)) {
            trees.base.set(id, { ...b, path: rebase(b.path, before.path, outcome.local.path) });
          }
        }
      }
      return;
    }
    case 'local-moved': {
      moveLocalSubtree(trees, outcome.from, outcome.to);
      const b = trees.base.get(outcome.remote.id);
      if (b && trees.local.has(outcome.to)) trees.base.set(outcome.remote.id, movedBase(b, outcome.remote, outcome.to, outcome.remote.updatedAt));
      trees.remote.set(outcome.remote.id, outcome.remote);
      return;
    }
    case 'remote-trashed':
      removeRemoteSubtree(trees.remote, trees.base, outcome.remoteId);
      return;
    case 'local-trashed': {
      for (const path of [...trees.local.keys()]) if (isWithin(path, outcome.path)) trees.local.delete(path);
      for (const [id, b] of [...trees.base]) if (isWithin(b.path, outcome.path)) trees.base.delete(id);
      return;
    }
    case 'forgotten':
      trees.base.delete(outcome.remoteId);
      return;
    case 'conflicted': {
      moveLocalSubtree(trees, outcome.movedFrom, outcome.copy.path);
      trees.local.set(outcome.copy.path, outcome.copy);
      trees.remote.set(outcome.remote.id, outcome.remote);
      if (outcome.local) {
        trees.local.set(outcome.local.path, outcome.local);
        trees.base.set(outcome.remote.id, baseFrom(outcome.remote, outcome.local));
      } else {
        trees.base.delete(outcome.remote.id);
      }
      return;
    }
  }
}
