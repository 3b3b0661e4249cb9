/**
 * The mass-delete guard's question and its "no". A pass that would delete more than the guard allows stops; the
 * question it asks names what would be deleted, where (on the drive, or in this folder) and why (deleted here, or
 * on the drive by another computer or the web), with the count and the bytes. Answered "keep them", the deletions
 * are undone on the side they were made: items deleted on the drive are restored from the drive's trash (the same
 * entries, with their ids, stars, shares and links); items deleted in this folder come back from the drive. Then
 * both sides agree, and nobody is asked about those deletions again.
 */
import type { DriveClient } from '../../api/client.js';
import { NotFoundError } from '../../api/errors.js';
import { restoreEntries } from '../../api/versions.js';
import { addTo } from '../model/grouping.js';
import type { Mirror } from '../trees/mirror.js';
import type { BaseTree } from '../trees/trees.js';
import { isWithin } from '../model/names.js';
import type { BaseItem, LocalItem, Operation, RelPath, RemoteId, RemoteItem } from '../model/types.js';

/** One side's deletions: on the drive (made in this folder), or in this folder (made on the drive). */
export interface DeletionGroup {
  where: 'drive' | 'here';
  /** Why, in a few words a person understands. */
  why: string;
  count: number;
  bytes: number;
  /** What would go, shallowest first (a folder stands for what is inside it); at most MAX_LISTED. */
  items: Array<{ path: RelPath; type: 'file' | 'folder'; size: number }>;
}

export interface DeletionQuestion {
  /** Items that would be deleted (a folder counts its subtree), on both sides together. */
  count: number;
  /** Items synced now. */
  synced: number;
  bytes: number;
  groups: DeletionGroup[];
  /**
   * What the drive's trash would take along from inside folders this computer leaves out (selective sync): not here,
   * so not in the groups' items, but gone from the drive all the same.
   */
  excluded?: { items: number; bytes: number };
}

/** The question names at most this many items per side; `status --json` and the window show them. */
export const MAX_LISTED = 10_000;

interface Trees {
  base: ReadonlyMap<RemoteId, BaseItem>;
  local: ReadonlyMap<RelPath, LocalItem>;
  remote: ReadonlyMap<RemoteId, RemoteItem>;
}

/**
 * The question for the deletions among `operations`. `beforeStart`: the deletions made in this folder were found by
 * the scan that starts an engine (made while nothing was running).
 */
export function deletionQuestion(
  operations: readonly Operation[],
  trees: Trees,
  synced: number,
  beforeStart: boolean,
  /** Entries inside excluded folders: told apart (`excluded`), not counted in the groups. */
  outside: ReadonlySet<RemoteId> = new Set(),
): DeletionQuestion {
  const children = new Map<RemoteId, RemoteItem[]>();
  for (const r of trees.remote.values()) if (r.parentId !== null && !outside.has(r.id)) addTo(children, r.parentId, r);
  const remoteBytes = (id: RemoteId): number => {
    let sum = 0;
    const stack = [id];
    while (stack.length > 0) {
      const cur = stack.pop()!;
      const item = trees.remote.get(cur);
      if (item?.type === 'file') sum += item.size;
      stack.push(...(children.get(cur) ?? []).map((c) => c.id));
    }
    return sum;
  };
  const localBytes = (path: RelPath): number => {
    let sum = 0;
    for (const item of trees.local.values()) if (item.type === 'file' && isWithin(item.path, path)) sum += item.size;
    return sum;
  };
  const drive: DeletionGroup = {
    where: 'drive',
    why: beforeStart ? 'deleted in this folder while drivesync was not running' : 'deleted in this folder',
    count: 0,
    bytes: 0,
    items: [],
  };
  const here: DeletionGroup = { where: 'here', why: 'deleted on the drive (on another computer or on the web)', count: 0, bytes: 0, items: [] };
  const unshared: DeletionGroup = { where: 'here', why: 'no longer shared with you (its owner stopped sharing it, or deleted it)', count: 0, bytes: 0, items: [] };
  for (const op of operations) {
    if (op.kind === 'trash-remote') {
      const b = trees.base.get(op.remoteId);
      const size = remoteBytes(op.remoteId);
      drive.count += op.count;
      drive.bytes += size;
      if (drive.items.length < MAX_LISTED) drive.items.push({ path: b?.path ?? `#${op.remoteId}`, type: b?.type ?? 'file', size });
    } else if (op.kind === 'trash-local') {
      const item = trees.local.get(op.path);
      const size = localBytes(op.path);
      const group = op.rule === 'S6' || wasShared(trees.base, op.remoteId) ? unshared : here;
      group.count += op.count;
      group.bytes += size;
      if (group.items.length < MAX_LISTED) group.items.push({ path: op.path, type: item?.type ?? 'file', size });
    }
  }
  const groups = [drive, here, unshared].filter((g) => g.count > 0);
  for (const g of groups) g.items.sort((a, b) => depth(a.path) - depth(b.path) || byName.compare(a.path, b.path));
  return { count: drive.count + here.count + unshared.count, synced, bytes: drive.bytes + here.bytes + unshared.bytes, groups };
}

