/**
 * Stage 1 of the planner: classify. For every synced item, which local item it is now and what each side did to it
 * (the Terms of docs/sync-rules.md): its local state and its remote state, the two keys of the row table. Nothing
 * here decides an operation.
 */
import { birthMatch, sameItem } from '../model/birth.js';
import { addTo } from '../model/grouping.js';
import { baseName, joinPath, parentOf } from '../model/names.js';
import type { BaseItem, LocalItem, RelPath, RemoteId, RemoteItem, Trees } from '../model/types.js';

/** What became of a synced item's content locally. */
export type LocalContent = 'same' | 'touched' | 'changed' | 'deleted';

/**
 * Where a synced item is locally: gone, at its recorded place, moved by the user, or moved only because its folder
 * moved (same name in the folder's new place).
 */
export type LocalState = 'deleted' | 'in-place' | 'moved' | 'moved-with-folder';

/**
 * What the listing says of a synced item: gone, replaced by a new entry with its folder and name (how clients of the
 * service save an edit), in its recorded place (its content may have changed), or moved.
 */
export type RemoteState = 'deleted' | 'replaced' | 'in-place' | 'moved';

export const LOCAL_STATES = ['deleted', 'in-place', 'moved', 'moved-with-folder'] as const satisfies readonly LocalState[];
export const REMOTE_STATES = ['deleted', 'replaced', 'in-place', 'moved'] as const satisfies readonly RemoteState[];

export interface Status {
  base: BaseItem;
  remote: RemoteItem | undefined;
  /** Where the item is locally now (its base path, or where it moved), if it still exists. */
  local: LocalItem | undefined;
  localContent: LocalContent;
  localMoved: boolean;
  /** It moved only along with its moved folder. */
  followedFolder: boolean;
  remoteChanged: boolean;
  remoteMoved: boolean;
  /** The new entry that replaced it remotely. */
  replacement: RemoteId | undefined;
  localState: LocalState;
  remoteState: RemoteState;
}

export interface Classified {
  /** The remote entries reachable from the sync root (the others count as deleted). */
  remote: ReadonlyMap<RemoteId, RemoteItem>;
  /** Every synced item, parents before children. */
  statuses: ReadonlyMap<RemoteId, Status>;
  /** Local paths that are a synced item. */
  claimedLocal: ReadonlySet<RelPath>;
  /** New remote entries that are a synced file's replacement (not new items). */
  replacing: ReadonlySet<RemoteId>;
}

export interface ClassifyOptions {
  isIgnored: (path: RelPath, type: LocalItem['type']) => boolean;
  /** Local items no synced item is, whatever their path (the copies selective sync leaves out, E1). */
  leftOutCopies?: ReadonlySet<RelPath>;
}

export function classify(trees: Trees, { isIgnored, leftOutCopies = new Set() }: ClassifyOptions): Classified {
  const { base, local } = trees;
  const remote = reachableRemote(trees.remote);
  const { statuses, claimedLocal } = findLocal(base, local, remote, isIgnored, leftOutCopies);
  for (const s of statuses.values()) s.followedFolder = s.localMoved && followedItsFolder(s, statuses);
  const replacing = pairReplacements(base, remote, statuses);
  for (const s of statuses.values()) {
    s.localState = !s.local ? 'deleted' : !s.localMoved ? 'in-place' : s.followedFolder ? 'moved-with-folder' : 'moved';
    s.remoteState = !s.remote ? (s.replacement !== undefined ? 'replaced' : 'deleted') : s.remoteMoved ? 'moved' : 'in-place';
  }
  return { remote, statuses, claimedLocal, replacing };
}

/** Remote items whose chain of parents reaches the sync root; anything else is outside the synced tree. */
function reachableRemote(remote: ReadonlyMap<RemoteId, RemoteItem>): Map<RemoteId, RemoteItem> {
  // Each item read once from the (compact) tree; the walk up the parents reads the copies.
  const all = new Map<RemoteId, RemoteItem>(remote);
  const verdict = new Map<RemoteId, boolean>();
  const walk = (id: RemoteId): boolean => {
    const known = verdict.get(id);
    if (known !== undefined) return known;
    verdict.set(id, false); // a cycle ends here as unreachable
    const item = all.get(id);
    const ok = item !== undefined && (item.parentId === null || (all.get(item.parentId)?.type === 'folder' && walk(item.parentId)));
    verdict.set(id, ok);
    return ok;
  };
  for (const id of all.keys()) if (!walk(id)) all.delete(id);
  return all;
}

/** A bit for each type of item, for the types recorded at one path. */
const TYPE_BIT: Record<LocalItem['type'], number> = { file: 1, folder: 2 };

