/**
 * What the file manager's emblems say of each path in a synced folder, answered from memory alone: a file manager asks
 * about every file it shows, as fast as a person scrolls, so no answer reads the disk or the drive. The engine marks
 * paths as it works (named by the watcher, planned, failed, kept as a conflicted copy) and clears them as they are
 * done; everything else inside the folder is synced. A folder says the most urgent state inside it.
 */
import { isWithin, joinPath, parentOf, safeLocalName, type NameRules } from '../model/names.js';
import type { RelPath, RemoteId, Trees } from '../model/types.js';
import { STATE_DIR } from '../local/state-dir.js';
import type { PathState } from '../model/states.js';


/** Paths marked with one state, and how many marked paths each folder holds (at any depth). */
export class Marks {
  private readonly paths = new Set<RelPath>();
  private readonly inside = new Map<RelPath, number>();

  get size(): number {
    return this.paths.size;
  }

  has(path: RelPath): boolean {
    return this.paths.has(path);
  }

  /** Whether a marked path lies inside `folder` ('' is the synced folder itself). */
  holds(folder: RelPath): boolean {
    return (this.inside.get(folder) ?? 0) > 0;
  }

  /** Marks a path; false when it was marked already. */
  add(path: RelPath): boolean {
    if (path === '' || this.paths.has(path)) return false;
    this.paths.add(path);
    for (const folder of ancestors(path)) this.inside.set(folder, (this.inside.get(folder) ?? 0) + 1);
    return true;
  }

  delete(path: RelPath): boolean {
    if (!this.paths.delete(path)) return false;
    for (const folder of ancestors(path)) {
      const left = (this.inside.get(folder) ?? 1) - 1;
      if (left === 0) this.inside.delete(folder);
      else this.inside.set(folder, left);
    }
    return true;
  }

  /** Marks exactly `paths`; returns the paths whose mark came or went. */
  set(paths: Iterable<RelPath>): RelPath[] {
    const next = new Set(paths);
    const changed: RelPath[] = [];
    for (const path of [...this.paths]) if (!next.has(path) && this.delete(path)) changed.push(path);
    for (const path of next) if (this.add(path)) changed.push(path);
    return changed;
  }

  values(): IterableIterator<RelPath> {
    return this.paths.values();
  }
}

/** The folders a path is in, nearest first, ending with the synced folder itself (''). */
export function ancestors(path: RelPath): RelPath[] {
  const out: RelPath[] = [];
  for (let p = parentOf(path); ; p = parentOf(p)) {
    out.push(p);
    if (p === '') return out;
  }
}

/** What the engine knows of a path besides its marks, from memory. */
export interface PathFacts {
  /** A symbolic link the scan found (not synced). */
  symlink(path: RelPath): boolean;
  /** Left out by the ignore rules (temp files, .syncignore). */
  ignored(path: RelPath): boolean;
}

export class PathStates {
  /** Named by the watcher, or planned, and not done yet. */
  readonly syncing = new Marks();
  /** An item that failed in the last pass (its error said). */
  readonly failed = new Marks();
  /** Conflicted copies here. */
  readonly conflicts = new Marks();
  /** Left out by design and told once (an empty folder whose name the drive refuses): ignored. */
  readonly leftOut = new Marks();
  private readonly listeners = new Set<(paths: readonly RelPath[]) => void>();
  /** Where the folders left out by selective sync are here. */
  private excluded: readonly RelPath[] = [];

  constructor(private readonly facts: PathFacts) {}

  stateOf(path: RelPath): PathState {
    if (path === STATE_DIR || isWithin(path, STATE_DIR)) return 'ignored';
    if (path !== '') {
      if (this.facts.symlink(path) || this.leftOut.has(path) || this.facts.ignored(path)) return 'ignored';
      if (this.excluded.some((place) => isWithin(path, place))) return 'excluded';
    }
    if (this.failed.has(path) || this.failed.holds(path)) return 'error';
    if (this.conflicts.has(path) || this.conflicts.holds(path)) return 'conflict';
    if (this.syncing.has(path) || this.syncing.holds(path)) return 'syncing';
    return 'synced';
  }

  /** The places of the excluded folders; returns those that came or went. */
  exclude(places: Iterable<RelPath>): RelPath[] {
    const next = [...new Set(places)];
    const changed = [...next.filter((p) => !this.excluded.includes(p)), ...this.excluded.filter((p) => !next.includes(p))];
    this.excluded = next;
    return changed;
  }

  /** Tells `listener` the paths whose state may have changed (with the folders holding them). */
  onChange(listener: (paths: readonly RelPath[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Paths whose marks changed: they and the folders above them may say another state now. */
  changed(paths: readonly RelPath[]): void {
    if (paths.length === 0 || this.listeners.size === 0) return;
    const all = new Set<RelPath>();
    for (const path of paths) {
      all.add(path);
      for (const folder of ancestors(path)) all.add(folder);
    }
    const list = [...all];
    for (const listener of this.listeners) listener(list);
  }
}

/**
 * Where the folders left out by selective sync would be here: the place of each excluded entry whose folder is synced
 * (found when a pass ends; what is inside them is excluded too).
 */
export function excludedPlaces(trees: Pick<Trees, 'base' | 'remote'>, excluded: ReadonlySet<RemoteId>, names: NameRules): Set<RelPath> {
  const places = new Set<RelPath>();
  for (const id of excluded) {
    const entry = trees.remote.get(id);
    if (!entry) continue;
    const parent = entry.parentId === null ? '' : trees.base.get(entry.parentId)?.path;
    if (parent === undefined) continue;
    places.add(joinPath(parent, safeLocalName(entry.name, names)));
  }
  return places;
}
