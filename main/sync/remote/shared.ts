/**
 * What others share with the account, from the drive: the entries shared with it, listed under a folder of its own at
 * the top (`Shared with me`), by owner where the drive says who owns an entry, with what is inside them; a cheap probe
 * of them between listings; and what a person is told when they change. The area's words are in
 * model/shared-area.ts; what the account may do inside it is the planner's (plan/access.ts, rows S1–S6).
 */
import { createHash } from 'node:crypto';
import type { DriveClient } from '../../api/client.js';
import type { FileEntry } from '../../api/schemas.js';
import { toRemoteItem } from './entry.js';
import { NO_SHARED_AREA, SHARED_FOLDER_ID, type SharedArea, type SharedPlace, type SharedTop } from '../model/shared-area.js';
import type { RemoteId, RemoteItem, SyncedIds } from '../model/types.js';

const ownerFolderId = (userId: number): RemoteId => -(userId + 1);
/** What the made-up folders say of their last change: nothing ever changes them on the drive. */
const NEVER = '1970-01-01T00:00:00.000000Z';

const isMine = (entry: FileEntry, me: string | undefined): boolean =>
  me !== undefined && (entry.users ?? []).some((u) => u.owns_entry === true && u.email.toLowerCase() === me.toLowerCase());

/**
 * The entries shared with the account, each once: the drive's `sharedOnly` listing also names an entry inside another
 * shared one (its `path` tells), and on some servers the caller's own shared entries.
 */
export async function listSharedTops(client: DriveClient, me: string | undefined, signal?: AbortSignal): Promise<FileEntry[]> {
  const entries: FileEntry[] = [];
  for await (const entry of client.entries.list({ sharedOnly: true, perPage: 1000 }, signal)) {
    if (!entry.deleted_at && !isMine(entry, me)) entries.push(entry);
  }
  const ids = new Set(entries.map((e) => e.id));
  const insideAnother = (e: FileEntry) => (e.path ?? '').split('/').some((id) => Number(id) !== e.id && ids.has(Number(id)));
  return entries.filter((e) => !insideAnother(e));
}

/** The account among the people an entry is shared with (by its e-mail), if it is one of them. */
export const mineIn = (entry: FileEntry, me: string | undefined) =>
  me === undefined ? undefined : (entry.users ?? []).find((u) => u.owns_entry !== true && u.email.toLowerCase() === me.toLowerCase());

/**
 * What the account may do with an entry shared with it: change it only when the drive lists `edit` for it; download it
 * unless the drive lists `download` as not granted.
 */
export function mayDo(entry: FileEntry, me: string | undefined): { edit: boolean; download: boolean } {
  const p = mineIn(entry, me)?.entry_permissions;
  return { edit: p?.edit === true, download: p === undefined || p.download };
}

/**
 * The shared part of the tree: the made-up folders, the shared entries in them, and what the shared folders hold.
 * `keepFolder`: the shared folder stays when nothing is shared any more (it was there: what the user kept in it stays
 * theirs, left out); with nothing ever shared there is no folder.
 */
export async function listSharedArea(
  client: DriveClient,
  place: SharedPlace,
  options: { signal?: AbortSignal; tops?: FileEntry[]; keepFolder?: boolean } = {},
): Promise<SharedArea> {
  const { signal } = options;
  const entries = options.tops ?? (await listSharedTops(client, place.me, signal));
  const root: RemoteItem = { id: SHARED_FOLDER_ID, parentId: null, name: place.folder, type: 'folder', size: 0, updatedAt: NEVER };
  if (entries.length === 0) return options.keepFolder ? { items: [root], tops: new Map(), key: areaKey([root], new Map()) } : NO_SHARED_AREA;
  const inside = new Map<RemoteId, RemoteItem>();
  const folders = entries.filter((e) => e.type === 'folder').map((e) => e.id);
  if (folders.length > 0) {
    for await (const entry of client.entries.tree({ rootIds: folders, perPage: 1000, ...(signal ? { signal } : {}) })) {
      if (!entry.deleted_at) inside.set(entry.id, toRemoteItem(entry, null));
    }
  }
  const items: RemoteItem[] = [root];
  const owners = new Map<RemoteId, string>();
  const tops = new Map<RemoteId, SharedTop>();
  for (const entry of entries) {
    if (inside.has(entry.id)) continue; // inside another shared folder (a server whose listing gave no paths)
    const owner = entry.users?.find((u) => u.owns_entry === true);
    const parentId = owner ? ownerFolderId(owner.id) : SHARED_FOLDER_ID;
    if (owner) owners.set(parentId, owner.email);
    items.push({ ...toRemoteItem(entry, null), parentId });
    const may = mayDo(entry, place.me);
    tops.set(entry.id, {
      id: entry.id,
      name: entry.name,
      file: entry.type !== 'folder',
      folderId: entry.parent_id ?? null,
      owner: owner?.email ?? null,
      editable: may.edit,
      downloadable: may.download,
    });
  }
  for (const [id, email] of owners) items.push({ id, parentId: SHARED_FOLDER_ID, name: email, type: 'folder', size: 0, updatedAt: NEVER });
  items.push(...inside.values());
  return { items, tops, key: areaKey(items, tops) };
}

