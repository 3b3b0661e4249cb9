/**
 * One synced folder's engine, the one owner of its state: its loop (folder-loop.ts) and the causes of work that feed
 * it (the watcher, polls, rescans, the wake check, held disappearances, locked items, the user), its state and its
 * timers, the watch over the folder (folder-watch.ts), when slower work is due (pacing.ts), the user's answers about
 * deletions, and what outlives a pass (folder-state.ts). A pass — scan, list, adopt, plan, guard, execute — is a
 * function it calls with that state (pass/pass.ts); from the pass's result it takes its next state and what to do
 * next. It tells the CLI and the window what happens through typed events.
 */
import { EventEmitter } from 'node:events';
import type { TransferEvent } from '../execute/executor.js';
import { Mirror } from '../trees/mirror.js';
import { nodeFileSystem, systemClock, type Clock, type FileSystem } from '../local/ports.js';
import { collectGarbage } from './process-flags.js';
import { RemoteChangeCheck } from '../remote/changes.js';
import { DEFAULT_HOLD, DisappearanceHold } from './hold.js';
import { FolderLoop, type FolderRequest, type PassRequest, type Work } from './folder-loop.js';
import { FolderState } from './folder-state.js';
import { runPass } from './pass/pass.js';
import { SharedAreaLook } from './shared-look.js';
import { TransferRates } from './transfer-rates.js';
import { VersionPruning } from './version-pruning.js';
import { keepWarmStart, readWarmStart } from './warm-start.js';
import { FolderWatch } from './folder-watch.js';
import { Pacing } from './pacing.js';
import { excludedPlaces, PathStates, type Marks } from './path-states.js';
import type { EngineState, PathState } from '../model/states.js';
import { answersAfter, NO_ANSWERS } from './pass/guard.js';
import type { DeletionAnswers, PassEnd, PassEvent, PassOptions, PassPorts, PassResult } from './pass/inputs.js';
import { emptySummary, itemsNotSynced, type Activity, type ItemError, type PassSummary, type SharedWithMe } from './pass/summary.js';
import type { DeletionQuestion } from './deletions.js';
import type { WatchTree } from '../local/watcher.js';
import { checkFolderIdentity, type FolderProblem } from '../local/folder-identity.js';
import type { RelPath, RemoteId } from '../model/types.js';
import { isConflictedCopy } from '../model/names.js';

