/**
 * Questions asked of the three trees together, read from their columns where they are compact stores and from plain
 * maps alike (the simulation's): each synced item as it stands on both sides, parents, a synced folder's path.
 */
import { sameItem } from '../model/birth.js';
import type { BaseItem, LocalItem, RelPath, RemoteId, RemoteItem } from '../model/types.js';
import { BaseTree, LocalTree, localAsSynced, RemoteTree, remoteAsSynced, RemoteView, type SyncedRow } from './trees.js';

/** Each remote entry's parent; from the parent columns alone where the remote tree is a compact one. */
export function* remoteParentsIn(remote: ReadonlyMap<RemoteId, RemoteItem>): IterableIterator<[RemoteId, RemoteId | null]> {
  if (remote instanceof RemoteView || remote instanceof RemoteTree) yield* remote.parents();
  else for (const r of remote.values()) yield [r.id, r.parentId];
}

/** Each synced item's remote parent; from the parent column alone where base is a compact tree. */
export function* parentsIn(base: ReadonlyMap<RemoteId, BaseItem>): IterableIterator<[RemoteId, RemoteId | null]> {
  if (base instanceof BaseTree) yield* base.parents();
  else for (const b of base.values()) yield [b.remoteId, b.parentId];
}

/** Each synced item as `BaseTree.syncedRows` reads it, for a base that is a plain map too (the simulation's). */
export function* syncedRowsOf(base: ReadonlyMap<RemoteId, BaseItem>, local: ReadonlyMap<RelPath, LocalItem>, remote: ReadonlyMap<RemoteId, RemoteItem>): IterableIterator<SyncedRow> {
  if (base instanceof BaseTree) {
    yield* base.syncedRows(local, remote);
    return;
  }
  for (const b of base.values()) {
    yield { id: b.remoteId, parentId: b.parentId, path: b.path, folder: b.type === 'folder', remoteName: b.remoteName, localSame: localAsSynced(b, local.get(b.path)), remoteSame: remoteAsSynced(b, remote.get(b.remoteId)) };
  }
}

/** The path of the synced folder with this id, for a base that is a plain map too. */
export const folderPathIn = (base: ReadonlyMap<RemoteId, BaseItem>, id: RemoteId): RelPath | undefined => {
  if (base instanceof BaseTree) return base.folderPath(id);
  const b = base.get(id);
  return b?.type === 'folder' ? b.path : undefined;
};
