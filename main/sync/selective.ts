/**
 * Selective sync: folders of the drive this computer leaves out, named by entry id (so an exclusion follows its folder
 * when it is renamed or moved anywhere). The selection is applied to the three trees before the decision table sees
 * them: the rows E1–E4 of docs/sync-rules.md ("Excluded folders"). Pure: no I/O, no clock.
 *
 * What it guarantees: nothing that exists only on this computer is removed (a local copy leaves only once every item
 * in it is as synced, and then only the synced items go), nothing inside an excluded folder is downloaded, and a
 * local folder that has an excluded folder's place is never merged into it, uploaded or deleted.
 */
import { sameItem } from './birth.js';
import { givenNames, isWithin, joinPath, parentOf } from './names.js';
import { planChanges, settled, type PlanOptions } from './plan.js';
import type { BaseItem, LocalItem, Operation, Plan, RelPath, RemoteId, RemoteItem, Trees } from './types.js';

/** What this computer leaves out of a synced folder. */
export interface Selection {
  /** Folders of the drive left out with everything inside them, by entry id. */
  excluded: ReadonlySet<RemoteId>;
  /** New top-level folders made elsewhere are left out until included. */
  newFolders?: 'sync' | 'exclude';
}

export const NO_SELECTION: Selection = { excluded: new Set() };

/** The trees as the decision table is to see them, and what the selection itself decides. */
export interface SelectedView {
  /** The trees to plan (the excluded parts left out). */
  trees: Trees;
  /** The same, with the excluded folders' own entries left out too: what `settled` compares. */
  settledTrees: Trees;
  /** Excluded folders not synced here: the table places none of them (their entries hold their names only). */
  excludedRoots: ReadonlySet<RemoteId>;
  /** Local paths never uploaded: local folders at an excluded folder's place, and what they hold (E3). */
  leftOut: (path: RelPath) => boolean;
  /** Local copies of excluded folders that can go now (E1). */
  operations: Operation[];
  skipped: Plan['skipped'];
  /** Remote entries inside excluded folders (and those folders): what a remote trash must not take unasked. */
  outside: ReadonlySet<RemoteId>;
}

export const LEFT_OUT_PLACE = (shown: string) =>
  `has the place of ${shown}, a folder of the drive this computer leaves out: it is not synced; include the drive's folder (drivesync include) or rename this one`;

/** A read-only view of a map with some keys left out, without copying it (a tree may hold a million items). */
class Without<K, V> implements ReadonlyMap<K, V> {
  readonly size: number;
  constructor(
    private readonly source: ReadonlyMap<K, V>,
    private readonly hidden: ReadonlySet<K>,
  ) {
    let hiddenHere = 0;
    for (const key of hidden) if (source.has(key)) hiddenHere++;
    this.size = source.size - hiddenHere;
  }
  get(key: K): V | undefined {
    return this.hidden.has(key) ? undefined : this.source.get(key);
  }
  has(key: K): boolean {
    return !this.hidden.has(key) && this.source.has(key);
  }
  *entries(): IterableIterator<[K, V]> {
    for (const entry of this.source.entries()) if (!this.hidden.has(entry[0])) yield entry;
  }
  *keys(): IterableIterator<K> {
    for (const [key] of this.entries()) yield key;
  }
  *values(): IterableIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }
  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void): void {
    for (const [key, value] of this.entries()) callback(value, key, this);
  }
  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }
}

const hide = <K, V>(source: ReadonlyMap<K, V>, hidden: ReadonlySet<K>): ReadonlyMap<K, V> => (hidden.size === 0 ? source : new Without(source, hidden));

/** Remote entries at or below an excluded folder (the listing's own tree; an entry whose parent is missing is not). */
export function entriesOutside(remote: ReadonlyMap<RemoteId, RemoteItem>, excluded: ReadonlySet<RemoteId>): Set<RemoteId> {
  const outside = new Set<RemoteId>();
  if (excluded.size === 0) return outside;
  const known = new Map<RemoteId, boolean>();
  for (const item of remote.values()) {
    const chain: RemoteId[] = [];
    let answer = false;
    for (let cur: RemoteItem | undefined = item; cur; cur = cur.parentId === null ? undefined : remote.get(cur.parentId)) {
      const seen = known.get(cur.id);
      if (seen !== undefined) {
        answer = seen;
        break;
      }
      chain.push(cur.id);
      if (excluded.has(cur.id)) {
        answer = true;
        break;
      }
      if (chain.length > 10_000) break; // a cycle: unreachable, not excluded
    }
    for (const id of chain) known.set(id, answer);
    if (answer) outside.add(item.id);
  }
  return outside;
}