/** Folders a probe looks into at most (two small requests per 50 a poll): past that, only the spaced listings. */
const PROBED_FOLDERS = 100;

/**
 * A cheap look into the shared folders: per 50 folders, a page past the end of their children's listing gives how many
 * there are (the paginator's total, no entries), and the one-entry page at that number the newest (listings are
 * ordered by id). A file added, trashed, restored or moved in or out changes the count; a file saved anew (a new
 * entry on this service) changes the newest. Deployed versions fix pages at 50 entries, so there the newest is not
 * told (that page is past their end too) and a save waits for the spaced listing, as a rename or a move inside does
 * everywhere. Null where the server gives no totals or ignores the page asked for, or past PROBED_FOLDERS folders.
 */
export async function probeSharedFolders(client: DriveClient, area: SharedArea, signal?: AbortSignal): Promise<string | null> {
  const folders = area.items.filter((r) => r.type === 'folder' && r.id > 0).map((r) => r.id);
  if (folders.length === 0 || folders.length > PROBED_FOLDERS) return null;
  const parts: string[] = [];
  for (let i = 0; i < folders.length; i += 50) {
    const parentIds = folders.slice(i, i + 50);
    const total = await client.entries.count({ parentIds }, signal);
    if (total === null) return null;
    const newest = total > 0 ? await client.entries.page({ parentIds, perPage: 1 }, total, signal) : null;
    if ((newest?.entries.length ?? 0) > 1 && total > 50) return null;
    parts.push(`${total}:${newest?.entries.length === 1 ? newest.entries[0]!.id : ''}`);
  }
  return parts.join(',');
}

/** What a look at the entries shared with the account compares between polls (their contents aside). */
export function topsKey(tops: readonly FileEntry[], place: SharedPlace): string {
  const hash = createHash('sha256').update(`${place.folder}\n`);
  for (const e of [...tops].sort((a, b) => a.id - b.id)) {
    const users = (e.users ?? []).map((u) => `${u.id}:${u.owns_entry === true}:${JSON.stringify(u.entry_permissions ?? null)}`).join(',');
    hash.update(`${e.id}\u0000${e.name}\u0000${e.updated_at ?? ''}\u0000${e.file_size ?? 0}\u0000${users}\n`);
  }
  return hash.digest('hex');
}

function areaKey(items: readonly RemoteItem[], tops: ReadonlyMap<RemoteId, SharedTop>): string {
  const hash = createHash('sha256');
  for (const r of [...items].sort((a, b) => a.id - b.id)) hash.update(`${r.id}\u0000${r.parentId}\u0000${r.name}\u0000${r.size}\u0000${r.updatedAt}\n`);
  for (const t of [...tops.values()].sort((a, b) => a.id - b.id)) hash.update(`${t.id}:${t.editable}:${t.downloadable}:${t.owner}\n`);
  return hash.digest('hex');
}

/** The remote tree with the shared part as `area` has it (what `previous` held of it gone). */
export function placeSharedArea(remote: Map<RemoteId, RemoteItem>, previous: SharedArea, area: SharedArea): void {
  for (const r of previous.items) remote.delete(r.id);
  for (const r of area.items) remote.set(r.id, r);
}

