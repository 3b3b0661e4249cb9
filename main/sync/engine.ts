/**
 * One control loop per sync root: scan, list, plan, execute, until a plan is empty; then watch the folder and poll
 * the service. It owns the three trees and tells the CLI and the window what happens through typed events.
 */
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { DriveClient } from '../api/client.js';
import { ApiError, isTransient, RateLimitedError } from '../api/errors.js';
import { adoptLostUploads } from './adopt.js';
import { BusyError, Executor, StaleError, type TransferEvent } from './execute.js';
import { loadIgnoreRules, refreshPaths, scanLocal, STATE_DIR, type IgnoreRule, type ScanOptions, type ScanResult } from './local.js';
import { Mirror } from './mirror.js';
import { plan, settled } from './plan.js';
import { nodeFileSystem, randomId, systemClock, type Clock, type FileSystem, type RandomId, type VolumeTraits } from './ports.js';
import { listRemote } from './remote.js';
import { fullListingInterval, RemoteChangeCheck, type RemoteSignals } from './remote-changes.js';
import { isWithin } from './names.js';
import { BaseTree, LocalTree, RemoteTree } from './trees.js';
import { DEFAULT_HOLD, DisappearanceHold, type HoldLimits } from './hold.js';
import { FolderLoop, type FolderRequest, type PassRequest, type Work } from './folder-loop.js';
import { watchTree, type Watcher, type WatchTree } from './watcher.js';
import type { BaseItem, EngineRuleId, EngineState, LocalItem, Operation, RelPath, RemoteId, RemoteItem, RuleId } from './types.js';

export type { EngineState } from './types.js';

export interface Activity {
  at: string;
  kind: Operation['kind'] | 'conflict' | 'notice';
  path: string;
  rule?: RuleId | EngineRuleId;
}

export interface ItemError {
  path: string;
  message: string;
}

export interface PassSummary {
  /** Operations carried out. */
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
}

export interface SyncOptions {
  /** Scan the whole folder instead of only the paths the watcher named. */
  fullScan?: boolean;
  /** List the remote tree (default); false reuses the last listing, as for a local change. */
  listRemote?: boolean;
}

export interface DeletionQuestion {
  count: number;
  synced: number;
}

export interface EngineEvents {
  state: [state: EngineState, detail?: string];
  activity: [activity: Activity];
  transfer: [event: TransferEvent];
  /** Both sides changed a file: the local version was kept as `copyPath` next to `path`. */
  conflict: [copyPath: string, path: string];
  'item-error': [error: ItemError];
  'confirm-deletions': [question: DeletionQuestion];
  notice: [message: string];
  pass: [summary: PassSummary];
}

export interface EngineOptions {
  /** The local folder kept in sync. */
  root: string;
  /** The remote folder it mirrors; null is the whole drive. */
  remoteRootId?: RemoteId | null;
  client: DriveClient;
  /** Path of the mirror database of this root. */
  mirrorPath: string;
  trash(absolutePath: string): Promise<void>;
  clock?: Clock;
  hostname: string;
  pollIntervalMs?: number;
  concurrency?: number;
  /** Deletions above this many items stop the pass and ask. */
  maxDeletions?: number;
  /** Passes within one sync before giving up on convergence. */
  maxIterations?: number;
  /** Names that differ only by case are one name on the folder's volume; by default the volume is asked (FileSystem.volume). */
  caseInsensitive?: boolean;
  /** The Watcher port; one `fs.watch` per folder by default. */
  watch?: WatchTree;
  /** What the executor does to the disk; node:fs by default. */
  fs?: FileSystem;
  /** Names of temp files; random UUIDs by default. */
  randomId?: RandomId;
  /** How often the clock is read to notice that the machine slept (then a full scan runs); 30 s by default. */
  wakeCheckMs?: number;
  /** How long a local disappearance waits for the folder to settle before it counts as a deletion (live mode). */
  hold?: HoldLimits;
  /** The watcher's stability wait; 300 ms by default. */
  stabilityMs?: number;
  /** How often the folder is scanned in full while its watcher has failed; every minute by default. */
  fallbackRescanMs?: number;
  /**
   * When items another program held locked are first tried again (live mode; closing a file is no change to watch);
   * 10 s by default, then twice as long each time they are still locked, up to 5 minutes.
   */
  busyRetryMs?: number;
}