/** The synced items of one local copy of an excluded folder (or of an entry moved into one on the drive). */
interface Unit {
  root: BaseItem;
  members: BaseItem[];
  /** Synced items not excluded recorded inside it: they move out first (M2). */
  visitors: number;
}

/**
 * The local copy as it was synced: every synced item at its recorded place, unchanged, and nothing new inside. What
 * holds it otherwise, as paths (at most a few, for the message).
 */
function holders(unit: Unit, local: ReadonlyMap<RelPath, LocalItem>, localWithin: ReadonlyMap<RelPath, RelPath[]>): RelPath[] {
  const found: RelPath[] = [];
  const recorded = new Set<RelPath>();
  for (const m of unit.members) {
    recorded.add(m.path);
    const l = local.get(m.path);
    const same =
      l !== undefined &&
      l.type === m.type &&
      sameItem(l, m) &&
      (m.type === 'folder' || (l.size === m.size && (l.mtimeMs === m.mtimeMs || (l.hash !== undefined && l.hash === m.hash))));
    if (!same) found.push(m.path);
  }
  for (const path of localWithin.get(unit.root.path) ?? []) if (!recorded.has(path)) found.push(path);
  return found;
}

/**
 * Applies the selection to the trees. `caseInsensitive` as the planner compares names (an excluded folder's place is
 * its given name among its siblings on the drive).
 */
