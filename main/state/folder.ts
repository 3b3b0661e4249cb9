/**
 * `openFolder`: how a synced folder is started, for `drivesync sync` and the window alike. It refuses a folder that
 * cannot be synced, takes the folder's lock, builds the engine on the folder's mirror, and keeps the folder's status
 * file (what `drivesync status` reads) as the engine reports. This is the one place that constructs the engine and
 * calls it: the front ends hold a `SyncedFolder`.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DriveClient } from '../api/client.js';
import { STATE_DIR } from '../sync/local/state-dir.js';
import type { EngineEvents, SyncEngine, SyncOptions } from '../sync/engine/engine.js';
import type { EngineState } from '../sync/model/states.js';
import { type ItemError, type PassSummary, resultLine } from '../sync/engine/pass/summary.js';
import type { OsTrash } from '../sync/local/ports.js';
import { type Config, type DeletionAnswer, loadConfig } from './config.js';
import { clearDeletionAnswer, followConfig } from './control.js';
import { addExclusions, type Selection, selectionKey, selectionOf } from './selection.js';
import { FolderRefused } from './errors.js';
import { DEFAULT_SHARED_FOLDER, sharedFolderOf } from './shared-folder.js';
import { lockFolder } from './lock.js';
import type { StatePaths } from './paths.js';
import { checkFolder, rootOfAccount } from './roots.js';
import { readStatus, type RootStatus, writeStatus } from './status-file.js';
import { ActivityLog, activityFile } from './activity-log.js';

/** The engine's events, as a synced folder passes them on. */
export type FolderEvents = EngineEvents;

export { type Activity, type ItemError, ITEMS_NOT_SYNCED, type PassSummary, resultLine } from '../sync/engine/pass/summary.js';
export type { DeletionQuestion } from '../sync/engine/deletions.js';
export type { EngineState } from '../sync/model/states.js';
export { ENGINE_STATES, PATH_STATES, type PathState } from '../sync/model/states.js';
export { STATE_DIR as STATE_DIR_NAME } from '../sync/local/state-dir.js';
import type { PathState } from '../sync/model/states.js';
export type { TransferEvent } from '../sync/execute/executor.js';
export type { OsTrash } from '../sync/local/ports.js';
export { conflictOriginal } from '../sync/model/names.js';

export interface OpenFolderOptions {
  paths: StatePaths;
  /** The account the folder is synced with: its mirror and status file are named after it. */
  server: string;
  email: string | undefined;
  client: DriveClient;
  /** The other synced folders: a folder nested in or around one of them is refused. */
  otherRoots: readonly string[];
  pollIntervalMs: number;
  /** Transfers at once; the engine's default when absent. */
  concurrency?: number;
  /** How a local file is deleted; the OS trash when absent. */
  trash?: OsTrash;
  /** Named in conflicted copies; the machine's when absent. */
  hostname?: string;
  /** The folder as the person named it, for messages. */
  shown?: string;
  /** Told when the status file cannot be written (syncing goes on). */
  onStatusWriteError?: (message: string) => void;
  /**
   * Forget what was synced before (the folder's mirror): the first pass is then a merge — what is here goes up, what
   * is on the drive comes down, nothing is deleted. For a folder replaced or made again at its path.
   */
  afresh?: boolean;
  /**
   * Told when the folder took up an answer to its deletion question given elsewhere (`drivesync deletions`, the
   * window of another process), or set one aside that was given for another count.
   */
  onAnswer?: (answer: TakenAnswer) => void;
  /** What `drivesync check --repair` settles as the engine opens (EngineOptions.settleChecked). */
  settleChecked?: { changedOnBoth: readonly number[]; forget: readonly number[] };
}

/** An answer to the deletion question, as the folder took it up: `taken` false when the question had changed. */
export interface TakenAnswer extends DeletionAnswer {
  taken: boolean;
  /** The count of the question the folder held when the answer came. */
  asked: number;
  at: string;
}

/** Items a status file keeps, newest first. */
const MAX_STATUS_ERRORS = 50;
/** Least time between two status-file writes for state changes (a pass's end writes at once). */
const STATUS_DELAY_MS = 250;

