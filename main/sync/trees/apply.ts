/**
 * How a finished operation changes the three trees. The executor calls this with what really happened (new ids
 * from the service, new inodes from the disk); the simulation tests call it with made-up ones. Either way the
 * trees change by the same rules, so the tests exercise the engine's own bookkeeping. `commitOutcome` is how the
 * engine keeps such a change: in the trees and, with the operation's intent cleared, in the mirror.
 */
import { birthField, sameItem } from '../model/birth.js';
import { addTo } from '../model/grouping.js';
import type { Mirror } from './mirror.js';
import { isWithin, rebase } from '../model/names.js';
import type { BaseTree } from './trees.js';
import type { BaseItem, LocalItem, RelPath, RemoteId, RemoteItem } from '../model/types.js';

export interface MutableTrees {
  base: Map<RemoteId, BaseItem>;
  local: Map<RelPath, LocalItem>;
  remote: Map<RemoteId, RemoteItem>;
}

export type Outcome =
  /** upload, create-remote-folder, download, create-local-folder, record, merge (same content): now in sync. */
  /** `madeHere`: this computer made the entry (an upload); otherwise the row keeps what it said. */
  /**
   * `agreedPlace`: a new version went where another computer had just renamed or moved the entry; the row keeps the
   * place both sides last agreed on, so the next plan moves the file here to the entry's new place.
   */
  | { kind: 'synced'; remote: RemoteItem; local: LocalItem; replaces?: RemoteId; madeHere?: true; agreedPlace?: { parentId: RemoteId | null; remoteName: string } }
  /** rename-remote, move-remote: the entry's new remote state. */
  | { kind: 'remote-moved'; remote: RemoteItem; local: LocalItem }
  /** move-local: where the item is now. */
  | { kind: 'local-moved'; from: RelPath; to: RelPath; remote: RemoteItem }
  | { kind: 'remote-trashed'; remoteId: RemoteId }
  | { kind: 'local-trashed'; path: RelPath; remoteId: RemoteId | null }
  | { kind: 'forgotten'; remoteId: RemoteId }
  /**
   * A local copy of an excluded folder left this computer: these synced items are no longer here (deleted, or left
   * in place no longer synced); `kept`: items that stay here (changed meanwhile, still synced; or folders left);
   * `freed`: the bytes deleted; `left`: the folders left and what keeps them.
   */
  | { kind: 'dropped'; path: RelPath; remoteIds: RemoteId[]; kept: RelPath[]; freed: number; left?: LeftHere }
  /** conflict, merge (different content): the local version moved aside, the remote one took its place. */
  | {
      kind: 'conflicted';
      copy: LocalItem;
      movedFrom: RelPath;
      remote: RemoteItem;
      local: LocalItem | null;
      /** The synced entry `remote` replaced (a conflict with `replaces`): its row goes. */
      replaces?: RemoteId;
    };

/** The folders of a dropped copy that stay here, no longer synced, and what they hold that is not on the drive. */
export interface LeftHere {
  folders: RelPath[];
  /** Names the scan leaves out (ignored names: they exist only here, so they are never deleted). */
  ignored: Array<{ path: RelPath; folder: boolean }>;
  /** Anything else in them (saved as the copy left): the next pass sees it. */
  other: number;
}

