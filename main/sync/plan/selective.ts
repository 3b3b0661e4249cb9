/**
 * Selective sync: folders of the drive this computer leaves out, named by entry id (so an exclusion follows its folder
 * when it is renamed or moved anywhere). The selection is applied to the three trees before the decision table sees
 * them: the rows E1–E4 of docs/sync-rules.md ("Excluded folders"). Pure: no I/O, no clock.
 *
 * What it guarantees: nothing that exists only on this computer is removed (a local copy leaves only once every item
 * in it is as synced, and then only the synced items go), nothing inside an excluded folder is downloaded, and a
 * local folder that has an excluded folder's place is never merged into it, uploaded or deleted.
 */
import { sameItem } from '../model/birth.js';
import { addTo } from '../model/grouping.js';
import { baseName, givenNames, isGivenName, isWithin, joinPath, nameKey, nameRules, parentOf, safeLocalName, type NameRules } from '../model/names.js';
import { planChanges, settled, type PlanOptions } from './plan.js';
import type { BaseItem, LocalItem, Operation, Plan, RelPath, RemoteId, RemoteItem, Trees } from '../model/types.js';

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
  /** New on the drive inside a copy whose changes are synced first (E2): seen by the table, never placed here. */
  heldBack: ReadonlySet<RemoteId>;
  /** The local items of the copies left out (E1): they keep their places, and are no synced item the table sees. */
  copies: ReadonlySet<RelPath>;
  /** Local paths never uploaded: local folders at an excluded folder's place, and what they hold (E3). */
  leftOut: (path: RelPath) => boolean;
  /** Some local item is left out: here, and no row of base. */
  leftOutHere: boolean;
  /** Local copies of excluded folders that can go now (E1). */
  operations: Operation[];
  skipped: Plan['skipped'];
  /** Remote entries inside excluded folders (and those folders): what a remote trash must not take unasked. */
  outside: ReadonlySet<RemoteId>;
}

export const LEFT_OUT_PLACE = (shown: string) =>
  `has the place of ${shown}, a folder of the drive this computer leaves out: it is not synced; include the drive's folder (drivesync include) or rename this one`;

