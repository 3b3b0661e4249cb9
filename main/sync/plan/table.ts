/**
 * Stage 2a of the planner: the decision table. A synced item's cell is chosen by its local state and remote state
 * (classify.ts); the cell decides which of its rows applies, or that the item waits for a later pass, and calls that
 * row's function (rows.ts). Items on one side only have a cell each. Every cell names the rows it may apply, which
 * test/sync/rule-ids.test.ts checks against the cell's code and docs/sync-rules.md.
 *
 * A wait inside a cell (a parent not there yet, a folder that must first let a child move out) is decided where the
 * item is visited, since what the item claims (a path, a remote parent) changes what later items see. The
 * constraints that look at the whole pass once the rows are done are in constraints.ts.
 */
import { sameItem } from '../model/birth.js';
import { baseName, isWithin, joinPath, numberedName, parentOf, safeLocalName } from '../model/names.js';
import type { LocalItem, RelPath, RemoteId, RemoteItem, RuleId } from '../model/types.js';
import { folderKey, type LocalState, type RemoteState, type Status } from './classify.js';
import type { PlanState } from './plan-state.js';
import { validRemoteName } from './remote-name.js';
import { rows } from './rows.js';

export interface Cell<T extends unknown[]> {
  /** The rows this cell may apply (in docs/sync-rules.md's order). */
  rows: readonly RuleId[];
  decide: (pass: PlanState, ...item: T) => void;
}
type SyncedCell = Cell<[s: Status]>;

// --- Synced items -------------------------------------------------------------------------------------------------

/** Gone on both sides. */
const bothGone: SyncedCell = {
  rows: ['D3'],
  decide: (pass, s) => rows.D3(pass, s),
};

/** Another client saved an edit as a new entry (this service has no content replace). */
const replacedRemotely: SyncedCell = {
  rows: ['C2', 'C3'],
  decide: (pass, s) => {
    if (s.localContent === 'changed') rows.C3(pass, s, s.replacement);
    else rows.C2(pass, s, s.replacement);
  },
};

/** Deleted remotely, still here locally. */
const deletedRemotely: SyncedCell = {
  rows: ['D1', 'D4', 'D5'],
  decide: (pass, s) => {
    const l = s.local!;
    if (s.base.type === 'folder') {
      const inside = pass.localSubtree(l.path);
      let leaving = false;
      let survives = false;
      for (const child of inside) {
        const synced = pass.syncedAt(child.path);
        if (!synced) survives ||= !pass.isIgnored(child.path, child.type);
        else if (synced.remote) {
          if (synced.localMoved) survives = true; // moved in here locally: keeps the folder
          else leaving = true; // moved out remotely: let it leave first
        } else if (synced.localContent === 'changed') survives = true;
      }
      if (leaving && !survives) return; // trash only once what moved out has left; a folder that survives need not wait
      // Something inside is new or edited: the folder survives and is created again remotely.
      if (survives) rows.D5(pass, s);
      else rows.D1(pass, s, inside);
      return;
    }
    if (s.localContent === 'changed') rows.D4(pass, s); // edit beats delete: uploaded as new next pass
    else rows.D1(pass, s, []);
  },
};

/** Deleted locally, still there remotely. */
const deletedLocally: SyncedCell = {
  rows: ['D2', 'D4', 'D6'],
  decide: (pass, s) => {
    if (s.base.type === 'folder') {
      const { inside, leaving, survives } = pass.remoteInside(s);
      if (leaving && !survives) return; // trash only once what moved out has left; a folder that survives need not wait
      if (!survives) {
        rows.D2(pass, s, inside);
        return;
      }
      bringBack(pass, s, (path) => rows.D6(pass, s, path));
      return;
    }
    // Edit beats delete: the remote version comes back.
    if (s.remoteChanged) bringBack(pass, s, (path) => rows.D4(pass, s, path));
    else rows.D2(pass, s, []);
  },
};

/** A synced item deleted here comes back (D4, D6) at its given place once free, or a spare one if it waits in a tie. */
function bringBack(pass: PlanState, s: Status, emit: (path: RelPath) => void): void {
  const r = s.remote!;
  const parent = pass.currentPath(r.parentId);
  if (!pass.parentReady(parent)) return;
  const place = pass.placeFor(r, parent);
  if (place !== undefined) emit(place);
  else {
    pass.waitingForPlace.push(() => {
      emit(pass.spareLocalPath(parent, r));
      return true;
    });
  }
}

