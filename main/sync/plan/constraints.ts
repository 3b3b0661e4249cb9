/**
 * Stage 3 of the planner: the constraints on a whole pass, applied in order once every row has been decided. The
 * rows visit items one at a time (shallowest first, by where they are now); these look at all the pass's operations
 * together, drop what is covered by another operation or would depend on another's order (it comes back next
 * pass), and break a tie when local moves wait on each other in a cycle. What they drop is no longer counted in
 * `deletions`.
 */
import { isWithin } from '../model/names.js';
import type { Operation, RelPath, RemoteId } from '../model/types.js';
import type { PlanState } from './plan-state.js';
import { rows } from './rows.js';

export interface Constraint {
  name: string;
  apply: (pass: PlanState) => void;
}

/**
 * Items are visited by where they are locally, so a remote folder can be trashed after something the other side
 * moved into it got its own trash-remote: the folder's operation covers (and counts) it.
 */
const coveredByRemoteTrash: Constraint = {
  name: 'a remote trash inside a trashed remote folder is dropped',
  apply: (pass) => {
    const { operations, remote } = pass;
    const trashedRemote = new Set<RemoteId>();
    for (const op of operations) if (op.kind === 'trash-remote') trashedRemote.add(op.remoteId);
    for (let i = operations.length - 1; i >= 0; i--) {
      const op = operations[i]!;
      if (op.kind !== 'trash-remote') continue;
      for (let cur = remote.get(op.remoteId)?.parentId ?? null, guard = 0; cur !== null && guard < 10_000; guard++) {
        if (trashedRemote.has(cur)) {
          operations.splice(i, 1);
          pass.deletions -= op.count;
          break;
        }
        cur = remote.get(cur)?.parentId ?? null;
      }
    }
  },
};

/**
 * A trashed local folder's synced descendants that are gone on both sides are forgotten with it (applyOutcome
 * drops their rows); they may have been visited before it, as they are visited by their recorded path.
 */
const forgottenWithTrashedFolder: Constraint = {
  name: 'a forget inside a trashed local folder is dropped',
  apply: (pass) => {
    const { operations } = pass;
    const forgottenWith = new Set<RemoteId>();
    for (const op of operations) {
      if (op.kind !== 'trash-local' || op.remoteId === null) continue;
      const movedOut = (id: RemoteId) => {
        const where = pass.statuses.get(id)?.local?.path;
        return where !== undefined && !isWithin(where, op.path);
      };
      for (const id of pass.baseDescendants(op.remoteId, movedOut)) forgottenWith.add(id);
    }
    for (let i = operations.length - 1; i >= 0; i--) {
      const op = operations[i]!;
      if (op.kind === 'forget' && op.rule === 'D3' && forgottenWith.has(op.remoteId)) operations.splice(i, 1);
    }
  },
};

/**
 * Nothing else can happen this pass, yet local moves wait on each other in a cycle the remote contradicts. The first
 * of them that can go back to its remote place does (M3: the remote location wins).
 */
const crossMoveTieBreak: Constraint = {
  name: 'local moves waiting on each other in a cycle: the first that can go back does',
  apply: (pass) => {
    if (pass.operations.length > 0) return;
    for (const s of pass.crossMoves) {
      const back = pass.goBack(s);
      if (back !== undefined) {
        rows.M3(pass, s, back);
        break;
      }
    }
  },
};

/**
 * Nothing else can happen this pass, yet items wait for their given places, held by synced items that wait in turn
 * (two names swapped on the drive; a file moved on the drive into a new folder given the file's name): the first that
 * can goes to a spare name, and the rest follow; the given name is taken once free (M6). A slice of the trees is never
 * "nothing else": what lies beyond it may free the place first, so the whole trees decide.
 */
const givenPlaceTieBreak: Constraint = {
  name: 'synced items waiting on each other for their given places: the first moves to a spare name',
  apply: (pass) => {
    if (pass.operations.length > 0 || pass.slice) return;
    for (const goToSpare of pass.waitingForPlace) if (goToSpare()) break;
  },
};

/**
 * A folder can be found to move or go (or to be moved aside by N5) after an operation on something inside it was
 * emitted: items are visited by where they are, not by where they go. Such an operation waits for the next pass, so
 * that the operations of one pass never depend on each other's order.
 */
const insideVacatingFolderWaits: Constraint = {
  name: 'an operation inside a folder this pass moves, trashes or moves aside waits',
  apply: (pass) => {
    const { operations } = pass;
    for (let i = operations.length - 1; i >= 0; i--) {
      const op = operations[i]!;
      if (localPathsOf(op).some((path) => pass.underVacating(path))) {
        operations.splice(i, 1);
        if (op.kind === 'trash-local' || op.kind === 'trash-remote') pass.deletions -= op.count;
      }
    }
  },
};

/** In the order they apply: the tie-break only when nothing else is left, and the last drop after it. */
export const CONSTRAINTS: readonly Constraint[] = [
  coveredByRemoteTrash,
  forgottenWithTrashedFolder,
  crossMoveTieBreak,
  givenPlaceTieBreak,
  insideVacatingFolderWaits,
];

/** The local paths an operation reads or writes. */
function localPathsOf(op: Operation): RelPath[] {
  switch (op.kind) {
    case 'move-local':
      return [op.from, op.to];
    case 'trash-remote':
    case 'forget':
      return [];
    default:
      return [op.path];
  }
}
