/**
 * The state of one planning pass, shared by the rows and the constraints: the operations emitted so far, and what
 * they already claim (local paths taken or vacated, remote parents and folder names to come). Its questions answer
 * for the trees as this pass's operations leave them, so a later row sees what an earlier one planned.
 */
import { addTo } from '../model/grouping.js';
import { parentsIn } from '../trees/queries.js';
import { baseName, givenNames, isGivenName, isWithin, joinPath, nameKey, numberedName, parentOf, safeLocalName, type NameRules } from '../model/names.js';
import type { LocalItem, Operation, Plan, RelPath, RemoteId, RemoteItem, Trees } from '../model/types.js';
import { folderKey, type Classified, type Status } from './classify.js';

export interface PlanStateOptions {
  /** The folder's volume's name rules. */
  names: NameRules;
  isIgnored: (path: RelPath, type: LocalItem['type']) => boolean;
  /** Remote folders left out by selective sync (not synced, never placed here). */
  excludedRoots?: ReadonlySet<RemoteId>;
  /** The trees are a slice of what is new here: operations beyond them remain (plan.ts `PlanOptions.slice`). */
  slice?: boolean;
}

export class PlanState {
  readonly base: Trees['base'];
  readonly local: Trees['local'];
  readonly remote: ReadonlyMap<RemoteId, RemoteItem>;
  readonly statuses: ReadonlyMap<RemoteId, Status>;
  readonly claimedLocal: ReadonlySet<RelPath>;
  readonly replacing: ReadonlySet<RemoteId>;
  readonly isIgnored: PlanStateOptions['isIgnored'];
  readonly slice: boolean;
  readonly excludedRoots: ReadonlySet<RemoteId>;
  private readonly names: NameRules;

  readonly operations: Operation[] = [];
  deletions = 0;
  readonly skipped: Plan['skipped'] = [];
  readonly notes: Plan['notes'] = [];

  /** Base items covered by an ancestor's operation this pass. */
  readonly handled = new Set<RemoteId>();
  /** Local paths this pass deletes, moves away from or moves aside. */
  readonly vacating = new Set<RelPath>();
  /** Local items not synced that a new remote entry matched (N3–N5). */
  readonly matchedLocal = new Set<RelPath>();
  /** Locally moved items whose remote place is inside them locally: they wait for something else to move. */
  readonly stuck = new Set<RemoteId>();
  /** Local moves the remote contradicts with a cycle (M1 ↔ M3), for the tie-break at the end of the pass. */
  readonly crossMoves: Status[] = [];
  /**
   * Items waiting for their given place, held by a synced item that is to move on: for the tie-break at the end of
   * the pass, should they wait on each other (two names swapped on the drive; a file moved into a new folder given
   * its name), each can go to a spare name instead (it emits, and says whether it did).
   */
  readonly waitingForPlace: Array<() => boolean> = [];
  /** Remote parents as they will be once this pass's move-remote operations are done. */
  readonly plannedParent = new Map<RemoteId, RemoteId | null>();
  /** Remote folder names this pass creates or moves in (the service refuses twins). */
  readonly newRemoteFolders = new Set<string>();
  /** Local items, sorted by path. */
  readonly sortedLocal: LocalItem[];

  private readonly byCurrentPath = new Map<RelPath, Status>();
  private readonly remoteChildren = new Map<RemoteId | null, RemoteItem[]>();
  private readonly baseChildren = new Map<RemoteId, RemoteId[]>();
  /** Paths taken by this pass's operations or by items that stay, for free-name checks: key(parent/name) → path. */
  private readonly occupied = new Map<string, RelPath>();
  /** Synced items that are nowhere locally, by their recorded path. */
  private readonly goneFrom = new Map<RelPath, Status[]>();
  /** The local names the drive's names give the entries of each remote folder (computed when first asked). */
  private readonly given = new Map<RemoteId | null, Map<RemoteId, string>>();
  /** Per remote folder, the oldest file entry of each name (olderTwin). */
  private readonly oldestFiles = new Map<RemoteId | null, Map<string, RemoteItem>>();
  /** What the drive holds in each synced folder deleted here (remoteInside), once a pass. */
  private readonly insideDeleted = new Map<RemoteId, { inside: RemoteItem[]; leaving: boolean; survives: boolean }>();

