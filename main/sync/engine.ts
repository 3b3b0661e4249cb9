/**
 * One control loop per sync root: scan, list, plan, execute, until a plan is empty; then watch the folder and poll
 * the service. It owns the three trees and tells the CLI and the window what happens through typed events.
 */
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { DriveClient } from '../api/client.js';
import { ApiError, isTransient, RateLimitedError } from '../api/errors.js';
import { applyOutcome } from './apply.js';
import { Executor, StaleError, toRemoteItem, type Clock, type TransferEvent } from './execute.js';
import { loadIgnoreRules, refreshPaths, scanLocal, STATE_DIR, type IgnoreRule } from './local.js';
import { Mirror } from './mirror.js';
import { plan, settled } from './plan.js';
import { nodeFileSystem, randomId, type FileSystem, type RandomId } from './ports.js';
import { BaseTree, LocalTree, RemoteTree } from './trees.js';
import { watchTree, type Watcher, type WatchTree } from './watcher.js';
import type { BaseItem, LocalItem, Operation, RelPath, RemoteId, RemoteItem } from './types.js';

export type EngineState = 'idle' | 'scanning' | 'syncing' | 'paused' | 'offline' | 'error';

export interface Activity {
  at: string;
  kind: Operation['kind'] | 'conflict' | 'notice';
  path: string;
  rule?: string;
}

export interface ItemError {
  path: string;
  message: string;
}

export interface PassSummary {
  /** Operations carried out. */
  done: number;
  failed: ItemError[];
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
  caseInsensitive?: boolean;
  /** The Watcher port; one `fs.watch` per folder by default. */
  watch?: WatchTree;
  /** What the executor does to the disk; node:fs by default. */
  fs?: FileSystem;
  /** Names of temp files; random UUIDs by default. */
  randomId?: RandomId;
  /** How often the clock is read to notice that the machine slept (then a full scan runs); 30 s by default. */
  wakeCheckMs?: number;
}

const systemClock: Clock = { now: () => new Date() };

/** Deletions within this window count together for the mass-delete guard (a folder deleted piece by piece). */
const DELETION_WINDOW_MS = 10 * 60 * 1000;