export interface SyncOptions {
  /** Scan the whole folder instead of only the paths the watcher named. */
  fullScan?: boolean;
  /** List the remote tree (default); false reuses the last listing, as for a local change. */
  listRemote?: boolean;
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

export interface EngineOptions extends PassOptions {
  /** Path of the mirror database of this root. */
  mirrorPath: string;
  clock?: Clock;
  pollIntervalMs?: number;
  /** The Watcher port; one `fs.watch` per folder by default. */
  watch?: WatchTree;
  /** What the executor does to the disk; node:fs by default. */
  fs?: FileSystem;
  /** How often the clock is read to notice that the machine slept (then a full scan runs); 30 s by default. */
  wakeCheckMs?: number;
  /** The watcher's stability wait; 300 ms by default. */
  stabilityMs?: number;
  /** How often the folder is scanned in full while its watcher has failed; every minute by default. */
  fallbackRescanMs?: number;
  /** How long after its last pass an idle engine lets base go (kept in the mirror only); a minute by default. */
  releaseBaseAfterMs?: number;
  /**
   * What a check of the folder found (check.ts), settled before base is read: files whose bytes differ are taken as
   * changed on both sides (a conflict, both kept), files gone from one side are forgotten (brought back from the other).
   */
  settleChecked?: { changedOnBoth: readonly RemoteId[]; forget: readonly RemoteId[] };
  /**
   * Earlier versions of files (entries a saved edit replaced) in this folder are deleted for good this many days after
   * they were replaced (read when due: a changed setting applies without a restart); undefined keeps them until someone
   * empties the trash.
   */
  keepVersionsDays?: () => number | undefined;
  /** How often the engine looks for earlier versions past their days; every 6 hours by default. */
  versionsCheckMs?: number;
  /** How long after a listing of what the shared entries hold the next is due, given how many entries it found. */
  sharedWalkSpacingMs?: (entries: number) => number;
}

type TimerName = 'poll' | 'rescan' | 'wake' | 'hold' | 'fallback' | 'verify' | 'busy' | 'release';

/** A gap this much longer than the wake check's interval means the machine slept (a busy loop is not that late). */
const WAKE_SLACK_MS = 60_000;
/** What an activity leaves of its path here: nothing. */
const GONE: ReadonlySet<Activity['kind']> = new Set<Activity['kind']>(['trash-local', 'trash-remote', 'drop-local']);
/** How long a folder is left alone before its engine keeps base in the mirror only. */
const RELEASE_BASE_AFTER_MS = 60_000;

export class SyncEngine extends EventEmitter<EngineEvents> {
  readonly root: string;
  private readonly options: EngineOptions;
  private readonly clock: Clock;
  private readonly fs: FileSystem;
  private readonly mirror: Mirror;
  /** What the folder is doing, as its listeners see it. */
  private stateValue: EngineState = 'starting';
  /** The user paused the folder: it stays paused until resumed, whatever a pass under way still shows. */
  private paused = false;
  private readonly abort = new AbortController();
  /** Cancels the timers of polls, rescans, the wake check and the next look at held disappearances. */
  private readonly timers = new Map<TimerName, () => void>();
  /** The watcher, what it named that no pass has taken, and the passes waiting for it to go quiet. */
  private readonly watch: FolderWatch;
  /** Started: watching and polling, not only passes asked for. */
  private live = false;
  /** What outlives a pass: the trees, what the scans and the shared area found, the guard's memory. */
  private readonly folder: FolderState;
  /** The ports a pass acts and tells through. */
  private readonly ports: PassPorts;
  /** Synced items gone from where the watcher looked, waiting to be found elsewhere before they count as deleted. */
  private readonly hold: DisappearanceHold;
  /** Tells from three small requests whether the drive changed (remote/changes.ts). */
  private readonly remoteCheck: RemoteChangeCheck;
  private readonly sharedLook: SharedAreaLook;
  private readonly pruning: VersionPruning;
  private readonly rates: TransferRates;
  /** What the user said about the deletions the guard stopped at (a pass gets them as they stand when it begins). */
  private answers: DeletionAnswers = { ...NO_ANSWERS };
  /** When the next full listing, the verifying scan and a look the user asked for are due; the warm start kept. */
  private readonly pacing: Pacing;
  /** What the file manager shows of each path: marks set as the engine works (path-states.ts). */
  private readonly paths: PathStates;
  private lastSyncValue: Date | null = null;
  /** Every request for work goes through it: one job (a pass, a look at the drive) at a time. */
  private readonly loop: FolderLoop<PassSummary>;
  readonly recent: Activity[] = [];
  readonly errors: ItemError[] = [];