  constructor(trees: Trees, classified: Classified, options: PlanStateOptions) {
    this.base = trees.base;
    this.local = trees.local;
    this.remote = classified.remote;
    this.statuses = classified.statuses;
    this.claimedLocal = classified.claimedLocal;
    this.replacing = classified.replacing;
    this.isIgnored = options.isIgnored;
    this.slice = options.slice === true;
    this.excludedRoots = options.excludedRoots ?? new Set();
    this.names = options.names;
    for (const s of this.statuses.values()) if (s.local) this.byCurrentPath.set(s.local.path, s);
    for (const r of this.remote.values()) {
      const list = this.remoteChildren.get(r.parentId) ?? [];
      list.push(r);
      this.remoteChildren.set(r.parentId, list);
    }
    // Each local item read once from the (compact) tree.
    const locals = [...this.local.values()];
    for (const l of locals) this.occupied.set(this.occKey(l.path), l.path);
    this.sortedLocal = locals.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    for (const [id, parentId] of parentsIn(this.base)) if (parentId !== null) addTo(this.baseChildren, parentId, id);
    for (const st of this.statuses.values()) if (!st.local) addTo(this.goneFrom, st.base.path, st);
  }

  /** Adds an operation and what it claims for the rest of the pass (remote parents, remote folder names). */
  emit(op: Operation): void {
    this.operations.push(op);
    if (op.kind === 'create-remote-folder') this.newRemoteFolders.add(folderKey(op.parentId, op.name));
    if (op.kind === 'move-remote') this.plannedParent.set(op.remoteId, op.parentId);
    if ((op.kind === 'move-remote' || op.kind === 'rename-remote') && this.remote.get(op.remoteId)?.type === 'folder') {
      this.newRemoteFolders.add(folderKey(op.kind === 'move-remote' ? op.parentId : this.remote.get(op.remoteId)!.parentId, op.name));
    }
  }

  // --- Local questions ----------------------------------------------------------------------------------------

  /** Current local path of a synced item, if it exists locally ('' is the root). */
  currentPath(id: RemoteId | null): RelPath | undefined {
    return id === null ? '' : this.statuses.get(id)?.local?.path;
  }

  /** The synced item whose current local path is `path`. */
  syncedAt(path: RelPath): Status | undefined {
    return this.byCurrentPath.get(path);
  }

  /** The remote id of the synced folder now at a local path (null: the root), if it has a remote entry. */
  remoteIdAt(path: RelPath): RemoteId | null | undefined {
    if (path === '') return null;
    const s = this.byCurrentPath.get(path);
    return s && s.remote && s.base.type === 'folder' ? s.base.remoteId : undefined;
  }

  /** Local items below `path`, sorted by path. */
  localSubtree(path: RelPath): LocalItem[] {
    return this.sortedLocal.filter((l) => l.path !== path && isWithin(l.path, path));
  }

  /** A local folder that exists and stays this pass, so something can be put into it. */
  parentReady(parent: RelPath | undefined): parent is RelPath {
    return parent !== undefined && (parent === '' || (this.local.has(parent) && !this.vacating.has(parent) && !this.underVacating(parent)));
  }

  /** True when an ancestor of `path` is deleted or moved by this pass: anything inside waits for the next one. */
  underVacating(path: RelPath): boolean {
    for (let p = parentOf(path); p !== ''; p = parentOf(p)) if (this.vacating.has(p)) return true;
    return false;
  }

  /** The first free local path for `name` in `parent` (`name (2)`, …); `self` may keep its own path. */
  freeLocalPath(parent: RelPath, name: string, self?: RelPath): RelPath {
    const safe = safeLocalName(name, this.names);
    for (let n = 1; ; n++) {
      const candidate = joinPath(parent, numberedName(safe, n));
      const holder = this.occupied.get(this.occKey(candidate));
      if (holder === undefined || holder === self) return candidate;
    }
  }

  /** The local path now or about to be at a place (the same name on this volume), if any. */
  occupant(path: RelPath): RelPath | undefined {
    return this.occupied.get(this.occKey(path));
  }

  occupy(path: RelPath): void {
    this.occupied.set(this.occKey(path), path);
  }

  /**
   * A local item at the recorded path of a synced item it is not (a file replaced by a folder, or the reverse):
   * the synced item's row leaves that path this pass (trashed, forgotten or brought back elsewhere), then the
   * new item is handled. (An item recorded there that moved away locally does not count: its row follows when its
   * move is sent.)
   */
  replacesSynced(path: RelPath, incoming?: RemoteId): boolean {
    const gone = this.goneFrom.get(path);
    if (gone === undefined || this.claimedLocal.has(path)) return false;
    // One moved on the drive into the very entry arriving at its old place (at any depth) follows that entry, so it
    // cannot leave first: waiting for it would wait forever.
    return incoming === undefined || gone.some((st) => !this.isRemoteAncestor(incoming, st.remote?.parentId ?? null));
  }

  private occKey(path: RelPath): string {
    return `${nameKey(parentOf(path), this.names)}\u0000${nameKey(baseName(path), this.names)}`;
  }

