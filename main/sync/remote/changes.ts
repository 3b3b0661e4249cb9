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
import type { DriveClient } from '../../api/client.js';
import type { FileEntry } from '../../api/schemas.js';
import type { BaseItem, RemoteId, RemoteItem, SyncedEntry, SyncedIds } from '../model/types.js';
import { BaseTree, RemoteTree, RemoteView } from '../trees/trees.js';

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
  /** Entries new on the drive or changed there (renamed, moved, saved anew), as the check saw them. */
  changed: FileEntry[];
  /** Synced entries trashed on the drive; a folder takes what it holds along. */
  trashed: RemoteId[];
  /**
   * Synced folders whose children the pass lists (and the new folders among them in full): a file arrived in a folder
   * not synced here (new, restored or moved in on the drive).
   */
  fetch: RemoteId[];
}

/** What a check keeps across a restart (`RemoteChangeCheck.state`). */
export interface CheckState {
  trusted: Signal[];
  totalCounts: 'all' | 'root' | 'either' | null;
  offsets: { all: number; root: number };
  trashedCount: number | null;
  trashed: FileEntry[] | null;
  folderCount: number;
  checkBytes: number;
}

/** What a cheap check saw. */
export type DriveNews =
  | { kind: 'none' }
  | { kind: 'delta'; delta: RemoteDelta }
  /** A change only a full listing can tell; the reasons say what was seen. */
  | { kind: 'listing'; reasons: string[] };