  constructor(options: EngineOptions) {
    super();
    this.options = options;
    this.root = options.root;
    this.clock = options.clock ?? systemClock;
    this.fs = options.fs ?? nodeFileSystem;
    this.mirror = new Mirror(options.mirrorPath);
    if (options.settleChecked) this.mirror.settleChecked(options.settleChecked.changedOnBoth, options.settleChecked.forget);
    this.hold = new DisappearanceHold(options.hold ?? DEFAULT_HOLD);
    this.paths = new PathStates({
      symlink: (path) => this.folder.local.symlinks.has(path),
      ignored: (path) => this.folder.local.isIgnored(path, this.folder.trees.local.get(path)?.type ?? 'file'),
    });
    this.watch = new FolderWatch({
      root: this.root,
      clock: this.clock,
      hold: this.hold,
      ...(options.watch ? { watch: options.watch } : {}),
      ...(options.stabilityMs !== undefined ? { stabilityMs: options.stabilityMs } : {}),
      changed: (paths) => void this.loop.submit({ kind: 'local-change', paths }),
      seen: (path) => this.mark(this.paths.syncing, [path], true),
      quiet: () => void this.loop.submit({ kind: 'quiet' }),
      notice: (message) => void this.emit('notice', message),
      degraded: () => this.rescanWhileBlind(),
      stopped: () => this.stopped,
    });
    this.remoteCheck = new RemoteChangeCheck(options.client, options.remoteRootId ?? null);
    this.rates = new TransferRates(this.clock);
    this.ports = this.passPorts();
    this.folder = new FolderState(options, this.clock, this.fs, this.mirror, this.hold, this.remoteCheck, this.ports);
    this.sharedLook = new SharedAreaLook(options.client, this.folder.shared, options.sharedWalkSpacingMs);
    this.pruning = new VersionPruning(options.client, options.remoteRootId ?? null, options.keepVersionsDays, options.versionsCheckMs);
    const kept = readWarmStart(this.mirror);
    this.pacing = new Pacing(kept);
    // What the checks knew of the server is taken up at once, whether this engine starts warm or not.
    if (kept) this.remoteCheck.resume(kept.check);
    this.loop = new FolderLoop<PassSummary>({
      take: (request) => this.take(request),
      check: () => this.check(),
      pass: (request) => this.runPass(request),
      passed: (summary) => {
        // Listeners may ask for another pass from here: the finished one no longer counts as running.
        queueMicrotask(() => this.emit('pass', summary));
        this.scheduleHoldCheck();
        // A folder left alone a while keeps base in the mirror only (the next pass reads it back).
        if (this.live) this.setTimer('release', this.options.releaseBaseAfterMs ?? RELEASE_BASE_AFTER_MS, () => void this.loop.submit({ kind: 'release' }));
      },
      empty: emptySummary,
    });
  }

  /** What a pass is given: what it tells, the watcher's further paths, whether the engine was paused or stopped. */
  private passPorts(): PassPorts {
    const engine = this;
    return {
      halted: () => (this.stopped ? 'stopped' : this.paused ? 'paused' : null),
      signal: this.abort.signal,
      get pollMs() {
        return engine.pollMs;
      },
      tell: (event) => this.told(event),
      watcher: {
        pending: () => this.watch.pending(),
        untilQuiet: (limitMs) => this.watch.untilQuiet(limitMs),
        takeChanges: () => this.watch.take(),
      },
    };
  }

  get state(): EngineState {
    return this.stateValue;
  }

  private get stopped(): boolean {
    return this.loop?.isStopped ?? false;
  }

  /** What a pass tells, told on to the engine's listeners. */
  private told(event: PassEvent): void {
    switch (event.kind) {
      case 'phase':
        return this.setState(event.phase);
      case 'activity':
        return this.record(event.activity);
      case 'transfer':
        return void this.emit('transfer', this.rates.withRate(event.transfer));
      case 'transfers-ended':
        return this.rates.clear();
      case 'notice':
        return void this.emit('notice', event.message);
      case 'conflict':
        this.mark(this.paths.conflicts, [event.copyPath], true);
        return void this.emit('conflict', event.copyPath, event.path);
      case 'item-error':
        this.errors.unshift(event.error);
        this.errors.length = Math.min(this.errors.length, 200);
        this.mark(event.error.leftOut ? this.paths.leftOut : this.paths.failed, [event.error.path], true);
        return void this.emit('item-error', event.error);
      case 'planned':
        return this.mark(this.paths.syncing, event.paths, true);
    }
  }

  /**
   * One pass with the user's answers as they stand and the paths the watcher named: first the folder's identity
   * (a folder gone or replaced is never read as everything deleted) and, live, its watcher; then the pass; from its
   * result the engine's state and what comes next.
   */
  private async runPass(request: PassRequest): Promise<PassSummary> {
    if (this.stopped || this.paused) return emptySummary();
    const problem = await checkFolderIdentity(this.root, this.fs, this.mirror, this.folder.syncedCount);
    if (problem) return this.folderProblem(problem);
    if (this.live && !this.watch.running) await this.watch.start();
    const answers = { ...this.answers };
    const result = await runPass(this.folder, { ...request, paths: this.watch.take(), live: this.live, answers }, this.ports);
    this.answers = answersAfter(answers, result.answers, result.guarded, this.answers);
    this.takeUp(result);
    this.marksAfter(result);
    return result.summary;
  }

