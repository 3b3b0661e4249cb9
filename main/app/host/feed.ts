/**
 * The host's progress job: what the folders report, kept for the window and the tray — the status snapshot, the
 * activity, conflicts and errors, the mass-delete questions waiting for an answer, and the transfers' progress.
 */
import type {
  ActivityItem,
  ActivityKind,
  ConflictItem,
  DeletionQuestion,
  ErrorItem,
  FolderState,
  FolderStatus,
  ItemState,
  OverallState,
  StatusSnapshot,
} from '../../contract/index.js';
import { describeState, LEFT_OUT_LISTED } from '../../contract/index.js';
import { conflictOriginal, ITEMS_NOT_SYNCED, type Activity, type DeletionQuestion as EngineQuestion, type EngineState, type ItemError, type PassSummary, type SyncedFolder } from '../../state/folder.js';
import type { HandlersOf, HostContext } from './context.js';
import { markOffline, offlineOfApp, reached } from './offline.js';
import { NO_SPACE, plainLeftOut, plainProblem, type Where } from './plain-words.js';
import { ProgressTracker } from './progress.js';
import { recentFiles } from './recent-files.js';

const MAX_KEPT = 200;

const DESCRIPTIONS: Record<ActivityKind, string> = {
  upload: 'Uploaded',
  download: 'Downloaded',
  'replace-remote': 'Uploaded a new version',
  'create-remote-folder': 'Created the folder on the drive',
  'create-local-folder': 'Created the folder here',
  'rename-remote': 'Renamed on the drive',
  'move-remote': 'Moved on the drive',
  'move-local': 'Moved here',
  'trash-remote': "Moved to the drive's trash",
  'trash-local': 'Moved to the trash',
  conflict: 'Changed on both sides: both versions kept',
  merge: 'Already identical on both sides',
  record: 'Already the same on both sides',
  forget: 'Gone from both sides',
  'drop-local': 'Excluded: removed from this computer (still on the drive)',
  notice: 'Notice',
  'back-online': 'Back online',
};

/** Items of each side of a mass-delete question the window lists. */
const WINDOW_LISTED = 1000;

/** Which state speaks for the app when folders differ: the first in this list that any folder is in. */
const STATE_PRIORITY: readonly FolderState[] = ['error', 'offline', 'waiting-for-consent', 'syncing', 'scanning', 'starting', 'paused', 'stopped', 'idle'];

export { conflictOriginal };

/** A synced folder as the host shows it. */
export interface FolderRun {
  root: string;
  mirror: string;
  folder: SyncedFolder | null;
  status: FolderStatus;
  /**
   * Another process on this computer syncs the folder (the background service, a `drivesync sync`): the window shows
   * it from that process's status file and acts on it through the config, and takes it over when that process ends.
   */
  elsewhere?: number;
}

export class Feed {
  readonly activity: ActivityItem[] = [];
  readonly conflicts: ConflictItem[] = [];
  errors: ErrorItem[] = [];
  /** Mass-delete questions waiting for an answer, by folder. */
  readonly pending = new Map<string, DeletionQuestion>();
  private readonly progress: ProgressTracker;
  private progressTimer: NodeJS.Timeout | null = null;
  private nextId = 1;

  constructor(
    private readonly host: HostContext,
    private readonly runs: () => Iterable<FolderRun>,
  ) {
    this.progress = new ProgressTracker(host.now);
  }

  /** What the emblems say of a path, from its folder's engine when it runs here. */
  private itemState(root: string, path: string): ItemState | undefined {
    for (const run of this.runs()) if (run.root === root) return run.folder?.pathState(path);
    return undefined;
  }

  readonly handlers: HandlersOf<'status:get' | 'progress:get' | 'activity:list' | 'conflicts:list' | 'errors:list' | 'errors:clear' | 'recent:list'> = {
    'status:get': async () => this.status(),
    'progress:get': async () => this.progress.snapshot(),
    'activity:list': async () => [...this.activity],
    'conflicts:list': async () => [...this.conflicts],
    'errors:list': async () => [...this.errors],
    'errors:clear': async () => {
      this.errors = [];
    },
    'recent:list': async () => recentFiles(this.activity, this.conflicts, this.errors, (root, path) => this.itemState(root, path)),
  };