function localContentOf(base: BaseItem, local: LocalItem): LocalContent {
  if (base.type === 'folder') return 'same';
  if (local.size === base.size && local.mtimeMs === base.mtimeMs && sameItem(local, base)) return 'same';
  if (local.hash !== undefined && base.hash !== null && local.hash === base.hash) return 'touched';
  return 'changed';
}

/** Which local item each synced item is now, and what the listing says of it. */
function findLocal(
  base: Trees['base'],
  local: Trees['local'],
  remote: ReadonlyMap<RemoteId, RemoteItem>,
  isIgnored: ClassifyOptions['isIgnored'],
  leftOutCopies: ReadonlySet<RelPath>,
): { statuses: Map<RemoteId, Status>; claimedLocal: Set<RelPath> } {
  // Each synced item read once from the (compact) tree.
  const bases = [...base.values()];
  const recorded = indexBase(bases);
  const owners = new InodeOwners(bases, local);
  const f: Finding = {
    local,
    isIgnored,
    leftOutCopies,
    recorded,
    owners,
    byInode: movedCandidates(local, recorded, owners),
    claimedLocal: new Set(),
    statuses: new Map(),
  };
  // Parents before children (a child's status looks at its folder's).
  for (const b of byDepthThenPath(bases, (b) => b.path, (b) => b.remoteId)) {
    const { item, moved } = placeOf(b, f);
    if (item) f.claimedLocal.add(item.path);
    f.statuses.set(b.remoteId, statusOf(b, item, moved, remote.get(b.remoteId)));
  }
  return { statuses: f.statuses, claimedLocal: f.claimedLocal };
}

/** What base records, by path: the paths, the types at each, and where each synced folder's children are. */
interface BaseIndex {
  paths: Set<RelPath>;
  /** The TYPE_BITs of the synced items recorded at each path. */
  typesAt: Map<RelPath, number>;
  /** Where each synced folder's children are recorded (their rows' parent paths), by the folder's id. */
  childrenRecordedIn: Map<RemoteId, Set<RelPath>>;
}

function indexBase(bases: readonly BaseItem[]): BaseIndex {
  const paths = new Set<RelPath>();
  const typesAt = new Map<RelPath, number>();
  const childrenRecordedIn = new Map<RemoteId, Set<RelPath>>();
  for (const b of bases) {
    paths.add(b.path);
    typesAt.set(b.path, (typesAt.get(b.path) ?? 0) | TYPE_BIT[b.type]);
    if (b.parentId !== null) childrenRecordedIn.set(b.parentId, (childrenRecordedIn.get(b.parentId) ?? new Set()).add(parentOf(b.path)));
  }
  return { paths, typesAt, childrenRecordedIn };
}

/**
 * The synced item a local item is by inode and birth time, wherever it was recorded. One synced item an inode number,
 * but for rows another item's birth time tells apart (a row not yet updated).
 */
class InodeOwners {
  private readonly first = new Map<number, BaseItem>();
  private readonly others = new Map<number, BaseItem[]>();

  constructor(
    bases: readonly BaseItem[],
    private readonly local: Trees['local'],
  ) {
    for (const b of bases) {
      if (b.inode <= 0) continue;
      const first = this.first.get(b.inode);
      if (first === undefined) this.first.set(b.inode, b);
      else if (birthMatch(first, b) === 'different') addTo(this.others, b.inode, b);
    }
  }

  ownerOf(item: LocalItem): BaseItem | undefined {
    const first = this.first.get(item.inode);
    if (first === undefined || sameItem(first, item)) return first;
    return this.others.get(item.inode)?.find((b) => sameItem(b, item));
  }

  /**
   * A file system gives a freed inode number to the next file made. Where both birth times are known they tell: the
   * same one is the file moved (and perhaps edited), another one a new file. Where either is unknown, a file with a
   * synced file's inode is that file moved only if the synced file left its own place (nothing there, or another
   * synced file moved in, as in a swap), or kept its size and mtime (a rename keeps both): an atomic save of `a`
   * (its old inode freed) followed by a new file `b` is not `a` moved to `b`.
   */
  sameFileMoved(b: BaseItem, candidate: LocalItem): boolean {
    const birth = birthMatch(b, candidate);
    if (birth !== 'unknown') return birth === 'same';
    if (b.type !== 'file') return true;
    const there = this.local.get(b.path);
    if (there === undefined || there.type !== 'file') return true;
    const owner = this.ownerOf(there);
    if (owner !== undefined && owner !== b) return true;
    return candidate.size === b.size && candidate.mtimeMs === b.mtimeMs;
  }

  /** The synced item (other than one recorded at the item's own path) this local item is by inode. */
  movedOver(item: LocalItem): BaseItem | undefined {
    const owner = this.ownerOf(item);
    return owner && owner.type === item.type && owner.path !== item.path && this.sameFileMoved(owner, item) ? owner : undefined;
  }

