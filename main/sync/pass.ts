/**
 * One pass over a synced folder: scan → list → adopt → plan → guard → execute, until a plan is empty. Its inputs are
 * explicit: what the pass must do (`PassRequest`), the folder's options and ports, and the engine that runs it
 * (`PassHost`: its events, its watcher, whether it is paused or stopped, its timers). `FolderPasses` keeps what one
 * pass leaves the next (the trees, what the scans found, the guard's memory); the engine's loop (folder-loop.ts) runs
 * one pass at a time, and reads from here what its timers and checks need.
 */
import { join } from 'node:path';
import { ApiError, isTransient, RateLimitedError } from '../api/errors.js';
import { humanBytes } from '../api/units.js';
import { adoptLostUploads } from './adopt.js';
import type { EngineOptions } from './engine.js';
import { BusyError, Executor, putBackStaged, StaleError, type TransferEvent } from './execute.js';
import type { PassRequest } from './folder-loop.js';
import { deletionQuestion, keepDeletions, type DeletionQuestion } from './deletions.js';
import { checkFolderIdentity, type FolderProblem } from './folder-identity.js';
import { DEFAULT_HOLD, uploadMayBeMoved, type DisappearanceHold } from './hold.js';
import { loadIgnoreRules, refreshPaths, scanLocal, STATE_DIR, type IgnoreRule, type ScanOptions, type ScanResult } from './local.js';
import type { Mirror } from './mirror.js';
import { baseName, conflictOriginal, isGivenName, isWithin, joinPath, parentOf } from './names.js';
import { excludedTakenBy, newTopFolders, NO_SELECTION, planSelected, Without, type SelectedPlan, type Selection } from './selective.js';
import { listSharedArea, NO_SHARED_AREA, ownSynced, placeSharedArea, rowsOfAccess, SHARED_FOLDER_ID, sharingNews, viewOnlyFiles, type SharedArea } from './shared.js';
import { deltaScope, scopedTrees, type PlanScope } from './scope.js';
import { randomId, type Clock, type FileSystem, type VolumeTraits } from './ports.js';
import { applyRemoteDelta, listRemote } from './remote.js';
import { FULL_LISTING_SHARE, fullListingInterval, listingBudget, syncedIdsOf, type RemoteChangeCheck, type RemoteSignals } from './remote-changes.js';
import { BaseTree, LocalTree, RemoteTree } from './trees.js';
import type { BaseItem, EngineRuleId, EngineState, LocalItem, Operation, RelPath, RemoteId, RemoteItem, RuleId, SelectionRuleId, SharedRuleId, SyncedIds } from './types.js';

export type { DeletionQuestion } from './deletions.js';

export interface Activity {
  at: string;
  /** A duplicate this computer made on the drive, resolved (rule C5), is told as a conflict or a merge. */
  kind: Exclude<Operation['kind'], 'resolve-twin'> | 'conflict' | 'notice';
  path: string;
  rule?: RuleId | EngineRuleId | SelectionRuleId | SharedRuleId;
  /** The entry a deletion put in the drive's trash (here or elsewhere): what "Restore" brings back. */
  remoteId?: RemoteId;
}

export interface ItemError {
  path: string;
  message: string;
  /**
   * Left out by design, not a failure (a symbolic link, an empty folder the drive cannot hold): told once as it is
   * found, and listed in each pass's `skipped` while it is there. A front end that keeps a list of errors leaves it
   * out of that list.
   */
  leftOut?: true;
}

export interface SharedWithMe {
  /** The folder at the top of the synced folder it arrives in. */
  folder: string;
  entries: number;
  viewOnly: number;
}

export interface PassSummary {
  /**
   * Changes carried out, on either side. A `record` is not one: it only brings base up to date with what both sides
   * already agree on (a deployed server's move answers no time stamp; the next listing's is recorded), and a running
   * sync that said "in sync" after the move would otherwise say it again for the record.
   */
  done: number;
  /** What could not be synced: operations that failed, names the service refuses, folders the scan cannot read. */
  failed: ItemError[];
  /**
   * What is left out by design, reported and not a failure: symbolic links, ignored names (temp files,
   * `.syncignore`; the first IGNORED_LISTED of them), empty folders with a name the drive refuses.
   */
  skipped: ItemError[];
  /** How many names the ignore rules left out in all. */
  ignored: number;
  /** The server could not be reached: nothing was compared, and nothing failed. */
  offline: boolean;
  /** Synced items gone locally whose deletion waits for the folder to settle (live mode): they may have moved. */
  waiting: number;
  /** True when the pass stopped at the mass-delete guard. */
  needsConfirmation: boolean;
  inSync: boolean;
  /** The pass did nothing because the synced folder is gone, or another folder is at its path (folder-identity.ts). */
  folder?: FolderProblem['kind'];
  /** A remote delta planned in its scope (scope.ts): how many synced items the plan looked at. */
  scoped?: number;
}


/** The engine's options a pass reads. */
export type PassOptions = Pick<
  EngineOptions,
  | 'root'
  | 'remoteRootId'
  | 'client'
  | 'trash'
  | 'hostname'
  | 'concurrency'
  | 'maxDeletions'
  | 'maxIterations'
  | 'caseInsensitive'
  | 'randomId'
  | 'hold'
  | 'busyRetryMs'
  | 'selection'
  | 'excludeNewFolders'
  | 'sharedPlace'
>;