/** A read-only view of a map with some keys left out, without copying it (a tree may hold a million items). */
export class Without<K, V> implements ReadonlyMap<K, V> {
  readonly size: number;
  constructor(
    private readonly source: ReadonlyMap<K, V>,
    private readonly hidden: ReadonlySet<K>,
    /** Values shown in place of the source's for these keys. */
    private readonly masked: ReadonlyMap<K, V> = new Map(),
  ) {
    let hiddenHere = 0;
    for (const key of hidden) if (source.has(key)) hiddenHere++;
    this.size = source.size - hiddenHere;
  }
  get(key: K): V | undefined {
    return this.hidden.has(key) ? undefined : (this.masked.get(key) ?? this.source.get(key));
  }
  has(key: K): boolean {
    return !this.hidden.has(key) && this.source.has(key);
  }
  *entries(): IterableIterator<[K, V]> {
    for (const entry of this.source.entries()) {
      if (this.hidden.has(entry[0])) continue;
      const masked = this.masked.get(entry[0]);
      yield masked === undefined ? entry : [entry[0], masked];
    }
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
  /** Synced items not excluded recorded inside it: the table decides about them first (M2 moves them out). */
  visitors: number;
}

/**
 * Whether the local copy is as synced: every synced item at its recorded place unchanged, or gone from this computer
 * (deleted here: its bytes are on the drive, and the exclusion says it does not live here), and nothing new inside.
 * `held`: what holds it otherwise (an edit, a new item, an item moved elsewhere here); `gone`: the items deleted here.
 */
function holders(
  unit: Unit,
  local: ReadonlyMap<RelPath, LocalItem>,
  localWithin: ReadonlyMap<RelPath, RelPath[]>,
  isIgnored: (path: RelPath, type: LocalItem['type']) => boolean,
  movedElsewhere: (item: BaseItem) => boolean,
  /** A synced item not excluded is recorded at this path (it moves out first: not the copy's to hold). */
  synced: (path: RelPath) => boolean,
): { held: RelPath[]; gone: BaseItem[] } {
  const found: RelPath[] = [];
  const gone: BaseItem[] = [];
  const recorded = new Set<RelPath>();
  for (const m of unit.members) {
    recorded.add(m.path);
    const l = local.get(m.path);
    if (l === undefined && !movedElsewhere(m)) {
      gone.push(m);
      continue;
    }
    const same =
      l !== undefined &&
      l.type === m.type &&
      sameItem(l, m) &&
      (m.type === 'folder' || (l.size === m.size && (l.mtimeMs === m.mtimeMs || (l.hash !== undefined && l.hash === m.hash))));
    if (!same) found.push(m.path);
  }
  // Ignored names inside (temp files, .syncignore) are not uploaded: they do not hold the copy back, and stay (E1).
  for (const path of localWithin.get(unit.root.path) ?? []) {
    if (!recorded.has(path) && !synced(path) && !isIgnored(path, local.get(path)!.type)) found.push(path);
  }
  return { held: found, gone };
}

/**
 * Applies the selection to the trees. `names` as the planner names items (an excluded folder's place is its given
 * name among its siblings on the drive).
 */
export function selectView(
  trees: Trees,
  selection: Selection,
  names: NameRules = nameRules(),
  isIgnored: (path: RelPath, type: LocalItem['type']) => boolean = () => false,
): SelectedView {
  const outside = entriesOutside(trees.remote, selection.excluded);
  if (outside.size === 0) {
    return { trees, settledTrees: trees, excludedRoots: new Set(), heldBack: new Set(), copies: new Set(), leftOut: () => false, leftOutHere: false, operations: [], skipped: [], outside };
  }
  const view = new Selecting(trees, selection, outside, isIgnored);
  for (const unit of view.units.values()) view.decide(unit);
  view.holdBackNew();
  view.placeExcluded(names);
  return view.result();
}

/** One application of a selection to the trees: what the rows decide, and the trees the table is to see. */
class Selecting {
  readonly units = new Map<RelPath, Unit>();
  /** Synced items not excluded that are there in person inside a copy: they keep their places (not left out). */
  private readonly visitorPaths = new Set<RelPath>();
  /** Local items inside each copy, by the copy's path. */
  private readonly localWithin = new Map<RelPath, RelPath[]>();
  private readonly hiddenBase = new Set<RemoteId>();
  /** Synced items of the copies out of the table's sight (E1). */
  private readonly copyRows = new Set<RemoteId>();
  private readonly hiddenRemote: Set<RemoteId>;
  /** Synced items of E2 copies, which the table plans. */
  private readonly planned = new Set<RemoteId>();
  private readonly heldBack = new Set<RemoteId>();
  private readonly excludedRoots = new Set<RemoteId>();
  private readonly leftOutPaths: RelPath[] = [];
  /** Local copies out of the table's sight (E1). */
  private readonly unitPaths: RelPath[] = [];
  private readonly operations: Operation[] = [];
  private readonly skipped: Plan['skipped'] = [];
  private byInode: Map<number, LocalItem[]> | null = null;

  constructor(
    private readonly trees: Trees,
    private readonly selection: Selection,
    private readonly outside: ReadonlySet<RemoteId>,
    private readonly isIgnored: (path: RelPath, type: LocalItem['type']) => boolean,
  ) {
    this.hiddenRemote = new Set(outside);
    this.groupCopies();
  }

  /** Synced items now inside an excluded folder on the drive, grouped by local copy (shallowest recorded path first). */
  private groupCopies(): void {
    const { base, local } = this.trees;
    const excludedBase = [...base.values()].filter((b) => this.outside.has(b.remoteId)).sort((a, b) => depth(a.path) - depth(b.path));
    for (const b of excludedBase) {
      const unit = this.unitOf(b.path);
      if (unit) unit.members.push(b);
      else this.units.set(b.path, { root: b, members: [b], visitors: 0 });
    }
    if (this.units.size === 0) return;
    // Synced items that are not excluded, recorded inside a copy: the table decides about them first (moved out on
    // the drive, deleted somewhere), and the copy waits.
    for (const b of base.values()) {
      if (this.outside.has(b.remoteId)) continue;
      const unit = this.unitOf(b.path);
      if (!unit) continue;
      unit.visitors++;
      const l = local.get(b.path);
      if (l !== undefined && l.type === b.type && sameItem(l, b)) this.visitorPaths.add(b.path);
    }
    for (const path of local.keys()) {
      const unit = this.unitOf(path);
      if (unit) addTo(this.localWithin, unit.root.path, path);
    }
  }