type TimerName = 'poll' | 'rescan' | 'wake' | 'hold' | 'fallback' | 'verify' | 'busy';

/** The server could not be reached (no connection, or no answer in time). */
const isUnreachable = (error: unknown): boolean => error instanceof ApiError && (error.kind === 'network' || error.kind === 'timeout');

/** A pass whose every operation failed because the server was out of reach. */
class OfflineError extends Error {}

const SYMLINK = 'symbolic links are not synced';
const IGNORED = 'left out by the ignore rules (temp files and .syncignore)';

const emptySummary = (): PassSummary => ({
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

/** A gap this much longer than the wake check's interval means the machine slept (a busy loop is not that late). */
const WAKE_SLACK_MS = 60_000;
/** Looks at the drive because the user opened the window or the tray menu at most this often. */
const LOOK_SPACING_MS = 3_000;

/** The mass-delete guard: more than 500 items, or more than half of the synced ones when at least 10 would go. */
export function deletionNeedsConsent(deletions: number, synced: number, max = 500): boolean {
  return deletions > max || (deletions >= 10 && deletions > synced / 2);
}

function describeError(error: unknown): string {
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

export class SyncEngine extends EventEmitter<EngineEvents> {
  readonly root: string;
  private readonly options: EngineOptions;
  private readonly clock: Clock;
  private readonly fs: FileSystem;
  private readonly mirror: Mirror;
  private readonly trees: { base: BaseTree; local: Map<RelPath, LocalItem>; remote: Map<RemoteId, RemoteItem> };
  /**
   * After a pass that left everything in sync, the local and remote trees equal base and are not kept (base holds
   * them); the next pass builds them from base first thing. True from the start too: the first scan keeps what it
   * cannot read as base has it.
   */
  private localAsBase = true;
  private remoteAsBase = false;
  private remoteListed = false;
  private isIgnored: IgnoreRule = () => false;
  private stateValue: EngineState = 'starting';
  private paused = false;
  private stopped = false;
  private abort = new AbortController();
  /** Cancels the timers of polls, rescans, the wake check and the next look at held disappearances. */
  private readonly timers = new Map<TimerName, () => void>();
  private watcher: Watcher | null = null;
  /** The watcher failed: it may report some changes or none, so the folder is also scanned in full periodically. */
  private watchDegraded = false;
  /** Started: watching and polling, not only passes asked for. */
  private live = false;
  /** The number of deletions the user was last asked to consent to; asked again only when it changes. */
  private askedFor: number | null = null;
  /** Paths the watcher reported since the last pass looked at them. */
  private dirtyPaths = new Set<RelPath>();
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
  /** Synced items gone from where the watcher looked, waiting to be found elsewhere before they count as deleted. */
  private readonly hold: DisappearanceHold;
  /** Tells from three small requests whether the drive changed (main/sync/remote-changes.ts). */
  private readonly remoteCheck: RemoteChangeCheck;
  /** When the next full listing is due, even if the cheap check shows nothing. */
  private nextFullListing = 0;
  /** How long the last full scan took. */
  private lastFullScanMs = 0;
  /** Every request for work goes through it: one job (a pass, a look at the drive) at a time. */
  private readonly loop: FolderLoop<PassSummary>;
  /** Deletions carried out lately, so a burst that arrives in small pieces still meets the guard. */
  private recentDeletions: Array<{ at: number; count: number }> = [];
  private consent = false;
  readonly recent: Activity[] = [];
  readonly errors: ItemError[] = [];
  lastSync: Date | null = null;

  constructor(options: EngineOptions) {
    super();
    this.options = options;
    this.root = options.root;
    this.clock = options.clock ?? systemClock;
    this.fs = options.fs ?? nodeFileSystem;
    this.hold = new DisappearanceHold(options.hold ?? DEFAULT_HOLD);
    this.remoteCheck = new RemoteChangeCheck(options.client, options.remoteRootId ?? null);
    this.mirror = new Mirror(options.mirrorPath);
    this.trees = { base: this.mirror.loadBase(), local: new LocalTree(), remote: new RemoteTree() };
    this.loop = new FolderLoop<PassSummary>({
      take: (request) => this.take(request),
      check: () => this.check(),
      pass: (request) => this.pass(request),
      passed: (summary) => {
        // Listeners may ask for another pass from here: the finished one no longer counts as running.
        queueMicrotask(() => this.emit('pass', summary));
        this.scheduleHoldCheck();
      },
      empty: emptySummary,
    });
  }

  get state(): EngineState {
    return this.stateValue;
  }

  /** Items the mirror holds as synced. */
  get syncedCount(): number {
    return this.trees.base.size;
  }

  /**
   * Nothing is waiting: no pass runs or is asked for, the watcher has no path settling, no disappearance waits for
   * the folder to settle, and the full scan that follows a burst of changes has been done. (Polls and the hourly
   * rescan on their timers are not waiting work.)
   */
  isQuiet(): boolean {
    return (
      this.loop.idle &&
      !this.timers.has('verify') &&
      !this.watcherBusy() &&
      !this.hold.holding
    );
  }

  private setState(state: EngineState, detail?: string): void {
    if (state === this.stateValue && detail === undefined) return;
    this.stateValue = state;
    this.emit('state', state, detail);
  }

  private record(activity: Omit<Activity, 'at'>): void {
    const entry = { at: this.clock.now().toISOString(), ...activity };
    this.recent.unshift(entry);
    this.recent.length = Math.min(this.recent.length, 200);
    this.emit('activity', entry);
  }

  private readonly transferStarts = new Map<string, number>();

  /** Adds the rate and the time left to a transfer's progress. */
  private withRate(event: TransferEvent): TransferEvent {
    const key = `${event.direction}:${event.path}`;
    const now = this.clock.now().getTime();
    const started = this.transferStarts.get(key) ?? now;
    // A finished transfer is forgotten at once: a pass of 100,000 uploads would otherwise keep a key for each.
    if (event.total !== undefined && event.transferred >= event.total) this.transferStarts.delete(key);
    else this.transferStarts.set(key, started);
    const seconds = (now - started) / 1000;
    if (seconds <= 0) return event;
    const rate = event.transferred / seconds;
    const etaSeconds = event.total !== undefined && rate > 0 ? Math.max(0, (event.total - event.transferred) / rate) : undefined;
    return { ...event, rate, ...(etaSeconds !== undefined ? { etaSeconds } : {}) };
  }

  /**
   * Lets the next pass delete more than the guard allows (the user said yes). A running engine that was waiting for
   * the answer goes on at once.
   */
  confirmDeletions(): void {
    void this.loop.submit({ kind: 'consent' });
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

  private async rootProblem(): Promise<string | null> {
    try {
      const s = await this.fs.stat(this.root);
      return s.isDirectory() ? null : `${this.root} is not a folder`;
    } catch {
      return `the sync folder ${this.root} is missing; nothing is synced until it is back`;
    }
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
      const looked = (path: RelPath) => paths.some((p) => p === path || isWithin(path, p));
      for (const path of this.unreadable.keys()) if (looked(path)) this.unreadable.delete(path);
      for (const path of this.symlinks) if (looked(path)) this.symlinks.delete(path);
    }
    for (const path of found.symlinks) {
      this.reportSkipped(path, SYMLINK);
      this.symlinks.add(path);
    }
    for (const u of found.unreadable) {
      this.reportSkipped(u.path, u.reason);
      this.unreadable.set(u.path, u.reason);
    }
    // Still unreadable until a scan reads it: every pass until then is not in sync.
    return [...this.unreadable].map(([path, reason]) => ({ path, message: `cannot be read: ${reason}` }));
  }

  /**
   * Brings back the local and remote trees that were kept as base while everything was in sync. Always, first
   * thing in a pass: a scan or listing that follows replaces them, and one that fails halfway leaves these, never
   * an empty tree that would read as everything deleted.
   */
  private restoreTrees(): void {
    if (this.localAsBase) this.trees.local = LocalTree.fromBase(this.trees.base);
    if (this.remoteAsBase) this.trees.remote = RemoteTree.fromBase(this.trees.base);
    this.localAsBase = this.remoteAsBase = false;
  }

  private readonly told = new Set<string>();
  /** A notice the user needs once, not on every pass. */
  private tellOnce(message: string): void {
    if (this.told.has(message)) return;
    this.told.add(message);
    this.emit('notice', message);
  }

  private reportedSkips = new Set<string>();
  private reportSkipped(path: RelPath, reason: string): void {
    const key = `${path}\u0000${reason}`;
    if (this.reportedSkips.has(key)) return;
    this.reportedSkips.add(key);
    const error = { path, message: reason };
    this.errors.unshift(error);
    this.emit('item-error', error);
  }

  /**
   * Asks for a pass: a full one (scan and listing), or one over the watcher's paths with or without a listing. One
   * pass runs at a time; what is asked meanwhile is merged into the next, and every caller gets the summary of the
   * pass that did what it asked.
   */
  syncOnce(options: SyncOptions = {}): Promise<PassSummary> {
    // `take` answers a sync with a pass, always.
    return this.loop.submit({ kind: 'sync', fullScan: options.fullScan ?? false, listRemote: options.listRemote !== false }) as Promise<PassSummary>;
  }

  /** What each request changes at once, and the work it asks of the loop. */
  private take(request: FolderRequest): Work {
    switch (request.kind) {
      case 'local-change':
        this.hold.changed(this.clock.now().getTime());
        for (const path of request.paths) this.dirtyPaths.add(path);
        this.verifyWhenSettled();
        return { pass: { fullScan: false, listRemote: false } };
      case 'poll':
        return { check: true };
      case 'look': {
        const now = this.clock.now().getTime();
        if (!this.live || this.stopped || this.paused || now - this.lookedAt < LOOK_SPACING_MS) return null;
        this.lookedAt = now;
        // The poll timer fires now, and counts its interval from this look.
        this.schedulePoll(0);
        return null;
      }
      case 'rescan':
        return { pass: { fullScan: true, listRemote: request.listRemote } };
      case 'retry':
        return { pass: { fullScan: false, listRemote: false } };
      case 'wake':
        this.emit('notice', 'the computer woke up: looking for changes made meanwhile');
        return { pass: { fullScan: true, listRemote: true } };
      case 'sync':
        return { pass: { fullScan: request.fullScan, listRemote: request.listRemote } };
      case 'pause':
        this.paused = true;
        this.setState('paused');
        return null;
      case 'resume':
        this.paused = false;
        return { pass: { fullScan: request.fullScan, listRemote: true } };
      case 'consent':
        this.consent = true;
        // A running engine that was waiting for the answer goes on at once.
        return this.live && this.askedFor !== null ? { pass: { fullScan: false, listRemote: false } } : null;
      case 'stop':
        this.stopped = true;
        this.abort.abort();
        for (const cancel of this.timers.values()) cancel();
        this.timers.clear();
        return null;
    }
  }

  private async pass(options: PassRequest): Promise<PassSummary> {
    const summary = emptySummary();
    if (this.paused || this.stopped) return summary;
    const problem = await this.rootProblem();
    if (problem) {
      // Its watcher died with it: when the folder is back, it is watched afresh and scanned in full.
      await this.stopWatching();
      this.dirtyPaths.clear();
      this.hold.clear();
      this.localScanned = false;
      this.setState('error', problem);
      summary.failed.push({ path: '', message: problem });
      return summary;
    }
    if (this.live && this.watcher === null) await this.startWatching();
    await this.untilWatcherReported();
    try {
      this.setState('scanning');
      this.restoreTrees();
      await this.fs.rm(join(this.root, STATE_DIR, 'tmp'), { recursive: true, force: true });
      this.volume ??= await this.askVolume().catch(() => null);
      let unreadable = await this.scan(options.fullScan);
      let listed: RemoteSignals | null = null;
      let listingMs: number | null = null;
      if (options.listRemote || !this.remoteListed) {
        const base = this.trees.base;
        // The cheap signals are read first: what they show must be in the listing that follows.
        const signals = this.live ? await this.remoteCheck.read(this.abort.signal).catch(() => null) : null;
        const started = this.clock.now().getTime();
        this.trees.remote = await listRemote(this.options.client, this.options.remoteRootId ?? null, (id) => base.has(id), this.abort.signal);
        this.remoteListed = true;
        listingMs = this.clock.now().getTime() - started;
        if (signals) this.remoteCheck.calibrate(signals, this.trees.remote);
        listed = signals;
      }
      // What changed while the folder was scanned and the drive listed is looked at too, so the plan does not mix the
      // folder as it was with the folder as it is (one end of a swap seen, the other not).
      for (let round = 0; round < 5 && this.watcher !== null && this.watcherBusy(); round++) {
        await this.untilWatcherReported();
        if (this.dirtyPaths.size > 0) unreadable = await this.scan(false);
      }
      for (const path of await adoptLostUploads(this.root, this.trees, this.mirror, this.options.client, this.fs)) {
        this.record({ kind: 'record', path, rule: 'adopt' });
      }
      this.setState('syncing');
      // A consent given during this pass (when it asked) is for the next one.
      const consented = this.consent;
      const failures = await this.planAndExecute(summary);
      if (consented) this.consent = false;
      this.transferStarts.clear();
      for (const failure of failures) {
        this.errors.unshift(failure);
        this.emit('item-error', failure);
      }
      this.errors.length = Math.min(this.errors.length, 200);
      if (listed) this.remoteCheck.settle(this.trees.remote, this.trees.base);
      if (listingMs !== null) {
        // Spaced by the drive as this pass left it: an initial sync lists an empty drive, then fills it.
        const entries = this.trees.remote.size;
        this.nextFullListing = this.clock.now().getTime() + fullListingInterval({ pollMs: this.pollMs, lastListingMs: listingMs, entries });
      }
      // What this pass sent is checked at once (others may have changed something meanwhile): cheap, as it knows
      // what it sent.
      if (this.live && summary.done > 0 && this.remoteCheck.usable) this.schedulePoll(0);
      const quiet = settled(this.trees);
      const final = quiet ? null : plan(this.trees, { isIgnored: this.isIgnored, caseInsensitive: this.caseInsensitive });
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
        // Nothing differs from base: keep base alone until the next pass needs the other two.
        this.trees.local = new LocalTree();
        this.trees.remote = new RemoteTree();
        this.localAsBase = this.remoteAsBase = true;
      }
      this.lastSync = this.clock.now();
      if (summary.needsConfirmation) {
        // The state says so already (waiting for consent).
      } else if (this.paused) this.setState('paused');
      else if (summary.failed.length > 0) this.setState('error', summary.failed[0]!.message);
      else if (held.size > 0) this.setState('syncing', `looking for where ${held.size} item${held.size === 1 ? '' : 's'} went`);
      else this.setState('idle');
    } catch (error) {
      const offline = isUnreachable(error) || error instanceof OfflineError;
      const message = describeError(error);
      if (offline) summary.offline = true;
      else summary.failed.push({ path: '', message });
      this.setState(offline ? 'offline' : 'error', message);
    }
    return summary;
  }

  /** Plan → guard → execute, until a plan is empty; returns the operations that failed. */
  private async planAndExecute(summary: PassSummary): Promise<ItemError[]> {
    const labels = new WeakMap<Operation, string>();
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
        scanFolder: async (path) => {
          const items = new Map<RelPath, LocalItem>();
          const options = { isIgnored: this.isIgnored, ...this.diskLookups(), ...this.trees.base.scanLookup() };
          await refreshPaths(this.root, items, [path], options);
          return items;
        },
      },
      {
        transfer: (event) => this.emit('transfer', this.withRate(event)),
        done: (op) => this.record({ kind: op.kind, path: labels.get(op) ?? opPath(op), rule: op.rule }),
        notice: (message) => this.emit('notice', message),
        conflict: (path, copy) => {
          this.emit('notice', `both sides changed ${path}; your version is kept as ${copy}`);
          this.emit('conflict', copy, path);
          this.record({ kind: 'conflict', path: copy });
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
    for (let iteration = 0; iteration < maxIterations; iteration++) {
      if (this.stopped || this.paused) break;
      const result = plan(this.trees, { isIgnored: this.isIgnored, caseInsensitive: this.caseInsensitive });
      for (const skip of result.skipped) this.reportSkipped(skip.path, skip.reason);
      for (const note of result.notes) this.tellOnce(`${note.path}: ${note.message}`);
      // What acts on a local disappearance waits until the folder has settled (it may be a move whose other end is
      // not reported yet); operations that already failed this sync wait for the next one.
      const { operations: ready, heldDeletions } = this.hold.filter(result.operations, this.clock.now().getTime(), this.mayBeMoved());
      const operations = ready.filter((op) => !failures.has(`${op.kind}:${opPath(op)}`));
      if (operations.length === 0) break;
      const deletions = result.deletions - heldDeletions;
      const now = this.clock.now().getTime();
      this.recentDeletions = this.recentDeletions.filter((d) => now - d.at < DELETION_WINDOW_MS);
      const recent = this.recentDeletions.reduce((sum, d) => sum + d.count, 0);
      const count = deletions + recent;
      if (deletions > 0 && deletionNeedsConsent(count, this.trees.base.size + recent, this.options.maxDeletions) && !this.consent) {
        summary.needsConfirmation = true;
        this.setState('waiting-for-consent', `waiting for your answer to delete ${count} items`);
        if (this.askedFor !== count) this.emit('confirm-deletions', { count, synced: this.trees.base.size + recent });
        this.askedFor = count;
        break;
      }
      this.askedFor = null;
      if (this.consent) this.recentDeletions = [];
      else if (deletions > 0) this.recentDeletions.push({ at: now, count: deletions });
      for (const op of operations) labels.set(op, opPath(op, this.trees.base));
      const outcome = await executor.run(operations, this.abort.signal);
      summary.done += outcome.done;
      for (const { op, error } of outcome.failed) {
        // Planned again next iteration: the disk or listing moved on, or the service asked to wait (and it has;
        // three times for one operation, and it waits for the next sync).
        if (error instanceof StaleError) continue;
        if (error instanceof RateLimitedError) {
          const key = `${op.kind}:${opPath(op)}`;
          const tries = (rateLimited.get(key) ?? 0) + 1;
          rateLimited.set(key, tries);
          if (tries < 3) continue;
        }
        const item = { path: labels.get(op) ?? opPath(op), message: describeError(error) };
        failures.set(`${op.kind}:${opPath(op)}`, item);
        if (isUnreachable(error)) unreachable.add(`${op.kind}:${opPath(op)}`);
        if (error instanceof BusyError) busy = true;
      }
      if (outcome.done === 0 && outcome.failed.every((f) => !(f.error instanceof StaleError))) {
        // Passing faults are tried again at once, a few times; a deadline that passed is not (it already cost its
        // full time, and the next pass tries again).
        const retryNow = (error: unknown) => isTransient(error) && !(error instanceof ApiError && error.kind === 'timeout');
        if (outcome.failed.length > 0 && outcome.failed.every((f) => retryNow(f.error)) && iteration < 3) continue;
        break;
      }
      if (outcome.failed.some((f) => f.error instanceof StaleError)) await this.scan(true);
    }
    if (busy && this.live) {
      // Tried again on their own, less often while they stay locked (each try that fails is reported again).
      const wait = Math.min((this.options.busyRetryMs ?? 10_000) * 2 ** this.busyRetries++, 5 * 60_000);
      this.setTimer('busy', wait, () => void this.loop.submit({ kind: 'retry' }));
    } else if (!busy) this.busyRetries = 0;
    // Nothing went through and every failure was the server out of reach: the folder is offline, its items did not
    // fail; they are tried again when the server answers.
    if (failures.size > 0 && unreachable.size === failures.size && summary.done === 0) {
      summary.offline = true;
      throw new OfflineError([...failures.values()][0]!.message);
    }
    return [...failures.values()];
  }

  /**
   * A pass plans from a local tree the watcher has finished reporting: a file still settling inside a folder the
   * other side deleted must be seen before the folder is trashed, as a full scan would see it. A path that never
   * settles (a file written on and on) holds a pass back by the hold's settle time at most.
   */
  private async untilWatcherReported(): Promise<void> {
    const limit = this.clock.now().getTime() + (this.options.hold ?? DEFAULT_HOLD).settleMs;
    while ((this.watcher?.pending() ?? 0) > 0 && this.clock.now().getTime() < limit && !this.stopped) {
      this.hold.changed(this.clock.now().getTime());
      await new Promise<void>((resolve) => this.clock.after(25, resolve));
    }
  }

  /**
   * A test for uploads that may be the other end of a move not seen whole yet: the local item has the inode of a
   * synced item of its type (which the table would have matched, were its old place looked at again already).
   */
  private mayBeMoved(): (op: Operation) => boolean {
    let synced: Set<string> | null = null;
    return (op) => {
      if (op.kind !== 'upload' && op.kind !== 'create-remote-folder') return false;
      const item = this.trees.local.get(op.path);
      if (!item) return false;
      synced ??= new Set([...this.trees.base.values()].map((b) => `${b.type}:${b.inode}`));
      return synced.has(`${item.type}:${item.inode}`);
    };
  }

  private watcherBusy(): boolean {
    return (this.watcher?.pending() ?? 0) > 0 || this.dirtyPaths.size > 0;
  }

  /**
   * Once a burst of changes has settled, the folder is scanned in full once: a watcher can miss an event (a
   * backend's coalescing, a queue overflow), and a full scan is the authority a live pass is held to. At most about
   * 1 % of the time goes to these scans (a 100,000-file rescan takes ~0.4 s).
   */
  private verifyWhenSettled(): void {
    const settle = (this.options.hold ?? DEFAULT_HOLD).settleMs;
    this.setTimer('verify', Math.max(settle, this.lastFullScanMs * 100), () => void this.loop.submit({ kind: 'rescan', listRemote: false }));
  }

  /** While disappearances wait, a pass looks again when the folder may have settled. */
  private scheduleHoldCheck(): void {
    this.cancelTimer('hold');
    const due = this.hold.nextCheck();
    if (this.stopped || this.paused || due === null) return;
    this.setTimer('hold', Math.max(0, due - this.clock.now().getTime()), () => void this.loop.submit({ kind: 'retry' }));
  }

  private setTimer(name: TimerName, ms: number, callback: () => void): void {
    this.cancelTimer(name);
    this.timers.set(
      name,
      this.clock.after(ms, () => {
        this.timers.delete(name);
        if (!this.stopped) callback();
      }),
    );
  }

  private cancelTimer(name: TimerName): void {
    this.timers.get(name)?.();
    this.timers.delete(name);
  }

  /** Syncs now, then keeps the folder in sync: local changes from the watcher, remote ones by polling. */
  async start(): Promise<PassSummary> {
    this.live = true;
    // Watching starts first, so nothing changed during the first pass goes unseen until the next full scan.
    await this.startWatching();
    const first = await this.syncOnce({ fullScan: true });
    if (this.stopped) return first;
    this.schedulePoll(this.pollMs);
    const scheduleRescan = () =>
      this.setTimer('rescan', 60 * 60 * 1000, () => {
        void this.loop.submit({ kind: 'rescan', listRemote: true });
        scheduleRescan();
      });
    scheduleRescan();
    this.watchForWake();
    return first;
  }

  /**
   * A machine that slept may have missed watcher events (and the service changed meanwhile): when the clock moves
   * on much further than the timer that reads it, the engine scans in full and lists again. Works alike under the
   * command line and the desktop app, without a power-management API.
   */
  private watchForWake(): void {
    const every = this.options.wakeCheckMs ?? 30_000;
    let last = this.clock.now().getTime();
    const check = () => {
      const now = this.clock.now().getTime();
      const asleep = now - last > every + WAKE_SLACK_MS;
      last = now;
      if (asleep) void this.loop.submit({ kind: 'wake' });
      this.setTimer('wake', every, check);
    };
    this.setTimer('wake', every, check);
  }

  private async startWatching(): Promise<void> {
    const watcher = await (this.options.watch ?? watchTree)(this.root, {
      ignoreDirs: [STATE_DIR],
      clock: this.clock,
      ...(this.options.stabilityMs !== undefined ? { stabilityMs: this.options.stabilityMs } : {}),
      onChange: (paths) => void this.loop.submit({ kind: 'local-change', paths }),
      onError: (error, failure) => {
        if (this.stopped) return;
        if (failure?.fallback !== 'rescan') {
          this.emit('notice', `watching the folder failed: ${describeError(error)}`);
          return;
        }
        // The watcher says this once, in a sentence of its own; from now on local changes are found by scanning.
        this.emit('notice', error.message);
        this.watchDegraded = true;
        const every = this.options.fallbackRescanMs ?? 60_000;
        const rescan = () =>
          this.setTimer('fallback', every, () => {
            void this.loop.submit({ kind: 'rescan', listRemote: false });
            rescan();
          });
        rescan();
      },
    });
    if (this.stopped) {
      await watcher.close();
      return;
    }
    this.watcher = watcher;
  }

  private async stopWatching(): Promise<void> {
    const watcher = this.watcher;
    this.watcher = null;
    this.watchDegraded = false;
    this.cancelTimer('fallback');
    await watcher?.close();
  }

  private get pollMs(): number {
    return this.options.pollIntervalMs ?? 15_000;
  }

  /** The poll timer: the next look at the drive in `ms`, then every poll interval. */
  private schedulePoll(ms: number): void {
    this.setTimer('poll', ms, () => {
      void this.loop
        .submit({ kind: 'poll' })
        .catch(() => undefined)
        .then(() => this.schedulePoll(this.pollMs));
    });
  }

  /**
   * One look at the drive: the full listing when it is due (or nothing cheaper works here, or the last pass did not
   * reach the server), otherwise the cheap signals — and a pass with the full listing only if they show a change.
   */
  private async check(): Promise<PassRequest | null> {
    const listing = { fullScan: false, listRemote: true };
    const now = this.clock.now().getTime();
    if (!this.remoteCheck.usable || now >= this.nextFullListing || this.stateValue === 'offline') return listing;
    let changed: string[];
    try {
      changed = this.remoteCheck.differences(await this.remoteCheck.read(this.abort.signal), this.trees.base);
    } catch {
      changed = ['the drive did not answer the cheap check'];
    }
    return changed.length > 0 ? listing : null;
  }

  private lookedAt = -Infinity;

  /**
   * The user is looking (the window or the tray menu opened): what changed on the drive should be there now, not at
   * the next tick. A cheap check at once (a pass only if it shows a change), at most once every few seconds.
   */
  lookNow(): void {
    void this.loop.submit({ kind: 'look' });
  }

  /** Polls the service now (the tray's "sync now"). */
  syncNow(): Promise<PassSummary> {
    return this.syncOnce();
  }

  pause(): void {
    void this.loop.submit({ kind: 'pause' });
  }

  /** Goes on where the pause left off: the watcher kept naming what changed meanwhile; without one, a full scan. */
  resume(): Promise<PassSummary> {
    // `take` answers a resume with a pass, always.
    return this.loop.submit({ kind: 'resume', fullScan: this.watcher === null || this.watchDegraded }) as Promise<PassSummary>;
  }

  /** Stops watching and polling; a transfer under way is abandoned (its intent stays for the next start). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    const ended = this.loop.submit({ kind: 'stop' });
    await this.stopWatching();
    await ended;
    this.mirror.close();
    this.setState('stopped');
  }
}