/** One synced folder, open: its engine behind the calls the front ends make, its status file kept up to date. */
export interface SyncedFolder {
  readonly root: string;
  /** The mirror database's path. */
  readonly mirror: string;
  readonly state: EngineState;
  /** Items the mirror holds as synced. */
  readonly syncedCount: number;
  /** What the status file holds. */
  readonly status: Readonly<RootStatus>;
  on<E extends keyof FolderEvents>(event: E, listener: (...args: FolderEvents[E]) => void): void;
  /** The first pass (a full scan), then watching and polling until closed. */
  start(): Promise<PassSummary>;
  syncOnce(options?: SyncOptions): Promise<PassSummary>;
  pause(): void;
  resume(): Promise<PassSummary>;
  /** Lets the pass that stopped at the mass-delete guard delete. */
  confirmDeletions(): void;
  /** Refuses those deletions: the items are kept (restored where they were deleted), and syncing goes on. */
  keepDeletions(): void;
  /** The user opened the window or the tray menu: a cheap look at the drive now. */
  lookNow(): void;
  /** What the file manager shows of a path inside the folder ('/'-separated, relative), from memory. */
  pathState(path: string): PathState;
  /** Tells `listener` the paths whose state may have changed, with the folders holding them; returns its end. */
  onPathStates(listener: (paths: readonly string[]) => void): () => void;
  /** Stops the engine, writes the final status, releases the lock. */
  close(): Promise<void>;
}

export async function openFolder(root: string, options: OpenFolderOptions): Promise<SyncedFolder> {
  const { paths, server, email, client } = options;
  const shown = options.shown ?? root;
  checkFolder(root, options.otherRoots, shown);
  const { key, mirror } = rootOfAccount(paths, root, server, email);
  const stateDir = paths.home ?? paths.dataDir;
  const unlockState = lockFolder(`${mirror}.lock`, root, { stateDir });
  let unlockFolder: () => void;
  try {
    // In the folder itself too: another state folder, another user account or the window and the command line of
    // another state cannot sync it at the same time.
    unlockFolder = lockFolder(join(root, STATE_DIR, 'lock'), root, { stateDir });
  } catch (error) {
    unlockState();
    throw error;
  }
  const unlock = () => {
    unlockFolder();
    unlockState();
  };
  if (options.afresh) {
    for (const file of [mirror, `${mirror}-wal`, `${mirror}-shm`]) rmSync(file, { force: true });
  }
  // What the folder leaves out: read now, and followed as the config changes (drivesync exclude, the window).
  const selection = { current: readSelection(paths, root) };
  // Where what others share with the account arrives: followed as the config changes too.
  const shared = { folder: readSharedFolder(paths, root) };
  let engine: SyncEngine;
  try {
    const { SyncEngine } = await import('../sync/engine/engine.js');
    const { hostname } = await import('node:os');
    const trash = options.trash ?? (await import('../sync/execute/trash.js')).moveToOsTrash;
    engine = new SyncEngine({
      root,
      client,
      mirrorPath: mirror,
      trash,
      hostname: options.hostname ?? hostname(),
      pollIntervalMs: options.pollIntervalMs,
      // The setting is read when the engine looks for versions past it, so a change made meanwhile counts.
      keepVersionsDays: () => {
        try {
          return loadConfig(options.paths).keepVersionsDays;
        } catch {
          return undefined;
        }
      },
      selection: () => selection.current,
      sharedPlace: () => (shared.folder === null ? null : { folder: shared.folder, me: options.email }),
      excludeNewFolders: (ids) => {
        selection.current = { ...selection.current, excluded: new Set([...selection.current.excluded, ...ids]) };
        try {
          addExclusions(paths, root, ids);
        } catch (error) {
          options.onStatusWriteError?.(`cannot keep the new folders excluded in the config: ${(error as Error).message}`);
        }
      },
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(options.settleChecked ? { settleChecked: options.settleChecked } : {}),
    });
  } catch (error) {
    unlock();
    throw new FolderRefused(`cannot open the sync database ${mirror}: ${(error as Error).message.split('\n')[0]}`);
  }
  let opened: OpenedFolder | null = null;
  const unfollow = followConfig(paths, (config) => {
    opened?.takeAnswer(config);
    followFolderSettings(config, root, engine, selection, shared);
  });
  opened = new OpenedFolder(root, key, mirror, engine, () => {
    unfollow();
    unlock();
  }, options);
  return opened;
}

/** The folder's selection and shared place as the config has them now; the engine told when either changed. */
function followFolderSettings(config: Config, root: string, engine: SyncEngine, selection: { current: Selection }, shared: { folder: string | null }): void {
  const folder = sharedFolderOf(config, root);
  if (folder !== shared.folder) {
    shared.folder = folder;
    engine.selectionChanged();
  }
  const next = selectionOf(config, root);
  if (selectionKey(next) === selectionKey(selection.current)) return;
  selection.current = next;
  engine.selectionChanged();
}

