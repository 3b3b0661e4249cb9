/**
 * What others share with the account, in a pass: the shared area placed in the remote tree (listed with the drive,
 * or as a look at it found it changed), the drive refusing a change to it, and the write bits of view-only copies.
 */
import { join } from 'node:path';
import { ApiError } from '../../../api/errors.js';
import { isWithin } from '../../model/names.js';
import type { Clock, FileSystem } from '../../local/ports.js';
import { Without } from '../../plan/selective.js';
import { NO_SHARED_AREA, SHARED_FOLDER_ID, type SharedArea, type SharedPlace, type SharedTop } from '../../model/shared-area.js';
import { viewOnlyFiles } from '../../plan/access.js';
import { endsToTell, listSharedArea, ownSynced, placeSharedArea, sharingNews } from '../../remote/shared.js';
import type { Operation, RelPath, RemoteId, RemoteItem, SyncedIds } from '../../model/types.js';
import { opPath } from './execute-stage.js';
import type { FolderTrees, PassPorts, PassOptions } from './inputs.js';
import type { SharedWithMe } from './summary.js';

export class SharedStage {
  /** What is shared with the account, as the remote tree holds it (the last listing or look at it). */
  area: SharedArea = NO_SHARED_AREA;
  /** The shared area's entry ids (the cheap checks leave them out). */
  private ids: ReadonlySet<RemoteId> = new Set();
  /** View-only shared entries whose files were last made read-only here (a permission that became edit gives them back). */
  private viewOnly = new Set<RelPath>();
  /** The shared area was placed anew since the copies' write bits were last looked at. */
  viewOnlyDue = false;
  /**
   * Shared files gone from a listing, and when: each end is told once a listing at least a poll later shows no new
   * version of the file (its owner saved it: the new entry's share may come a moment after the old one's end).
   */
  private waiting: SharedTop[] = [];
  private readonly endedAt = new Map<RemoteId, number>();

  constructor(
    private readonly root: string,
    private readonly options: PassOptions,
    private readonly fs: FileSystem,
    private readonly trees: FolderTrees,
    private readonly host: Pick<PassPorts, 'tell' | 'signal' | 'pollMs'>,
    private readonly clock: Clock,
  ) {}

  /** Where what is shared with the account arrives here; null when nowhere (or the folder is not the whole drive). */
  place(): SharedPlace | null {
    return (this.options.remoteRootId ?? null) === null ? (this.options.sharedPlace?.() ?? null) : null;
  }

  /** Something shared is synced here, or was: the plan's rows of access apply. */
  get inPlay(): boolean {
    return this.area.tops.size > 0 || this.trees.base.has(SHARED_FOLDER_ID);
  }

  /** The shared area as the drive has it now; none when nothing shared is synced here. */
  async list(): Promise<SharedArea> {
    const place = this.place();
    const keepFolder = this.area.items.length > 0 || this.trees.base.has(SHARED_FOLDER_ID);
    return place ? listSharedArea(this.options.client, place, { signal: this.host.signal, keepFolder }) : NO_SHARED_AREA;
  }

  /** The remote tree with the shared area `area` in place of the one it held. */
  put(area: SharedArea): void {
    const now = this.clock.now().getTime();
    const due = (t: SharedTop) => now - (this.endedAt.get(t.id) ?? now) >= this.host.pollMs;
    const { news, waiting } = sharingNews(this.area, area, (id) => this.trees.base.has(id), this.waiting, due);
    for (const message of news) this.host.tell({ kind: 'notice', message });
    this.keepWaiting(waiting, now);
    placeSharedArea(this.trees.remote, this.area, area);
    this.area = area;
    this.ids = new Set(area.items.map((r) => r.id));
    this.viewOnlyDue = true;
  }

  /** A shared file's end waits to be told (its owner may have saved it: a new version shared a moment later). */
  get endsWaiting(): boolean {
    return this.waiting.length > 0;
  }

  /** The ends still waiting, as told when no listing follows (the engine stops); none wait after. */
  takeEnds(): string[] {
    const told = endsToTell(this.waiting);
    this.keepWaiting([], 0);
    return told;
  }

  private keepWaiting(waiting: SharedTop[], now: number): void {
    this.waiting = waiting;
    for (const t of waiting) if (!this.endedAt.has(t.id)) this.endedAt.set(t.id, now);
    for (const id of this.endedAt.keys()) if (!waiting.some((t) => t.id === id)) this.endedAt.delete(id);
  }

  /** What is synced of the account's own drive (what the cheap checks compare with), out of all that is synced. */
  own(all: SyncedIds): SyncedIds {
    return ownSynced(all, this.ids, all.has(SHARED_FOLDER_ID) ? 1 : 0);
  }

  /** The remote tree without the shared area (what the cheap checks compare with). */
  ownRemote(): ReadonlyMap<RemoteId, RemoteItem> {
    return this.ids.size === 0 ? this.trees.remote : new Without(this.trees.remote, this.ids);
  }

  /** The drive refused an operation on what others share with the account (no access, or the entry is gone). */
  refused(op: Operation, error: unknown): boolean {
    if (!(error instanceof ApiError) || (error.kind !== 'forbidden' && error.kind !== 'not-found')) return false;
    const folder = this.trees.base.get(SHARED_FOLDER_ID)?.path;
    if (folder === undefined) return false;
    const path = opPath(op, this.trees.base);
    return path === folder || isWithin(path, folder);
  }

  /** What others share with the account, as the last look placed it here: where, how many entries, how many to view only. */
  get withMe(): SharedWithMe | null {
    const place = this.place();
    if (!place) return null;
    const tops = [...this.area.tops.values()];
    return { folder: place.folder, entries: tops.length, viewOnly: tops.filter((t) => !t.editable).length };
  }

  /**
   * The local copies of files shared with the account to view only have no write bits (an editor then says so rather
   * than letting a change be made that cannot be sent); files that may be edited again get theirs back.
   */
  async keepViewOnly(): Promise<void> {
    if (!this.fs.chmod || (this.area.tops.size === 0 && this.viewOnly.size === 0)) return;
    const now = new Set(viewOnlyFiles(this.trees, this.area));
    const set = async (path: RelPath, writable: boolean) => {
      try {
        const stats = await this.fs.stat(join(this.root, path));
        if (stats.mode === undefined || stats.isDirectory()) return;
        const mode = writable ? stats.mode | 0o200 : stats.mode & ~0o222;
        if ((mode & 0o7777) !== (stats.mode & 0o7777)) await this.fs.chmod!(join(this.root, path), mode & 0o7777);
      } catch {
        // Gone or not ours to change: the next pass looks again.
      }
    };
    for (const path of now) await set(path, false);
    for (const path of this.viewOnly) if (!now.has(path) && this.trees.base.scanLookup().isSynced(path)) await set(path, true);
    this.viewOnly = now;
    this.viewOnlyDue = false;
  }
}
