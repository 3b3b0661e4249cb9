/**
 * Cheap remote change detection: an idle client must not fetch the whole drive every few seconds (at 100,000 entries
 * a listing is ~100 requests and ~67 MB). The documented API has no change feed, but three one-page listings tell
 * most changes apart from none, compared with what base holds:
 * - `recentOnly` (the newest files first): a file base does not know is new there — an upload, or an edit, which
 *   this service makes as a new entry;
 * - `deletedOnly` (the latest trashed first): a synced entry there was trashed;
 * - the paginator's `total` of a plain listing: the number of entries (every entry, or the root's children on
 *   deployed versions) differs from base's when something was added, trashed or restored.
 * New and trashed files in synced folders are applied by a pass to the tree it holds (`news` answers a delta), so a
 * change shows up within a poll and a download, without a listing of the whole drive; what a delta cannot tell (new
 * or trashed folders, restores) makes the next pass list the whole drive. Renames and moves change none of these
 * signals: the full listing finds them, at an interval adapted to its cost.
 *
 * Nothing is assumed of the server: after each full listing the signals are compared with the tree it returned,
 * and a signal that disagrees with a tree known to be complete is not used again on this server.
 */
import type { DriveClient } from '../api/client.js';
import type { FileEntry } from '../api/schemas.js';
import type { RemoteId, RemoteItem, SyncedIds } from './types.js';

/** Entries each one-page listing asks for: enough to see past a few of this client's own uploads. */
const PAGE = 5;

export interface RemoteSignals {
  recent: FileEntry[] | null;
  trashed: FileEntry[] | null;
  total: number | null;
}

type Signal = 'recent' | 'trashed' | 'total';

/** What a pass can apply to the remote tree it holds instead of listing the whole drive. */
export interface RemoteDelta {
  /** Files new on the drive, in synced folders, as the recent listing answered them. */
  added: FileEntry[];
  /** Synced files trashed on the drive. */
  trashed: RemoteId[];
}

/** What a cheap check saw. */
export type DriveNews =
  | { kind: 'none' }
  | { kind: 'delta'; delta: RemoteDelta }
  /** A change only a full listing can tell; the reasons say what was seen. */
  | { kind: 'listing'; reasons: string[] };

export const syncedIdsOf = (base: ReadonlyMap<RemoteId, { parentId: RemoteId | null }>): SyncedIds => ({
  has: (id) => base.has(id),
  size: base.size,
  rootChildren: () => countRootChildren(base),
});

export class RemoteChangeCheck {
  /** Signals this server has shown it answers usefully (until shown otherwise). */
  private readonly trusted = new Set<Signal>(['recent', 'trashed', 'total']);
  /** Calibrations in a row a signal disagreed with the full listing (one may be a change made meanwhile). */
  private readonly strikes = new Map<Signal, number>();
  /**
   * What the plain listing's total counts here: every entry, or the root's children (deployed versions); `either`
   * while no listing has told them apart (an empty drive, or one with entries at its root only).
   */
  private totalCounts: 'all' | 'root' | 'either' | null = null;
  /** Entries each count holds that base does not (listed but not synced): constant while nothing changes. */
  private offsets = { all: 0, root: 0 };
  /** The ids of the last full listing, sorted (compact: it is kept while idle). */
  private listed = new Int32Array(0);

  constructor(
    private readonly client: DriveClient,
    private readonly rootId: RemoteId | null,
  ) {}

  /** Whether any signal is still usable; without one, only full listings tell changes. */
  get usable(): boolean {
    return this.trusted.size > 0;
  }

