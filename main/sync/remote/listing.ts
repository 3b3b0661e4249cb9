/**
 * The remote tree: one full listing of what lies below the sync root, as RemoteItems keyed by entry id. The API
 * client follows pagination and, on servers that list only the root's children without `parentIds`, walks the
 * folders breadth-first (docs/design.md §3). Between listings, a delta the cheap check saw is applied to the tree a pass holds.
 */
import type { DriveClient } from '../../api/client.js';
import { toRemoteItem } from './entry.js';
import { addTo } from '../model/grouping.js';
import { RemoteTree, RemoteView, type BaseTree } from '../trees/trees.js';
import { remoteParentsIn } from '../trees/queries.js';
import type { RemoteDelta } from './changes.js';
import type { RemoteId, RemoteItem } from '../model/types.js';

export async function listRemote(
  client: DriveClient,
  rootId: RemoteId | null,
  isSynced: (id: RemoteId) => boolean,
  signal: AbortSignal,
  /** Base, when the tree is a pass's: what base records as listed is a flag on its row (RemoteView). */
  base?: BaseTree,
): Promise<Map<RemoteId, RemoteItem>> {
  const remote = base ? new RemoteView(base) : new RemoteTree();
  for await (const entry of client.entries.tree({ rootId, perPage: 1000, signal })) {
    if (entry.deleted_at) continue;
    const item = toRemoteItem(entry, rootId);
    // The creation time serves only to adopt an upload whose answer was lost: a synced entry is not one.
    if (isSynced(item.id)) delete item.createdAt;
    remote.set(entry.id, item);
  }
  return remote;
}

/**
 * What the cheap check saw, applied to the remote tree as a full listing would show it: entries trashed (a folder
 * with what the tree holds below it), entries new or changed, and the children of the folders to list (with the new
 * folders among them listed whole). Answers how many entries the listings of folders brought.
 */
export async function applyRemoteDelta(
  client: DriveClient,
  remote: Map<RemoteId, RemoteItem>,
  delta: RemoteDelta,
  rootId: RemoteId | null,
  signal: AbortSignal,
  /** Collects the entries the delta set or took out (a trashed folder's contents aside). */
  touched?: Set<RemoteId>,
): Promise<number> {
  for (const id of delta.trashed) touched?.add(id);
  if (delta.trashed.length > 0) {
    const children = new Map<RemoteId, RemoteId[]>();
    for (const [id, parentId] of remoteParentsIn(remote)) if (parentId !== null) addTo(children, parentId, id);
    const stack = [...delta.trashed];
    while (stack.length > 0) {
      const id = stack.pop()!;
      remote.delete(id);
      stack.push(...(children.get(id) ?? []));
    }
  }
  for (const entry of delta.changed) {
    remote.set(entry.id, toRemoteItem(entry, rootId));
    touched?.add(entry.id);
  }
  let fetched = 0;
  for (const folder of delta.fetch) {
    for await (const entry of client.entries.list({ parentIds: [folder], perPage: 1000 }, signal)) {
      if (entry.deleted_at) continue;
      const isNew = !remote.has(entry.id);
      remote.set(entry.id, toRemoteItem(entry, rootId));
      touched?.add(entry.id);
      fetched++;
      if (entry.type !== 'folder' || !isNew) continue;
      // A folder new here (made, restored or moved in from outside the synced tree): all of it.
      for await (const inside of client.entries.tree({ rootId: entry.id, perPage: 1000, signal })) {
        if (inside.deleted_at) continue;
        remote.set(inside.id, toRemoteItem(inside, rootId));
        touched?.add(inside.id);
        fetched++;
      }
    }
  }
  return fetched;
}
