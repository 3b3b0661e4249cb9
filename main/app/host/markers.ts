/**
 * The markers the window's file list shows beside a synced entry — shared with people, starred, has a link — asked of
 * the drive (the mirror knows none of them). The service has no "show entry" call nor a link flag on entries: sharing
 * comes from the folder's listing, stars from the starred listing, links one request per entry (a few at a time).
 */
import type { DriveClient } from '../../api/client.js';
import type { EntryMarkers } from '../../contract/index.js';
import type { MirrorEntry } from '../../state/mirror-view.js';
import { isGroupingFolder, type SharedByPaths } from './shared-with-me.js';

/** Entries looked at for links at most; a bigger folder shows no link marker past them. */
const MAX_LINK_LOOKUPS = 200;
const AT_ONCE = 4;

export async function entryMarkers(client: DriveClient, parentId: number | null, rows: readonly MirrorEntry[]): Promise<EntryMarkers[]> {
  const wanted = new Set(rows.map((r) => r.remoteId));
  const shared = new Set<number>();
  const starred = new Set<number>();
  const withLink = new Set<number>();

  const listing = async () => {
    let found = 0;
    for await (const entry of client.entries.list(parentId !== null ? { parentIds: [parentId], perPage: 200 } : { perPage: 200 })) {
      if (!wanted.has(entry.id)) continue;
      if ((entry.users ?? []).some((u) => !u.owns_entry)) shared.add(entry.id);
      if (++found === wanted.size) break;
    }
  };
  const stars = async () => {
    for await (const entry of client.entries.list({ starredOnly: true, perPage: 200 })) if (wanted.has(entry.id)) starred.add(entry.id);
  };
  const links = async () => {
    const queue = rows.slice(0, MAX_LINK_LOOKUPS).map((r) => r.remoteId);
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) if (await client.links.get(id)) withLink.add(id);
    };
    await Promise.all(Array.from({ length: AT_ONCE }, worker));
  };
  await Promise.all([listing(), stars(), links()]);
  return rows.map((r) => ({ path: r.path, shared: shared.has(r.remoteId), starred: starred.has(r.remoteId), hasLink: withLink.has(r.remoteId) }));
}

/**
 * The markers of entries in a synced folder's shared folder: who shared each with the account and what it may do
 * there. Sharing and links are their owner's to show, so only stars are asked of the drive.
 */
export async function sharedMarkers(client: DriveClient, rows: readonly MirrorEntry[], shared: SharedByPaths): Promise<EntryMarkers[]> {
  const wanted = new Set(rows.map((r) => r.remoteId).filter((id) => !isGroupingFolder(id)));
  const starred = new Set<number>();
  if (wanted.size > 0) for await (const entry of client.entries.list({ starredOnly: true, perPage: 200 })) if (wanted.has(entry.id)) starred.add(entry.id);
  return rows.map((r) => {
    const by = shared.by.get(r.path);
    const marker: EntryMarkers = { path: r.path, shared: false, starred: starred.has(r.remoteId), hasLink: false };
    if (by) marker.sharedWithMe = by;
    else if (shared.grouping.has(r.path)) {
      marker.sharedFolder = true;
      const owner = shared.grouping.get(r.path);
      if (owner) marker.sharedWithMe = { owner, permissions: null };
    } else marker.sharedWithMe = { owner: null, permissions: null };
    return marker;
  });
}