/** What the engine running a pass gives it. */
export interface PassHost {
  /** Started: watching and polling, not only passes asked for. */
  readonly live: boolean;
  /** Paused or stopped: a pass ends at its next step. */
  readonly paused: boolean;
  readonly stopped: boolean;
  /** Aborts what a pass sends when the engine stops. */
  readonly signal: AbortSignal;
  readonly pollMs: number;
  setState(state: EngineState, detail?: string): void;
  record(activity: Omit<Activity, 'at'>): void;
  transfer(event: TransferEvent): void;
  /** The pass's transfers are over (their rates are forgotten). */
  transfersEnded(): void;
  notice(message: string): void;
  conflict(copyPath: string, path: string): void;
  itemError(error: ItemError): void;
  /** The pass stopped at the mass-delete guard: the user is asked. */
  askConsent(question: DeletionQuestion): void;
  /** Paths the watcher has still settling; null when the folder is not watched. */
  watcherPending(): number | null;
  startWatching(): Promise<void>;
  stopWatching(): Promise<void>;
  /** Looks at the drive at once (to see what this pass sent, and what others changed meanwhile). */
  checkDrive(): void;
  /** Items another program locked: a pass tries again in `ms`. */
  retryIn(ms: number): void;
}

/** The server could not be reached (no connection, or no answer in time). */
const isUnreachable = (error: unknown): boolean => error instanceof ApiError && (error.kind === 'network' || error.kind === 'timeout');

/** A pass whose every operation failed because the server was out of reach. */
class OfflineError extends Error {}

/** Free space a download leaves at least (a full disk fails every program, not only this one). */
const SPACE_RESERVE = 64 * 1024 * 1024;
const MIRROR_SYNCED_ONCE = 'synced-once';

/** Operations that write the drive's bytes to this disk. */
const needsSpace = (op: Operation): op is Extract<Operation, { kind: 'download' | 'conflict' | 'merge' }> =>
  op.kind === 'download' || op.kind === 'conflict' || op.kind === 'merge';

/** The idle state's detail when items failed: the folder goes on, and says how many it left out. */
export const itemsNotSynced = (n: number): string => `${n} item${n === 1 ? '' : 's'} not synced`;
export const ITEMS_NOT_SYNCED = /^\d+ items? not synced$/;

const unreadableMessage = (reason: string) => `cannot be read: ${reason}`;

const SYMLINK = 'symbolic links are not synced';
const IGNORED = 'left out by the ignore rules (temp files and .syncignore)';

export const emptySummary = (): PassSummary => ({
  done: 0,
  failed: [],
  skipped: [],
  ignored: 0,
  offline: false,
  waiting: 0,
  needsConfirmation: false,
  inSync: false,
});

/** Deletions within this window count together for the mass-delete guard (a folder deleted piece by piece). */
const DELETION_WINDOW_MS = 10 * 60 * 1000;

/** The mass-delete guard: more than 500 items, or more than half of the synced ones when at least 10 would go. */
export function deletionNeedsConsent(deletions: number, synced: number, max = 500): boolean {
  return deletions > max || (deletions >= 10 && deletions > synced / 2);
}

/** A failure as the state's detail says it: where, then what. */

export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.summary;
  if (error instanceof Error) return error.message.split('\n')[0]!;
  return String(error);
}

/** The local path an operation is about; remote-only ones are named by the synced item's path. */
function opPath(op: Operation, base?: ReadonlyMap<RemoteId, BaseItem>): string {
  if ('path' in op) return op.path;
  if (op.kind === 'move-local') return op.to;
  return base?.get(op.remoteId)?.path ?? `#${op.remoteId}`;
}

/** A move to `to` is a file's conflicted copy taking the place of its numbered copy `from` (`a (2).txt`), or of `a.txt`. */
function isConflictOf(to: RelPath, from: RelPath): boolean {
  const original = conflictOriginal(baseName(to));
  return original !== baseName(to) && parentOf(to) === parentOf(from) && isGivenName(baseName(from), original);
}

/** The passes of one synced folder, and what each leaves the next. */
export class FolderPasses {
  private readonly root: string;
  readonly trees: { base: BaseTree; local: Map<RelPath, LocalItem>; remote: Map<RemoteId, RemoteItem> };
  /**
   * After a pass that left everything in sync, the local and remote trees equal base and are not kept (base holds
   * them); the next pass builds them from base first thing. True from the start too: the first scan keeps what it
   * cannot read as base has it.
   */
  private localAsBase = true;
  private remoteAsBase = false;
  private remoteListed = false;
  private isIgnored: IgnoreRule = () => false;
  /** The number of deletions the user was last asked to consent to; asked again only when it changes. */
  askedFor: number | null = null;
  /** The user consented to the deletions the guard stopped at: the next pass may make them. */
  consent = false;
  /** The user refused them: the next pass undoes them where they were made (deletions.ts). */
  keep = false;
  /** A pass has reached its end since the engine started (deletions found before then were made while it did not run). */
  private started = false;
  /** Paths the watcher reported since the last pass looked at them. */
  readonly dirtyPaths = new Set<RelPath>();
  /** Local paths the last scans could not read, with the reason. */
  private readonly unreadable = new Map<RelPath, string>();
  /** Symbolic links the last scans found (left out by design). */
  private readonly symlinks = new Set<RelPath>();
  /** What the ignore rules left out at the last full scan. */
  private ignored: ScanResult['ignored'] = { paths: [], count: 0 };
  private localScanned = false;
  /** How the folder's volume compares names, asked once it can be written to (until then, as Linux's). */
  private volume: VolumeTraits | null = null;
  /** Passes in a row that found an item locked by another program. */
  private busyRetries = 0;
  /** When the next full listing is due, even if the cheap check shows nothing. */
  nextFullListing = 0;
  /** How long the last full scan took. */
  lastFullScanMs = 0;
  /** Deletions carried out lately, so a burst that arrives in small pieces still meets the guard. */
  private recentDeletions: Array<{ at: number; count: number }> = [];
  /** When the last pass that reached its end ended. */
  lastSync: Date | null = null;
  /** What this computer leaves out of the folder, as read at the start of the pass. */
  private selection: Selection = NO_SELECTION;
  /** Remote entries base does not hold (inside excluded folders), kept while the remote tree is kept as base. */
  private keptRemote: RemoteItem[] = [];
  /** What this pass plans in, when it applies a remote delta to a folder in sync (null: the whole trees). */
  private scope: PlanScope | null = null;
  private scopedSize = 0;
  /** What is shared with the account, as the remote tree holds it (the last listing or look at it). */
  sharedArea: SharedArea = NO_SHARED_AREA;
  /** The shared area's entry ids (the cheap checks leave them out). */
  private sharedIds: ReadonlySet<RemoteId> = new Set();
  /** View-only shared entries whose files were last made read-only here (a permission that became edit gives them back). */
  private viewOnly = new Set<RelPath>();
  /** The last pass left downloads out because they do not fit on the disk: what it said. */
  private spaceProblem: string | null = null;