/** Moved remotely (whatever happened locally): the remote location wins when both moved (M3). */
const movedRemotely: SyncedCell = {
  rows: ['M2', 'M3', 'M4', 'C1', 'C2', 'C3'],
  decide: (pass, s) => {
    const b = s.base;
    const here = s.local!;
    const there = s.remote!;
    const parent = pass.currentPath(there.parentId);
    if (!pass.parentReady(parent)) return; // parent not there yet
    // A name the user chose that the drive refused (kept mapped in base) stays while neither side renames the item
    // and it is already in that folder; otherwise it goes to its given name there.
    const localName = baseName(here.path);
    const kept = there.name === b.remoteName && localName === baseName(b.path) && parentOf(here.path) === parent && !pass.isGiven(localName, there.name);
    const target = kept ? here.path : pass.placeFor(there, parent, here.path);
    if (target === undefined) {
      pass.waitingForPlace.push(() => {
        const spare = pass.spareLocalPath(parent, there, here.path);
        if (spare === here.path || isWithin(spare, here.path)) return false;
        if (s.localMoved) rows.M3(pass, s, spare);
        else rows.M2(pass, s, spare);
        return true;
      });
      return;
    }
    // Another Unicode spelling of its name (NFC, NFD) is its place: every volume's names compare in NFC (nameKey).
    if (target !== here.path && target.normalize('NFC') !== here.path.normalize('NFC')) {
      if (isWithin(target, here.path)) return; // cannot move a folder into itself yet; its new parent moves first
      if (s.localMoved) rows.M3(pass, s, target);
      else rows.M2(pass, s, target);
      return;
    }
    // Already where the remote entry is. A content change is the content rows', and their operation records the place.
    if (contentChanged(s)) content(pass, s);
    else if (s.localMoved) rows.M4(pass, s);
    else rows.M2(pass, s, here.path);
  },
};

/** It only moved along with its folder, whose own operation records the new paths below it. */
const movedWithFolder: SyncedCell = {
  rows: ['C1', 'C2', 'C3'],
  decide: (pass, s) => {
    if (contentChanged(s)) content(pass, s);
  },
};

/** Moved locally, in place remotely. */
const movedLocally: SyncedCell = {
  rows: ['M1', 'M3', 'M4', 'M5', 'C1', 'C2', 'C3'],
  decide: (pass, s) => {
    const b = s.base;
    const here = s.local!;
    const there = s.remote!;
    const parentId = pass.remoteIdAt(parentOf(here.path));
    if (parentId === undefined) return; // the new parent has no remote entry yet
    // Its new parent is inside it remotely, now or once this pass's moves are done (two moves that are each fine
    // can make a cycle together; and a move must not depend on another of the same pass being done first).
    const insideAtSomePoint = parentId !== null && pass.mayBeRemoteAncestor(b.remoteId, parentId);
    const insideAfter = parentId !== null && pass.isRemoteAncestor(b.remoteId, parentId);
    if (insideAtSomePoint && !insideAfter) return; // moves of this pass take the new parent out (A/B → B/A)
    if (insideAfter) {
      crossMove(pass, s, parentId);
      return;
    }
    const localName = baseName(here.path);
    const name = localName === baseName(b.path) ? b.remoteName : localName;
    if (parentId !== there.parentId || name !== there.name) {
      if (validRemoteName(name)) {
        rows.M1(pass, s, parentId, name);
        return;
      }
      // The service refuses to rename to this name; the entry keeps its name on the drive (and its id, its shares
      // and links), moves if it moved, and the base maps the local name to it. A content change made with the
      // rename is the content rows', which record the new path too.
      if (parentId !== there.parentId || !contentChanged(s)) {
        rows.M5(pass, s, parentId, name);
        return;
      }
    } else if (!contentChanged(s)) {
      // The local move lands where the entry already is. A content change is the content rows'.
      rows.M4(pass, s);
      return;
    }
    content(pass, s);
  },
};

/**
 * Same place on both sides: content — unless the entry is a later duplicate this computer made of a file on the
 * drive (C5), or the drive's names give it another local name now (M6: a clash that appeared or went).
 */
const inPlace: SyncedCell = {
  rows: ['C1', 'C2', 'C3', 'C4', 'C5', 'M6'],
  decide: (pass, s) => {
    const twin = twinToResolve(pass, s);
    if (twin !== undefined) {
      rows.C5(pass, s, twin);
      return;
    }
    const place = givenPlace(pass, s);
    if (place !== undefined) rows.M6(pass, s, place);
    else content(pass, s);
  },
};

/**
 * The older entry of the same name in the same folder, when this computer made the synced file later: two computers
 * saved (or made) the same file at once, each as a new entry. Only the computer that made the later one acts, so two
 * computers never act on one duplicate. Its content is settled first (an edit is uploaded, a remote change fetched).
 */
