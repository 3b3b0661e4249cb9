/**
 * The state the window shows, worked out once from the host's status and the transfers' progress: the top bar's
 * badge, the status line, every folder row (on Status and in Settings) and the transfers panel all read it from
 * here, so at any moment they say the same thing. The words are the tray's (`describeState` in main/contract; a
 * test holds the two tables equal), but the state they name can be more than the host's status alone says:
 *
 * - bytes are moving ⇒ the app and the folders moving them are syncing, whatever the last state event said;
 * - the drive server cannot be reached ⇒ every folder is offline (they all talk to the one server), since the first
 *   pass that could not reach it, with how many changes made here wait to go up;
 * - syncing is paused ⇒ every folder is paused;
 * - a folder in error or waiting for an answer keeps saying so.
 */
import type { FolderState, FolderView, OfflineView, OverallState, Progress, StatusSnapshot } from '../../main/contract/index.js';

/** The tray's words for each state (main/contract's describeState). */
export const STATE_WORDS: Readonly<Record<OverallState, string>> = {
  'signed-out': 'Signed out',
  starting: 'Starting…',
  idle: 'Up to date',
  scanning: 'Looking for changes…',
  syncing: 'Syncing…',
  paused: 'Paused',
  'waiting-for-consent': 'Waiting for your answer',
  stopped: 'Stopped',
  offline: 'Offline',
  error: 'Needs attention',
};

/** Which folder's state speaks for the app when they differ: the first in this list (the host's order). */
const PRIORITY: readonly FolderState[] = ['error', 'offline', 'waiting-for-consent', 'syncing', 'scanning', 'starting', 'paused', 'stopped', 'idle'];
/** States a transfer under way turns into "syncing": they would otherwise say nothing is moving. */
const QUIET: ReadonlySet<OverallState> = new Set(['idle', 'scanning', 'starting']);
/** States in which nothing can move: transfers the progress still lists are not shown as under way. */
const STILL: ReadonlySet<OverallState> = new Set(['paused', 'offline', 'stopped', 'signed-out']);

export interface ShownState {
  state: OverallState;
  words: string;
  /** Why, when the state needs a reason. */
  detail: string | null;
  /** Offline: since when the drive could not be reached (ISO), said after the state's word; null when not known. */
  since: string | null;
}

export interface ShownFolder extends ShownState {
  root: string;
}

export interface Shown extends ShownState {
  folders: ShownFolder[];
  /** Bytes are moving now: the transfers panel shows its figures. */
  transferring: boolean;
  /** Syncing is paused (by the user, or a folder waits for an answer): Resume is what can be done. */
  paused: boolean;
}

const shown = (state: OverallState, detail: string | null, since: string | null = null): ShownState => ({ state, words: STATE_WORDS[state], detail, since });

/** `3 changes made here wait to go up.` */
export const changesWaiting = (n: number): string => `${n} change${n === 1 ? '' : 's'} made here wait${n === 1 ? 's' : ''} to go up.`;

/** Offline, said with why and what waits here to go up (nothing said while nothing waits). */
function offlineShown(reason: string | null, view: OfflineView | null | undefined): ShownState {
  const waiting = view?.waitingUp ? changesWaiting(view.waitingUp) : null;
  return shown('offline', [reason, waiting].filter((part) => part !== null).join(' ') || null, view?.since ?? null);
}

function folderShown(folder: FolderView, status: StatusSnapshot, anyOffline: boolean, moving: ReadonlySet<string>): ShownFolder {
  const { state } = folder;
  if (status.paused && state !== 'error') return { root: folder.root, ...shown('paused', null) };
  if (state === 'offline') return { root: folder.root, ...offlineShown(folder.detail, folder.offline) };
  // The same server for every folder: one that cannot reach it means none can, whatever the others last knew.
  if (anyOffline && state !== 'error' && state !== 'waiting-for-consent' && state !== 'paused' && state !== 'stopped') {
    return { root: folder.root, ...shown('offline', null, status.offline?.since ?? null) };
  }
  if (moving.has(folder.root) && QUIET.has(state)) return { root: folder.root, ...shown('syncing', null) };
  return { root: folder.root, ...shown(state, folder.detail) };
}

/** What the window says, everywhere, for this status and progress. */
export function shownState(status: StatusSnapshot, progress: Progress | null): Shown {
  const paused = status.paused || status.state === 'paused' || status.state === 'waiting-for-consent';
  if (!status.account) return { ...shown('signed-out', null), folders: [], transferring: false, paused };
  const transfers = progress?.transfers ?? [];
  const moving = new Set(transfers.map((t) => t.root));
  const offline = status.state === 'offline' || status.folders.some((f) => f.state === 'offline');
  const folders = status.folders.map((f) => folderShown(f, status, offline, moving));

  let overall: ShownState;
  if (folders.length === 0) overall = shown(status.paused ? 'paused' : 'idle', status.detail);
  else {
    // The host's own word for the app counts too, with the folders' as shown.
    const state = PRIORITY.find((s) => s === status.state || folders.some((f) => f.state === s)) ?? 'idle';
    // The host's reason when it names the same state; else the folder's that put the app in it.
    const detail = state === status.state ? status.detail : (folders.find((f) => f.state === state)?.detail ?? null);
    // Offline: since the first folder that could not reach the drive, with what waits in all of them.
    overall =
      state === 'offline' && state === status.state
        ? offlineShown(detail, status.offline)
        : shown(state, detail, folders.find((f) => f.state === state)?.since ?? null);
  }
  if (status.paused && overall.state !== 'error') overall = shown('paused', status.detail);
  if (transfers.length > 0 && QUIET.has(overall.state)) overall = shown('syncing', null);

  const transferring =
    progress !== null &&
    progress.bytesTotal > 0 &&
    !STILL.has(overall.state) &&
    (transfers.length > 0 || (progress.active && (overall.state === 'syncing' || overall.state === 'scanning')));
  return { ...overall, folders, transferring, paused };
}

/** A folder's shown state (a folder the status does not list yet has none). */
export const folderOf = (shownNow: Shown, root: string): ShownFolder | undefined => shownNow.folders.find((f) => f.root === root);