function readSharedFolder(paths: StatePaths, root: string): string | null {
  try {
    return sharedFolderOf(loadConfig(paths), root);
  } catch {
    return DEFAULT_SHARED_FOLDER;
  }
}

function readSelection(paths: StatePaths, root: string): Selection {
  try {
    return selectionOf(loadConfig(paths), root);
  } catch {
    // A damaged config leaves nothing out until it is fixed (the commands say what is wrong with it).
    return { excluded: new Set(), newFolders: 'sync' };
  }
}

class OpenedFolder implements SyncedFolder {
  readonly status: RootStatus;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private closing = false;
  /** How the last pass that reached the drive left the folder (toldAnew). */
  private lastOutcome: string | null = null;

  constructor(
    readonly root: string,
    private readonly key: string,
    readonly mirror: string,
    private readonly engine: SyncEngine,
    private readonly unlock: () => void,
    private readonly options: OpenFolderOptions,
  ) {
    const previous = readStatus(options.paths, key);
    this.status = {
      root,
      server: options.server,
      email: options.email ?? null,
      state: engine.state,
      detail: null,
      pid: process.pid,
      updatedAt: new Date().toISOString(),
      lastSync: previous?.lastSync ?? null,
      inSync: previous?.inSync ?? null,
      offline: null,
      counts: { synced: engine.syncedCount, done: 0, failed: 0 },
      errors: [],
    };
    let offlineReason: string | null = null;
    engine.on('state', (state, detail) => {
      if (state === 'offline') offlineReason = detail ?? 'the server cannot be reached';
      // While offline, each try again begins with a scan: the folder is still offline until a pass reaches the
      // server (it then goes on to syncing, or ends and clears the offline mark).
      if (state === 'scanning' && this.status.offline !== null) return;
      this.status.state = state;
      this.status.detail = detail ?? null;
      this.writeSoon();
    });
    engine.on('item-error', (error) => {
      // What a stop cut short (cancelled transfers) is not an error of the folder; what is left out by design is
      // listed as skipped, from the pass.
      if (this.closing || error.leftOut) return;
      this.addErrors([error]);
      this.writeSoon();
    });
    engine.on('confirm-deletions', (question) => {
      this.status.deletions = question;
      this.writeSoon();
      // An answer given while nothing ran (or before this question was asked) is taken up now.
      this.takeAnswer(this.config());
    });
    engine.on('pass', (summary) => this.passEnded(summary, offlineReason));
    // What was done, kept for `drivesync activity` whichever process syncs the folder.
    const log = new ActivityLog(activityFile(options.paths, key), root);
    engine.on('activity', (activity) => {
      try {
        log.add(activity);
      } catch (error) {
        options.onStatusWriteError?.(`cannot write the activity log: ${(error as Error).message}`);
      }
    });
    this.writeStatus();
  }

  /** What a pass leaves the status with (`offlineReason`: why the server could not be reached, as last told). */
  private passEnded(summary: PassSummary, offlineReason: string | null): void {
    const now = new Date().toISOString();
    if (!summary.needsConfirmation && !summary.offline && !summary.folder) {
      this.status.deletions = null;
      // Nothing waits for an answer: one left in the config is for a question that went.
      if (this.config()?.deletionAnswers?.[this.root]) this.clearAnswer();
    }
    this.status.folderProblem = null;
    if (summary.folder) {
      // Nothing was compared (folder-identity.ts): said once, as the folder's problem, not as an item's error.
      this.status.folderProblem = { kind: summary.folder, message: summary.failed[0]?.message ?? '' };
      this.status.inSync = false;
    } else if (summary.offline) {
      // Nothing was compared: the last sync stays what it was, but the folder is no longer known to be in sync.
      this.status.offline = {
        since: this.status.offline?.since ?? now,
        reason: offlineReason ?? 'the server cannot be reached',
        ...(summary.waitingUp !== undefined ? { waitingUp: summary.waitingUp } : {}),
      };
      this.status.inSync = false;
    } else {
      this.status.offline = null;
      this.status.lastSync = now;
      this.status.inSync = summary.inSync;
      if (this.toldAnew(summary)) {
        this.status.counts.done = summary.done;
        this.status.result = resultLine(summary);
      }
      this.status.counts.failed = summary.failed.length;
      this.status.skipped = { items: summary.skipped.slice(0, MAX_STATUS_ERRORS), ignored: summary.ignored };
      if (summary.inSync && summary.failed.length === 0) this.status.errors = [];
      // Failures the pass found without an operation (a folder the scan cannot read, a name the service refuses).
      else if (!this.closing) this.addErrors(summary.failed);
    }
    this.writeStatus();
  }