  // --- Remote questions ---------------------------------------------------------------------------------------

  remoteChildrenOf(id: RemoteId | null): readonly RemoteItem[] {
    return this.remoteChildren.get(id) ?? [];
  }

  remoteSubtree(id: RemoteId): RemoteItem[] {
    const out: RemoteItem[] = [];
    const stack = [...(this.remoteChildren.get(id) ?? [])];
    while (stack.length > 0) {
      const r = stack.pop()!;
      out.push(r);
      stack.push(...(this.remoteChildren.get(r.id) ?? []));
    }
    return out;
  }

  /** A remote entry's parent as this pass's moves leave it. */
  remoteParent(id: RemoteId): RemoteId | null {
    return this.plannedParent.has(id) ? this.plannedParent.get(id)! : (this.remote.get(id)?.parentId ?? null);
  }

  /**
   * Could `ancestor` be above `id` at some point of this pass: now, after some of its moves (the executor runs them
   * in any order), or after all of them? Follows both the current and the planned parent of every entry.
   */
  mayBeRemoteAncestor(ancestor: RemoteId, id: RemoteId | null): boolean {
    const seen = new Set<RemoteId>();
    const stack: Array<RemoteId | null> = [id];
    while (stack.length > 0) {
      const cur = stack.pop()!;
      if (cur === null || seen.has(cur)) continue;
      if (cur === ancestor) return true;
      seen.add(cur);
      stack.push(this.remote.get(cur)?.parentId ?? null);
      if (this.plannedParent.has(cur)) stack.push(this.plannedParent.get(cur)!);
    }
    return false;
  }

  /** Is `ancestor` above `id` in the remote tree as this pass's moves leave it? */
  isRemoteAncestor(ancestor: RemoteId, id: RemoteId | null): boolean {
    for (let cur = id, guard = 0; cur !== null && guard < 10_000; guard++) {
      if (cur === ancestor) return true;
      cur = this.remoteParent(cur);
    }
    return false;
  }

  // --- Synced items -------------------------------------------------------------------------------------------

  /** Synced items below `id` by their recorded remote parents, not going below an item `prune` rejects. */
  baseDescendants(id: RemoteId, prune: (id: RemoteId) => boolean = () => false): RemoteId[] {
    const out: RemoteId[] = [];
    const seen = new Set<RemoteId>([id]);
    const stack = [...(this.baseChildren.get(id) ?? [])];
    while (stack.length > 0) {
      const cur = stack.pop()!;
      if (seen.has(cur) || prune(cur)) continue;
      seen.add(cur);
      out.push(cur);
      stack.push(...(this.baseChildren.get(cur) ?? []));
    }
    return out;
  }

  /** Where a locally moved item goes back to its remote place (M3), if that is possible this pass. */
  goBack(s: Status): RelPath | undefined {
    const here = s.local!;
    const home = this.currentPath(s.remote!.parentId);
    if (!this.parentReady(home)) return undefined;
    const target = this.placeFor(s.remote!, home, here.path) ?? this.spareLocalPath(home, s.remote!, here.path);
    return target === here.path || isWithin(target, here.path) ? undefined : target;
  }

  // --- Given names: the same local names on every computer ----------------------------------------------------

  /**
   * The local name the drive's names give an entry (names.ts `givenNames`): its safe name, or, among entries of its
   * folder whose names clash, numbered in the order of their ids — so every computer names duplicates alike. A synced
   * entry deleted or moved away here is on its way out of the folder on the drive and counts no more (the item renamed
   * onto its name keeps it) — unless the drive's side wins (keepsPlace).
   */
  givenName(r: RemoteItem): string {
    let given = this.given.get(r.parentId);
    if (given === undefined) {
      const staying = this.remoteChildrenOf(r.parentId).filter((child) => {
        const synced = this.statuses.get(child.id);
        return synced === undefined || this.keepsPlace(synced);
      });
      given = givenNames(staying, this.names);
      this.given.set(r.parentId, given);
    }
    return given.get(r.id) ?? safeLocalName(r.name, this.names);
  }

  /**
   * Whether a synced entry counts among its folder's names: not once deleted or moved away here (its removal is on its
   * way to the drive), but still where the drive's side wins — it moved there too (M3, M4), or it comes back here
   * (D4: changed there; D6: a folder the drive's side keeps), so the place it takes is its given one.
   */
  private keepsPlace(s: Status): boolean {
    if (s.local === undefined) return s.base.type === 'file' ? s.remoteChanged : this.remoteInside(s).survives;
    return !s.localMoved || s.followedFolder || s.remoteMoved;
  }