/** A gap this much longer than the wake check's interval means the machine slept (a busy loop is not that late). */
const WAKE_SLACK_MS = 60_000;

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
   * them); the next pass that needs one without scanning or listing builds it from base.
   */
  /** True from the start too: the first scan keeps what it cannot read as base has it. */
  private localAsBase = true;
  private remoteAsBase = false;
  private remoteListed = false;
  private isIgnored: IgnoreRule = () => false;
  private stateValue: EngineState = 'idle';
  private running: Promise<PassSummary> | null = null;
  private paused = false;
  private stopped = false;
  private abort = new AbortController();
  private pollTimer: NodeJS.Timeout | null = null;
  private rescanTimer: NodeJS.Timeout | null = null;
  private wakeTimer: NodeJS.Timeout | null = null;
  private watcher: Watcher | null = null;
  private dirtyPaths = new Set<RelPath>();
  private localScanned = false;
  /** A sync asked for while one runs: what it wants, and the promise of the pass that will do it. */
  private pendingOptions: SyncOptions | null = null;
  private pendingRun: Promise<PassSummary> | null = null;
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
    this.mirror = new Mirror(options.mirrorPath);
    this.trees = { base: this.mirror.loadBase(), local: new LocalTree(), remote: new RemoteTree() };
  }

  get state(): EngineState {
    return this.stateValue;
  }

  /** Items the mirror holds as synced. */
  get syncedCount(): number {
    return this.trees.base.size;
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
    this.transferStarts.set(key, started);
    const seconds = (now - started) / 1000;
    if (seconds <= 0) return event;
    const rate = event.transferred / seconds;
    const etaSeconds = event.total !== undefined && rate > 0 ? Math.max(0, (event.total - event.transferred) / rate) : undefined;
    return { ...event, rate, ...(etaSeconds !== undefined ? { etaSeconds } : {}) };
  }

  /** Lets the next pass delete more than the guard allows (the user said yes). */
  confirmDeletions(): void {
    this.consent = true;
  }

  private async rootProblem(): Promise<string | null> {
    try {
      const s = await this.fs.stat(this.root);
      return s.isDirectory() ? null : `${this.root} is not a folder`;
    } catch {
      return `the sync folder ${this.root} is missing; nothing is synced until it is back`;
    }
  }

  private async listRemote(): Promise<Map<RemoteId, RemoteItem>> {
    const rootId = this.options.remoteRootId ?? null;
    const remote = new RemoteTree();
    for await (const entry of this.options.client.entries.tree({ rootId, perPage: 1000, signal: this.abort.signal })) {
      if (entry.deleted_at) continue;
      const item = toRemoteItem(entry, rootId);
      // The creation time serves only to adopt an upload whose answer was lost: a synced entry is not one.
      if (this.trees.base.has(item.id)) delete item.createdAt;
      remote.set(entry.id, item);
    }
    return remote;
  }

  private async scan(full: boolean): Promise<void> {
    this.isIgnored = await loadIgnoreRules(this.root);
    const base = this.trees.base;
    const options = { isIgnored: this.isIgnored, readDir: this.fs.readDir, ...base.scanLookup() };
    if (full || !this.localScanned) {
      const result = await scanLocal(this.root, options, this.trees.local);
      this.trees.local = result.items;
      this.localScanned = true;
      this.dirtyPaths.clear();
      for (const path of result.symlinks) this.reportSkipped(path, 'symbolic links are not synced');
      for (const u of result.unreadable) this.reportSkipped(u.path, u.reason);
    } else if (this.dirtyPaths.size > 0) {
      const paths = [...this.dirtyPaths];
      this.dirtyPaths.clear();
      const { symlinks, unreadable } = await refreshPaths(this.root, this.trees.local, paths, options);
      for (const path of symlinks) this.reportSkipped(path, 'symbolic links are not synced');
      for (const u of unreadable) this.reportSkipped(u.path, u.reason);
    }
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
   * Uploads whose answer was lost (crash, dropped connection) are found in the listing — same parent, name and
   * size, created after the intent — and adopted instead of sent again.
   */
  private async adoptLostUploads(): Promise<void> {
    const known = new Set(this.trees.base.keys());
    for (const intent of this.mirror.intents()) {
      const p = intent.payload as Partial<Operation> & { path?: string; parentId?: RemoteId | null; name?: string; remoteId?: RemoteId };
      if (intent.kind !== 'upload' && intent.kind !== 'replace-remote') {
        this.mirror.clearIntent(intent.id);
        continue;
      }
      const path = p.path;
      const local = path ? this.trees.local.get(path) : undefined;
      const old = intent.kind === 'replace-remote' && p.remoteId !== undefined ? this.trees.remote.get(p.remoteId) : undefined;
      const parentId = intent.kind === 'upload' ? (p.parentId ?? null) : (old?.parentId ?? this.trees.base.get(p.remoteId!)?.parentId ?? null);
      const name = intent.kind === 'upload' ? p.name : (old?.name ?? this.trees.base.get(p.remoteId!)?.remoteName);
      const since = Date.parse(intent.startedAt) - 60_000;
      const match =
        local && name !== undefined
          ? [...this.trees.remote.values()].find(
              (r) =>
                !known.has(r.id) &&
                r.type === 'file' &&
                r.parentId === parentId &&
                r.name === name &&
                r.size === local.size &&
                (r.createdAt === undefined || Date.parse(r.createdAt) >= since),
            )
          : undefined;
      if (!match || !local || !path) {
        this.mirror.clearIntent(intent.id);
        continue;
      }
      const hashed = { ...local, hash: await this.fs.hash(join(this.root, ...path.split('/'))) };
      if (intent.kind === 'replace-remote' && p.remoteId !== undefined && this.trees.remote.has(p.remoteId)) {
        await this.options.client.entries.trash([p.remoteId]);
      }
      applyOutcome(this.trees, {
        kind: 'synced',
        remote: match,
        local: hashed,
        ...(intent.kind === 'replace-remote' && p.remoteId !== undefined ? { replaces: p.remoteId } : {}),
      });
      const { upserts, deletes } = this.trees.base.drain();
      this.mirror.commit(intent.id, upserts, deletes);
      known.add(match.id);
      this.record({ kind: 'record', path, rule: 'adopt' });
    }
  }

  /**
   * One full sync: scan (full or the watcher's paths), list the remote tree, adopt lost uploads, then plan and
   * execute until nothing is left to do.
   */
  syncOnce(options: SyncOptions = {}): Promise<PassSummary> {
    if (this.running) {
      // One follow-up pass does everything asked meanwhile: a full scan or a listing if any caller wanted one.
      const before = this.pendingOptions;
      this.pendingOptions = {
        fullScan: (before?.fullScan ?? false) || (options.fullScan ?? false),
        listRemote: (before ? before.listRemote !== false : false) || options.listRemote !== false,
      };
      this.pendingRun ??= this.running.then(() => {
        const next = this.pendingOptions ?? {};
        this.pendingOptions = null;
        this.pendingRun = null;
        return this.stopped ? { done: 0, failed: [], needsConfirmation: false, inSync: false } : this.syncOnce(next);
      });
      return this.pendingRun;
    }
    const run = this.pass(options).finally(() => {
      this.running = null;
    });
    this.running = run.then((summary) => {
      // Listeners may start another sync from here: the finished one no longer counts as running.
      queueMicrotask(() => this.emit('pass', summary));
      return summary;
    });
    return this.running;
  }

  private async pass(options: SyncOptions): Promise<PassSummary> {
    const summary: PassSummary = { done: 0, failed: [], needsConfirmation: false, inSync: false };
    if (this.paused || this.stopped) return summary;
    const problem = await this.rootProblem();
    if (problem) {
      this.setState('error', problem);
      summary.failed.push({ path: '', message: problem });
      return summary;
    }
    try {
      this.setState('scanning');
      this.restoreTrees();
      await this.fs.rm(join(this.root, STATE_DIR, 'tmp'), { recursive: true, force: true });
      await this.scan(options.fullScan ?? false);
      if (options.listRemote !== false || !this.remoteListed) {
        this.trees.remote = await this.listRemote();
        this.remoteListed = true;
      }
      await this.adoptLostUploads();
      this.setState('syncing');
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
      const labels = new WeakMap<Operation, string>();
      const maxIterations = this.options.maxIterations ?? 200;
      const failures = new Map<string, ItemError>();
      const rateLimited = new Map<string, number>();
      for (let iteration = 0; iteration < maxIterations; iteration++) {
        if (this.stopped || this.paused) break;
        const result = plan(this.trees, { isIgnored: this.isIgnored, caseInsensitive: this.options.caseInsensitive });
        for (const skip of result.skipped) this.reportSkipped(skip.path, skip.reason);
        // Operations that already failed this sync are not tried again until the next one.
        const operations = result.operations.filter((op) => !failures.has(`${op.kind}:${opPath(op)}`));
        if (operations.length === 0) break;
        const now = this.clock.now().getTime();
        this.recentDeletions = this.recentDeletions.filter((d) => now - d.at < DELETION_WINDOW_MS);
        const recent = this.recentDeletions.reduce((sum, d) => sum + d.count, 0);
        const count = result.deletions + recent;
        if (result.deletions > 0 && deletionNeedsConsent(count, this.trees.base.size + recent, this.options.maxDeletions) && !this.consent) {
          summary.needsConfirmation = true;
          this.setState('paused', `waiting for consent to delete ${count} items`);
          this.emit('confirm-deletions', { count, synced: this.trees.base.size + recent });
          break;
        }
        if (this.consent) this.recentDeletions = [];
        else if (result.deletions > 0) this.recentDeletions.push({ at: now, count: result.deletions });
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
        }
        if (outcome.done === 0 && outcome.failed.every((f) => !(f.error instanceof StaleError))) {
          if (outcome.failed.length > 0 && outcome.failed.every((f) => isTransient(f.error)) && iteration < 3) continue;
          break;
        }
        if (outcome.failed.some((f) => f.error instanceof StaleError)) await this.scan(true);
      }
      this.consent = false;
      this.transferStarts.clear();
      for (const failure of failures.values()) {
        this.errors.unshift(failure);
        this.emit('item-error', failure);
      }
      this.errors.length = Math.min(this.errors.length, 200);
      const quiet = settled(this.trees);
      const final = quiet ? null : plan(this.trees, { isIgnored: this.isIgnored, caseInsensitive: this.options.caseInsensitive });
      // Items the service refuses (folder names and renames outside 3–200 characters) are not synced until the user
      // renames them: the pass has not brought the folder in sync. They were reported when first planned.
      const refused = (final?.skipped ?? []).map((skip) => ({ path: skip.path, message: skip.reason }));
      summary.failed = [...failures.values(), ...refused];
      summary.inSync = !summary.needsConfirmation && (final?.operations.length ?? 0) === 0 && refused.length === 0;
      if (quiet) {
        // Nothing differs from base: keep base alone until the next pass needs the other two.
        this.trees.local = new LocalTree();
        this.trees.remote = new RemoteTree();
        this.localAsBase = this.remoteAsBase = true;
      }
      this.lastSync = this.clock.now();
      if (!summary.needsConfirmation) this.setState(summary.inSync || summary.failed.length === 0 ? 'idle' : 'error', summary.failed[0]?.message);
    } catch (error) {
      const offline = error instanceof ApiError && (error.kind === 'network' || error.kind === 'timeout');
      const message = describeError(error);
      summary.failed.push({ path: '', message });
      this.setState(offline ? 'offline' : 'error', message);
    }
    return summary;
  }

  /** Syncs now, then keeps the folder in sync: local changes from the watcher, remote ones by polling. */
  async start(): Promise<PassSummary> {
    // Watching starts first, so nothing changed during the first pass goes unseen until the next full scan.
    await this.startWatching();
    const first = await this.syncOnce({ fullScan: true });
    if (this.stopped) return first;
    const poll = this.options.pollIntervalMs ?? 15_000;
    const schedulePoll = () => {
      this.pollTimer = setTimeout(async () => {
        await this.syncOnce().catch(() => undefined);
        if (!this.stopped) schedulePoll();
      }, poll);
    };
    schedulePoll();
    this.rescanTimer = setInterval(() => void this.syncOnce({ fullScan: true }), 60 * 60 * 1000);
    this.rescanTimer.unref();
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
    this.wakeTimer = setInterval(() => {
      const now = this.clock.now().getTime();
      const asleep = now - last > every + WAKE_SLACK_MS;
      last = now;
      if (asleep && !this.stopped) {
        this.emit('notice', 'the computer woke up: looking for changes made meanwhile');
        void this.syncOnce({ fullScan: true });
      }
    }, every);
    this.wakeTimer.unref();
  }

  private async startWatching(): Promise<void> {
    let timer: NodeJS.Timeout | null = null;
    const watcher = await (this.options.watch ?? watchTree)(this.root, {
      ignoreDirs: [STATE_DIR],
      onChange: (paths) => {
        for (const path of paths) this.dirtyPaths.add(path);
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => void this.syncOnce({ listRemote: false }), 50);
      },
      onError: (error) => this.emit('notice', `watching the folder failed: ${describeError(error)}`),
    });
    if (this.stopped) {
      await watcher.close();
      return;
    }
    this.watcher = watcher;
  }

  /** Polls the service now (the tray's "sync now"). */
  syncNow(): Promise<PassSummary> {
    return this.syncOnce();
  }

  pause(): void {
    this.paused = true;
    this.setState('paused');
  }

  resume(): Promise<PassSummary> {
    this.paused = false;
    return this.syncOnce({ fullScan: true });
  }

  /** Stops watching and polling; a transfer under way is abandoned (its intent stays for the next start). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort();
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.rescanTimer) clearInterval(this.rescanTimer);
    if (this.wakeTimer) clearInterval(this.wakeTimer);
    await this.watcher?.close();
    await this.running?.catch(() => undefined);
    this.mirror.close();
  }
}