  /** The synced folder is gone or another is at its path: its watcher goes with it, and nothing is compared. */
  private async folderProblem(problem: FolderProblem): Promise<PassSummary> {
    // When the folder is back, it is watched afresh and scanned in full.
    await this.stopWatching();
    // What the watcher named is of a folder no longer there: the one that comes back is scanned in full.
    this.watch.forget();
    this.folder.local.forget();
    this.hold.clear();
    this.folder.localAsBase = true;
    this.setState('error', problem.message);
    return { ...emptySummary(), failed: [{ path: '', message: problem.message }], folder: problem.kind };
  }

  /** What the engine takes from a pass's result: its state, what it keeps, and what the pass asks for next. */
  private takeUp(result: PassResult): void {
    this.pacing.passed(result);
    if (result.ended) this.lastSyncValue = result.ended;
    if (result.warm && !this.stopped) keepWarmStart(this.mirror, this.remoteCheck.state(), this.pacing.fullListingDue);
    this.endState(result.end, result.summary);
    // What the pass asks for next (nothing, once the engine stopped: no timer may outlive it).
    if (this.stopped) return;
    if (result.retryInMs !== undefined) this.setTimer('busy', result.retryInMs, () => void this.loop.submit({ kind: 'retry' }));
    if (result.checkDrive) this.schedulePoll(0);
  }

  /** The state a pass leaves the folder in, from how it ended. */
  private endState(end: PassEnd, summary: PassSummary): void {
    switch (end.kind) {
      case 'halted':
        return;
      case 'folder-problem':
        return this.setState('error', end.problem.message);
      case 'offline':
        return this.setState('offline', end.detail);
      case 'failed':
        return this.setState('error', end.detail);
      case 'asked':
        this.setState('waiting-for-consent', `waiting for your answer to delete ${end.count} items`);
        if (end.question) this.emit('confirm-deletions', end.question);
        return;
      case 'done':
        if (this.paused) return this.setState('paused');
        if (end.spaceProblem) return this.setState('error', end.spaceProblem);
        // An item that fails is the item's problem: the folder goes on syncing everything else, and says how many
        // are left out (each item's error is reported on its own). The error state is for the folder as a whole.
        if (summary.failed.length > 0) return this.setState('idle', itemsNotSynced(summary.failed.length));
        if (end.held > 0) return this.setState('syncing', `looking for where ${end.held} item${end.held === 1 ? '' : 's'} went`);
        return this.setState('idle');
    }
  }

  /** Items the mirror holds as synced. */
  get syncedCount(): number {
    return this.folder.syncedCount;
  }

  /** What others share with the account and where it arrives here (null: not synced in this folder). */
  get sharedWithMe(): SharedWithMe | null {
    return this.folder.sharedWithMe;
  }