  private unitOf(path: RelPath): Unit | undefined {
    for (let p = path; ; p = parentOf(p)) {
      const unit = this.units.get(p);
      if (unit) return unit;
      if (p === '') return undefined;
    }
  }

  /** The excluded folder (the topmost one of the selection) that an entry is inside on the drive. */
  private excludedRootOf(id: RemoteId): RemoteItem | undefined {
    const { remote } = this.trees;
    let top: RemoteItem | undefined;
    for (let cur = remote.get(id); cur && this.outside.has(cur.id); cur = cur.parentId === null ? undefined : remote.get(cur.parentId)) {
      if (this.selection.excluded.has(cur.id)) top = cur;
    }
    return top;
  }

  /** Where a synced item is here now, if it moved away from its recorded place (found by its identity). */
  private movedTo(m: BaseItem): RelPath | undefined {
    if (!this.byInode) {
      this.byInode = new Map();
      for (const l of this.trees.local.values()) addTo(this.byInode, l.inode, l);
    }
    return (this.byInode.get(m.inode) ?? []).find((l) => l.path !== m.path && l.type === m.type && sameItem(l, m))?.path;
  }

  private movedElsewhere(m: BaseItem): boolean {
    const l = this.trees.local.get(m.path);
    return !(l && l.type === m.type && sameItem(l, m)) && this.movedTo(m) !== undefined;
  }

  /** Where a synced item is now: at its recorded place (itself, or what an atomic save put there), or where it moved. */
  private currentPath(m: BaseItem): RelPath | undefined {
    const l = this.trees.local.get(m.path);
    if (l && l.type === m.type && sameItem(l, m)) return m.path;
    return this.movedTo(m) ?? (l ? m.path : undefined);
  }

  /** One local copy: E1 (it goes, or its rows are forgotten), E2 (its changes are planned first) or E4. */
  decide(unit: Unit): void {
    const { local } = this.trees;
    const { held, gone } = holders(unit, local, this.localWithin, this.isIgnored, (m) => this.movedElsewhere(m), (path) => this.visitorPaths.has(path));
    // Deleted here inside an excluded folder: not a deletion to send (the folder does not live here); forgotten.
    for (const m of gone) this.hiddenBase.add(m.remoteId);
    if (held.length === 0) {
      this.hideCopy(unit);
      if (!local.has(unit.root.path)) {
        // Deleted here as a whole: nothing to remove, only rows to forget (and its place is free for the table).
        for (const m of unit.members) this.operations.push({ kind: 'forget', rule: 'E1', remoteId: m.remoteId });
        return;
      }
      // E1: the copy is as synced: it goes, once what moves out of it on the drive has (M2).
      if (unit.visitors > 0) return;
      const bytes = unit.members.reduce((sum, m) => sum + (m.type === 'file' ? m.size : 0), 0);
      // Items gone here make it wait, in live mode, until the folder settles (V1): they may have moved.
      const drop: Operation = { kind: 'drop-local', rule: 'E1', path: unit.root.path, remoteId: unit.root.remoteId, count: unit.members.length, bytes };
      this.operations.push(gone.length > 0 ? { ...drop, gone: gone.length } : drop);
      return;
    }
    const excludedRoot = this.excludedRootOf(unit.root.remoteId);
    const at = this.currentPath(unit.root) ?? unit.root.path;
    if (excludedRoot && this.trees.base.has(excludedRoot.id)) {
      // E2: excluded here with changes not on the drive yet: they are synced first (uploads, renames, deletions), as
      // if the folder were included; nothing new on the drive comes down. Then E1.
      this.planCopy(unit, excludedRoot);
      this.skipped.push({ path: at, reason: excludedWaitsFor(held), fails: false });
      return;
    }
    // E4: changed here, and moved on the drive into an excluded folder not here: to the table it is gone from the
    // drive, so the change is uploaded where it is here, as a new entry (D4, D5); the drive's entry stays where it was
    // moved. Nothing is lost, and nothing waits on the user.
    const where = excludedRoot ? excludedRoot.name : 'an excluded folder';
    const reason = `was moved on the drive into ${where}, which this computer leaves out, after it changed here: the version here is uploaded where it is, as a new item`;
    this.skipped.push({ path: at, reason, fails: false });
  }