  /** The signals, in at most three small requests. */
  async read(signal?: AbortSignal): Promise<RemoteSignals> {
    const entries = this.client.entries;
    const [recent, trashed, plain] = await Promise.all([
      this.trusted.has('recent') ? entries.page({ recentOnly: true, perPage: PAGE }, 1, signal) : null,
      this.trusted.has('trashed') ? entries.page({ deletedOnly: true, perPage: PAGE }, 1, signal) : null,
      this.trusted.has('total') && this.rootId === null ? entries.page({ perPage: 1 }, 1, signal) : null,
    ]);
    const answered = [recent, trashed, plain].filter((page) => page !== null);
    this.checkBytes = answered.reduce((sum, page) => sum + REQUEST_OVERHEAD + JSON.stringify(page.entries).length, 0);
    return { recent: recent?.entries ?? null, trashed: trashed?.entries ?? null, total: plain?.total ?? null };
  }

  /**
   * About what the last check moved (bodies as their JSON, plus headers). A server that ignores `perPage` answers
   * 50 entries a signal: ~70 KB a check, half the idle budget at a 15 s poll, which the full listings then give up.
   */
  get bytesPerCheck(): number {
    return this.checkBytes;
  }

  private checkBytes = 0;

  /**
   * What the signals show that neither base nor the last full listing holds: nothing; new files and trashed files a
   * pass can apply to the tree it holds (a delta: the change is there in seconds, not after a listing of the whole
   * drive); or a change only a full listing can tell (a new folder, a trashed folder, a restore, more new files than
   * one page shows, a total the delta does not explain).
   */
  news(signals: RemoteSignals, base: SyncedIds): DriveNews {
    const added: FileEntry[] = [];
    const trashed: FileEntry[] = [];
    const reasons: string[] = [];
    if (this.trusted.has('recent') && signals.recent) {
      const fresh = signals.recent.filter((e) => this.inRoot(e) && !e.deleted_at && !base.has(e.id) && !this.wasListed(e.id));
      for (const entry of fresh) {
        if (entry.type !== 'folder' && this.parentSynced(entry, base)) added.push(entry);
        else reasons.push(`new ${entry.type === 'folder' ? 'folder' : 'file'} ${entry.id} in a folder not synced`);
      }
      // A page of nothing but new files may hide more behind it.
      if (fresh.length > 0 && fresh.length === signals.recent.length && signals.recent.length >= PAGE) reasons.push(`${fresh.length} new files or more`);
    }
    if (this.trusted.has('trashed')) {
      for (const entry of signals.trashed ?? []) {
        if (!base.has(entry.id)) continue;
        // A trashed folder takes what it holds along: which of base's items those are, only a listing says.
        if (entry.type === 'folder') reasons.push(`trashed folder ${entry.id}`);
        else trashed.push(entry);
      }
    }
    if (this.trusted.has('total') && signals.total !== null && this.totalCounts !== null) {
      const expected = this.expectedTotals(base, added, trashed);
      if (!expected.includes(signals.total)) reasons.push(`${signals.total} entries where ${expected.join(' or ')} were expected`);
    }
    if (reasons.length > 0) return { kind: 'listing', reasons: [...added.map((e) => `new file ${e.id}`), ...trashed.map((e) => `trashed ${e.id}`), ...reasons] };
    if (added.length === 0 && trashed.length === 0) return { kind: 'none' };
    return { kind: 'delta', delta: { added, trashed: trashed.map((e) => e.id) } };
  }

  /**
   * Right after a full listing returned `remote` (the authority): `signals`, read just before it, must agree with it.
   * A signal that disagrees twice in a row is not used again here.
   */
  calibrate(signals: RemoteSignals, remote: ReadonlyMap<RemoteId, RemoteItem>): void {
    if (signals.recent !== null) {
      this.judge('recent', !signals.recent.some((e) => this.inRoot(e) && !e.deleted_at && e.type !== 'folder' && !remote.has(e.id)));
    }
    if (signals.trashed !== null) this.judge('trashed', !signals.trashed.some((e) => remote.has(e.id)));
    if (signals.total === null) {
      this.trusted.delete('total');
    } else {
      const all = signals.total === remote.size;
      const root = signals.total === countRootChildren(remote);
      // Both at once (an empty drive, a drive with only root entries) does not tell which the server counts.
      if (all !== root) this.totalCounts = all ? 'all' : 'root';
      else if (all && (this.totalCounts === null || this.totalCounts === 'either')) this.totalCounts = 'either';
      this.judge('total', all || root);
    }
  }