export function baseFrom(remote: RemoteItem, local: LocalItem, madeHere?: boolean): BaseItem {
  return {
    ...(madeHere ? { madeHere: true as const } : {}),
    remoteId: remote.id,
    parentId: remote.parentId,
    remoteName: remote.name,
    path: local.path,
    type: remote.type,
    inode: local.inode,
    size: local.size,
    mtimeMs: local.mtimeMs,
    ...birthField(local.birthtimeMs),
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

/**
 * The base row of an item moved here to follow its entry. An entry renamed or moved on the drive since this computer
 * made it is no longer a save this computer raced with another (C5): a name another client gave it that an older
 * file has is a duplicate the drive's names number (M6), not a conflict to rename on the drive.
 */
function followedBase(before: BaseItem, remote: RemoteItem, path: RelPath): BaseItem {
  const moved = movedBase(before, remote, path, remote.updatedAt);
  if (!before.madeHere || (before.parentId === remote.parentId && before.remoteName === remote.name)) return moved;
  const { madeHere: _, ...notMadeHere } = moved;
  return notMadeHere;
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

/**
 * A test: is the item a base row records physically outside `outside` (found by inode and birth time: it moved away
 * locally)?
 */
function elsewhereTest(trees: MutableTrees, outside: RelPath): (b: BaseItem) => boolean {
  const outsideByInode = new Map<number, LocalItem[]>();
  for (const item of trees.local.values()) if (!isWithin(item.path, outside)) addTo(outsideByInode, item.inode, item);
  return (b) => b.inode > 0 && (outsideByInode.get(b.inode)?.some((item) => isRecordedItem(item, b)) ?? false);
}

/** Whether a local item is the item a base row records (its type, inode and birth time). */
const isRecordedItem = (item: LocalItem | undefined, b: BaseItem): item is LocalItem => !!item && item.type === b.type && sameItem(item, b);

/**
 * Moves the local subtree at `from` to `to`. Base rows follow only for the items that physically move (the row's
 * inode is at its recorded path): a stale row of an item that moved away, or of an item replaced at that path, is
 * left for the planner to sort out by inode.
 */
function moveLocalSubtree(trees: MutableTrees, from: RelPath, to: RelPath): void {
  const moved: LocalItem[] = [];
  for (const item of trees.local.values()) if (isWithin(item.path, from)) moved.push(item);
  const follows: Array<[RemoteId, BaseItem]> = [];
  for (const [id, b] of trees.base) {
    if (!isWithin(b.path, from)) continue;
    const item = trees.local.get(b.path);
    if (isRecordedItem(item, b)) follows.push([id, b]);
  }
  for (const item of moved) trees.local.delete(item.path);
  for (const item of moved) {
    const path = rebase(item.path, from, to);
    trees.local.set(path, { ...item, path });
  }
  for (const [id, b] of follows) trees.base.set(id, { ...b, path: rebase(b.path, from, to) });
}

/** Ids of the synced items below `id` (by the base rows' remote parents), not going below a row `prune` rejects. */
function baseDescendants(base: ReadonlyMap<RemoteId, BaseItem>, id: RemoteId, prune: (b: BaseItem) => boolean): Set<RemoteId> {
  const children = new Map<RemoteId, BaseItem[]>();
  for (const b of base.values()) {
    if (b.parentId === null) continue;
    addTo(children, b.parentId, b);
  }
  const out = new Set<RemoteId>();
  const stack = [id];
  while (stack.length > 0) {
    for (const b of children.get(stack.pop()!) ?? []) {
      if (b.remoteId !== id && !out.has(b.remoteId) && !prune(b)) {
        out.add(b.remoteId);
        stack.push(b.remoteId);
      }
    }
  }
  return out;
}

/**
 * A synced folder's recorded path changed from `from` to `to`: the rows of its synced descendants recorded below
 * `from` follow (the user or this engine already moved them with it).
 */
function descendantsFollow(trees: MutableTrees, id: RemoteId, from: RelPath, to: RelPath): void {
  if (from === to) return;
  for (const child of baseDescendants(trees.base, id, () => false)) {
    const b = trees.base.get(child)!;
    if (b.path !== from && isWithin(b.path, from)) trees.base.set(child, { ...b, path: rebase(b.path, from, to) });
  }
}

export function applyOutcome(trees: MutableTrees, outcome: Outcome): void {
  switch (outcome.kind) {
    case 'synced':
      return applySynced(trees, outcome);
    case 'remote-moved':
      return applyRemoteMoved(trees, outcome);
    case 'local-moved':
      return applyLocalMoved(trees, outcome);
    case 'remote-trashed':
      removeRemoteSubtree(trees.remote, trees.base, outcome.remoteId);
      return;
    case 'local-trashed':
      return applyLocalTrashed(trees, outcome);
    case 'forgotten':
      trees.base.delete(outcome.remoteId);
      return;
    case 'dropped':
      return applyDropped(trees, outcome);
    case 'conflicted':
      return applyConflicted(trees, outcome);
  }
}

type OutcomeOf<K extends Outcome['kind']> = Extract<Outcome, { kind: K }>;

/** The synced entry a new one took the place of: its entry and its row go. */
function retire(trees: MutableTrees, replaced: RemoteId | undefined): void {
  if (replaced === undefined) return;
  trees.remote.delete(replaced);
  trees.base.delete(replaced);
}

/**
 * An entry as the remote tree keeps it once synced: without its creation time, which serves only to adopt an upload
 * whose answer was lost (an initial sync of a million files kept a million of them).
 */
function asSynced({ createdAt: _, ...remote }: RemoteItem): RemoteItem {
  return remote;
}

/**
 * A local item as the local tree keeps it once base records it: without its content hash, which base now holds and
 * which tells nothing while the item stays as recorded (an initial sync of a million files kept a million of them).
 */
function asRecorded({ hash: _, ...local }: LocalItem): LocalItem {
  return local;
}

function applySynced(trees: MutableTrees, outcome: OutcomeOf<'synced'>): void {
  retire(trees, outcome.replaces);
  const before = trees.base.get(outcome.remote.id);
  trees.remote.set(outcome.remote.id, asSynced(outcome.remote));
  trees.local.set(outcome.local.path, asRecorded(outcome.local));
  trees.base.set(outcome.remote.id, { ...baseFrom(outcome.remote, outcome.local, outcome.madeHere ?? before?.madeHere), ...outcome.agreedPlace });
  if (before?.type === 'folder') descendantsFollow(trees, outcome.remote.id, before.path, outcome.local.path);
}

function applyRemoteMoved(trees: MutableTrees, outcome: OutcomeOf<'remote-moved'>): void {
  const previous = trees.remote.get(outcome.remote.id);
  trees.remote.set(outcome.remote.id, asSynced(outcome.remote));
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
  // Children keep their base rows; only their recorded local paths follow a folder's move (the user already
  // moved the folder locally). Only the folder's own synced descendants: a row of another item that happens to
  // be recorded at or below the old path is not touched.
  if (before?.type === 'folder') descendantsFollow(trees, outcome.remote.id, before.path, outcome.local.path);
}

function applyLocalMoved(trees: MutableTrees, outcome: OutcomeOf<'local-moved'>): void {
  const recorded = trees.base.get(outcome.remote.id)?.path;
  moveLocalSubtree(trees, outcome.from, outcome.to);
  // Rows still recorded below the folder's old path (the user had moved it before this engine moved it again).
  if (recorded !== undefined && trees.base.get(outcome.remote.id)?.type === 'folder') {
    descendantsFollow(trees, outcome.remote.id, recorded, outcome.to);
  }
  const b = trees.base.get(outcome.remote.id);
  if (b && trees.local.has(outcome.to)) trees.base.set(outcome.remote.id, followedBase(b, outcome.remote, outcome.to));
  trees.remote.set(outcome.remote.id, outcome.remote);
}

function applyLocalTrashed(trees: MutableTrees, outcome: OutcomeOf<'local-trashed'>): void {
  // The rows that go: the trashed item's, those of the items physically in the subtree (the row's inode is at
  // its recorded path), and those of the folder's synced descendants that are gone on both sides. A stale row of
  // some other item that happens to be recorded below the path stays for the planner.
  // (A descendant that moved out locally keeps its row, and so does everything below it.)
  const below =
    outcome.remoteId === null ? new Set<RemoteId>() : baseDescendants(trees.base, outcome.remoteId, elsewhereTest(trees, outcome.path));
  const doomed = [...trees.base].filter(([id, b]) => {
    if (id === outcome.remoteId) return true;
    const item = trees.local.get(b.path);
    if (isWithin(b.path, outcome.path) && isRecordedItem(item, b)) return true;
    return below.has(id) && !trees.remote.has(id);
  });
  for (const path of [...trees.local.keys()]) if (isWithin(path, outcome.path)) trees.local.delete(path);
  for (const [id] of doomed) trees.base.delete(id);
}

function applyDropped(trees: MutableTrees, outcome: OutcomeOf<'dropped'>): void {
  const kept = new Set(outcome.kept);
  for (const id of outcome.remoteIds) {
    const b = trees.base.get(id);
    if (b && !kept.has(b.path)) trees.local.delete(b.path);
    trees.base.delete(id);
  }
}

function applyConflicted(trees: MutableTrees, outcome: OutcomeOf<'conflicted'>): void {
  retire(trees, outcome.replaces);
  moveLocalSubtree(trees, outcome.movedFrom, outcome.copy.path);
  trees.local.set(outcome.copy.path, outcome.copy);
  trees.remote.set(outcome.remote.id, outcome.remote);
  if (outcome.local) {
    trees.local.set(outcome.local.path, asRecorded(outcome.local));
    trees.base.set(outcome.remote.id, baseFrom(outcome.remote, outcome.local));
  } else {
    trees.base.delete(outcome.remote.id);
  }
}

/**
 * The one way a finished operation's result is kept, by the executor and by crash adoption alike: the trees change
 * by `applyOutcome`, then the base rows that changed are written and the operation's intent is cleared in one
 * transaction, so a crash leaves the intent or the result, never both.
 */
export function commitOutcome(
  trees: MutableTrees & { base: BaseTree },
  mirror: Pick<Mirror, 'commit'>,
  intentId: number,
  outcomes: readonly Outcome[],
): void {
  for (const each of outcomes) applyOutcome(trees, each);
  const { upserts, deletes } = trees.base.drain();
  mirror.commit(intentId, upserts, deletes);
}