  /** The state, as the tray and the window show it. */
  status(): StatusSnapshot {
    const { account, desktop } = this.host;
    const folders = [...this.runs()].map((r) => ({ ...r.status, stateText: describeState(r.status.state) }));
    let state: OverallState = 'signed-out';
    let detail: string | null = null;
    if (account) {
      state = 'idle';
      if (folders.length === 0) detail = 'No folder is synced: choose one in Settings.';
      for (const candidate of STATE_PRIORITY) {
        const folder = folders.find((f) => f.state === candidate);
        if (folder) {
          state = candidate;
          detail = folder.detail;
          break;
        }
      }
      if (desktop.paused && state !== 'error') {
        state = 'paused';
        detail = 'Syncing is paused.';
      }
    }
    return {
      account: account ? { ...account } : null,
      state,
      stateText: describeState(state),
      detail,
      paused: desktop.paused,
      folders,
      pendingDeletions: [...this.pending.values()],
      offline: offlineOfApp(folders),
    };
  }

  emitState(): void {
    this.host.emit('state', this.status());
  }

  /** Nothing is transferring any more (the folders stopped). */
  idle(): void {
    this.progress.setBusy(false);
  }

  dispose(): void {
    if (this.progressTimer) clearTimeout(this.progressTimer);
    this.progressTimer = null;
  }

  /** Follows a folder's events while `current()` holds (a folder restarted or stopped is not heard any more). */
  follow(run: FolderRun, folder: SyncedFolder, current: () => boolean): void {
    const { host } = this;
    const at = () => new Date(host.now()).toISOString();
    folder.on('state', (state: EngineState, detail?: string) => {
      if (current()) this.stateOf(run, state, detail);
    });
    folder.on('activity', (activity: Activity) => {
      if (!current()) return;
      const item: ActivityItem = {
        id: this.nextId++,
        at: activity.at,
        root: run.root,
        path: activity.path,
        kind: activity.kind,
        description: DESCRIPTIONS[activity.kind] ?? activity.kind,
        ...(activity.remoteId !== undefined ? { remoteId: activity.remoteId } : {}),
      };
      keep(this.activity, item);
      host.emit('activity', item);
    });
    folder.on('transfer', (event) => {
      if (!current()) return;
      const changed = this.progress.record({ root: run.root, path: event.path, direction: event.direction, transferred: event.transferred, total: event.total });
      this.emitProgress(changed);
    });
    folder.on('conflict', (copyPath: string, originalPath?: string) => {
      if (!current()) return;
      const item: ConflictItem = { id: this.nextId++, at: at(), root: run.root, path: originalPath ?? conflictOriginal(copyPath), copyPath };
      keep(this.conflicts, item);
      host.emit('conflict', item);
    });
    folder.on('item-error', (error: ItemError) => {
      // What is left out by design is listed under its own heading (the pass's status), not as an error.
      if (!current() || error.leftOut) return;
      const item: ErrorItem = {
        id: this.nextId++,
        at: at(),
        root: run.root,
        path: error.path,
        message: plainProblem(error.message, { root: run.root, server: host.account?.server }),
        technical: error.message,
      };
      this.errors = [item, ...this.errors.filter((e) => !(e.root === item.root && e.path === item.path && e.message === item.message))].slice(0, MAX_KEPT);
      host.emit('item-error', item);
    });
    folder.on('confirm-deletions', (question: EngineQuestion) => {
      if (!current()) return;
      // The window lists the first thousand items of each side; `status --json` has them all.
      const groups = question.groups.map((g) => ({ ...g, items: g.items.slice(0, WINDOW_LISTED) }));
      const asked: DeletionQuestion = { root: run.root, count: question.count, synced: question.synced, bytes: question.bytes, groups };
      if (question.excluded && question.excluded.items > 0) asked.excluded = { ...question.excluded };
      // The same question asked again (a resumed folder) stays where the person left it.
      if (this.pending.get(run.root)?.later && this.pending.get(run.root)?.count === asked.count) asked.later = true;
      this.pending.set(run.root, asked);
      host.emit('confirm-deletions', asked);
      this.emitState();
    });
    folder.on('notice', (message: string) => {
      if (current()) host.notice(run.root, message);
    });
    folder.on('pass', (summary: PassSummary) => {
      if (current()) this.passOf(run, folder, summary);
    });
  }

