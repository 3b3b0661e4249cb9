/**
 * Live mode's guard against reading a move as a deletion.
 *
 * A rename or move reaches the engine as two reports of the watcher: the old path at once (it is gone), the new one
 * only after its stability wait. A synced item that vanished from where the watcher looked is therefore not yet
 * deleted: until its inode turns up elsewhere in the local tree, the operations about it wait (a move found later is
 * a rename, as a full pass would see it). It is released as deleted once the watcher has had time to report where
 * it went — `settleMs` after it vanished with nothing left to report, at the latest `maxMs` after.
 *
 * A full scan sees both ends of every move at once, so it clears what is held.
 */
import { parentOf } from './names.js';
import type { BaseItem, LocalItem, Operation, RelPath, RemoteId } from './types.js';

export interface HoldLimits {
  /** How long a vanished item waits for its new place to be reported when the watcher has nothing pending. */
  settleMs: number;
  /** How long it waits at most, even while the watcher still has paths settling (a file written on and on). */
  maxMs: number;
}

export const DEFAULT_HOLD: HoldLimits = { settleMs: 1500, maxMs: 30_000 };

/** A local path whose item went away or was replaced by another kind of item (or a folder by another folder). */
export function leftPath(before: LocalItem | undefined, after: LocalItem | undefined): boolean {
  if (before === undefined) return false;
  return after === undefined || after.type !== before.type || (before.type === 'folder' && after.inode !== before.inode);
}

export class VanishedItems {
  /** When each vanished synced item was first seen missing, by remote id. */
  private readonly since = new Map<RemoteId, number>();

  constructor(private readonly limits: HoldLimits = DEFAULT_HOLD) {}

  /** Vanished items known, held or already released as deleted (until their rows go). */
  get size(): number {
    return this.since.size;
  }

  /**
   * Looks at the synced items recorded at or below `region` (local paths something left) and at those already held:
   * one that is nowhere locally — not at its recorded path as the same item, its inode at no other path — is
   * vanished; one found again is not.
   */
  update(base: ReadonlyMap<RemoteId, BaseItem>, local: ReadonlyMap<RelPath, LocalItem>, region: ReadonlySet<RelPath>, now: number): void {
    if (region.size === 0 && this.since.size === 0) return;
    const candidates: BaseItem[] = [];
    const stillSynced = new Set<RemoteId>();
    for (const b of base.values()) {
      if (this.since.has(b.remoteId)) stillSynced.add(b.remoteId);
      if (this.since.has(b.remoteId) || inRegion(b.path, region)) candidates.push(b);
    }
    for (const id of this.since.keys()) if (!stillSynced.has(id)) this.since.delete(id);
    let inodes: Map<number, number> | null = null;
    for (const b of candidates) {
      const here = local.get(b.path);
      const atPath = here !== undefined && here.type === b.type && (b.type === 'file' || here.inode === b.inode);
      if (!atPath) {
        inodes ??= inodeIndex(local);
        const types = inodes.get(b.inode) ?? 0;
        if (b.inode <= 0 || (types & typeBit(b.type)) === 0) {
          if (!this.since.has(b.remoteId)) this.since.set(b.remoteId, now);
          continue;
        }
      }
      this.since.delete(b.remoteId);
    }
  }

  /** The vanished items whose operations wait now. */
  held(now: number, watcherBusy: boolean): Set<RemoteId> {
    const out = new Set<RemoteId>();
    for (const [id, at] of this.since) if (this.holds(at, now, watcherBusy)) out.add(id);
    return out;
  }

  /** When to look again so that a held item is released in time; null when nothing is held. */
  nextCheck(now: number, watcherBusy: boolean): number | null {
    let next: number | null = null;
    for (const at of this.since.values()) {
      if (!this.holds(at, now, watcherBusy)) continue;
      // While the watcher is busy, look again soon: it may have reported the item's new place by then.
      const due = watcherBusy ? Math.min(now + this.limits.settleMs / 3, at + this.limits.maxMs) : at + this.limits.settleMs;
      next = next === null ? due : Math.min(next, due);
    }
    return next;
  }

  clear(): void {
    this.since.clear();
  }

  private holds(at: number, now: number, watcherBusy: boolean): boolean {
    const waited = now - at;
    return waited < this.limits.settleMs || (watcherBusy && waited < this.limits.maxMs);
  }
}

/** The operations of a plan that are about a held item (its deletion, above all), and the deletions they count. */
export function withoutHeld(operations: Operation[], held: ReadonlySet<RemoteId>): { operations: Operation[]; heldDeletions: number } {
  if (held.size === 0) return { operations, heldDeletions: 0 };
  let heldDeletions = 0;
  const kept = operations.filter((op) => {
    const about = 'remoteId' in op ? op.remoteId : null;
    if (about === null || !held.has(about)) return true;
    if (op.kind === 'trash-remote' || op.kind === 'trash-local') heldDeletions += op.count;
    return false;
  });
  return { operations: kept, heldDeletions };
}

const typeBit = (type: LocalItem['type']) => (type === 'file' ? 1 : 2);

function inodeIndex(local: ReadonlyMap<RelPath, LocalItem>): Map<number, number> {
  const index = new Map<number, number>();
  for (const item of local.values()) index.set(item.inode, (index.get(item.inode) ?? 0) | typeBit(item.type));
  return index;
}

/** `path` or one of its folders is in `region`. */
function inRegion(path: RelPath, region: ReadonlySet<RelPath>): boolean {
  for (let p = path; p !== ''; p = parentOf(p)) if (region.has(p)) return true;
  return false;
}