  /**
   * What the drive holds in a synced folder deleted here: something new, edited or moved in there keeps the folder
   * (`survives`, D6); an item moved out of it here leaves it first (`leaving`).
   */
  remoteInside(s: Status): { inside: RemoteItem[]; leaving: boolean; survives: boolean } {
    const known = this.insideDeleted.get(s.base.remoteId);
    if (known !== undefined) return known;
    const inside = this.remoteSubtree(s.base.remoteId);
    let leaving = false;
    let survives = false;
    for (const child of inside) {
      const synced = this.statuses.get(child.id);
      // Something new on the drive keeps the folder; an excluded folder is not new (the engine asks before its trash).
      if (!synced) survives ||= !this.excludedRoots.has(child.id);
      else if (synced.local) {
        if (synced.remoteMoved) survives = true; // moved in here remotely: keeps the folder
        else leaving = true; // moved out locally: let it leave first
      } else if (synced.remoteChanged) survives = true;
    }
    const found = { inside, leaving, survives };
    this.insideDeleted.set(s.base.remoteId, found);
    return found;
  }

  /** Two names are one on this volume. */
  sameName(a: string, b: string): boolean {
    return nameKey(a, this.names) === nameKey(b, this.names);
  }

  /** Whether a local name is one the drive's name gives (not a name the user chose that the drive refused). */
  isGiven(localName: string, remoteName: string): boolean {
    return isGivenName(localName, remoteName, this.names);
  }

  /**
   * Where a remote entry goes in the local folder `parent`: its given name, when that place is free or `self`'s.
   * Held by something that leaves this pass, by a synced item whose own given place is elsewhere (it moves there),
   * or by a new local item (it is uploaded, then both are named by the drive): undefined, it waits. Held by
   * something that stays (an ignored file, an item kept under a name the drive refused): a spare numbered name.
   */
  placeFor(r: RemoteItem, parent: RelPath, self?: RelPath): RelPath | undefined {
    const target = joinPath(parent, this.givenName(r));
    const holder = this.occupant(target);
    if (holder === undefined || holder === self) return target;
    if (this.vacating.has(holder)) return undefined;
    const item = this.local.get(holder);
    if (item === undefined) return undefined; // another operation of this pass puts something there
    const synced = this.syncedAt(holder);
    if (synced) return this.movesOn(synced) ? undefined : this.spareLocalPath(parent, r, self);
    // A new local item waits for a synced item recorded at its path to leave it: that one cannot wait for it.
    const waitsForIt = this.statuses.get(r.id)?.base.path === holder && this.replacesSynced(holder);
    return this.isIgnored(holder, item.type) || waitsForIt ? this.spareLocalPath(parent, r, self) : undefined;
  }

  /** A synced item that is not to stay where it is: gone remotely, or given another place by the drive's names. */
  movesOn(s: Status): boolean {
    const here = s.local;
    if (!here || !s.remote) return true;
    if (this.currentPath(s.remote.parentId) !== parentOf(here.path)) return true;
    const name = baseName(here.path);
    return this.isGiven(name, s.remote.name) && !this.sameName(this.givenName(s.remote), name);
  }

  /**
   * A numbered name for an entry whose given place something else keeps: free here, and given to no entry of its
   * remote folder (so no entry ever waits for it).
   */
  spareLocalPath(parent: RelPath, r: RemoteItem, self?: RelPath): RelPath {
    const givenKeys = new Set<string>();
    for (const sibling of this.remoteChildrenOf(r.parentId)) givenKeys.add(nameKey(this.givenName(sibling), this.names));
    const safe = safeLocalName(r.name, this.names);
    for (let n = 2; ; n++) {
      const name = numberedName(safe, n);
      const candidate = joinPath(parent, name);
      const holder = this.occupied.get(this.occKey(candidate));
      if ((holder === undefined || holder === self) && !givenKeys.has(nameKey(name, this.names))) return candidate;
    }
  }

  /** An older file entry of exactly the same name in the same remote folder (a duplicate name on the drive). */
  olderTwin(r: RemoteItem): RemoteItem | undefined {
    let oldest = this.oldestFiles.get(r.parentId);
    if (!oldest) {
      // Asked for every file this computer made: one index per folder, not a walk of its siblings each time.
      oldest = new Map();
      for (const sibling of this.remoteChildrenOf(r.parentId)) {
        if (sibling.type !== 'file') continue;
        const had = oldest.get(sibling.name);
        if (had === undefined || sibling.id < had.id) oldest.set(sibling.name, sibling);
      }
      this.oldestFiles.set(r.parentId, oldest);
    }
    const twin = oldest.get(r.name);
    return twin !== undefined && twin.id < r.id ? twin : undefined;
  }
}