function twinToResolve(pass: PlanState, s: Status): RemoteItem | undefined {
  if (s.base.type !== 'file' || !s.base.madeHere || s.localContent === 'changed' || s.remoteChanged) return undefined;
  const twin = pass.olderTwin(s.remote!);
  // A synced twin settles first (an edit, a move, a deletion of it is this pass's): the two are compared as they stay.
  const synced = twin && pass.statuses.get(twin.id);
  if (synced && (synced.localState !== 'in-place' || synced.localContent === 'changed' || synced.remoteChanged)) return undefined;
  return twin;
}

/**
 * Where a synced item in place on both sides goes when its given name changed (its duplicate on the drive appeared or
 * went): undefined while it stays (a name the user chose, kept mapped; already there; its place not free yet).
 */
function givenPlace(pass: PlanState, s: Status): RelPath | undefined {
  const here = s.local!;
  const there = s.remote!;
  const name = baseName(here.path);
  if (!pass.isGiven(name, there.name) || pass.sameName(pass.givenName(there), name)) return undefined;
  const parent = parentOf(here.path);
  const target = pass.placeFor(there, parent, here.path);
  if (target === undefined) {
    pass.waitingForPlace.push(() => {
      const spare = pass.spareLocalPath(parent, there, here.path);
      if (spare === here.path) return false;
      rows.M6(pass, s, spare);
      return true;
    });
  }
  return target === here.path ? undefined : target;
}

/**
 * The cell of a synced item, by (local state, remote state). A replaced entry is always paired with an item in
 * place locally (classify.ts); the other replaced cells repeat what its precedence would give.
 */
export const SYNCED_TABLE: Record<LocalState, Record<RemoteState, SyncedCell>> = {
  deleted: { deleted: bothGone, replaced: bothGone, 'in-place': deletedLocally, moved: deletedLocally },
  'in-place': { deleted: deletedRemotely, replaced: replacedRemotely, 'in-place': inPlace, moved: movedRemotely },
  moved: { deleted: deletedRemotely, replaced: replacedRemotely, 'in-place': movedLocally, moved: movedRemotely },
  'moved-with-folder': { deleted: deletedRemotely, replaced: replacedRemotely, 'in-place': movedWithFolder, moved: movedRemotely },
};

const contentChanged = (s: Status): boolean => s.base.type === 'file' && (s.localContent === 'changed' || s.remoteChanged);

/** The content rows, for an item at the same place on both sides (or about to be, with this pass's record). */
function content(pass: PlanState, s: Status): void {
  const b = s.base;
  const here = s.local!;
  if (b.type === 'folder') {
    if (!sameItem(here, b)) rows.C4(pass, s); // re-created in place
    return;
  }
  const localChanged = s.localContent === 'changed';
  if (localChanged && s.remoteChanged) rows.C3(pass, s);
  else if (localChanged) rows.C1(pass, s);
  else if (s.remoteChanged) rows.C2(pass, s);
  else if (s.localContent === 'touched' || !sameItem(here, b) || (b.remoteUpdatedAt === '' && s.remote!.updatedAt !== '')) {
    rows.C4(pass, s);
  }
}

/**
 * A local move into a folder that is inside the item remotely. If a local move not sent yet (and not itself stuck)
 * takes that folder out, wait for it. Otherwise the other side moved the folder in there (a cross move): the remote
 * location wins and the local item goes back to it (M3), which lets the remote move follow. If its remote place is
 * inside it locally too, it is stuck until something else moves; should nothing else be able to, the end of the pass
 * breaks the tie (constraints.ts).
 */
function crossMove(pass: PlanState, s: Status, parentId: RemoteId): void {
  let pending = false;
  for (let cur: RemoteId | null = parentId, guard = 0; cur !== null && cur !== s.base.remoteId && guard < 10_000; guard++) {
    const st = pass.statuses.get(cur);
    if (st?.localMoved && !st.remoteMoved && !st.followedFolder && !pass.plannedParent.has(cur) && !pass.stuck.has(cur)) {
      pending = true;
    }
    cur = pass.remoteParent(cur);
  }
  const back = pass.goBack(s);
  if (back === undefined) pass.stuck.add(s.base.remoteId);
  else if (!pending) {
    rows.M3(pass, s, back);
    return;
  }
  pass.crossMoves.push(s);
}

// --- Items on one side only ---------------------------------------------------------------------------------------

