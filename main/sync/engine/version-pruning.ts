/**
 * Earlier versions of files past the days a folder keeps them are deleted for good (never a newest version), at most
 * every few hours, while the engine looks at the drive (engine.ts `check`).
 */
import type { DriveClient } from '../../api/client.js';
import { pruneVersions } from '../../api/versions.js';
import type { RemoteId, SyncedIds } from '../model/types.js';

/** How often an engine that keeps versions for a number of days looks for ones past it. */
const PRUNE_SPACING_MS = 6 * 3_600_000;

export class VersionPruning {
  private next = 0;

  constructor(
    private readonly client: DriveClient,
    private readonly rootId: RemoteId | null,
    private readonly keepDays: (() => number | undefined) | undefined,
    private readonly spacingMs = PRUNE_SPACING_MS,
  ) {}

  /** When due, deletes what is past its days; returns what to tell, or null. */
  async ifDue(now: number, synced: SyncedIds, signal: AbortSignal): Promise<string | null> {
    if (now < this.next) return null;
    const days = this.keepDays?.();
    if (days === undefined) return null;
    this.next = now + this.spacingMs;
    const rootId = this.rootId;
    const within = (parentId: RemoteId | null) => (rootId === null ? parentId === null || synced.has(parentId) : parentId === rootId || (parentId !== null && synced.has(parentId)));
    try {
      const pruned = await pruneVersions(this.client, days, new Date(now), within, signal);
      return pruned.length > 0 ? `deleted for good ${pruned.length} earlier version${pruned.length === 1 ? '' : 's'} of files replaced more than ${days} days ago` : null;
    } catch {
      // Tried again at the next spacing; keeping a version longer loses nothing.
      return null;
    }
  }
}
