/** A service entry as the remote tree holds it: its parent read against the synced folder's own entry. */
import type { FileEntry } from '../../api/schemas.js';
import type { RemoteId, RemoteItem } from '../model/types.js';

/** Turns a service entry under the sync root into a RemoteItem. */
export function toRemoteItem(entry: FileEntry, rootId: RemoteId | null): RemoteItem {
  const parent = entry.parent_id ?? null;
  return {
    id: entry.id,
    parentId: parent === rootId ? null : parent,
    name: entry.name,
    type: entry.type === 'folder' ? 'folder' : 'file',
    size: entry.file_size ?? 0,
    updatedAt: entry.updated_at ?? '',
    ...(entry.created_at ? { createdAt: entry.created_at } : {}),
  };
}
