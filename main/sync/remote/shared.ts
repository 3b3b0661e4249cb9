/**
 * What others share with the account, in the synced folder: a folder of its own at the top (`Shared with me`), by
 * owner where the drive says who owns an entry, holding each entry shared with the account and what is inside it.
 *
 * The folders drivesync makes up for this (the shared folder, one per owner) have negative ids: they are in the trees
 * like any folder, so the table places, renames and trashes their local copies, but nothing is ever sent to the drive
 * for them. What the account may do inside a shared entry is the drive's: `rowsOfAccess` turns each operation the
 * table planned that the account may not make into what keeps the local change and the drive's version both (rows
 * S1–S6 of docs/sync-rules.md, "Shared with me").
 */
import { createHash } from 'node:crypto';
import type { DriveClient } from '../../api/client.js';
import type { FileEntry } from '../../api/schemas.js';
import { toRemoteItem } from './entry.js';
import { addTo } from '../model/grouping.js';
import { isWithin } from '../model/names.js';
import { isPlacedFolder, type BaseItem, type Operation, type Plan, type RelPath, type RemoteId, type RemoteItem, type SyncedIds, type Trees } from '../model/types.js';

/** The shared folder's id; an owner's folder is `-(owner's user id + 1)`. */
export const SHARED_FOLDER_ID = -1;
const ownerFolderId = (userId: number): RemoteId => -(userId + 1);
/** What the made-up folders say of their last change: nothing ever changes them on the drive. */
const NEVER = '1970-01-01T00:00:00.000000Z';

/** Where what is shared with the account arrives, and who the account is (its e-mail, to find its permissions). */
export interface SharedPlace {
  folder: string;
  me: string | undefined;
}

export interface SharedTop {
  id: RemoteId;
  name: string;
  /** A file (a save replaces a file's entry with a new one; a folder keeps its entry). */
  file: boolean;
  /** The folder it is in on its owner's drive (null: at the top of it, or not said). */
  folderId: RemoteId | null;
  /** The owner's e-mail, when the drive says. */
  owner: string | null;
  /** The account may change it (the drive lists `edit` for it); false also when the drive does not say. */
  editable: boolean;
  /** The account may download its files (unless the drive lists `download` as not granted). */
  downloadable: boolean;
}

/** The shared part of the remote tree, as one listing of it found it. */
export interface SharedArea {
  items: RemoteItem[];
  tops: ReadonlyMap<RemoteId, SharedTop>;
  /** Changes when anything the listing found changes (a poll compares it with the last). */
  key: string;
}

export const NO_SHARED_AREA: SharedArea = { items: [], tops: new Map(), key: '' };

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

/** Where an entry is, as far as what the account may do there goes. */
type Zone = { kind: 'own' } | { kind: 'placed' } | { kind: 'shared'; top: SharedTop } | { kind: 'gone' };

class Zones {
  private readonly known = new Map<RemoteId, Zone>();

  constructor(
    private readonly trees: Trees,
    private readonly tops: ReadonlyMap<RemoteId, SharedTop>,
  ) {}

  /** The zone of an entry: by its parents on the drive, or where it was when last synced (its shared entry gone). */
  of(id: RemoteId | null): Zone {
    if (id === null) return { kind: 'own' };
    if (id < 0) return { kind: 'placed' };
    const cached = this.known.get(id);
    if (cached) return cached;
    let zone: Zone = { kind: 'own' };
    for (let cur: RemoteId | null = id, hops = 0; cur !== null && hops < 10_000; hops++) {
      const top = this.tops.get(cur);
      if (top) {
        zone = { kind: 'shared', top };
        break;
      }
      if (cur < 0) {
        zone = { kind: 'gone' }; // reached the made-up folders, through no entry shared now
        break;
      }
      const parent: RemoteId | null | undefined = this.trees.remote.get(cur)?.parentId ?? this.trees.base.get(cur)?.parentId;
      if (parent === undefined) break;
      cur = parent;
    }
    this.known.set(id, zone);
    return zone;
  }

  /** The shared entry an entry is in or is ('own' when none), for telling a move across drives. */
  drive(id: RemoteId | null): string {
    const zone = this.of(id);
    return zone.kind === 'shared' ? `shared:${zone.top.id}` : zone.kind;
  }
}