  /** A folder's new state, in the window's words. */
  private stateOf(run: FolderRun, state: EngineState, detail?: string): void {
    const { host } = this;
    if (state === 'offline') markOffline(run.status, new Date(host.now()).toISOString());
    // While offline each try begins with a scan: the folder stays offline until a pass reaches the drive (its end
    // says so; a pass that only tries to send what changed here says syncing, and may be offline again).
    if (state === 'scanning' && run.status.offline) return;
    // A folder that goes on syncing while some items fail needs the person's attention all the same: the window and
    // the tray say so (with how many), and Conflicts and errors says which and why.
    const failing = state === 'idle' && detail !== undefined && ITEMS_NOT_SYNCED.test(detail);
    run.status.state = failing ? 'error' : state;
    run.status.detail = failing ? `${detail}; see Conflicts and errors.` : detail ? plainProblem(detail, { root: run.root, server: host.account?.server }) : null;
    // Downloads that do not fit on the disk: the window offers to leave folders out, where it shows the state.
    if (state === 'error' && detail !== undefined && NO_SPACE.test(detail)) run.status.needsSpace = true;
    else delete run.status.needsSpace;
    this.progress.setBusy([...this.runs()].some((r) => r.status.state === 'syncing' || r.status.state === 'scanning'));
    this.emitState();
    this.emitProgress(true);
  }

  /** What a pass leaves the folder's status with. */
  private passOf(run: FolderRun, folder: SyncedFolder, summary: PassSummary): void {
    const { host } = this;
    run.status.inSync = summary.inSync;
    if (summary.offline) {
      // Nothing was compared: the last sync stays what it was, and what it left out is what the last pass that
      // looked left out.
      markOffline(run.status, new Date(host.now()).toISOString(), summary.waitingUp);
    } else {
      run.status.lastSync = new Date(host.now()).toISOString();
      Object.assign(run.status, leftOutOf(summary, { root: run.root, server: host.account?.server }));
      // A folder that is not the synced one compared nothing with the drive either.
      if (!summary.folder) this.reached(run);
    }
    run.status.synced = folder.syncedCount;
    // Nothing waits for an answer any more (answered elsewhere, with drivesync deletions, or the deletions went).
    if (!summary.needsConfirmation && !summary.offline && !summary.folder) this.pending.delete(run.root);
    if (summary.folder) run.status.folderProblem = summary.folder;
    else delete run.status.folderProblem;
    // Problems a clean pass no longer has are gone.
    if (summary.inSync && summary.failed.length === 0) this.errors = this.errors.filter((e) => e.root !== run.root);
    this.emitState();
  }

  /** The folder reached the drive: after passes that could not, that is said once, in its activity. */
  private reached(run: FolderRun): void {
    const words = reached(run.status, this.host.now());
    if (words === null) return;
    const item: ActivityItem = { id: this.nextId++, at: new Date(this.host.now()).toISOString(), root: run.root, path: '', kind: 'back-online', description: words };
    keep(this.activity, item);
    this.host.emit('activity', item);
  }

  /** Progress goes out at once when a transfer starts or ends, otherwise at most every `progressIntervalMs`. */
  private emitProgress(now: boolean): void {
    if (now) {
      if (this.progressTimer) clearTimeout(this.progressTimer);
      this.progressTimer = null;
      this.host.emit('progress', this.progress.snapshot());
      return;
    }
    this.progressTimer ??= setTimeout(() => {
      this.progressTimer = null;
      this.host.emit('progress', this.progress.snapshot());
    }, this.host.options.progressIntervalMs ?? 250);
  }
}

const isIgnoredName = (skip: { message: string }) => skip.message.startsWith('left out by the ignore rules');

/**
 * What a pass left out by design, for the folder's status: the count (ignored names in full, though the engine lists
 * only the first of them) and the first LEFT_OUT_LISTED items with why. Links and folders come before ignored names,
 * so a folder full of temp files cannot push them out of the list.
 */
export function leftOutOf(summary: Pick<PassSummary, 'skipped' | 'ignored'>, where: Where): Pick<FolderStatus, 'skipped' | 'leftOut'> {
  const others = summary.skipped.filter((s) => !isIgnoredName(s));
  const ordered = [...others, ...summary.skipped.filter(isIgnoredName)].slice(0, LEFT_OUT_LISTED);
  return {
    skipped: summary.ignored + others.length,
    leftOut: ordered.map((s) => ({ path: s.path, reason: plainLeftOut(s.message, where) })),
  };
}

function keep<T>(list: T[], item: T): void {
  list.unshift(item);
  if (list.length > MAX_KEPT) list.length = MAX_KEPT;
}