  /** When the last pass that reached its end ended. */
  get lastSync(): Date | null {
    return this.lastSyncValue;
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

  /** What the file manager shows of a path here (path-states.ts), from memory. */
  pathState(path: RelPath): PathState {
    return this.paths.stateOf(path);
  }

  /** Tells `listener` the paths whose state may have changed, with the folders holding them. */
  onPathStates(listener: (paths: readonly RelPath[]) => void): () => void {
    return this.paths.onChange(listener);
  }

  /** Marks or unmarks paths, and tells the file manager's listeners of those that changed. */
  private mark(marks: Marks, paths: readonly RelPath[], on: boolean): void {
    const changed = paths.filter((path) => path !== '' && (on ? marks.add(path) : marks.delete(path)));
    this.paths.changed(changed);
  }

  /**
   * After a pass: syncing is what the watcher named since (the rest is done or failed), failed is what the pass left
   * failed, and a full scan says which conflicted copies are here.
   */
  private marksAfter(result: PassResult): void {
    const changed = [
      ...this.paths.syncing.set(this.watch.waiting),
      ...this.paths.failed.set(result.summary.failed.flatMap((f) => (f.path === '' ? [] : [f.path]))),
      ...(result.conflictCopies ? this.paths.conflicts.set(result.conflictCopies) : []),
    ];
    const excluded = this.options.selection?.().excluded;
    // Placed while the trees are whole (a quiet folder keeps its remote tree as base: the places stay as they were).
    if (!excluded || excluded.size === 0) changed.push(...this.paths.exclude([]));
    else if (this.folder.trees.remote.size > 0) changed.push(...this.paths.exclude(excludedPlaces(this.folder.trees, excluded, this.folder.local.names)));
    this.paths.changed(changed);
  }

  private record(activity: Omit<Activity, 'at'>): void {
    const entry = { at: this.clock.now().toISOString(), ...activity };
    this.recent.unshift(entry);
    this.recent.length = Math.min(this.recent.length, 200);
    this.emit('activity', entry);
    // Done: no longer syncing nor failed; a conflicted copy that went is no longer one.
    this.mark(this.paths.syncing, [activity.path], false);
    this.mark(this.paths.failed, [activity.path], false);
    this.mark(this.paths.leftOut, [activity.path], false);
    if (isConflictedCopy(activity.path)) this.mark(this.paths.conflicts, [activity.path], GONE.has(activity.kind) ? false : true);
  }

  /**
   * Lets the next pass delete more than the guard allows (the user said yes). A running engine that was waiting for
   * the answer goes on at once.
   */
  confirmDeletions(): void {
    void this.loop.submit({ kind: 'consent' });
  }

  /**
   * The user said no to the deletions the guard stopped at: the next pass keeps the items — restored on the drive
   * when they were deleted there, brought back here when they were deleted here — so both sides agree again. A
   * running engine that was waiting for the answer goes on at once.
   */
  keepDeletions(): void {
    void this.loop.submit({ kind: 'keep' });
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
        this.watch.add(request.paths);
        this.mark(this.paths.syncing, request.paths, true);
        this.hold.changed(this.clock.now().getTime());
        this.verifyWhenSettled();
        return { pass: { fullScan: false, listRemote: false } };
      case 'quiet':
        this.watch.quietNow();
        return null;
      case 'poll':
        return { check: true };
      case 'look': {
        const now = this.clock.now().getTime();
        if (!this.live || this.paused || this.stopped || !this.pacing.mayLook(now)) return null;
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
        if (this.stopped) return null;
        this.paused = true;
        this.setState('paused');
        return null;
      case 'resume':
        this.paused = false;
        // A question left unanswered (the user paused instead) is asked again.
        this.answers.askedFor = null;
        return { pass: { fullScan: request.fullScan, listRemote: true } };
      case 'consent':
      case 'keep':
        // An answer with no question standing is not kept for a later one: a consent never lets through deletions
        // nobody was asked about (an answer that arrives after its question went).
        if (this.answers.askedFor === null) return null;
        if (request.kind === 'consent') this.answers.consent = true;
        else this.answers.keep = true;
        // A running engine that was waiting for the answer goes on at once (a paused one, once resumed).
        if (request.kind === 'keep' && this.paused) {
          this.paused = false;
          this.answers.askedFor = null;
          return { pass: { fullScan: false, listRemote: true } };
        }
        return this.live && this.answers.askedFor !== null ? { pass: { fullScan: false, listRemote: false } } : null;
      case 'release':
        // Never under a pass, which holds the trees; a look may run (it asks for what is synced when it starts).
        if (!this.loop.passing && this.folder.releaseBase()) collectGarbage();
        return null;
      case 'stop':
        this.abort.abort();
        this.watch.quietNow();
        for (const cancel of this.timers.values()) cancel();
        this.timers.clear();
        return null;
    }
  }

  /**
   * Once a burst of changes has settled, the folder is scanned in full once: a watcher can miss an event (a
   * backend's coalescing, a queue overflow), and a full scan is the authority a live pass is held to. At most about
   * 1 % of the time goes to these scans (a 100,000-file rescan takes ~0.4 s).
   */
  private verifyWhenSettled(): void {
    const settle = (this.options.hold ?? DEFAULT_HOLD).settleMs;
    this.setTimer('verify', this.pacing.verifyAfter(settle), () => void this.loop.submit({ kind: 'rescan', listRemote: false }));
  }

  /** While disappearances wait, a pass looks again when the folder may have settled. */
  private scheduleHoldCheck(): void {
    this.cancelTimer('hold');
    const due = this.hold.nextCheck();
    if (this.paused || this.stopped || due === null) return;
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
    await this.watch.start();
    const first = await this.syncOnce({ fullScan: true, listRemote: !this.warmStart() });
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
   * Whether this start trusts base as the drive: what was kept while everything was in sync still holds (the mirror
   * lets it go on any change to what base says of the drive, or a new intent in the journal), and the folder has
   * nothing left out or shared with the account. Its first pass then looks at the drive cheaply instead of listing it:
   * at a million entries the listing is ~2,000 requests and a minute. The full listing comes when it was due.
   */
  private warmStart(): boolean {
    return this.pacing.takeWarmStart(() => this.folder.trustBase());
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

  /** The watcher cannot go on: from now on the folder is scanned in full every so often instead. */
  private rescanWhileBlind(): void {
    const every = this.options.fallbackRescanMs ?? 60_000;
    const rescan = () =>
      this.setTimer('fallback', every, () => {
        void this.loop.submit({ kind: 'rescan', listRemote: false });
        rescan();
      });
    rescan();
  }

  private async stopWatching(): Promise<void> {
    this.cancelTimer('fallback');
    await this.watch.stop();
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
   * reach the server), otherwise the cheap signals — and a pass only if they show a change: with what they saw when
   * that is all that changed, with the full listing otherwise.
   */
  private async check(): Promise<PassRequest | null> {
    const listing = { fullScan: false, listRemote: true };
    const now = this.clock.now().getTime();
    const { remoteCheck } = this;
    if (!remoteCheck.usable || this.pacing.listingDue(now) || this.stateValue === 'offline') return listing;
    try {
      const { news } = await remoteCheck.look(this.folder.synced(), now, this.pollMs, this.abort.signal);
      const pruned = await this.pruning.ifDue(now, this.folder.synced(), this.abort.signal);
      if (pruned) this.emit('notice', pruned);
      if (news.kind === 'listing') return listing;
      const sharedArea = await this.sharedLook.look(now, this.pollMs, this.abort.signal).catch(() => undefined);
      const shared = sharedArea ? { sharedArea } : {};
      if (news.kind === 'none') return sharedArea ? { fullScan: false, listRemote: false, ...shared } : null;
      return { fullScan: false, listRemote: false, remoteDelta: news.delta, ...shared };
    } catch {
      // The drive did not answer the cheap check: the listing tells whether it is out of reach.
      return listing;
    }
  }

  /**
   * The user is looking (the window or the tray menu opened): what changed on the drive should be there now, not at
   * the next tick. A cheap check at once (a pass only if it shows a change), at most once every few seconds.
   */
  lookNow(): void {
    void this.loop.submit({ kind: 'look' });
  }

  /**
   * The selection changed (a folder excluded or included): a pass with a fresh listing applies it, at once while the
   * engine runs.
   */
  selectionChanged(): void {
    if (this.live && !this.stopped) void this.loop.submit({ kind: 'sync', fullScan: false, listRemote: true });
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
    return this.loop.submit({ kind: 'resume', fullScan: this.watch.blind }) as Promise<PassSummary>;
  }

  /** Stops watching and polling; a transfer under way is abandoned (its intent stays for the next start). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    const ended = this.loop.submit({ kind: 'stop' });
    await this.stopWatching();
    await ended;
    // No listing comes to tell a share's end from a new version of the file: it is told as it stands.
    for (const message of this.folder.shared.takeEnds()) this.emit('notice', message);
    this.mirror.close();
    this.setState('stopped');
  }

  /** The watcher has paths settling, or named paths no pass has looked at yet. */
  private watcherBusy(): boolean {
    return this.watch.busy || this.folder.local.named.size > 0;
  }
}