/** A remote entry not synced yet: downloaded, or matched with what the local side made at its place. */
export const NEW_REMOTE: Cell<[r: RemoteItem]> = {
  rows: ['N1', 'N3', 'N4', 'N5'],
  decide: (pass, r) => {
    const parent = pass.currentPath(r.parentId);
    if (!pass.parentReady(parent)) return; // parent arrives first
    const given = joinPath(parent, pass.givenName(r));
    const holderPath = pass.occupant(given);
    const holder = holderPath !== undefined ? pass.local.get(holderPath) : undefined;
    if (holder && pass.replacesSynced(holder.path, r.id)) return; // the synced item recorded there leaves first
    if (holder && !pass.claimedLocal.has(holder.path) && !pass.matchedLocal.has(holder.path) && !pass.isIgnored(holder.path, holder.type)) {
      // Both sides created something at the same place.
      pass.matchedLocal.add(holder.path);
      if (pass.vacating.has(holder.path)) return;
      if (holder.type === 'folder' && r.type === 'folder') rows.N3(pass, r, holder);
      else if (holder.type === 'file' && r.type === 'file') rows.N4(pass, r, holder);
      else rows.N5(pass, r, holder);
      return;
    }
    // Its given place, once free (a duplicate name on the drive is numbered alike on every computer).
    const place = pass.placeFor(r, parent);
    if (place !== undefined) rows.N1(pass, r, place);
    else {
      pass.waitingForPlace.push(() => {
        rows.N1(pass, r, pass.spareLocalPath(parent, r));
        return true;
      });
    }
  },
};

/**
 * A local item not synced yet: uploaded, or its folder created. `remoteLeaving`: remote entries this pass renames,
 * moves or trashes (their names are free next pass).
 */
export const NEW_LOCAL: Cell<[l: LocalItem, remoteLeaving: ReadonlySet<RemoteId>]> = {
  rows: ['N2', 'N6'],
  decide: (pass, l, remoteLeaving) => {
    if (pass.claimedLocal.has(l.path) || pass.matchedLocal.has(l.path)) return;
    if (pass.isIgnored(l.path, l.type)) return;
    if (pass.replacesSynced(l.path)) return; // the synced item recorded there leaves first
    const parent = parentOf(l.path);
    if (!pass.parentReady(parent)) return;
    const parentId = pass.remoteIdAt(parent);
    if (parentId === undefined) return; // its folder is created remotely first
    const name = baseName(l.path);
    if (l.type === 'file') {
      rows.N2(pass, l, parentId, name);
      return;
    }
    // The service refuses a folder whose name a sibling folder has. If that sibling leaves this pass, wait for it;
    // otherwise the new entry gets a numbered name (the local folder keeps its name; the base maps them).
    const taken = (candidate: string) =>
      pass.newRemoteFolders.has(folderKey(parentId, candidate)) ||
      pass.remoteChildrenOf(parentId).find((r) => r.type === 'folder' && r.name === candidate);
    const clash = taken(name);
    if (typeof clash === 'object' && remoteLeaving.has(clash.id)) return;
    if (!clash && !validRemoteName(name)) {
      // The service refuses to create a folder of this name, but an upload's relativePath creates any folder on its
      // way: the folder is made by uploading the first file inside it. An empty one cannot be made.
      rows.N6(pass, l, parentId, carrierOf(pass, l.path), pass.localSubtree(l.path).some((item) => pass.claimedLocal.has(item.path)));
      return;
    }
    let remoteName = name;
    for (let n = 2; taken(remoteName); n++) remoteName = numberedName(name, n);
    rows.N2(pass, l, parentId, remoteName);
  },
};

/** The file that creates a new local folder remotely (N6): the shallowest uploadable file below it, if any. */
function carrierOf(pass: PlanState, folder: string): LocalItem | undefined {
  let best: LocalItem | undefined;
  let bestDepth = Infinity;
  for (const l of pass.localSubtree(folder)) {
    if (l.type !== 'file' || pass.claimedLocal.has(l.path) || pass.matchedLocal.has(l.path) || pass.isIgnored(l.path, l.type)) continue;
    let depth = 0;
    let blocked = false;
    for (let p = parentOf(l.path); p !== folder; p = parentOf(p), depth++) {
      if (pass.claimedLocal.has(p) || pass.isIgnored(p, 'folder')) blocked = true;
    }
    if (!blocked && depth < bestDepth) {
      best = l;
      bestDepth = depth;
    }
  }
  return best;
}

/** Remote entries this pass renames, moves or trashes (with their subtrees): their names are free next pass. */
export function remoteLeaving(pass: PlanState): Set<RemoteId> {
  const leaving = new Set<RemoteId>();
  for (const op of pass.operations) {
    if (op.kind === 'rename-remote' || op.kind === 'move-remote') leaving.add(op.remoteId);
    if (op.kind === 'trash-remote') for (const id of [op.remoteId, ...pass.remoteSubtree(op.remoteId).map((r) => r.id)]) leaving.add(id);
  }
  return leaving;
}

/** Every cell, for the check that the table applies each row of docs/sync-rules.md. */
export const ALL_CELLS: ReadonlyArray<Cell<never[]>> = [
  ...new Set(Object.values(SYNCED_TABLE).flatMap((byRemote) => Object.values(byRemote))),
  NEW_REMOTE,
  NEW_LOCAL,
] as ReadonlyArray<Cell<never[]>>;
