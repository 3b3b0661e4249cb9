/**
 * Live mode's guard against reading a move as a deletion.
 *
 * A rename or move reaches the engine as two reports of the watcher: the old path at once (it is gone), the new one
 * only after its stability wait. A pass between the two sees only half of it: the item is gone, and nothing has its
 * inode yet. So while the folder is still changing, the operations that act on a local disappearance wait: once the
 * watcher has reported nothing for `settleMs` (the new place had time to be reported, and the table then sees a move),
 * or at the latest `maxMs` after the first of them waited (a folder that never holds still).
 *
 * The operations that act on a local disappearance are the rows for a synced item gone locally: D2 (trash it
 * remotely), D3 (forget it, gone on both sides), D4's download (bring back a remote edit) and D6 (make the folder
 * again). A pass with no watcher — `sync --once` — holds nothing.
 */
import { sameItem } from '../model/birth.js';
import { addTo } from '../model/grouping.js';
import type { BaseItem, LocalItem, Operation, RelPath, RemoteId } from '../model/types.js';

export interface HoldLimits {
  /** How long the folder must be quiet before a disappearance counts as a deletion. */
  settleMs: number;
  /** How long a disappearance waits at most, while the folder keeps changing. */
  maxMs: number;
}

export const DEFAULT_HOLD: HoldLimits = { settleMs: 1500, maxMs: 30_000 };

/**
 * A test for uploads that may be the other end of a move not seen whole yet: the local item is a synced item of its
 * type by inode, which the table would have matched were its old place looked at again already. A birth time that
 * tells them apart makes it a new file with a freed inode number (a `git checkout`): it does not wait.
 */
export function uploadMayBeMoved(base: Iterable<BaseItem>, local: ReadonlyMap<RelPath, LocalItem>): (op: Operation) => boolean {
  let synced: Map<string, BaseItem[]> | null = null;
  return (op) => {
    if (op.kind !== 'upload' && op.kind !== 'create-remote-folder') return false;
    const item = local.get(op.path);
    if (!item) return false;
    if (synced === null) {
      synced = new Map();
      for (const b of base) addTo(synced, `${b.type}:${b.inode}`, b);
    }
    return synced.get(`${item.type}:${item.inode}`)?.some((b) => sameItem(b, item)) ?? false;
  };
}

/** Rows that act on a synced item gone locally. */
export function actsOnDisappearance(op: Operation): boolean {
  if (op.rule === 'E1') return op.kind === 'forget' || (op.kind === 'drop-local' && (op.gone ?? 0) > 0);
  // A deletion here refused on the drive (S3) brings the entry back: it waits like the deletion it stands for.
  return op.rule === 'D2' || op.rule === 'S3' || op.rule === 'D3' || op.rule === 'D6' || (op.rule === 'D4' && op.kind === 'download');
}

export class DisappearanceHold {
  /** When the watcher last reported a change or had one settling. */
  private lastChange = Number.NEGATIVE_INFINITY;
  /** When the operations waiting now first waited; null when none waits. */
  private firstHeld: number | null = null;

  constructor(private readonly limits: HoldLimits = DEFAULT_HOLD) {}

  /** The folder changed (the watcher reported a path, or has paths settling). */
  changed(now: number): void {
    this.lastChange = now;
  }

  /** True while some operation waits for the folder to settle. */
  get holding(): boolean {
    return this.firstHeld !== null;
  }

  /**
   * The plan's operations without those that wait, and the deletions the waiting ones count. `mayBeMoved` tells an
   * upload that may be the other end of a move (its file has a synced item's inode): it waits too.
   */
  filter(
    operations: Operation[],
    now: number,
    mayBeMoved: (op: Operation) => boolean = () => false,
  ): { operations: Operation[]; heldDeletions: number; held: Set<RemoteId> } {
    const held = new Set<RemoteId>();
    if (!this.waits(now)) {
      this.firstHeld = null;
      return { operations, heldDeletions: 0, held };
    }
    let heldDeletions = 0;
    let waiting = false;
    const kept = operations.filter((op) => {
      if (!actsOnDisappearance(op)) {
        if (!mayBeMoved(op)) return true;
        waiting = true;
        return false;
      }
      waiting = true;
      if ('remoteId' in op && op.remoteId !== null) held.add(op.remoteId);
      if (op.kind === 'trash-remote') heldDeletions += op.count;
      return false;
    });
    if (waiting) this.firstHeld ??= now;
    else this.firstHeld = null;
    return { operations: kept, heldDeletions, held };
  }

  /** When a pass should look again so that what waits goes ahead in time; null when nothing waits. */
  nextCheck(): number | null {
    if (this.firstHeld === null) return null;
    return Math.min(this.lastChange + this.limits.settleMs, this.firstHeld + this.limits.maxMs);
  }

  /** Nothing waits any more (the engine stopped watching, or a pass was done without a watcher). */
  clear(): void {
    this.firstHeld = null;
    this.lastChange = Number.NEGATIVE_INFINITY;
  }

  private waits(now: number): boolean {
    if (now - this.lastChange >= this.limits.settleMs) return false;
    return this.firstHeld === null || now - this.firstHeld < this.limits.maxMs;
  }
}