export const syncedIdsOf = (base: ReadonlyMap<RemoteId, BaseItem>): SyncedIds => ({
  has: (id) => base.has(id),
  get: (id) => {
    const b = base.get(id);
    return b && { parentId: b.parentId, name: b.remoteName, type: b.type, size: b.remoteSize, updatedAt: b.remoteUpdatedAt };
  },
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
  /** The last trashed page read: an entry gone from it, not synced, may have been restored (its folder is listed). */
  private lastTrashed: FileEntry[] | null = null;
  /** The page before `lastTrashed`, and the signals `lastTrashed` came with: news() asked twice of one check agrees. */
  private trashedBefore: FileEntry[] | null = null;
  private trashedFrom: RemoteSignals | null = null;
  /** Folders the last full listing (or folders' listing) held: what a listing of the folders' level costs. */
  private folderCount = 0;
  /** When the folders' level is listed next (folders renamed or moved show only there). */
  private nextFolders = 0;

  constructor(
    private readonly client: DriveClient,
    private readonly rootId: RemoteId | null,
  ) {}

  /** Whether any signal is still usable; without one, only full listings tell changes. */
  get usable(): boolean {
    return this.trusted.size > 0;
  }

  /** The signals, in at most four small requests. */
  async read(signal?: AbortSignal): Promise<RemoteSignals> {
    const entries = this.client.entries;
    const sent = this.client.http?.jsonBytes ?? 0;
    const [recent, trashedCount, total] = await Promise.all([
      this.trusted.has('recent') ? entries.page({ recentOnly: true, perPage: PAGE }, 1, signal) : null,
      // How many entries the trash holds, from an empty page: deployed versions answer 50 entries a page whatever
      // perPage asks (~35 KB), so the page itself is read only when that number moved (a trash, a restore, an entry
      // deleted for good). A trash and a restore between two checks cancel out: the listings find them.
      this.trusted.has('trashed') ? entries.count({ deletedOnly: true }, signal) : null,
      // An empty page past the end: deployed versions answer 50 entries a page, whatever perPage asks.
      this.trusted.has('total') && this.rootId === null ? entries.count({}, signal) : null,
    ]);
    let trashed: FileEntry[] | null = null;
    let trashedBytes = 0;
    if (this.trusted.has('trashed')) {
      if (trashedCount === null || trashedCount !== this.trashedCount || this.trashedPage === null) {
        const page = await entries.page({ deletedOnly: true, perPage: PAGE }, 1, signal);
        this.trashedPage = page.entries;
        this.trashedCount = trashedCount;
        trashedBytes = REQUEST_OVERHEAD + JSON.stringify(page.entries).length;
      }
      trashed = this.trashedPage;
    }
    // As the network carried them where the client counts them (entries the parser leaves out of an answer cost too).
    const moved = (this.client.http?.jsonBytes ?? 0) - sent;
    const bytes =
      moved > 0
        ? moved
        : (recent === null ? 0 : REQUEST_OVERHEAD + JSON.stringify(recent.entries).length) +
          (trashedCount === null ? trashedBytes : REQUEST_OVERHEAD + trashedBytes) +
          (total === null ? 0 : REQUEST_OVERHEAD);
    // On average: the trash's page costs a check only now and then.
    this.checkBytes = this.checkBytes === 0 ? bytes : 0.9 * this.checkBytes + 0.1 * bytes;
    return { recent: recent?.entries ?? null, trashed, total };
  }

  /**
   * One cheap look at the drive: the signals, and the folders' level when it is due (or `withFolders` asks: what was
   * renamed or moved while this client did not run shows only there), as news. The folders' level is also read when
   * the signals alone would list a whole synced folder or the drive, and the signals once more before a listing is
   * asked for (a change made while they were read, concurrently, can leave them disagreeing for a moment).
   */
  async look(synced: SyncedIds, now: number, pollMs: number, signal?: AbortSignal, withFolders = false): Promise<{ news: DriveNews; signals: RemoteSignals }> {
    let signals = await this.read(signal);
    let folders = withFolders || this.foldersDue(now) ? await this.readFolders(now, pollMs, signal) : undefined;
    let news = this.news(signals, synced, folders);
    // A file in a folder not known here would list a whole synced folder: the folders' level, far smaller, names the
    // new folder, and only that is listed.
    if ((news.kind === 'listing' || (news.kind === 'delta' && news.delta.fetch.length > 0)) && folders === undefined) {
      folders = await this.readFolders(now, pollMs, signal);
      news = this.news(signals, synced, folders);
    }
    if (news.kind === 'listing') {
      const again = await this.read(signal);
      const second = this.news(again, synced, folders);
      if (second.kind !== 'listing') {
        news = second;
        signals = again;
      }
    }
    return { news, signals };
  }

  /**
   * What this check knows of the server that a restart would otherwise learn from a full listing: which signals it
   * trusts and how the total counts, the trash as last read, the folders' count and a check's cost. Kept beside base
   * while everything is in sync (the engine's warm start).
   */
  state(): CheckState {
    return {
      trusted: [...this.trusted],
      totalCounts: this.totalCounts,
      offsets: { ...this.offsets },
      trashedCount: this.trashedCount,
      trashed: this.lastTrashed,
      folderCount: this.folderCount,
      checkBytes: this.checkBytes,
    };
  }

  /** Takes up a state kept by `state()` (a restart that trusts base instead of listing the drive first). */
  resume(state: CheckState): void {
    for (const signal of ['recent', 'trashed', 'total'] as const) if (!state.trusted.includes(signal)) this.trusted.delete(signal);
    this.totalCounts = state.totalCounts;
    this.offsets = { ...state.offsets };
    this.trashedCount = state.trashedCount;
    this.trashedPage = this.lastTrashed = state.trashed;
    this.folderCount = state.folderCount;
    this.checkBytes = state.checkBytes;
  }

  /** The trash's first page as last read, and how many entries the trash held then (null: not told). */
  private trashedPage: FileEntry[] | null = null;
  private trashedCount: number | null = null;

  /**
   * About what the last check moved (bodies as their JSON, plus headers). A server that ignores `perPage` answers
   * 50 entries a signal: ~70 KB a check, half the idle budget at a 15 s poll, which the full listings then give up.
   */
  get bytesPerCheck(): number {
    return this.checkBytes;
  }

  private checkBytes = 0;

  /**
   * What the signals show that neither base nor the last full listing holds: nothing; a delta a pass applies to the
   * tree it holds — files new or changed (renamed, moved; the recent listing answers the most recently changed
   * first), entries trashed (a folder with what it holds), folders to list where a file arrived in one not synced
   * here — so the change is there in seconds, not after a listing of the whole drive; or a change only a full listing
   * can tell (more changes than the pages show, a new folder at the drive's root, a total the delta does not explain).
   */
  news(signals: RemoteSignals, synced: SyncedIds, folders?: readonly FileEntry[]): DriveNews {
    const changed: FileEntry[] = [];
    const trashed: FileEntry[] = [];
    const fetch = new Set<RemoteId>();
    const reasons: string[] = [];
    /** The delta's effect on the two totals the server may count, while it can be counted. */
    const counts = { all: 0, root: 0, known: true };
    /** Folders this delta brings (new, restored): what arrives inside them has a folder to go to. */
    const coming = new Set<RemoteId>();
    const base: SyncedIds = { ...synced, has: (id) => synced.has(id) || coming.has(id), get: (id) => synced.get(id) };
    const into = { changed, fetch, reasons, counts, coming };
    // The folders' level first: folders renamed, moved or new, as they are now.
    for (const entry of folders ?? []) {
      if (!this.inRoot(entry) || entry.deleted_at) continue;
      const known = synced.get(entry.id);
      if (known && !this.differs(known, entry)) continue;
      this.place(entry, known, base, into);
    }
    if (this.trusted.has('trashed') && signals.trashed) {
      // Gone from the trash page and not synced: restored (or deleted for good). A folder comes back with what it
      // holds; a file's folder is listed.
      const still = new Set(signals.trashed.map((e) => e.id));
      // The engine may ask again of the same check with the folders' level read: what was gone then is gone now.
      if (signals !== this.trashedFrom) {
        this.trashedBefore = this.lastTrashed;
        this.trashedFrom = signals;
      }
      for (const entry of this.trashedBefore ?? []) {
        if (still.has(entry.id) || synced.has(entry.id) || coming.has(entry.id)) continue;
        if (entry.type === 'folder') this.place(entry, undefined, base, into);
        else {
          const parent = this.parentOf(entry);
          if (parent === null || !base.has(parent)) continue;
          fetch.add(parent);
          counts.known = false;
        }
      }
      this.lastTrashed = signals.trashed;
    }
    if (this.trusted.has('recent') && signals.recent) {
      let seen = 0;
      for (const entry of signals.recent) {
        if (!this.inRoot(entry) || entry.deleted_at) continue;
        const known = synced.get(entry.id);
        // Listed but never synced (a download that keeps failing), or as synced: no news.
        if ((!known && this.wasListed(entry.id) && !coming.has(entry.parent_id ?? -1)) || (known && !this.differs(known, entry))) continue;
        seen++;
        this.place(entry, known, base, into);
      }
      // A page of nothing but changes may hide more behind it.
      if (seen > 0 && seen === signals.recent.length && signals.recent.length >= PAGE) reasons.push(`${seen} changed files or more`);
    }
    if (this.trusted.has('trashed')) {
      for (const entry of signals.trashed ?? []) {
        const known = synced.get(entry.id);
        if (!known) continue;
        trashed.push(entry);
        // A trashed folder takes along entries base may or may not hold: the total is not counted this time.
        if (known.type === 'folder') counts.known = false;
        counts.all--;
        if (known.parentId === null) counts.root--;
      }
    }
    if (this.trusted.has('total') && signals.total !== null && this.totalCounts !== null && counts.known) {
      const expected = this.expectedTotals(synced, counts);
      if (!expected.includes(signals.total)) reasons.push(`${signals.total} entries where ${expected.join(' or ')} were expected`);
    }
    if (reasons.length > 0) {
      const named = changed.map((e) => `${synced.has(e.id) ? 'changed' : 'new'} ${e.type === 'folder' ? 'folder' : 'file'} ${e.id}`);
      return { kind: 'listing', reasons: [...named, ...trashed.map((e) => `trashed ${e.id}`), ...reasons] };
    }
    if (changed.length === 0 && trashed.length === 0 && fetch.size === 0) return { kind: 'none' };
    return { kind: 'delta', delta: { changed, trashed: trashed.map((e) => e.id), fetch: [...fetch] } };
  }

  /**
   * A new or changed entry the check saw, as the delta takes it: applied as it is where its folder is synced here (or
   * comes with this delta); a folder new here comes with what it holds (its children are listed); otherwise its
   * nearest synced folder is listed (the pass brings the folders on its way, and a new folder whole).
   */
  private place(
    entry: FileEntry,
    known: SyncedEntry | undefined,
    base: SyncedIds,
    into: { changed: FileEntry[]; fetch: Set<RemoteId>; reasons: string[]; counts: { all: number; root: number; known: boolean }; coming: Set<RemoteId> },
  ): void {
    const parent = this.parentOf(entry);
    if (parent === null || base.has(parent)) {
      into.changed.push(entry);
      if (entry.type === 'folder' && !known) {
        // New here (made, restored, moved in from outside): what it holds is listed, so the total is not counted.
        into.fetch.add(entry.id);
        into.coming.add(entry.id);
        into.counts.known = false;
        return;
      }
      if (!known) into.counts.all++;
      const wasAtRoot = known ? known.parentId === null : false;
      into.counts.root += (parent === null ? 1 : 0) - (wasAtRoot ? 1 : 0);
      return;
    }
    const ancestor = this.syncedAncestor(entry, base);
    if (ancestor === undefined) {
      // At the drive's root: a listing of it is a listing of the whole drive on some servers.
      into.reasons.push(`${known ? 'changed' : 'new'} ${entry.type === 'folder' ? 'folder' : 'file'} ${entry.id} in a folder not synced`);
      return;
    }
    into.fetch.add(ancestor);
    into.counts.known = false;
  }

  /** The deepest folder on an entry's path (its ancestors' ids) that is synced here; undefined at the drive's root. */
  private syncedAncestor(entry: FileEntry, base: SyncedIds): RemoteId | undefined {
    const chain = (entry.path ?? '').split('/').filter(Boolean).map(Number);
    if (chain.at(-1) === entry.id) chain.pop();
    for (let i = chain.length - 1; i >= 0; i--) {
      const id = chain[i]!;
      if (id === this.rootId) return id;
      if (base.has(id)) return id;
    }
    return undefined;
  }

  /** Where the drive has the entry now, as the remote tree keeps it (null: the sync root). */
  private parentOf(entry: FileEntry): RemoteId | null {
    const parent = entry.parent_id ?? null;
    return parent === this.rootId ? null : parent;
  }

  /** The entry is not where, or not what, it was when last synced. */
  private differs(known: SyncedEntry, entry: FileEntry): boolean {
    if (known.parentId !== this.parentOf(entry) || known.name !== entry.name) return true;
    if (known.type === 'folder') return false;
    // An updated_at recorded as '' is unknown (a move whose answer carried no entry): only the size tells.
    return known.size !== (entry.file_size ?? 0) || (known.updatedAt !== '' && entry.updated_at !== undefined && known.updatedAt !== entry.updated_at);
  }

  /**
   * Whether the folders' level is due: folders renamed or moved elsewhere change none of the three signals (a folder
   * is not among the recent files, and what it holds keeps its time stamps), so they are listed on their own, spaced
   * like the full listings by what they cost: three quarters of what the cheap checks leave of the idle budget (the
   * full listing, a safety net once every kind of change arrives as a delta, has the last quarter).
   */
  foldersDue(now: number): boolean {
    return this.usable && now >= this.nextFolders;
  }

  /** Every folder of the drive below the sync root, and when the next listing of them is due. */
  async readFolders(now: number, pollMs: number, signal?: AbortSignal): Promise<FileEntry[]> {
    const folders: FileEntry[] = [];
    const sent = this.client.http?.jsonBytes ?? 0;
    let bytes = 0;
    for await (const entry of this.client.entries.tree({ rootId: this.rootId, perPage: 1000, type: 'folder', ...(signal ? { signal } : {}) })) {
      if (entry.type !== 'folder' || entry.deleted_at) continue;
      folders.push(entry);
      bytes += JSON.stringify(entry).length;
    }
    bytes += REQUEST_OVERHEAD * Math.ceil(Math.max(1, folders.length) / 1000);
    const moved = (this.client.http?.jsonBytes ?? 0) - sent;
    if (moved > 0) bytes = moved;
    this.folderCount = folders.length;
    const perMinute = listingBudget(this.checkBytes, pollMs) * FOLDERS_SHARE;
    this.nextFolders = now + Math.max(pollMs, (bytes / perMinute) * 60_000);
    return folders;
  }

  /** The folders' level was just listed with the whole drive: it is due again one interval later. */
  foldersListed(now: number, pollMs: number): void {
    const perMinute = listingBudget(this.checkBytes, pollMs) * FOLDERS_SHARE;
    this.nextFolders = now + Math.max(pollMs, ((this.folderCount * ENTRY_BYTES) / perMinute) * 60_000);
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
    let folders = 0;
    for (const item of remote.values()) if (item.type === 'folder') folders++;
    this.folderCount = folders;
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
  private expectedTotals(base: SyncedIds, counts: { all: number; root: number }): number[] {
    const all = base.size + this.offsets.all + counts.all;
    if (this.totalCounts === 'all') return [all];
    const root = base.rootChildren() + this.offsets.root + counts.root;
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
  if (items instanceof BaseTree || items instanceof RemoteTree || items instanceof RemoteView) return items.rootChildren();
  let n = 0;
  for (const b of items.values()) if (b.parentId === null) n++;
  return n;
}

/** What an idle engine may move a minute, cheap checks and full listings together (docs/design.md §7: ≤ 256 KiB). */
export const IDLE_BYTES_PER_MINUTE = 240 * 1024;
/** Headers of one small request and its answer, about. */
const REQUEST_OVERHEAD = 600;
/** What one entry of a listing costs, about (its JSON: the parent, the users it is shared with, …). */
const ENTRY_BYTES = 700;

/**
 * Of what the cheap checks leave, the share the folders' level takes (folders renamed or moved show only there) and
 * the share of the full listing, the safety net.
 */
export const FOLDERS_SHARE = 3 / 4;
export const FULL_LISTING_SHARE = 1 - FOLDERS_SHARE;

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