  /**
   * After the pass that followed a full listing: `remote` is the listing with what the pass did to the drive applied,
   * `base` what is synced. What the total counts beyond base (listed, not synced) stays constant while nothing
   * changes. Taken from the trees, not from signals read before the pass: a pass that uploads 100,000 files would
   * otherwise leave an offset of -100,000, and every later check would see a change.
   */
  settle(remote: ReadonlyMap<RemoteId, RemoteItem>, base: SyncedIds): void {
    this.listed = Int32Array.from(remote.keys()).sort();
    this.offsets = { all: remote.size - base.size, root: countRootChildren(remote) - base.rootChildren() };
  }

  private judge(which: Signal, agrees: boolean): void {
    const strikes = agrees ? 0 : (this.strikes.get(which) ?? 0) + 1;
    this.strikes.set(which, strikes);
    if (strikes >= 2) this.trusted.delete(which);
  }

  /**
   * What the total is once `added` and `trashed` are counted: one number, or two while the server's way of counting
   * is not known.
   */
  private expectedTotals(base: SyncedIds, added: readonly FileEntry[], trashed: readonly FileEntry[]): number[] {
    const atRoot = (e: FileEntry) => (e.parent_id ?? null) === this.rootId;
    const all = base.size + this.offsets.all + added.length - trashed.length;
    if (this.totalCounts === 'all') return [all];
    const root = base.rootChildren() + this.offsets.root + added.filter(atRoot).length - trashed.filter(atRoot).length;
    return this.totalCounts === 'root' || root === all ? [root] : [all, root];
  }

  /** The entry's folder is one the pass's remote tree holds: the sync root, or a synced folder. */
  private parentSynced(entry: FileEntry, base: SyncedIds): boolean {
    const parent = entry.parent_id ?? null;
    return parent === this.rootId || (parent !== null && base.has(parent));
  }

  private wasListed(id: RemoteId): boolean {
    let lo = 0;
    let hi = this.listed.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const value = this.listed[mid]!;
      if (value === id) return true;
      if (value < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** An entry below the sync root (the whole drive, or a folder whose id is among the entry's ancestors). */
  private inRoot(entry: FileEntry): boolean {
    if (this.rootId === null) return true;
    return (entry.path ?? '').split('/').includes(String(this.rootId));
  }
}

function countRootChildren(items: ReadonlyMap<RemoteId, { parentId: RemoteId | null }>): number {
  let n = 0;
  for (const b of items.values()) if (b.parentId === null) n++;
  return n;
}

/** What an idle engine may move a minute, cheap checks and full listings together (issue #12: ≤ 256 KiB). */
export const IDLE_BYTES_PER_MINUTE = 240 * 1024;
/** Headers of one small request and its answer, about. */
const REQUEST_OVERHEAD = 600;

/** What the full listings may move a minute on average: the idle budget less what the cheap checks take. */
export function listingBudget(bytesPerCheck: number, pollMs: number): number {
  const checks = (bytesPerCheck * 60_000) / pollMs;
  return Math.max(32 * 1024, IDLE_BYTES_PER_MINUTE - checks);
}

/**
 * How long to wait between full listings: at least the poll interval; long enough that listings take at most 1 %
 * of the time; and that they move at most `bytesPerMinute` on average (a listing costs ~700 bytes an entry).
 */
export function fullListingInterval(options: { pollMs: number; lastListingMs: number; entries: number; bytesPerMinute?: number }): number {
  const bytes = options.entries * 700;
  const budget = options.bytesPerMinute ?? 200 * 1024;
  return Math.max(options.pollMs, options.lastListingMs * 100, (bytes / budget) * 60_000);
}