export function selectView(trees: Trees, selection: Selection, caseInsensitive = false): SelectedView {
  const { base, local, remote } = trees;
  const outside = entriesOutside(remote, selection.excluded);
  const none: SelectedView = {
    trees,
    settledTrees: trees,
    excludedRoots: new Set(),
    leftOut: () => false,
    operations: [],
    skipped: [],
    outside,
  };
  if (outside.size === 0) return none;

  // Synced items now inside an excluded folder on the drive, grouped by local copy (shallowest recorded path first).
  const units = new Map<RelPath, Unit>();
  const excludedBase = [...base.values()].filter((b) => outside.has(b.remoteId)).sort((a, b) => depth(a.path) - depth(b.path));
  const unitOf = (path: RelPath): Unit | undefined => {
    for (let p = path; ; p = parentOf(p)) {
      const unit = units.get(p);
      if (unit) return unit;
      if (p === '') return undefined;
    }
  };
  for (const b of excludedBase) {
    const unit = unitOf(b.path);
    if (unit) unit.members.push(b);
    else units.set(b.path, { root: b, members: [b], visitors: 0 });
  }
  if (units.size > 0) for (const b of base.values()) if (!outside.has(b.remoteId) && unitOf(b.path)) unitOf(b.path)!.visitors++;

  // Local items inside each copy.
  const localWithin = new Map<RelPath, RelPath[]>();
  if (units.size > 0) {
    for (const path of local.keys()) {
      const unit = unitOf(path);
      if (!unit) continue;
      const list = localWithin.get(unit.root.path) ?? [];
      list.push(path);
      localWithin.set(unit.root.path, list);
    }
  }

  const hiddenBase = new Set<RemoteId>();
  const hiddenLocal = new Set<RelPath>();
  const hiddenRemote = new Set<RemoteId>(outside);
  const operations: Operation[] = [];
  const skipped: Plan['skipped'] = [];
  const visitorPaths = new Set<RelPath>();
  if (units.size > 0) for (const b of base.values()) if (!outside.has(b.remoteId) && unitOf(b.path)) visitorPaths.add(b.path);

  const excludedRootOf = (id: RemoteId): RemoteItem | undefined => {
    let top: RemoteItem | undefined;
    for (let cur = remote.get(id); cur && outside.has(cur.id); cur = cur.parentId === null ? undefined : remote.get(cur.parentId)) {
      if (selection.excluded.has(cur.id)) top = cur;
    }
    return top;
  };

  for (const unit of units.values()) {
    const held = holders(unit, local, localWithin);
    const hideUnit = () => {
      for (const m of unit.members) hiddenBase.add(m.remoteId);
      for (const path of localWithin.get(unit.root.path) ?? []) if (!visitorPaths.has(path)) hiddenLocal.add(path);
    };
    if (held.length === 0) {
      hideUnit();
      // E1: the copy is as synced: it goes, once what moves out of it on the drive has (M2).
      if (unit.visitors === 0) {
        const bytes = unit.members.reduce((sum, m) => sum + (m.type === 'file' ? m.size : 0), 0);
        operations.push({ kind: 'drop-local', rule: 'E1', path: unit.root.path, remoteId: unit.root.remoteId, count: unit.members.length, bytes });
      }
      continue;
    }
    const excludedRoot = excludedRootOf(unit.root.remoteId);
    if (excludedRoot && base.has(excludedRoot.id)) {
      // E2: excluded here with changes not on the drive yet: they are synced first (uploads, renames, deletions), as
      // if the folder were included; nothing new on the drive comes down. Then E1.
      for (const m of unit.members) hiddenRemote.delete(m.remoteId);
      skipped.push({ path: unit.root.path, reason: excludedWaitsFor(held), fails: false });
      continue;
    }
    // E4: changed here and moved on the drive into a folder left out: it stays here, untouched, until the user says.
    hideUnit();
    const where = excludedRoot ? excludedRoot.name : 'an excluded folder';
    skipped.push({
      path: unit.root.path,
      reason: `was moved on the drive into ${where}, which this computer leaves out, and has changes made here: it is kept here and not synced; include ${where} or move it back on the drive`,
      fails: true,
    });
  }

  // Excluded folders with no local copy: their entries stay in the remote tree to hold their names (the table places
  // none of them), and a local folder at that place is left out (E3).
  const excludedRoots = new Set<RemoteId>();
  const leftOutPaths: RelPath[] = [];
  const roots = [...selection.excluded].map((id) => remote.get(id)).filter((r): r is RemoteItem => r !== undefined && !base.has(r.id));
  const topRoots = roots.filter((r) => r.parentId === null || !outside.has(r.parentId));
  if (topRoots.length > 0) {
    const parents = new Set(topRoots.map((r) => r.parentId));
    const siblings = new Map<RemoteId | null, RemoteItem[]>();
    for (const r of remote.values()) {
      if (!parents.has(r.parentId) || (outside.has(r.id) && !selection.excluded.has(r.id))) continue;
      const list = siblings.get(r.parentId) ?? [];
      list.push(r);
      siblings.set(r.parentId, list);
    }
    const given = new Map<RemoteId | null, Map<RemoteId, string>>();
    for (const r of topRoots) {
      hiddenRemote.delete(r.id);
      excludedRoots.add(r.id);
      const parentPath = r.parentId === null ? '' : base.get(r.parentId)?.path;
      if (parentPath === undefined) continue;
      if (!given.has(r.parentId)) given.set(r.parentId, givenNames(siblings.get(r.parentId) ?? [], caseInsensitive));
      const path = joinPath(parentPath, given.get(r.parentId)!.get(r.id) ?? r.name);
      leftOutPaths.push(path);
      if (local.has(path) && !visitorPaths.has(path)) {
        skipped.push({ path, reason: LEFT_OUT_PLACE(r.name), fails: false });
      }
    }
  }
  const leftOut = (path: RelPath) => leftOutPaths.some((p) => isWithin(path, p));

  const planTrees: Trees = { base: hide(base, hiddenBase), local: hide(local, hiddenLocal), remote: hide(remote, hiddenRemote) };
  const withoutRoots = new Set(hiddenRemote);
  for (const id of excludedRoots) withoutRoots.add(id);
  // Left-out local items are not base's either: `settled` compares the rest.
  const hiddenForSettled = new Set(hiddenLocal);
  if (leftOutPaths.length > 0) for (const path of local.keys()) if (leftOut(path) && !visitorPaths.has(path)) hiddenForSettled.add(path);
  const settledTrees: Trees = { base: planTrees.base, local: hide(local, hiddenForSettled), remote: hide(remote, withoutRoots) };
  return { trees: planTrees, settledTrees, excludedRoots, leftOut, operations, skipped, outside };
}