  /**
   * Out of the table's sight, but not of its names: the copy here keeps its place (never uploaded, as an ignored
   * name), and the drive's entries that are excluded folders themselves keep their names among their siblings — the
   * copy's own, and one the drive moved out of it to a folder synced here.
   */
  private hideCopy(unit: Unit): void {
    for (const m of unit.members) {
      this.hiddenBase.add(m.remoteId);
      this.copyRows.add(m.remoteId);
      const r = this.trees.remote.get(m.remoteId);
      if (r && (r.parentId === null || !this.outside.has(r.parentId))) {
        this.hiddenRemote.delete(r.id);
        this.excludedRoots.add(r.id);
      }
    }
    this.leftOutPaths.push(unit.root.path);
    this.unitPaths.push(unit.root.path);
  }

  /**
   * Each member of an E2 copy where the drive has it, if that is in a folder synced here inside an excluded folder
   * synced here (else, to the table, it is gone from the drive: E4).
   */
  private planCopy(unit: Unit, excludedRoot: RemoteItem): void {
    const { base, remote } = this.trees;
    for (const m of unit.members) {
      const own = m === unit.root ? excludedRoot : this.excludedRootOf(m.remoteId);
      const parent = remote.get(m.remoteId)?.parentId ?? null;
      if (!own || !base.has(own.id) || (parent !== null && !base.has(parent))) continue;
      this.hiddenRemote.delete(m.remoteId);
      this.planned.add(m.remoteId);
    }
  }

  /**
   * What is new on the drive inside an E2 copy stays in the table's sight, never placed here: it keeps a folder
   * deleted or moved away here from being trashed on the drive (an edit beats a deletion, D6), and is not downloaded.
   */
  holdBackNew(): void {
    if (this.planned.size === 0) return;
    const { base, remote } = this.trees;
    for (const id of this.outside) {
      if (base.has(id)) {
        // A folder synced elsewhere and moved in there on the drive, whose own copy goes by E1: the drive refuses a
        // new folder of its name beside it, so one made here is numbered (N2). (The drive takes a file's name twice;
        // a file in sight would pass for the new entry of a synced file gone from its place, C2.)
        const r = remote.get(id);
        if (this.copyRows.has(id) && r?.type === 'folder' && r.parentId !== null && this.planned.has(r.parentId)) this.holdBack(id);
        continue;
      }
      let cur = remote.get(id);
      for (let hops = 0; cur && !base.has(cur.id) && hops < 10_000; hops++) cur = cur.parentId === null ? undefined : remote.get(cur.parentId);
      if (cur && this.planned.has(cur.id)) this.holdBack(id);
    }
  }

  private holdBack(id: RemoteId): void {
    this.heldBack.add(id);
    this.hiddenRemote.delete(id);
  }

  /**
   * Excluded folders with no local copy: their entries stay in the remote tree to hold their names (the table places
   * none of them), and a local folder at that place is left out (E3).
   */
  placeExcluded(names: NameRules): void {
    const { base, local, remote } = this.trees;
    const roots = [...this.selection.excluded].map((id) => remote.get(id)).filter((r): r is RemoteItem => r !== undefined && !base.has(r.id));
    const topRoots = roots.filter((r) => r.parentId === null || !this.outside.has(r.parentId));
    if (topRoots.length === 0) return;
    const parents = new Set(topRoots.map((r) => r.parentId));
    const siblings = new Map<RemoteId | null, RemoteItem[]>();
    for (const r of remote.values()) {
      if (parents.has(r.parentId) && !(this.outside.has(r.id) && !this.selection.excluded.has(r.id))) addTo(siblings, r.parentId, r);
    }
    const given = new Map<RemoteId | null, Map<RemoteId, string>>();
    for (const r of topRoots) {
      this.hiddenRemote.delete(r.id);
      this.excludedRoots.add(r.id);
      const parentPath = r.parentId === null ? '' : base.get(r.parentId)?.path;
      if (parentPath === undefined) continue;
      if (!given.has(r.parentId)) given.set(r.parentId, givenNames(siblings.get(r.parentId) ?? [], names));
      const path = joinPath(parentPath, given.get(r.parentId)!.get(r.id) ?? r.name);
      // A local folder there that holds what this computer synced is no copy of the excluded one (a folder whose
      // entry the drive deleted, with synced items moved in: D5): left out, those items would count as deleted. It
      // goes up as a new folder (N2), and the drive's names number the two (M6).
      if (local.has(path) && this.holdsSynced(path)) continue;
      this.leftOutPaths.push(path);
      if (local.has(path) && !this.visitorPaths.has(path) && this.holdsUploads(path)) this.skipped.push({ path, reason: LEFT_OUT_PLACE(r.name), fails: false });
    }
  }

