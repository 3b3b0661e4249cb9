/**
 * How many changes made on this computer wait for the drive: what a person offline wants to know ("3 changes wait to
 * go up"). Counted from the local tree against base alone, with no listing: a synced item changed, moved or gone
 * here, and an item new here. A move is one change (the item gone from its recorded path is the one new elsewhere:
 * the same inode), and what moved along with its folder is the folder's one change.
 */

import { syncedRowsOf } from './queries.js';
import type { BaseItem, LocalItem, RelPath, RemoteId } from '../model/types.js';

export function changesHere(base: ReadonlyMap<RemoteId, BaseItem>, local: ReadonlyMap<RelPath, LocalItem>): number {
  const recorded = new Set<RelPath>();
  const differing: BaseItem[] = [];
  // The remote side is taken as base says it is: only this side's differences count.
  for (const row of syncedRowsOf(base, local, new Map())) {
    recorded.add(row.path);
    const b = row.localSame ? undefined : base.get(row.id);
    if (b) differing.push(b);
  }
  const newHere = new Map<number, LocalItem>();
  for (const [path, item] of local) if (path !== '' && !recorded.has(path)) newHere.set(item.inode, item);
  const moved = new Set<RemoteId>();
  for (const b of differing) if (!local.has(b.path) && newHere.has(b.inode)) moved.add(b.remoteId);
  let changed = 0;
  for (const b of differing) {
    // Moved with its folder: the folder's move is the change.
    if (moved.has(b.remoteId) && b.parentId !== null && moved.has(b.parentId)) continue;
    changed++;
  }
  const movedInodes = new Set([...moved].map((id) => base.get(id)!.inode));
  for (const inode of newHere.keys()) if (!movedInodes.has(inode)) changed++;
  return changed;
}