  get state(): EngineState {
    return this.engine.state;
  }

  get syncedCount(): number {
    return this.engine.syncedCount;
  }

  on<E extends keyof FolderEvents>(event: E, listener: (...args: FolderEvents[E]) => void): void {
    (this.engine.on as (event: E, listener: (...args: FolderEvents[E]) => void) => unknown)(event, listener);
  }

  start(): Promise<PassSummary> {
    return this.engine.start();
  }

  syncOnce(options?: SyncOptions): Promise<PassSummary> {
    return this.engine.syncOnce(options);
  }

  pause(): void {
    this.engine.pause();
  }

  resume(): Promise<PassSummary> {
    return this.engine.resume();
  }

  confirmDeletions(): void {
    this.engine.confirmDeletions();
  }

  keepDeletions(): void {
    this.engine.keepDeletions();
  }

  lookNow(): void {
    this.engine.lookNow();
  }

  pathState(path: string): PathState {
    return this.engine.pathState(path);
  }

  onPathStates(listener: (paths: readonly string[]) => void): () => void {
    return this.engine.onPathStates(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing = true;
    try {
      await this.engine.stop();
    } finally {
      this.status.state = 'stopped';
      this.status.detail = null;
      this.writeStatus();
      this.unlock();
    }
  }

  /**
   * Takes up the answer `drivesync deletions` (or another process's window) wrote to the config for this folder's
   * question: carried out when it was given for the deletions the folder holds now, set aside otherwise (the
   * question changed: a person is asked about what is there now, never answered by an older answer).
   */
  takeAnswer(config: Config | null): void {
    const given = config?.deletionAnswers?.[this.root];
    const question = this.status.deletions;
    if (!given || !question || this.closing) return;
    this.clearAnswer();
    const taken = given.count === question.count;
    if (taken && given.answer === 'delete') this.engine.confirmDeletions();
    else if (taken) this.engine.keepDeletions();
    const answer: TakenAnswer = { ...given, taken, asked: question.count, at: new Date().toISOString() };
    this.status.answer = answer;
    this.writeStatus();
    this.options.onAnswer?.(answer);
  }

  private config(): Config | null {
    try {
      return loadConfig(this.options.paths);
    } catch {
      return null;
    }
  }

  private clearAnswer(): void {
    try {
      clearDeletionAnswer(this.options.paths, this.root);
    } catch (error) {
      this.options.onStatusWriteError?.(`cannot remove the answer to the deletions from the config: ${(error as Error).message}`);
    }
  }

  /**
   * Whether a pass tells something the last one told did not: it changed something, or left the folder otherwise (in
   * or out of sync, other items failing or waiting). A pass that only confirms the last (the scan after a burst of
   * changes, the look at what this computer just sent) leaves the status saying what the command line last said.
   */
  private toldAnew(summary: PassSummary): boolean {
    const outcome = JSON.stringify([summary.inSync, summary.waiting, summary.failed.map((f) => f.path).sort()]);
    const anew = summary.done > 0 || outcome !== this.lastOutcome;
    this.lastOutcome = outcome;
    return anew;
  }

  /** Newest first, one per path. */
  private addErrors(errors: readonly ItemError[]): void {
    const fresh = new Set(errors.map((e) => e.path));
    const newest = errors.filter((e, i) => errors.findIndex((o) => o.path === e.path) === i);
    this.status.errors = [...newest, ...this.status.errors.filter((e) => !fresh.has(e.path))].slice(0, MAX_STATUS_ERRORS);
  }

  private writeSoon(): void {
    this.timer ??= setTimeout(() => this.writeStatus(), STATUS_DELAY_MS);
  }

  private writeStatus(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.status.updatedAt = new Date().toISOString();
    this.status.counts.synced = this.engine.syncedCount;
    this.status.shared = this.engine.sharedWithMe;
    try {
      writeStatus(this.options.paths, this.key, this.status);
    } catch (error) {
      this.options.onStatusWriteError?.((error as Error).message);
    }
  }
}
