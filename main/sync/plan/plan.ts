/**
 * The planner: a pure function from the three trees to the operations of one pass. No I/O, no clock, no
 * randomness. Its rules are the decision table of docs/sync-rules.md; each operation carries its row's id.
 *
 * It runs in three stages (main/sync/plan/):
 *   1. classify (classify.ts): which local item each synced item is now, and its local and remote state;
 *   2. the table (table.ts): each synced item's cell, chosen by (local state, remote state), applies one of its rows
 *      (rows.ts: one function per row id) or waits; then remote entries and local items on one side only;
 *   3. the constraints (constraints.ts): named rules over the whole pass, applied in order.
 *
 * A pass emits only operations whose prerequisites already hold (a parent that exists on the other side, a path
 * that is free); the rest wait for the next pass. The engine repeats plan → execute until a plan is empty.
 */
import { addTo } from '../model/grouping.js';
import { baseName, givenNames, isGivenName, nameKey, nameRules, type NameRules, parentOf } from '../model/names.js';
import { byDepthThenPath, type Classified, classify } from './classify.js';
import { CONSTRAINTS } from './constraints.js';
import { PlanState } from './plan-state.js';
import { NEW_LOCAL, NEW_REMOTE, remoteLeaving, SYNCED_TABLE } from './table.js';
import type { SyncedRow } from '../trees/trees.js';
import { folderPathIn, syncedRowsOf } from '../trees/queries.js';
import type { LocalItem, Plan, RelPath, RemoteId, RemoteItem, Trees } from '../model/types.js';

/** The folder's volume's name rules (names.ts `NameRules`); what is not given is as Linux's. */
export interface PlanOptions extends Partial<NameRules> {
  /** Local paths never uploaded (temp files, .syncignore). */
  isIgnored?: (path: RelPath, type: LocalItem['type']) => boolean;
  /** Remote folders left out by selective sync: they hold their names, and no row places them (selective.ts). */
  excludedRoots?: ReadonlySet<RemoteId>;
  /** Remote entries new inside an excluded folder whose local changes are synced first: no row places them. */
  heldBack?: ReadonlySet<RemoteId>;
  /**
   * Local items of excluded folders' copies still here (E1): ignored names that are no synced item, not even one
   * recorded at their path (a folder deleted here whose place such a copy took is not that folder made again).
   */
  leftOutCopies?: ReadonlySet<RelPath>;
  /**
   * The trees are a slice of what is new here (scope.ts `changeScope`): operations beyond them remain, so no tie-break
   * that waits for "nothing else can happen" may fire (the whole trees decide it).
   */
  slice?: boolean;
}

export interface SettledOptions {
  /** Entries not in the trees that still hold their names among their siblings on the drive (excluded folders). */
  alsoNamed?: readonly RemoteItem[];
}

/**
 * True when both sides are exactly as last synced: every synced item is at its recorded path with its recorded
 * inode, size and mtime, the listing says what base says of it, and nothing else exists on either side. Then no
 * row of the table applies, so a poll or rescan that found no change costs no planning (and no per-item garbage).
 */
export function settled({ base, local, remote }: Trees, options: Partial<NameRules> & SettledOptions = {}): boolean {
  if (local.size !== base.size || remote.size !== base.size) return false;
  const paths = new Set<RelPath>();
  /** Remote folders holding an item whose local name is not its remote name (made safe, or numbered). */
  let renamedIn: Set<RemoteId | null> | null = null;
  for (const b of syncedRowsOf(base, local, remote)) {
    if (!b.localSame || !b.remoteSame || !heldTogether(base, b, paths)) return false;
    if (baseName(b.path) !== b.remoteName) (renamedIn ??= new Set()).add(b.parentId);
  }
  return renamedIn === null || givenNamesHeld(base, renamedIn, nameRules(options), options.alsoNamed);
}

/**
 * A synced item's row agrees with the rest of base: no other row at its path (the paths seen so far are in `paths`,
 * which it joins), and its parent a synced folder at its path's folder.
 */
export function heldTogether(base: Trees['base'], b: SyncedRow, paths: Set<RelPath>): boolean {
  if (paths.has(b.path)) return false;
  paths.add(b.path);
  return b.parentId === null ? parentOf(b.path) === '' : folderPathIn(base, b.parentId) === parentOf(b.path);
}