const readOnly = (zone: Zone): zone is { kind: 'shared'; top: SharedTop } => zone.kind === 'shared' && !zone.top.editable;

/**
 * The plan with what the account may not do on the drive turned into what keeps both versions (rows S1–S6): nothing
 * is uploaded, renamed, moved or trashed in a shared entry the account may only view, in the made-up folders, or
 * across drives; a local change there stays here as a copy, and the drive's version comes back (its synced row is
 * forgotten: the table then places the entry again, next to the local item). What is left of an entry no longer
 * shared with the account goes to the OS trash.
 */
export function rowsOfAccess<P extends Plan>(plan: P, trees: Trees, area: SharedArea, place: SharedPlace): P {
  if (area.tops.size === 0 && !hasShared(trees.base)) return plan;
  const rows = new AccessRows(plan, trees, area, place);
  for (const op of plan.operations) rows.decide(op);
  return { ...plan, operations: withoutNestedTrash(rows.operations), skipped: rows.skipped, notes: rows.notes, deletions: Math.max(0, rows.deletions) };
}

/** One plan's operations, each kept or turned into its row of access. */
class AccessRows {
  readonly operations: Operation[] = [];
  readonly skipped: Plan['skipped'];
  readonly notes: Plan['notes'];
  deletions: number;
  private readonly zones: Zones;
  private readonly forgotten = new Set<RemoteId>();
  private children: Map<RemoteId, RemoteId[]> | null = null;

  constructor(
    plan: Plan,
    private readonly trees: Trees,
    private readonly area: SharedArea,
    private readonly place: SharedPlace,
  ) {
    this.skipped = [...plan.skipped];
    this.notes = [...plan.notes];
    this.deletions = plan.deletions;
    this.zones = new Zones(trees, area.tops);
  }

  decide(op: Operation): void {
    switch (op.kind) {
      case 'upload':
      case 'create-remote-folder':
        return this.added(op);
      case 'replace-remote':
        return this.replaced(op);
      case 'trash-remote':
        return this.trashed(op);
      case 'rename-remote':
      case 'move-remote':
        return this.moved(op);
      case 'resolve-twin':
        if (!readOnly(this.zones.of(op.remoteId))) this.operations.push(op);
        return;
      case 'download':
      case 'merge':
      case 'conflict':
        return this.downloaded(op);
      case 'forget':
        return this.gone(op);
      default:
        this.operations.push(op);
    }
  }

  private whyNot(zone: Zone): string {
    return readOnly(zone) ? `${zone.top.name} is shared with you to view only` : `${this.place.folder} holds only what others share with you`;
  }

  /** S1 (left out), S6 (the OS trash, where the shared entry is gone), or sent. */
  private added(op: Extract<Operation, { kind: 'upload' | 'create-remote-folder' }>): void {
    const zone = this.zones.of(op.parentId);
    if (zone.kind === 'placed' || readOnly(zone)) {
      // 'S1': left out, told once.
      this.skipped.push({ path: op.path, reason: `${this.whyNot(zone)}: kept here, not uploaded`, fails: false });
    } else if (zone.kind === 'gone') {
      this.operations.push({ kind: 'trash-local', rule: 'S6', path: op.path, remoteId: null, count: 1 });
      this.deletions += 1;
    } else this.operations.push(op);
  }

  private replaced(op: Extract<Operation, { kind: 'replace-remote' }>): void {
    const zone = this.zones.of(op.remoteId);
    if (!readOnly(zone)) return void this.operations.push(op);
    this.forgetSubtree(op.remoteId, 'S2');
    this.notes.push({ path: op.path, message: `${this.whyNot(zone)}: your change is kept as a copy beside it, and the drive's version comes back`, keptAsCopy: true });
  }

  private trashed(op: Extract<Operation, { kind: 'trash-remote' }>): void {
    const zone = this.zones.of(op.remoteId);
    const top = this.area.tops.get(op.remoteId);
    if (op.remoteId >= 0 && !top && !readOnly(zone)) return void this.operations.push(op);
    this.deletions -= op.count;
    this.forgetSubtree(op.remoteId, 'S3');
    const what = op.remoteId < 0 ? this.whyNot({ kind: 'placed' }) : top ? `${top.name} is shared with you by ${top.owner ?? 'its owner'}` : this.whyNot(zone);
    const path = this.trees.base.get(op.remoteId)?.path ?? `entry ${op.remoteId}`;
    this.notes.push({ path, message: `${what}: deleting it here does not delete it on the drive, so it comes back (drivesync exclude keeps it off this computer)` });
  }

