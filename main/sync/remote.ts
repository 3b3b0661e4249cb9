/**
 * The remote tree: one full listing of what lies below the sync root, as RemoteItems keyed by entry id. The API
 * client follows pagination and, on servers that list only the root's children without `parentIds`, walks the
 * folders breadth-first (DESIGN §3). Between listings, a delta the cheap check saw is applied to the tree a pass holds.
 */
import type { DriveClient } from '../api/client.js';
import { toRemoteItem } from './execute.js';
import { RemoteTree } from './trees.js';
import type { RemoteDelta } from './remote-changes.js';
import type { RemoteId, RemoteItem } from './types.js';

export async function listRemote(
  client: DriveClient,
  rootId: RemoteId | null,
  isSynced: (id: RemoteId) => boolean,
  signal: AbortSignal,
): Promise<Map<RemoteId, RemoteItem>> {
  const remote = new RemoteTree();
  for await (const entry of client.entries.tree({ rootId, perPage: 1000, signal })) {
    if (entry.deleted_at) continue;
    const item = toRemoteItem(entry, rootId);
    // The creation time serves only to adopt an upload whose answer was lost: a synced entry is not one.
    if (isSynced(item.id)) delete item.createdAt;
    remote.set(entry.id, item);
  }
  return remote;
}

/** New files and trashed files the cheap check saw, applied to the remote tree as a full listing would show them. */
export function applyRemoteDelta(remote: Map<RemoteId, RemoteItem>, delta: RemoteDelta, rootId: RemoteId | null): void {
  for (const entry of delta.added) remote.set(entry.id, toRemoteItem(entry, rootId));
  for (const id of delta.trashed) remote.delete(id);
}