const depth = (path: RelPath): number => (path === '' ? 0 : path.split('/').length);

function excludedWaitsFor(held: readonly RelPath[]): string {
  const shown = held.slice(0, 3).join(', ') + (held.length > 3 ? ` and ${held.length - 3} more` : '');
  return `excluded: leaves this computer once what changed here is on the drive (${shown})`;
}

/**
 * What a remote trash of these entries would take along from inside excluded folders, which this computer cannot
 * see: the user is asked first.
 */
export function excludedTakenBy(
  remote: ReadonlyMap<RemoteId, RemoteItem>,
  outside: ReadonlySet<RemoteId>,
  trashed: ReadonlySet<RemoteId>,
): { items: number; bytes: number } {
  let items = 0;
  let bytes = 0;
  if (trashed.size === 0) return { items, bytes };
  for (const id of outside) {
    const item = remote.get(id);
    if (!item) continue;
    let cur: RemoteItem | undefined = item;
    for (let hops = 0; cur && hops < 10_000; hops++) {
      if (trashed.has(cur.id)) {
        items++;
        if (item.type === 'file') bytes += item.size;
        break;
      }
      cur = cur.parentId === null ? undefined : remote.get(cur.parentId);
    }
  }
  return { items, bytes };
}

/** New top-level folders of the drive, made elsewhere, that a folder set to leave them out should exclude now. */
export function newTopFolders(trees: Trees, selection: Selection): RemoteItem[] {
  if (selection.newFolders !== 'exclude') return [];
  const found: RemoteItem[] = [];
  for (const r of trees.remote.values()) {
    if (r.parentId !== null || r.type !== 'folder' || trees.base.has(r.id) || selection.excluded.has(r.id)) continue;
    // A local folder of its name made at the same time is matched with it (N3), not left out.
    if (trees.local.has(r.name)) continue;
    found.push(r);
  }
  return found;
}

/** Sizes of remote folders (bytes and files of their subtrees), for the folder chooser and `drivesync excluded`. */
export function folderSizes(remote: ReadonlyMap<RemoteId, RemoteItem>): Map<RemoteId, { bytes: number; files: number }> {
  const sizes = new Map<RemoteId, { bytes: number; files: number }>();
  for (const r of remote.values()) if (r.type === 'folder') sizes.set(r.id, { bytes: 0, files: 0 });
  for (const r of remote.values()) {
    if (r.type !== 'file') continue;
    let cur = r.parentId === null ? undefined : remote.get(r.parentId);
    for (let hops = 0; cur && hops < 10_000; hops++) {
      const size = sizes.get(cur.id);
      if (size) {
        size.bytes += r.size;
        size.files++;
      }
      cur = cur.parentId === null ? undefined : remote.get(cur.parentId);
    }
  }
  return sizes;
}

/** A plan with what selective sync decided. */
export interface SelectedPlan extends Plan {
  /** Nothing differs from base in what is synced: no plan was made. */
  quiet: boolean;
  /** Remote entries inside excluded folders: what a remote trash must not take along unasked. */
  outside: ReadonlySet<RemoteId>;
}

/**
 * The planner with a selection: the rows E1–E4 decide about what is excluded, and the decision table plans the rest
 * (left-out local folders count as ignored names there: never uploaded).
 */
export function planSelected(trees: Trees, selection: Selection, options: PlanOptions = {}): SelectedPlan {
  const caseInsensitive = options.caseInsensitive ?? false;
  const view = selectView(trees, selection, caseInsensitive);
  const quiet = view.operations.length === 0 && view.skipped.length === 0 && settled(view.settledTrees, { caseInsensitive });
  if (quiet) return { operations: [], deletions: 0, skipped: [], notes: [], quiet, outside: view.outside };
  const ignored = options.isIgnored ?? (() => false);
  const isIgnored = view.excludedRoots.size > 0 ? (path: RelPath, type: LocalItem['type']) => view.leftOut(path) || ignored(path, type) : ignored;
  const table = planChanges(view.trees, { ...options, isIgnored, excludedRoots: view.excludedRoots });
  return {
    operations: [...view.operations, ...table.operations],
    deletions: table.deletions,
    skipped: [...view.skipped, ...table.skipped],
    notes: table.notes,
    quiet,
    outside: view.outside,
  };
}