  constructor(
    private readonly options: PassOptions,
    private readonly clock: Clock,
    private readonly fs: FileSystem,
    private readonly mirror: Mirror,
    /** Synced items gone from where the watcher looked, waiting to be found elsewhere before they count as deleted. */
    readonly hold: DisappearanceHold,
    /** Tells from three small requests whether the drive changed (main/sync/remote-changes.ts). */
    readonly remoteCheck: RemoteChangeCheck,
    private readonly host: PassHost,
  ) {
    this.root = options.root;
    this.trees = { base: mirror.loadBase(), local: new LocalTree(), remote: new RemoteTree() };
  }

  /** Names that differ only by case are one local name: as the options say, else as the volume answered. */
  private get caseInsensitive(): boolean {
    return this.options.caseInsensitive ?? this.volume?.caseInsensitive ?? false;
  }

  /** How the scan reads the disk: through the port, and knowing whether the volume finds names by other spellings. */
  private diskLookups(): Pick<ScanOptions, 'readDir' | 'lstat' | 'hash' | 'foldsNames' | 'normalises'> {
    const normalises = this.volume?.normalisesUnicode ?? false;
    const lookups = { readDir: this.fs.readDir, hash: this.fs.hash, foldsNames: this.caseInsensitive || normalises, normalises };
    return this.fs.lstat ? { ...lookups, lstat: this.fs.lstat } : lookups;
  }

  private async askVolume(): Promise<VolumeTraits> {
    const dir = join(this.root, STATE_DIR);
    await this.fs.mkdir(dir, { recursive: true });
    return (await this.fs.volume?.(dir)) ?? { caseInsensitive: false, normalisesUnicode: false };
  }


  /** Scans the whole folder, or looks again at the paths the watcher named; returns what cannot be read now. */
  private async scan(full: boolean): Promise<ItemError[]> {
    this.isIgnored = await loadIgnoreRules(this.root);
    const base = this.trees.base;
    const options = { isIgnored: this.isIgnored, ...this.diskLookups(), ...base.scanLookup() };
    let found: { symlinks: RelPath[]; unreadable: Array<{ path: RelPath; reason: string }> } = { symlinks: [], unreadable: [] };
    // A name that is not valid UTF-8 reaches the watcher garbled (U+FFFD) and cannot be looked at by that name: the
    // scan of its folder reports it, and tells when it is gone or renamed.
    if ([...this.dirtyPaths].some((path) => path.includes('\uFFFD'))) full = true;
    if (full || !this.localScanned) {
      const started = this.clock.now().getTime();
      const result = await scanLocal(this.root, options, this.trees.local);
      this.lastFullScanMs = this.clock.now().getTime() - started;
      this.trees.local = result.items;
      this.localScanned = true;
      this.dirtyPaths.clear();
      this.unreadable.clear();
      this.symlinks.clear();
      this.ignored = result.ignored;
      found = result;
    } else if (this.dirtyPaths.size > 0) {
      const paths = [...this.dirtyPaths];
      this.dirtyPaths.clear();
      found = await refreshPaths(this.root, this.trees.local, paths, options);
      // The tree holds names in NFC on a volume that normalises (HFS+ lists them decomposed, as the watcher names them).
      const named = this.volume?.normalisesUnicode ? paths.map((p) => p.normalize('NFC')) : paths;
      const looked = (path: RelPath) => named.some((p) => p === path || isWithin(path, p));
      for (const path of this.unreadable.keys()) if (looked(path)) this.unreadable.delete(path);
      for (const path of this.symlinks) if (looked(path)) this.symlinks.delete(path);
    }
    for (const path of found.symlinks) {
      this.reportSkipped(path, SYMLINK, true);
      this.symlinks.add(path);
    }
    for (const u of found.unreadable) {
      // In the words the pass's summary uses, so a front end that tells each failure once tells this one once.
      this.reportSkipped(u.path, unreadableMessage(u.reason), false);
      this.unreadable.set(u.path, u.reason);
    }
    // Still unreadable until a scan reads it: every pass until then is not in sync.
    return [...this.unreadable].map(([path, reason]) => ({ path, message: unreadableMessage(reason) }));
  }