  /** S4 (a rename), S5 (a move across drives, of a shared entry out of its place, or where the account may only view). */
  private moved(op: Extract<Operation, { kind: 'rename-remote' | 'move-remote' }>): void {
    const zone = this.zones.of(op.remoteId);
    const from = this.trees.remote.get(op.remoteId)?.parentId ?? null;
    const across = op.kind === 'move-remote' && (this.area.tops.has(op.remoteId) || this.zones.drive(op.parentId) !== this.zones.drive(from));
    if (op.remoteId >= 0 && !readOnly(zone) && !across) return void this.operations.push(op);
    this.forgetSubtree(op.remoteId, op.kind === 'rename-remote' ? 'S4' : 'S5');
    const why = readOnly(zone) || op.remoteId < 0 ? this.whyNot(zone.kind === 'own' ? { kind: 'placed' } : zone) : "the drive moves an entry only within its owner's drive";
    this.notes.push({ path: op.path, message: `${why}: it stays where it was on the drive and comes back there; what you moved is kept as a copy` });
  }

  /** A file of an entry shared without download is left out (its folders come). */
  private downloaded(op: Extract<Operation, { kind: 'download' | 'merge' | 'conflict' }>): void {
    const zone = this.zones.of(op.remoteId);
    if (zone.kind === 'shared' && !zone.top.downloadable && this.trees.remote.get(op.remoteId)?.type === 'file') {
      this.skipped.push({ path: op.path, reason: `${zone.top.name} is shared with you without download: its files are not on this computer`, fails: false });
    } else this.operations.push(op);
  }

  /** Gone on the drive with a change here (D4, D5): an entry no longer shared with the account is not made again (S6). */
  private gone(op: Extract<Operation, { kind: 'forget' }>): void {
    const b = this.trees.base.get(op.remoteId);
    const left = b && (this.zones.of(op.remoteId).kind === 'gone' || (op.remoteId < 0 && !this.trees.remote.has(op.remoteId)));
    if (left && this.trees.local.has(b.path) && (op.rule === 'D4' || op.rule === 'D5')) {
      this.operations.push({ kind: 'trash-local', rule: 'S6', path: b.path, remoteId: op.remoteId, count: 1 });
      this.deletions += 1;
    } else this.operations.push(op);
  }

  /** Forgets a synced item and what base holds below it, each once. */
  private forgetSubtree(id: RemoteId, rule: 'S2' | 'S3' | 'S4' | 'S5'): void {
    if (this.children === null) {
      this.children = new Map();
      for (const b of this.trees.base.values()) if (b.parentId !== null) addTo(this.children, b.parentId, b.remoteId);
    }
    const stack = [id];
    while (stack.length > 0) {
      const cur = stack.pop()!;
      if (this.forgotten.has(cur) || !this.trees.base.has(cur)) continue;
      this.forgotten.add(cur);
      this.operations.push({ kind: 'forget', rule, remoteId: cur });
      stack.push(...(this.children.get(cur) ?? []));
    }
  }
}

const hasShared = (base: ReadonlyMap<RemoteId, BaseItem>): boolean => base.has(SHARED_FOLDER_ID);

/** A local trash inside another one of the same pass goes with it. */
function withoutNestedTrash(operations: Operation[]): Operation[] {
  const trashed = operations.flatMap((op) => (op.kind === 'trash-local' && op.rule === 'S6' ? [op.path] : []));
  if (trashed.length < 2) return operations;
  return operations.filter((op) => !(op.kind === 'trash-local' && op.rule === 'S6' && trashed.some((p) => p !== op.path && isWithin(op.path, p))));
}

/** Paths of the files in shared entries the account may only view (their local copies have no write bits). */
export function viewOnlyFiles(trees: Pick<Trees, 'base' | 'remote'>, area: SharedArea): RelPath[] {
  if (![...area.tops.values()].some((t) => !t.editable)) return [];
  const zones = new Zones({ ...trees, local: new Map() }, area.tops);
  const files: RelPath[] = [];
  for (const b of trees.base.values()) if (b.type === 'file' && readOnly(zones.of(b.remoteId))) files.push(b.path);
  return files;
}