  /**
   * Whether what is at `path` here has anything N2 would send: a file of its own. A folder holding nothing but folders
   * and ignored names (what E1 leaves of a copy that held an ignored file) could never be merged into the drive's
   * folder, so it is no clash to tell; it stays left out all the same, and an include matches it (N3).
   */
  private holdsUploads(path: RelPath): boolean {
    const { local } = this.trees;
    for (const p of local.keys()) {
      if (!isWithin(p, path)) continue;
      const item = local.get(p)!;
      if (item.type !== 'folder' && !this.isIgnored(p, item.type)) return true;
    }
    return false;
  }

  /** A synced item the table sees is at `path` or below it here: recorded there, or moved in. */
  private holdsSynced(path: RelPath): boolean {
    for (const b of this.trees.base.values()) {
      if (this.hiddenBase.has(b.remoteId)) continue;
      if (isWithin(b.path, path)) return true;
      const now = this.movedTo(b);
      if (now !== undefined && isWithin(now, path)) return true;
    }
    return false;
  }

  /** The trees the table plans and `settled` compares, and what the rows decided. */
  result(): SelectedView {
    const { base, local, remote } = this.trees;
    const leftOut = (path: RelPath) => !this.visitorPaths.has(path) && this.leftOutPaths.some((p) => isWithin(path, p));
    // The copies left out keep their places for the table, as ignored names, but not their identities: a synced item
    // it still sees must not take one of them for itself (a folder made again at its path, a move).
    const masked = new Map<RelPath, LocalItem>();
    for (const root of this.unitPaths) {
      for (const path of this.localWithin.get(root) ?? []) {
        if (this.visitorPaths.has(path)) continue;
        const { birthtimeMs: _, ...item } = local.get(path)!;
        masked.set(path, { ...item, inode: -1 - item.inode });
      }
    }
    const planTrees: Trees = { base: hide(base, this.hiddenBase), local: masked.size > 0 ? new Without(local, new Set(), masked) : local, remote: hide(remote, this.hiddenRemote) };
    const withoutRoots = new Set([...this.hiddenRemote, ...this.excludedRoots]);
    // Left-out local items are not base's either: `settled` compares the rest.
    const hiddenForSettled = new Set<RelPath>();
    if (this.leftOutPaths.length > 0) for (const path of local.keys()) if (leftOut(path)) hiddenForSettled.add(path);
    const settledTrees: Trees = { base: planTrees.base, local: hide(local, hiddenForSettled), remote: hide(remote, withoutRoots) };
    const copies = new Set(masked.keys());
    return {
      trees: planTrees,
      settledTrees,
      excludedRoots: this.excludedRoots,
      heldBack: this.heldBack,
      copies,
      leftOut,
      leftOutHere: hiddenForSettled.size > 0,
      operations: this.operations,
      skipped: this.skipped,
      outside: this.outside,
    };
  }
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
  /** The excluded folders themselves: the trash's own count has them (their names are in the table's sight). */
  roots: ReadonlySet<RemoteId> = new Set(),
): { items: number; bytes: number } {
  let items = 0;
  let bytes = 0;
  if (trashed.size === 0) return { items, bytes };
  for (const id of outside) {
    if (roots.has(id)) continue;
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
    // drivesync's own folder for what is shared with the account (a negative id) is not a folder of the drive.
    if (r.parentId !== null || r.type !== 'folder' || r.id < 0 || trees.base.has(r.id) || selection.excluded.has(r.id)) continue;
    // A local folder of its name made at the same time is matched with it (N3), not left out.
    if (trees.local.has(r.name)) continue;
    found.push(r);
  }
  return found;
}

/**
 * An excluded folder changes the names the drive gives its siblings: it shares a name with one (a duplicate on the
 * drive, case twins), or holds a number a duplicate would have had (`a (2).txt` named by hand, so the second `a.txt`
 * is `a (3).txt`). `settled` is blind to excluded folders and cannot tell, so the table looks. Only the excluded
 * folders' siblings are named (a name made safe costs more than the rest of a quiet pass).
 */
function namesClashWithExcluded(trees: Trees, roots: ReadonlySet<RemoteId>, names: NameRules): boolean {
  if (roots.size === 0) return false;
  const parents = new Set<RemoteId | null>();
  for (const id of roots) {
    const r = trees.remote.get(id);
    if (r) parents.add(r.parentId);
  }
  const siblings = new Map<RemoteId | null, RemoteItem[]>();
  for (const r of trees.remote.values()) if (parents.has(r.parentId)) addTo(siblings, r.parentId, r);
  for (const entries of siblings.values()) {
    const given = givenNames(entries, names);
    for (const r of entries) {
      if (roots.has(r.id)) continue;
      const b = trees.base.get(r.id);
      if (b === undefined) continue; // not synced yet: the pass is not quiet anyway
      const local = baseName(b.path);
      if (isGivenName(local, r.name, names) && nameKey(given.get(r.id)!, names) !== nameKey(local, names)) return true;
    }
  }
  return false;
}

/** A plan with what selective sync decided. */
export interface SelectedPlan extends Plan {
  /** Nothing differs from base in what is synced: no plan was made. */
  quiet: boolean;
  /** Remote entries inside excluded folders: what a remote trash must not take along unasked. */
  outside: ReadonlySet<RemoteId>;
}

/** The plan when nothing differs from base in what is synced. */
export const quietPlan = (outside: ReadonlySet<RemoteId> = new Set()): SelectedPlan => ({ operations: [], deletions: 0, skipped: [], notes: [], quiet: true, outside });

/**
 * The planner with a selection: the rows E1–E4 decide about what is excluded, and the decision table plans the rest
 * (left-out local folders count as ignored names there: never uploaded).
 */
export function planSelected(trees: Trees, selection: Selection, options: PlanOptions = {}): SelectedPlan {
  const names = nameRules(options);
  const ignored = options.isIgnored ?? (() => false);
  const view = selectView(trees, selection, names, ignored);
  // A quiet folder is kept as base alone until its next pass: a local item left out (what E1 left of a copy, a folder
  // at an excluded folder's place) is no row of base, and would drop out of sight (an include would make it anew).
  const quiet =
    view.operations.length === 0 &&
    view.skipped.length === 0 &&
    !view.leftOutHere &&
    settled(view.settledTrees, { ...names, alsoNamed: [...view.excludedRoots].flatMap((id) => trees.remote.get(id) ?? []) }) &&
    !namesClashWithExcluded(trees, view.excludedRoots, names);
  if (quiet) return quietPlan(view.outside);
  const isIgnored = view.outside.size > 0 ? (path: RelPath, type: LocalItem['type']) => view.leftOut(path) || ignored(path, type) : ignored;
  const table = planChanges(view.trees, { ...options, isIgnored, excludedRoots: view.excludedRoots, heldBack: view.heldBack, leftOutCopies: view.copies });
  // A local copy inside a folder the table moves or moves aside this pass goes next pass, from where it is then; one
  // whose entry goes to the drive's trash with a folder this pass is no longer on the drive: it waits, and then it is
  // a deletion on the drive like any other (D1, to the OS trash).
  const moving = table.operations.flatMap((op) =>
    op.kind === 'move-local' ? [op.from] : op.kind === 'trash-local' || op.kind === 'conflict' || op.kind === 'resolve-twin' ? [op.path] : [],
  );
  const trashed = new Set(table.operations.flatMap((op) => (op.kind === 'trash-remote' ? [op.remoteId] : [])));
  const goesWithTrash = (id: RemoteId): boolean => {
    for (let cur = trees.remote.get(id), hops = 0; cur && hops < 10_000; cur = cur.parentId === null ? undefined : trees.remote.get(cur.parentId), hops++) {
      if (trashed.has(cur.id)) return true;
    }
    return false;
  };
  const dropping = view.operations.filter(
    (op) => op.kind !== 'drop-local' || !(moving.some((path) => isWithin(op.path, path)) || (trashed.size > 0 && goesWithTrash(op.remoteId))),
  );
  return {
    operations: [...dropping, ...table.operations],
    deletions: table.deletions,
    skipped: [...view.skipped, ...table.skipped],
    notes: table.notes,
    quiet,
    outside: view.outside,
  };
}