  /**
   * Brings back the local and remote trees that were kept as base while everything was in sync. Always, first
   * thing in a pass: a scan or listing that follows replaces them, and one that fails halfway leaves these, never
   * an empty tree that would read as everything deleted.
   */
  private restoreTrees(): void {
    if (this.released) {
      this.trees.base = this.mirror.loadBase();
      this.released = null;
    }
    if (this.localAsBase) this.trees.local = LocalTree.fromBase(this.trees.base);
    if (this.remoteAsBase) {
      this.trees.remote = RemoteTree.fromBase(this.trees.base);
      for (const r of this.keptRemote) this.trees.remote.set(r.id, r);
      this.keptRemote = [];
    }
    this.localAsBase = this.remoteAsBase = false;
  }

  private readonly told = new Set<string>();
  /** A notice the user needs once, not on every pass. */
  private tellOnce(message: string): void {
    if (this.told.has(message)) return;
    this.told.add(message);
    this.host.notice(message);
  }

  private reportedSkips = new Set<string>();
  private reportSkipped(path: RelPath, reason: string, leftOut: boolean): void {
    const key = `${path}\u0000${reason}`;
    if (this.reportedSkips.has(key)) return;
    this.reportedSkips.add(key);
    this.host.itemError(leftOut ? { path, message: reason, leftOut } : { path, message: reason });
  }

  /** Base was let go while the folder was idle (releaseBase); the next pass reads it back from the mirror. */
  get baseReleased(): boolean {
    return this.released !== null;
  }

  /** What is synced, for the cheap check: base, or the mirror while base is let go. */
  /** What is synced of the account's own drive (what the cheap checks compare with). */
  synced(): SyncedIds {
    const all = this.released ? this.mirror.syncedIds(this.released) : syncedIdsOf(this.trees.base);
    return ownSynced(all, this.sharedIds, all.has(SHARED_FOLDER_ID) ? 1 : 0);
  }

  /** The remote tree without the shared area (what the cheap checks compare with). */
  private ownRemote(): ReadonlyMap<RemoteId, RemoteItem> {
    return this.sharedIds.size === 0 ? this.trees.remote : new Without(this.trees.remote, this.sharedIds);
  }

  /** Where what is shared with the account arrives here; null when nowhere (or the folder is not the whole drive). */
  sharedPlace() {
    return (this.options.remoteRootId ?? null) === null ? (this.options.sharedPlace?.() ?? null) : null;
  }

  /** The shared area as the drive has it now; none when nothing shared is synced here. */
  async listShared(): Promise<SharedArea> {
    const place = this.sharedPlace();
    const keepFolder = this.sharedArea.items.length > 0 || this.trees.base.has(SHARED_FOLDER_ID);
    return place ? listSharedArea(this.options.client, place, { signal: this.host.signal, keepFolder }) : NO_SHARED_AREA;
  }

  /** The drive refused an operation on what others share with the account (no access, or the entry is gone). */
  private refusedInSharedArea(op: Operation, error: unknown): boolean {
    if (!(error instanceof ApiError) || (error.kind !== 'forbidden' && error.kind !== 'not-found')) return false;
    const folder = this.trees.base.get(SHARED_FOLDER_ID)?.path;
    if (folder === undefined) return false;
    const path = opPath(op, this.trees.base);
    return path === folder || isWithin(path, folder);
  }

  /** The remote tree with the shared area `area` in place of the one it held. */
  private placeShared(area: SharedArea): void {
    for (const message of sharingNews(this.sharedArea, area, (id) => this.trees.base.has(id))) this.host.notice(message);
    placeSharedArea(this.trees.remote, this.sharedArea, area);
    this.sharedArea = area;
    this.sharedIds = new Set(area.items.map((r) => r.id));
    this.viewOnlyDue = true;
  }

  /** The shared area was placed anew since the copies' write bits were last looked at. */
  private viewOnlyDue = false;