/** What a person is told of a change to what is shared with them, and the ends not told yet (`sharingNews`). */
export interface SharingNews {
  news: string[];
  /** Files whose share ended, told once a later listing shows no new version of them. */
  waiting: SharedTop[];
}

/** The new version of `ended` among `fresh`: a file of its name, in its folder, from its owner (a save, not a share). */
const newVersionOf = (ended: SharedTop, fresh: readonly SharedTop[]): SharedTop | undefined =>
  ended.file ? fresh.find((t) => t.file && t.id > ended.id && t.name === ended.name && t.folderId === ended.folderId && t.owner === ended.owner) : undefined;

const noLonger = (t: SharedTop) => `${t.name} is no longer shared with you${t.owner ? ` by ${t.owner}` : ''}`;

/**
 * What a person is told when what is shared with them changes: a new share (not synced here before), a permission
 * changed, a share ended. `synced`: base holds the entry (a restart lists every share anew, and tells none of them).
 *
 * A file its owner saved is a new entry on this service: the owner's client uploads it, trashes the old one and shares
 * the new one (sync-rules.md, "replaced"). That is a new version, told as an update, never as a share ended and a new
 * one. The new entry's share may come a listing or a poll after the old one's end: the end of a shared file waits
 * (`waiting`, from the last call) until `due` says it has waited long enough, and is told then only if no new version
 * of it came meanwhile.
 */
export function sharingNews(
  before: SharedArea,
  after: SharedArea,
  synced: (id: RemoteId) => boolean,
  waiting: readonly SharedTop[] = [],
  due: (ended: SharedTop) => boolean = () => true,
): SharingNews {
  const by = (t: SharedTop) => (t.owner ? ` by ${t.owner}` : '');
  const may = (t: SharedTop) => (t.editable ? 'you may edit it' : t.downloadable ? 'to view only' : 'to view only, without download');
  const news: string[] = [];
  const waited = waiting.filter((t) => !after.tops.has(t.id));
  const ended = [...before.tops.values()].filter((t) => !after.tops.has(t.id));
  const fresh = [...after.tops.values()].filter((t) => !before.tops.has(t.id) && !waiting.some((w) => w.id === t.id));
  const updated = new Set<RemoteId>();
  for (const old of [...waited, ...ended]) {
    const version = newVersionOf(old, fresh.filter((t) => !updated.has(t.id)));
    if (!version) continue;
    updated.add(old.id).add(version.id);
    news.push(`${version.name} was updated by ${version.owner ?? 'its owner'}`);
  }
  for (const t of fresh) if (!updated.has(t.id) && !synced(t.id)) news.push(`${t.name} was shared with you${by(t)} (${may(t)})`);
  for (const t of after.tops.values()) {
    const was = before.tops.get(t.id);
    if (was && (was.editable !== t.editable || was.downloadable !== t.downloadable)) news.push(`${t.name} is now shared with you${by(t)}: ${may(t)}`);
  }
  const still: SharedTop[] = [];
  for (const t of [...waited, ...ended]) {
    if (updated.has(t.id)) continue;
    if (t.file && !(waited.includes(t) && due(t))) still.push(t);
    else news.push(noLonger(t));
  }
  return { news, waiting: still };
}

/** The ends `sharingNews` keeps waiting, told as they are (no later listing is coming: the engine stops). */
export const endsToTell = (waiting: readonly SharedTop[]): string[] => waiting.map(noLonger);

/**
 * What the cheap checks of the drive compare with (remote-changes.ts): the account's own drive only. The shared part
 * shows in none of their listings, so it is left out of what is synced as they see it.
 */
export function ownSynced(synced: SyncedIds, shared: ReadonlySet<RemoteId>, sharedRootChildren: number): SyncedIds {
  if (shared.size === 0) return synced;
  let inside = 0;
  for (const id of shared) if (synced.has(id)) inside++;
  return {
    has: (id) => !shared.has(id) && synced.has(id),
    get: (id) => (shared.has(id) ? undefined : synced.get(id)),
    size: synced.size - inside,
    rootChildren: () => synced.rootChildren() - sharedRootChildren,
  };
}
