/**
 * Stage 2b of the planner: one function per row of docs/sync-rules.md's decision table, named by its id. Each emits
 * the operation of its row (with what it claims for the rest of the pass: a path taken or vacated, the deletions it
 * counts); which row applies is the table's decision (table.ts). A row function emits only its own id, which
 * test/sync/rule-ids.test.ts checks.
 */
import { baseName, parentOf } from '../model/names.js';
import type { LocalItem, RelPath, RemoteId, RemoteItem, RuleId } from '../model/types.js';
import { folderKey, type Status } from './classify.js';
import type { PlanState } from './plan-state.js';
import { emptyRefused, keptName, movedInRefused, refusedName, validRemoteName } from './remote-name.js';

type Row = (pass: PlanState, ...args: never[]) => void;

export const rows = {
  // --- Content (synced item in place on both sides, or replaced remotely) -------------------------------------

  /** Changed locally: upload as a new entry that replaces the old one. */
  C1(pass: PlanState, s: Status): void {
    pass.emit({ kind: 'replace-remote', rule: 'C1', path: s.local!.path, remoteId: s.base.remoteId });
  },

  /** Changed remotely (or replaced by `replacement`): download. */
  C2(pass: PlanState, s: Status, replacement?: RemoteId): void {
    if (replacement === undefined) pass.emit({ kind: 'download', rule: 'C2', remoteId: s.base.remoteId, path: s.local!.path });
    else pass.emit({ kind: 'download', rule: 'C2', remoteId: replacement, path: s.local!.path, replaces: s.base.remoteId });
  },

  /** Changed on both sides (or replaced remotely): the executor keeps both versions. */
  C3(pass: PlanState, s: Status, replacement?: RemoteId): void {
    if (replacement === undefined) pass.emit({ kind: 'conflict', rule: 'C3', remoteId: s.base.remoteId, path: s.local!.path });
    else pass.emit({ kind: 'conflict', rule: 'C3', remoteId: replacement, path: s.local!.path, replaces: s.base.remoteId });
  },

  /** Same content, new inode/mtime (or an unknown updated_at): only recorded. */
  C4(pass: PlanState, s: Status): void {
    pass.emit({ kind: 'record', rule: 'C4', remoteId: s.base.remoteId, path: s.local!.path });
  },

  /**
   * This computer made the entry, and the drive has an older one of the same name in its folder (`twin`): the
   * executor compares them; the same bytes, and the entry goes (the twin is the file); other bytes, and it is renamed,
   * on the drive and here, to its conflicted-copy name, so every client sees one file and one conflicted copy.
   */
  C5(pass: PlanState, s: Status, twin: RemoteItem): void {
    const path = s.local!.path;
    pass.vacating.add(path);
    pass.emit({ kind: 'resolve-twin', rule: 'C5', remoteId: s.base.remoteId, twinId: twin.id, path });
  },

  // --- Moves --------------------------------------------------------------------------------------------------

  /** Moved locally: the entry is renamed (same parent) or moved. */
  M1(pass: PlanState, s: Status, parentId: RemoteId | null, name: string): void {
    const { remoteId } = s.base;
    const path = s.local!.path;
    if (parentId === s.remote!.parentId) pass.emit({ kind: 'rename-remote', rule: 'M1', remoteId, name, path });
    else pass.emit({ kind: 'move-remote', rule: 'M1', remoteId, parentId, name, path });
  },

  /** Moved remotely: the local item follows to `target`; already there, the place is recorded. */
  M2(pass: PlanState, s: Status, target: RelPath): void {
    if (target === s.local!.path) pass.emit({ kind: 'record', rule: 'M2', remoteId: s.base.remoteId, path: target });
    else moveLocal(pass, s, target, 'M2');
  },

  /** Moved on both sides, or a local move the remote contradicts: the remote location wins. */
  M3(pass: PlanState, s: Status, target: RelPath): void {
    moveLocal(pass, s, target, 'M3');
  },

  /** Both sides already agree on the place. */
  M4(pass: PlanState, s: Status): void {
    pass.emit({ kind: 'record', rule: 'M4', remoteId: s.base.remoteId, path: s.local!.path });
  },

  /** Renamed locally to a name the service refuses: the entry keeps its name (and moves to `parentId` if needed). */
  M5(pass: PlanState, s: Status, parentId: RemoteId | null, name: string): void {
    const there = s.remote!;
    const path = s.local!.path;
    pass.notes.push({ path, message: keptName(name, there.name) });
    if (parentId !== there.parentId) pass.emit({ kind: 'move-remote', rule: 'M5', remoteId: s.base.remoteId, parentId, name: there.name, path });
    else pass.emit({ kind: 'record', rule: 'M5', remoteId: s.base.remoteId, path });
  },

  /** In place on both sides, its given name changed (a duplicate on the drive appeared or went): it follows. */
  M6(pass: PlanState, s: Status, target: RelPath): void {
    moveLocal(pass, s, target, 'M6');
  },

  // --- Deletions ----------------------------------------------------------------------------------------------

  /** Deleted remotely: trashed locally, with `inside` (the local subtree of a folder). */
  D1(pass: PlanState, s: Status, inside: readonly LocalItem[]): void {
    const path = s.local!.path;
    const count = 1 + inside.length;
    pass.emit({ kind: 'trash-local', rule: 'D1', path, remoteId: s.base.remoteId, count });
    pass.deletions += count;
    pass.vacating.add(path);
    for (const child of inside) {
      const synced = pass.syncedAt(child.path);
      if (synced) pass.handled.add(synced.base.remoteId);
    }
  },

  /** Deleted locally: trashed remotely, with `inside` (the remote subtree of a folder). */
  D2(pass: PlanState, s: Status, inside: readonly RemoteItem[]): void {
    const count = 1 + inside.length;
    pass.emit({ kind: 'trash-remote', rule: 'D2', remoteId: s.base.remoteId, count });
    pass.deletions += count;
    for (const child of inside) pass.handled.add(child.id);
  },

  /** Deleted on both sides. */
  D3(pass: PlanState, s: Status): void {
    pass.emit({ kind: 'forget', rule: 'D3', remoteId: s.base.remoteId });
  },

  /**
   * Edit beats delete: changed locally and deleted remotely, forgotten (uploaded as new next pass); or changed
   * remotely and deleted locally, downloaded again to `path`.
   */
  D4(pass: PlanState, s: Status, path?: RelPath): void {
    if (path === undefined) {
      pass.emit({ kind: 'forget', rule: 'D4', remoteId: s.base.remoteId });
    } else {
      pass.occupy(path);
      pass.emit({ kind: 'download', rule: 'D4', remoteId: s.base.remoteId, path });
    }
  },

  /** A folder deleted remotely with something new inside locally: forgotten, created again remotely (N2). */
  D5(pass: PlanState, s: Status): void {
    pass.emit({ kind: 'forget', rule: 'D5', remoteId: s.base.remoteId });
  },

  /** A folder deleted locally with something new inside remotely: created again at `path`. */
  D6(pass: PlanState, s: Status, path: RelPath): void {
    pass.occupy(path);
    pass.emit({ kind: 'create-local-folder', rule: 'D6', remoteId: s.base.remoteId, path });
  },

  // --- Items on one side only ---------------------------------------------------------------------------------

  /** A new remote entry: downloaded, or its folder created, at `path`. */
  N1(pass: PlanState, r: RemoteItem, path: RelPath): void {
    pass.occupy(path);
    pass.emit(
      r.type === 'folder'
        ? { kind: 'create-local-folder', rule: 'N1', remoteId: r.id, path }
        : { kind: 'download', rule: 'N1', remoteId: r.id, path },
    );
  },

  /** A new local item: uploaded, or its folder created remotely as `name` (reported if the service refuses it). */
  N2(pass: PlanState, l: LocalItem, parentId: RemoteId | null, name: string): void {
    if (l.type === 'file') pass.emit({ kind: 'upload', rule: 'N2', path: l.path, parentId, name });
    else if (!validRemoteName(name)) pass.skipped.push({ path: l.path, reason: refusedName(name), fails: true });
    else pass.emit({ kind: 'create-remote-folder', rule: 'N2', path: l.path, parentId, name });
  },

  /** A folder new on both sides at one path: matched. */
  N3(pass: PlanState, r: RemoteItem, holder: LocalItem): void {
    pass.emit({ kind: 'record', rule: 'N3', remoteId: r.id, path: holder.path });
  },

  /** A file new on both sides at one path: the executor compares them. */
  N4(pass: PlanState, r: RemoteItem, holder: LocalItem): void {
    pass.emit({ kind: 'merge', rule: 'N4', remoteId: r.id, path: holder.path });
  },

  /** A file on one side and a folder on the other at one path: the local one is moved aside. */
  N5(pass: PlanState, r: RemoteItem, holder: LocalItem): void {
    pass.emit({ kind: 'conflict', rule: 'N5', remoteId: r.id, path: holder.path });
    pass.vacating.add(holder.path); // moved aside: anything inside it waits
  },

  /**
   * A new local folder whose name the service refuses to create: made by uploading `carrier`, the shallowest file
   * inside it, with the folders on its way (an upload's relativePath creates them); an empty one is left out. One
   * that holds only synced items moved in cannot be made either, and they cannot follow: a failure the user must
   * resolve (by a longer name), not a folder silently left behind.
   */
  N6(pass: PlanState, folder: LocalItem, parentId: RemoteId | null, carrier: LocalItem | undefined, holdsSynced: boolean): void {
    const name = baseName(folder.path);
    if (carrier) {
      pass.newRemoteFolders.add(folderKey(parentId, name));
      const folders = foldersOnTheWay(folder.path, carrier.path);
      pass.emit({ kind: 'upload', rule: 'N6', path: carrier.path, parentId, name: baseName(carrier.path), folders });
    } else if (holdsSynced) pass.skipped.push({ path: folder.path, reason: movedInRefused(name), fails: true });
    else pass.skipped.push({ path: folder.path, reason: emptyRefused(name), fails: false });
  },
} satisfies { [R in RuleId]: Row };

function moveLocal(pass: PlanState, s: Status, target: RelPath, rule: 'M2' | 'M3' | 'M6'): void {
  pass.occupy(target);
  pass.vacating.add(s.local!.path);
  pass.emit({ kind: 'move-local', rule, remoteId: s.base.remoteId, from: s.local!.path, to: target });
}

/** The folders from `folder` down to the one holding `file`, outermost first. */
function foldersOnTheWay(folder: RelPath, file: RelPath): Array<{ path: RelPath; name: string }> {
  const chain: Array<{ path: RelPath; name: string }> = [];
  for (let p = parentOf(file); ; p = parentOf(p)) {
    chain.unshift({ path: p, name: baseName(p) });
    if (p === folder) return chain;
  }
}