  /**
   * The local copies of files shared with the account to view only have no write bits (an editor then says so rather
   * than letting a change be made that cannot be sent); files that may be edited again get theirs back.
   */
  private async keepViewOnly(): Promise<void> {
    if (!this.fs.chmod || (this.sharedArea.tops.size === 0 && this.viewOnly.size === 0)) return;
    const now = new Set(viewOnlyFiles(this.trees, this.sharedArea));
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

  get syncedCount(): number {
    return this.released ? this.released.size : this.trees.base.size;
  }

  /** What others share with the account, as the last look placed it here: where, how many entries, how many to view only. */
  get sharedWithMe(): SharedWithMe | null {
    const place = this.sharedPlace();
    if (!place) return null;
    const tops = [...this.sharedArea.tops.values()];
    return { folder: place.folder, entries: tops.length, viewOnly: tops.filter((t) => !t.editable).length };
  }

  /** Base's counts when it was let go (they hold until a pass reads it back). */
  private released: { size: number; rootChildren: number } | null = null;

  /**
   * Lets base go while nothing happens: at 100,000 items it is ~20 MB of an idle engine's ~140, and reading it back
   * from the mirror takes a fraction of a second when the next pass starts. Only between passes (the folder loop's
   * `release` request), and only when the other two trees are kept as base (everything was in sync). True when it let
   * base go now.
   */
  releaseBase(): boolean {
    if (this.released || !this.localAsBase || !this.remoteAsBase) return false;
    const base = syncedIdsOf(this.trees.base);
    this.released = { size: base.size, rootChildren: base.rootChildren() };
    this.trees.base = new BaseTree();
    return true;
  }

  /**
   * One pass, as the request asks: the whole folder or the watcher's paths, a fresh listing or the last one. What
   * fails from the scan on is told by the summary and the state the pass leaves, not thrown.
   */
  async run(options: PassRequest): Promise<PassSummary> {
    const summary = emptySummary();
    if (this.host.paused || this.host.stopped) return summary;
    // The folder is the one synced here, or nothing is done: a folder gone or replaced is not everything deleted.
    const problem = await checkFolderIdentity(this.root, this.fs, this.mirror, this.syncedCount);
    if (problem) {
      // Its watcher died with it: when the folder is back, it is watched afresh and scanned in full.
      await this.host.stopWatching();
      this.dirtyPaths.clear();
      this.hold.clear();
      this.localScanned = false;
      this.localAsBase = true;
      this.host.setState('error', problem.message);
      summary.failed.push({ path: '', message: problem.message });
      summary.folder = problem.kind;
      return summary;
    }
    if (this.host.live && this.host.watcherPending() === null) await this.host.startWatching();
    await this.untilWatcherReported();
    try {
      this.host.setState('scanning');
      // Left in sync by the last pass, with nothing changed here since: a delta from the drive is planned in its scope.
      const quietBefore = this.localAsBase && this.remoteAsBase && this.keptRemote.length === 0 && !options.fullScan && this.dirtyPaths.size === 0;
      this.scope = null;
      this.restoreTrees();
      await this.fs.rm(join(this.root, STATE_DIR, 'tmp'), { recursive: true, force: true });
      await putBackStaged(this.root, this.fs);
      this.volume ??= await this.askVolume().catch(() => null);
      let unreadable = await this.scan(options.fullScan);
      let listed: RemoteSignals | null = null;
      let listingMs: number | null = null;
      let applied = false;
      const touched = new Set<RemoteId>();
      if (options.listRemote || !this.remoteListed) {
        const base = this.trees.base;
        // The cheap signals are read first: what they show must be in the listing that follows.
        const signals = this.host.live ? await this.remoteCheck.read(this.host.signal).catch(() => null) : null;
        const started = this.clock.now().getTime();
        this.trees.remote = await listRemote(this.options.client, this.options.remoteRootId ?? null, (id) => base.has(id), this.host.signal);
        // The listing holds none of the shared part: the one placed before goes (its ids are others' entries).
        this.placeShared(options.sharedArea ?? (await this.listShared()));
        this.remoteListed = true;
        listingMs = this.clock.now().getTime() - started;
        if (signals) this.remoteCheck.calibrate(signals, this.ownRemote());
        this.remoteCheck.foldersListed(this.clock.now().getTime(), this.host.pollMs);
        listed = signals;
      } else if (options.remoteDelta) {
        await applyRemoteDelta(this.options.client, this.trees.remote, options.remoteDelta, this.options.remoteRootId ?? null, this.host.signal, touched);
        applied = true;
      }
      if (!options.listRemote && this.remoteListed && options.sharedArea) this.placeShared(options.sharedArea);
      // What changed while the folder was scanned and the drive listed is looked at too, so the plan does not mix the
      // folder as it was with the folder as it is (one end of a swap seen, the other not).
      let rescanned = false;
      for (let round = 0; round < 5 && this.host.watcherPending() !== null && this.watcherBusy(); round++) {
        await this.untilWatcherReported();
        if (this.dirtyPaths.size > 0) {
          unreadable = await this.scan(false);
          rescanned = true;
        }
      }
      let adopted = false;
      for (const path of await adoptLostUploads(this.root, this.trees, this.mirror, this.options.client, this.fs)) {
        this.host.record({ kind: 'record', path, rule: 'adopt' });
        adopted = true;
      }
      this.selection = this.selectionForPass();
      if (applied && quietBefore && !rescanned && !adopted && unreadable.length === 0 && this.scopeAllowed()) this.scope = deltaScope(this.trees.base, this.trees.remote, touched);
      this.host.setState('syncing');
      // A consent given during this pass (when it asked) is for the next one.
      const consented = this.consent;
      const { failures, last } = await this.planAndExecute(summary);
      if (consented) this.consent = false;
      this.host.transfersEnded();
      for (const failure of failures) this.host.itemError(failure);
      if (listed || applied) this.remoteCheck.settle(this.ownRemote(), this.synced());
      // Only when something could have changed the copies: a download, a new permission (the area placed anew).
      if (summary.done > 0 || listed || this.viewOnlyDue) await this.keepViewOnly();
      if (listingMs !== null) {
        // Spaced by the drive as this pass left it: an initial sync lists an empty drive, then fills it.
        const entries = this.trees.remote.size;
        this.nextFullListing = this.clock.now().getTime() + fullListingInterval({
          pollMs: this.host.pollMs,
          lastListingMs: listingMs,
          entries,
          // A share of what the cheap checks leave: the listings of the folders' level have the rest.
          ...(this.remoteCheck.bytesPerCheck > 0 ? { bytesPerMinute: listingBudget(this.remoteCheck.bytesPerCheck, this.host.pollMs) * FULL_LISTING_SHARE } : {}),
        });
      }
      // What this pass sent is checked at once (others may have changed something meanwhile): cheap, as it knows
      // what it sent.
      if (this.host.live && summary.done > 0 && this.remoteCheck.usable) this.host.checkDrive();
      // The loop's last plan still holds when nothing ran after it (at 100,000 items a plan takes most of a second).
      const latest = last ?? this.planNow();
      const quiet = latest.quiet;
      const final = quiet ? null : latest;
      // Items the service refuses (folder names and renames outside 3–200 characters) are not synced until the user
      // renames them: the pass has not brought the folder in sync. They were reported when first planned.
      const refused = (final?.skipped ?? []).filter((skip) => skip.fails).map((skip) => ({ path: skip.path, message: skip.reason }));
      summary.ignored = this.ignored.count;
      summary.skipped = [
        ...[...this.symlinks].map((path) => ({ path, message: SYMLINK })),
        ...this.ignored.paths.map((path) => ({ path, message: IGNORED })),
        ...(final?.skipped ?? []).filter((skip) => !skip.fails).map((skip) => ({ path: skip.path, message: skip.reason })),
      ];
      const { operations: left, held } = final
        ? this.hold.filter(final.operations, this.clock.now().getTime(), this.mayBeMoved())
        : { operations: [], held: new Set() };
      summary.waiting = held.size;
      summary.failed = [...failures, ...refused, ...unreadable];
      summary.inSync = !summary.needsConfirmation && left.length === 0 && !this.hold.holding && summary.failed.length === 0;
      if (quiet) {
        // Nothing differs from base: keep base alone until the next pass needs the other two (and the entries inside
        // excluded folders, which base does not hold).
        this.keptRemote = [];
        for (const r of this.trees.remote.values()) if (!this.trees.base.has(r.id)) this.keptRemote.push(r);
        this.trees.local = new LocalTree();
        this.trees.remote = new RemoteTree();
        this.localAsBase = this.remoteAsBase = true;
      }
      if (summary.inSync && this.mirror.getMeta(MIRROR_SYNCED_ONCE) === undefined) this.mirror.setMeta(MIRROR_SYNCED_ONCE, this.clock.now().toISOString());
      this.lastSync = this.clock.now();
      this.started = true;
      if (summary.needsConfirmation) {
        // The state says so already (waiting for consent).
      } else if (this.host.paused) this.host.setState('paused');
      else if (this.spaceProblem) this.host.setState('error', this.spaceProblem);
      else if (summary.failed.length > 0) {
        // An item that fails is the item's problem: the folder goes on syncing everything else, and says how many
        // are left out (each item's error is reported on its own). The error state is for the folder as a whole.
        this.host.setState('idle', itemsNotSynced(summary.failed.length));
      }
      else if (held.size > 0) this.host.setState('syncing', `looking for where ${held.size} item${held.size === 1 ? '' : 's'} went`);
      else this.host.setState('idle');
    } catch (error) {
      const offline = isUnreachable(error) || error instanceof OfflineError;
      const message = describeError(error);
      if (offline) summary.offline = true;
      else summary.failed.push({ path: '', message });
      this.host.setState(offline ? 'offline' : 'error', message);
    }
    if (this.scope) summary.scoped = this.scopedSize;
    this.scope = null;
    return summary;
  }

  /**
   * Where a remote delta is planned in its scope: not with folders left out or shared with the account (their rows
   * look across the whole tree), nor while a deletion here waits to be settled.
   */
  private scopeAllowed(): boolean {
    return (
      this.selection.excluded.size === 0 &&
      this.selection.newFolders !== 'exclude' &&
      this.sharedArea.tops.size === 0 &&
      !this.trees.base.has(SHARED_FOLDER_ID) &&
      !this.hold.holding
    );
  }

  /** The plan for the trees as they are now (none when nothing differs from base in what is synced). */
  private planNow(): SelectedPlan {
    // A remote delta to a folder in sync: only what it touched can need an operation (scope.ts).
    const trees = this.scope ? scopedTrees(this.trees, this.scope) : this.trees;
    if (this.scope) this.scopedSize = trees.base.size;
    const selected = planSelected(trees, this.selection, { isIgnored: this.isIgnored, caseInsensitive: this.caseInsensitive });
    const place = this.sharedPlace();
    return place || this.sharedArea.tops.size > 0 || this.trees.base.has(SHARED_FOLDER_ID)
      ? rowsOfAccess(selected, this.trees, this.sharedArea, place ?? { folder: '', me: undefined })
      : selected;
  }

  /**
   * The selection for this pass, as the front end keeps it; a folder set to leave new top-level folders out excludes
   * those made elsewhere since its first sync, and says so once.
   */
  private selectionForPass(): Selection {
    const selection = this.options.selection?.() ?? NO_SELECTION;
    if (selection.newFolders !== 'exclude' || this.mirror.getMeta(MIRROR_SYNCED_ONCE) === undefined) return selection;
    const fresh = newTopFolders(this.trees, selection);
    if (fresh.length === 0) return selection;
    this.options.excludeNewFolders?.(fresh.map((r) => r.id));
    for (const r of fresh) {
      this.host.notice(`${r.name} is a new folder on the drive; this folder leaves new folders out, so it is not synced here (drivesync include to sync it)`);
    }
    return { ...selection, excluded: new Set([...selection.excluded, ...fresh.map((r) => r.id)]) };
  }

  /**
   * Plan → guard → execute, until a plan is empty; returns the operations that failed, and the last plan when
   * nothing changed the trees after it.
   */
  private async planAndExecute(summary: PassSummary): Promise<{ failures: ItemError[]; last: SelectedPlan | null }> {
    const labels = new WeakMap<Operation, string>();
    /** Paths whose change to what the account may only view was told kept as a copy (S2) this pass. */
    const keptAsCopy = new Set<RelPath>();
    const executor = new Executor(
      this.root,
      this.options.remoteRootId ?? null,
      this.trees,
      this.mirror,
      {
        client: this.options.client,
        trash: this.options.trash,
        clock: this.clock,
        hostname: this.options.hostname,
        fs: this.fs,
        randomId: this.options.randomId ?? randomId,
        scanFolder: async (absolutePath, path) => {
          // Scanned where it is (moved aside to be trashed), named as if it were at `path`.
          const at = (p: RelPath) => (p === '' ? path : `${path}/${p}`);
          const isIgnored: IgnoreRule = (p, type) => this.isIgnored(at(p), type);
          const synced = this.trees.base.scanLookup();
          const options = { isIgnored, ...this.diskLookups(), needsHash: () => false, isSynced: (p: RelPath) => synced.isSynced(at(p)) };
          const { items } = await scanLocal(absolutePath, options);
          const out = new Map<RelPath, LocalItem>();
          for (const [p, item] of items) out.set(at(p), { ...item, path: at(p) });
          return out;
        },
      },
      {
        transfer: (event) => this.host.transfer(event),
        done: (op, outcome) => {
          // A resolved duplicate that was a conflict is told by `conflict`; the same bytes twice, as a merge.
          if (op.kind === 'resolve-twin') {
            if (outcome.kind === 'synced') this.host.record({ kind: 'merge', path: labels.get(op) ?? op.path, rule: op.rule });
            return;
          }
          if (op.kind === 'drop-local' && outcome.kind === 'dropped') {
            const kept = outcome.kept.length > 0 ? `; ${outcome.kept.length} item${outcome.kept.length === 1 ? '' : 's'} not on the drive stay here` : '';
            this.host.notice(`${op.path} is excluded: its copy here is removed (it stays on the drive), ${humanBytes(outcome.freed)} freed${kept}`);
          }
          const deleted = (op.kind === 'trash-remote' || op.kind === 'trash-local') && op.remoteId !== null ? { remoteId: op.remoteId } : {};
          this.host.record({ kind: op.kind, path: labels.get(op) ?? opPath(op), rule: op.rule, ...deleted });
          // Another computer resolved a file saved on two computers at once (C5): its version, here under a number
          // until then, follows the drive's rename to the conflicted copy. Told as the conflict it is.
          if (op.kind === 'move-local' && op.rule === 'M2' && isConflictOf(op.to, op.from)) {
            const original = joinPath(parentOf(op.to), conflictOriginal(baseName(op.to)));
            this.host.notice(`${original} was saved on two computers at the same time; the other version is kept as ${op.to}`);
            this.host.conflict(op.to, original);
          }
        },
        notice: (message) => this.host.notice(message),
        conflict: (path, copy, twice) => {
          this.host.conflict(copy, path);
          // A change to what the account may only view, kept as a copy: its note said so (S2), and the drive's side did
          // not change.
          if (!twice && keptAsCopy.delete(path)) return;
          this.host.notice(
            twice
              ? `${path} was saved on this computer and another at the same time; this computer's version is kept as ${copy}, here and on the drive`
              : `both sides changed ${path}; your version is kept as ${copy}`,
          );
          this.host.record({ kind: 'conflict', path: copy, ...(twice ? { rule: 'C5' as const } : {}) });
        },
      },
      this.options.concurrency ?? 4,
    );
    const maxIterations = this.options.maxIterations ?? 200;
    const failures = new Map<string, ItemError>();
    /** Failures that were the server out of reach, not the item. */
    const unreachable = new Set<string>();
    const rateLimited = new Map<string, number>();
    let busy = false;
    let last: SelectedPlan | null = null;
    /** What is shared with the account was listed again this pass, after the drive refused a change to it. */
    let sharedLookedAgain = false;
    this.spaceProblem = null;
    for (let iteration = 0; iteration < maxIterations; iteration++) {
      if (this.host.stopped || this.host.paused) break;
      const result = this.planNow();
      last = result;
      for (const skip of result.skipped) this.reportSkipped(skip.path, skip.reason, !skip.fails);
      for (const note of result.notes) {
        this.tellOnce(`${note.path}: ${note.message}`);
        if (note.keptAsCopy) keptAsCopy.add(note.path);
      }
      // What acts on a local disappearance waits until the folder has settled (it may be a move whose other end is
      // not reported yet); operations that already failed this sync wait for the next one.
      const { operations: ready, heldDeletions } = this.hold.filter(result.operations, this.clock.now().getTime(), this.mayBeMoved());
      let operations = ready.filter((op) => !failures.has(`${op.kind}:${opPath(op)}`));
      const space = await this.spaceFor(operations);
      if (space) {
        // What would not fit is not started; the rest goes on, and the next pass looks again.
        operations = operations.filter((op) => !needsSpace(op));
        failures.set('space', { path: '', message: space });
        this.spaceProblem = space;
      }
      if (operations.length === 0) break;
      const deletions = result.deletions - heldDeletions;
      const now = this.clock.now().getTime();
      this.recentDeletions = this.recentDeletions.filter((d) => now - d.at < DELETION_WINDOW_MS);
      const recent = this.recentDeletions.reduce((sum, d) => sum + d.count, 0);
      const count = deletions + recent;
      // A remote trash takes along what excluded folders hold inside it, which this computer cannot see: asked first.
      const trashed = new Set(operations.flatMap((op) => (op.kind === 'trash-remote' ? [op.remoteId] : [])));
      const excluded = result.outside.size > 0 ? excludedTakenBy(this.trees.remote, result.outside, trashed, this.selection.excluded) : { items: 0, bytes: 0 };
      const guarded = (deletions > 0 && deletionNeedsConsent(count, this.trees.base.size + recent, this.options.maxDeletions)) || excluded.items > 0;
      if (guarded && !this.consent) {
        if (this.keep) {
          // The user said no: the deletions are undone where they were made, and the pass plans again.
          const kept = await keepDeletions(operations, this.trees, this.mirror, this.options.client);
          this.keep = false;
          this.askedFor = null;
          this.recentDeletions = [];
          this.host.notice(`kept ${kept} item${kept === 1 ? '' : 's'}: what was deleted on the drive is restored there, and what was deleted here comes back from the drive`);
          last = null;
          continue;
        }
        summary.needsConfirmation = true;
        this.host.setState('waiting-for-consent', `waiting for your answer to delete ${count} items`);
        if (this.askedFor !== count) {
          const question = deletionQuestion(operations, this.trees, this.trees.base.size + recent, !this.started, result.outside);
          this.host.askConsent({ ...question, count, ...(excluded.items > 0 ? { excluded } : {}) });
        }
        this.askedFor = count;
        break;
      }
      this.askedFor = null;
      if (this.consent) this.recentDeletions = [];
      else if (deletions > 0) this.recentDeletions.push({ at: now, count: deletions });
      for (const op of operations) labels.set(op, opPath(op, this.trees.base));
      const outcome = await executor.run(operations, this.host.signal);
      last = null;
      summary.done += outcome.done - outcome.recorded;
      const refusedInShared: { op: Operation; error: unknown }[] = [];
      for (const { op, error } of outcome.failed) {
        // Planned again next iteration: the disk or listing moved on, or the service asked to wait (and it has;
        // three times for one operation, and it waits for the next sync).
        if (error instanceof StaleError) continue;
        // Cut short by a stop the user asked for: not a failure; it is done at the next start.
        if (this.host.signal.aborted) continue;
        if (error instanceof RateLimitedError) {
          const key = `${op.kind}:${opPath(op)}`;
          const tries = (rateLimited.get(key) ?? 0) + 1;
          rateLimited.set(key, tries);
          if (tries < 3) continue;
        }
        // The owner may have stopped sharing it, or taken the edit permission back, since it was last listed: what is
        // shared is listed again and the plan made anew (once a pass), rather than a failure reported.
        if (!sharedLookedAgain && this.refusedInSharedArea(op, error)) {
          refusedInShared.push({ op, error });
          continue;
        }
        const item = { path: labels.get(op) ?? opPath(op), message: describeError(error) };
        failures.set(`${op.kind}:${opPath(op)}`, item);
        if (isUnreachable(error)) unreachable.add(`${op.kind}:${opPath(op)}`);
        if (error instanceof BusyError) busy = true;
      }
      if (refusedInShared.length > 0) {
        sharedLookedAgain = true;
        const area = await this.listShared().catch(() => null);
        if (area) {
          this.scope = null;
          this.placeShared(area);
          continue;
        }
        for (const { op, error } of refusedInShared) failures.set(`${op.kind}:${opPath(op)}`, { path: labels.get(op) ?? opPath(op), message: describeError(error) });
      }
      if (outcome.done === 0 && outcome.failed.every((f) => !(f.error instanceof StaleError))) {
        // Passing faults are tried again at once, a few times; a deadline that passed is not (it already cost its
        // full time, and the next pass tries again).
        const retryNow = (error: unknown) => isTransient(error) && !(error instanceof ApiError && error.kind === 'timeout');
        if (outcome.failed.length > 0 && outcome.failed.every((f) => retryNow(f.error)) && iteration < 3) continue;
        break;
      }
      if (outcome.failed.some((f) => f.error instanceof StaleError)) {
        // The disk moved on: what the rescan finds may be anywhere.
        this.scope = null;
        await this.scan(true);
      }
    }
    if (busy && this.host.live) {
      // Tried again on their own, less often while they stay locked (each try that fails is reported again).
      const wait = Math.min((this.options.busyRetryMs ?? 10_000) * 2 ** this.busyRetries++, 5 * 60_000);
      this.host.retryIn(wait);
    } else if (!busy) this.busyRetries = 0;
    // Nothing went through and every failure was the server out of reach: the folder is offline, its items did not
    // fail; they are tried again when the server answers.
    if (failures.size > 0 && unreachable.size === failures.size && summary.done === 0) {
      summary.offline = true;
      throw new OfflineError([...failures.values()][0]!.message);
    }
    return { failures: [...failures.values()], last };
  }

  /**
   * A pass plans from a local tree the watcher has finished reporting: a file still settling inside a folder the
   * other side deleted must be seen before the folder is trashed, as a full scan would see it. A path that never
   * settles (a file written on and on) holds a pass back by the hold's settle time at most.
   */
  private async untilWatcherReported(): Promise<void> {
    const limit = this.clock.now().getTime() + (this.options.hold ?? DEFAULT_HOLD).settleMs;
    while ((this.host.watcherPending() ?? 0) > 0 && this.clock.now().getTime() < limit && !this.host.stopped) {
      this.hold.changed(this.clock.now().getTime());
      await new Promise<void>((resolve) => this.clock.after(25, resolve));
    }
  }

  /**
   * Whether the downloads among these operations fit on the disk (with a reserve left free); when they do not, what
   * to tell the user: how much is needed and how much is free.
   */
  private async spaceFor(operations: readonly Operation[]): Promise<string | null> {
    let needed = 0;
    for (const op of operations) if (needsSpace(op)) needed += this.trees.remote.get(op.remoteId)?.size ?? 0;
    if (needed === 0) return null;
    const free = await this.fs.freeBytes?.(this.root);
    if (free === undefined || needed + SPACE_RESERVE <= free) return null;
    return `not enough free space: ${humanBytes(needed)} to download, ${humanBytes(free)} free on this disk; free some space, or leave folders out (drivesync exclude)`;
  }

  /** Uploads that may be the other end of a move not seen whole yet (hold.ts). */
  private mayBeMoved(): (op: Operation) => boolean {
    return uploadMayBeMoved(this.trees.base.values(), this.trees.local);
  }

  watcherBusy(): boolean {
    return (this.host.watcherPending() ?? 0) > 0 || this.dirtyPaths.size > 0;
  }
}