  /**
   * Another synced item of the item's type, that it is by inode, recorded at the same path: that one moved here (its
   * row follows its move while the row of the item it replaced waits for the folder to settle in live mode).
   */
  recordedHereToo(item: LocalItem, b: BaseItem): boolean {
    const owner = this.ownerOf(item);
    return owner !== undefined && owner !== b && owner.type === item.type && owner.path === item.path;
  }
}

/**
 * Which synced item a local item is: at the recorded path of a synced item of its type, that item (even with a new
 * inode, as after an atomic save) — unless it is another synced item (its inode and birth time), which then moved over
 * it. Anything else may be a synced item that moved, found by inode and birth time: these, by inode.
 */
function movedCandidates(local: Trees['local'], recorded: BaseIndex, owners: InodeOwners): Map<number, LocalItem[]> {
  const byInode = new Map<number, LocalItem[]>();
  for (const item of local.values()) {
    if (((recorded.typesAt.get(item.path) ?? 0) & TYPE_BIT[item.type]) === 0 || owners.movedOver(item)) addTo(byInode, item.inode, item);
  }
  return byInode;
}

/** What findLocal's steps share: the trees' indexes, and what the walk has placed so far. */
interface Finding {
  local: Trees['local'];
  isIgnored: ClassifyOptions['isIgnored'];
  leftOutCopies: ReadonlySet<RelPath>;
  recorded: BaseIndex;
  owners: InodeOwners;
  /** Local items that may be a synced item moved there. */
  byInode: Map<number, LocalItem[]>;
  /** Local paths explained by a base item. */
  claimedLocal: Set<RelPath>;
  /** The synced items placed so far: every folder before what it holds. */
  statuses: Map<RemoteId, Status>;
}

/** Where a synced item is locally now and whether it moved there (no item: it is gone). */
function placeOf(b: BaseItem, f: Finding): { item: LocalItem | undefined; moved: boolean } {
  const item = f.local.get(b.path);
  // Its path says what it is only while its folder is still the one at the parent path (a folder deleted or
  // replaced takes the meaning of the paths below it along). A row whose folder has no row goes by its path.
  const folder = b.parentId === null ? undefined : f.statuses.get(b.parentId);
  const folderHere = b.parentId === null ? parentOf(b.path) === '' : folder === undefined || folder.local?.path === parentOf(b.path);
  const atPath =
    item !== undefined &&
    item.type === b.type &&
    !f.claimedLocal.has(item.path) &&
    !f.leftOutCopies.has(item.path) &&
    folderHere &&
    (sameItem(item, b) || (f.owners.movedOver(item) === undefined && !f.owners.recordedHereToo(item, b)));
  // Its inode at a new path means it moved, even when something new now sits at the old path (`mv a b; touch a`).
  // Without that, the item at its path is itself (an atomic save gives a file a new inode in place).
  if (atPath && sameItem(item!, b)) return { item, moved: false };
  // Itself at its path, but in another folder than its own (two folders swapped names): it moved with that folder.
  if (!folderHere && item !== undefined && item.type === b.type && sameItem(item, b) && !f.claimedLocal.has(item.path) && !f.leftOutCopies.has(item.path)) {
    return { item, moved: true };
  }
  const inTree = inTreeOf(b, f);
  const byInode = movedByInode(b, f, inTree);
  if (byInode !== undefined) return { item: byInode, moved: true };
  if (atPath) return { item, moved: false };
  const byName = inMovedFolder(b, folder, f, inTree);
  return { item: byName, moved: byName !== undefined };
}

/**
 * Whether a path the item may have moved to is in the synced tree. Moved to an ignored path (into a temp name or an
 * ignored folder): it left the synced tree, as if deleted. (An item synced under an ignored name, as a temp-named file
 * another client uploaded, may keep its name.) A folder whose synced children are recorded below the new path is there
 * already as far as base goes (an earlier pass followed it there while its own move waited): it stays in the tree, or
 * base contradicts itself.
 */
function inTreeOf(b: BaseItem, f: Finding): (path: RelPath, type: LocalItem['type']) => boolean {
  const baseIgnored = f.isIgnored(b.path, b.type);
  return (path, type) =>
    f.recorded.childrenRecordedIn.get(b.remoteId)?.has(path) === true ||
    ((parentOf(path) === '' || !f.isIgnored(parentOf(path), 'folder')) && (baseIgnored || !f.isIgnored(path, type)));
}

/** The local item at a new path in the tree that has the synced item's inode and birth, unless another claimed it. */
function movedByInode(b: BaseItem, f: Finding, inTree: (path: RelPath, type: LocalItem['type']) => boolean): LocalItem | undefined {
  if (b.inode <= 0) return undefined;
  return (f.byInode.get(b.inode) ?? []).find(
    (c) => c.type === b.type && !f.claimedLocal.has(c.path) && inTree(c.path, c.type) && f.owners.sameFileMoved(b, c),
  );
}