/** A synced item in what others share with the account (its folders are drivesync's own, with negative ids). */
function wasShared(base: Trees['base'], id: RemoteId | null): boolean {
  for (let cur = id, hops = 0; cur !== null && hops < 10_000; hops++) {
    if (cur < 0) return true;
    cur = base.get(cur)?.parentId ?? null;
  }
  return false;
}

const depth = (path: RelPath): number => path.split('/').length;
/** Names as a person orders them (`file-2` before `file-10`); made when a question is asked, not at load (ICU data). */
let collator: Intl.Collator | undefined;
const byName = { compare: (a: string, b: string) => (collator ??= new Intl.Collator('en', { numeric: true })).compare(a, b) };

/**
 * "Keep them": undoes the deletions among `operations` on the side they were made. Entries deleted on the drive
 * are restored from its trash (ids kept) and go back into the remote tree as base has them; one deleted for good
 * is forgotten, so the copy here is uploaded again. Items deleted here are forgotten (with what is inside them), so
 * the next plan downloads them from the drive. Returns how many items were kept.
 */
export async function keepDeletions(
  operations: readonly Operation[],
  trees: { base: BaseTree; remote: Map<RemoteId, RemoteItem> },
  mirror: Pick<Mirror, 'commit'>,
  client: Pick<DriveClient, 'entries'>,
): Promise<number> {
  const byParent = new Map<RemoteId, BaseItem[]>();
  for (const b of trees.base.values()) if (b.parentId !== null) addTo(byParent, b.parentId, b);
  const subtree = (id: RemoteId): BaseItem[] => {
    const out: BaseItem[] = [];
    const root = trees.base.get(id);
    if (root) out.push(root);
    for (let i = 0; i < out.length; i++) out.push(...(byParent.get(out[i]!.remoteId) ?? []));
    return out;
  };
  const forget: RemoteId[] = [];
  let kept = 0;
  const restored = operations.filter((op): op is Extract<Operation, { kind: 'trash-local' }> => op.kind === 'trash-local' && op.remoteId !== null);
  for (const op of restored) {
    const items = subtree(op.remoteId!);
    if (wasShared(trees.base, op.remoteId)) {
      // No longer shared with the account: nothing to restore on the drive. Kept, the copies here are the account's own.
      forget.push(...items.map((b) => b.remoteId));
      kept += op.count;
      continue;
    }
    try {
      await restoreEntries(client, [{ id: op.remoteId!, type: items[0]?.type ?? 'folder' }]);
      // Back where it was, as base records it: the next plan has nothing to delete.
      for (const b of items) {
        trees.remote.set(b.remoteId, { id: b.remoteId, parentId: b.parentId, name: b.remoteName, type: b.type, size: b.remoteSize, updatedAt: b.remoteUpdatedAt });
      }
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // Deleted for good on the drive: what is here is uploaded again as new.
      forget.push(...items.map((b) => b.remoteId));
    }
    kept += op.count;
  }
  for (const op of operations) {
    if (op.kind !== 'trash-remote') continue;
    // Still on the drive: forgotten here, it is downloaded again where the drive has it.
    forget.push(...subtree(op.remoteId).map((b) => b.remoteId));
    kept += op.count;
  }
  for (const id of forget) trees.base.delete(id);
  const { upserts, deletes } = trees.base.drain();
  mirror.commit(null, upserts, deletes);
  return kept;
}