/**
 * Every item of these folders whose local name the drive's name gives has its given name (a duplicate on the drive
 * that went, or two given names swapped, is a change to plan). Only folders where a local name differs from its
 * remote name are looked at: elsewhere every name is its own.
 */
export function givenNamesHeld(base: Trees['base'], folders: ReadonlySet<RemoteId | null>, names: NameRules, alsoNamed: readonly RemoteItem[] = []): boolean {
  const children = new Map<RemoteId | null, Array<{ id: RemoteId; name: string; local: string | null; file: boolean; madeHere: boolean }>>();
  for (const b of base.values()) {
    if (!folders.has(b.parentId)) continue;
    addTo(children, b.parentId, { id: b.remoteId, name: b.remoteName, local: baseName(b.path), file: b.type === 'file', madeHere: b.madeHere === true });
  }
  for (const r of alsoNamed) {
    if (children.has(r.parentId)) addTo(children, r.parentId, { id: r.id, name: r.name, local: null, file: r.type === 'file', madeHere: false });
  }
  for (const entries of children.values()) {
    const given = givenNames(entries, names);
    // A later file of one name this computer made is a conflict to resolve (C5).
    const firstOfName = new Map<string, number>();
    for (const e of entries) if (e.file) firstOfName.set(e.name, Math.min(firstOfName.get(e.name) ?? Infinity, e.id));
    for (const e of entries) {
      if (e.file && e.madeHere && firstOfName.get(e.name)! < e.id) return false;
      if (e.local === null || e.local === e.name || !isGivenName(e.local, e.name, names)) continue;
      if (nameKey(given.get(e.id)!, names) !== nameKey(e.local, names)) return false;
    }
  }
  return true;
}

export function plan(trees: Trees, options: PlanOptions = {}): Plan {
  return settled(trees, options) ? { operations: [], deletions: 0, skipped: [], notes: [] } : planChanges(trees, options);
}

/** The decision table applied to every item; `plan` skips it when the trees are settled. */
export function planChanges(trees: Trees, options: PlanOptions = {}): Plan {
  const isIgnored = options.isIgnored ?? (() => false);
  const classified = classify(trees, { isIgnored, ...(options.leftOutCopies ? { leftOutCopies: options.leftOutCopies } : {}) });
  const pass = new PlanState(trees, classified, { names: nameRules(options), isIgnored, ...(options.excludedRoots ? { excludedRoots: options.excludedRoots } : {}), slice: options.slice === true });

  // Synced items, shallowest first by where they are now (their local path if they exist locally), so that a folder
  // moved or trashed this pass is decided before anything inside it now, even an item that moved in.
  for (const s of byDepthThenPath([...classified.statuses.values()], (s) => s.local?.path ?? s.base.path, (s) => s.base.remoteId)) {
    if (pass.handled.has(s.base.remoteId)) continue; // covered by a folder's operation
    if (s.local && pass.underVacating(s.local.path)) continue; // its folder moves or goes first
    SYNCED_TABLE[s.localState][s.remoteState].decide(pass, s);
  }
  // Remote entries not synced yet, parents first; then local items not synced yet, by path.
  for (const r of newRemoteEntries(classified, trees, options.excludedRoots, options.heldBack)) NEW_REMOTE.decide(pass, r);
  const leaving = remoteLeaving(pass);
  for (const l of pass.sortedLocal) NEW_LOCAL.decide(pass, l, leaving);

  for (const constraint of CONSTRAINTS) constraint.apply(pass);
  return { operations: pass.operations, deletions: pass.deletions, skipped: pass.skipped, notes: pass.notes };
}

/** Remote entries neither synced nor a synced file's replacement nor excluded, shallowest first, then oldest. */
function newRemoteEntries(
  { remote, replacing }: Classified,
  { base }: Trees,
  excluded?: ReadonlySet<RemoteId>,
  heldBack?: ReadonlySet<RemoteId>,
): RemoteItem[] {
  const entries = [...remote.values()].filter((r) => !base.has(r.id) && !replacing.has(r.id) && !excluded?.has(r.id) && !heldBack?.has(r.id));
  const depth = (r: RemoteItem): number => {
    let d = 0;
    for (let cur: RemoteItem | undefined = r; cur && cur.parentId !== null && d < 10_000; d++) cur = remote.get(cur.parentId);
    return d;
  };
  return entries.sort((a, b) => depth(a) - depth(b) || a.id - b.id);
}