/**
 * Not at its path and its inode gone (an atomic save), but its folder moved: it is what now has its name in the
 * folder's new place.
 */
function inMovedFolder(
  b: BaseItem,
  folder: Status | undefined,
  f: Finding,
  inTree: (path: RelPath, type: LocalItem['type']) => boolean,
): LocalItem | undefined {
  const folderNow = folder?.local;
  if (!folderNow || folderNow.path === parentOf(b.path)) return undefined;
  const expected = joinPath(folderNow.path, baseName(b.path));
  const found = f.local.get(expected);
  const isIt =
    found !== undefined &&
    found.type === b.type &&
    !f.claimedLocal.has(expected) &&
    !f.leftOutCopies.has(expected) &&
    !f.recorded.paths.has(expected) &&
    inTree(expected, found.type);
  return isIt ? found : undefined;
}

/** A synced item's status from where it is locally and what the listing says of it. */
function statusOf(b: BaseItem, item: LocalItem | undefined, moved: boolean, r: RemoteItem | undefined): Status {
  const remoteMoved = r !== undefined && (r.parentId !== b.parentId || r.name !== b.remoteName);
  // An updated_at recorded as '' is unknown (a move whose answer did not carry the entry): only the size tells.
  const remoteChanged =
    r !== undefined &&
    b.type === 'file' &&
    (r.size !== b.remoteSize || (!remoteMoved && b.remoteUpdatedAt !== '' && r.updatedAt !== b.remoteUpdatedAt));
  return {
    base: b,
    remote: r,
    local: item,
    localContent: item ? localContentOf(b, item) : 'deleted',
    localMoved: moved,
    followedFolder: false,
    remoteChanged,
    remoteMoved,
    replacement: undefined,
    // Set once every item is placed.
    localState: 'deleted',
    remoteState: 'deleted',
  };
}

/** A synced item that is where its synced folder's move took it (same name, the folder moved locally). */
function followedItsFolder(s: Status, statuses: ReadonlyMap<RemoteId, Status>): boolean {
  const b = s.base;
  if (b.parentId === null || !s.local) return false;
  const folder = statuses.get(b.parentId);
  const folderNow = folder?.local?.path;
  return (
    folder !== undefined &&
    folder.localMoved &&
    folderNow !== undefined &&
    folderNow !== parentOf(b.path) &&
    s.local.path === joinPath(folderNow, baseName(b.path))
  );
}

/**
 * A synced file whose entry is gone while a new file entry has its folder and name is that file replaced: how
 * clients of this service save an edit (upload a new entry, trash the old). Paired oldest first; only for a file
 * still at its place locally (else the rules for a deleted entry and a new one apply). Sets each replaced item's
 * `replacement`; returns the replacing entries.
 */
function pairReplacements(
  base: Trees['base'],
  remote: ReadonlyMap<RemoteId, RemoteItem>,
  statuses: ReadonlyMap<RemoteId, Status>,
): Set<RemoteId> {
  const replacing = new Set<RemoteId>();
  const fresh = new Map<string, RemoteItem[]>();
  const candidates = [...remote.values()].filter((r) => r.type === 'file' && !base.has(r.id));
  for (const r of candidates.sort((x, y) => x.id - y.id)) {
    addTo(fresh, folderKey(r.parentId, r.name), r);
  }
  const gone = candidates.length === 0 ? [] : [...statuses.values()].filter((st) => !st.remote && st.local && !st.localMoved);
  for (const st of gone.sort((x, y) => x.base.remoteId - y.base.remoteId)) {
    const b = st.base;
    if (b.type !== 'file' || (b.parentId !== null && !remote.has(b.parentId))) continue;
    const next = fresh.get(folderKey(b.parentId, b.remoteName))?.shift();
    if (next === undefined) continue;
    st.replacement = next.id;
    replacing.add(next.id);
  }
  return replacing;
}

/** A remote name in a remote folder, as one key. */
export const folderKey = (parentId: RemoteId | null, name: string) => `${parentId}\u0000${name}`;

/** Sorted shallowest path first, then by path (code units), then by id; keys computed once. */
export function byDepthThenPath<T>(items: T[], pathOf: (item: T) => RelPath, idOf: (item: T) => number): T[] {
  const keyed = items.map((item) => {
    const path = pathOf(item);
    let depth = 1;
    for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) depth++;
    return { item, path, depth, id: idOf(item) };
  });
  keyed.sort((a, b) => a.depth - b.depth || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.id - b.id));
  return keyed.map((k) => k.item);
}
