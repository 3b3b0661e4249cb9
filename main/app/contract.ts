/**
 * The one contract between the window and the rest of the app: every call the renderer may make (invoke) and every
 * event it may receive, with their types. It imports only types, so the renderer (types only), the preload (the channel
 * lists, bundled) and the main side (both) can all use it.
 *
 * Entries are named by `EntryRef` — a synced folder and a path inside it — never by a bare remote id: the host turns a
 * path into its remote entry through that folder's mirror, so the window can only act on what is actually synced.
 */

import type { ApiErrorKind } from '../api/errors.js';

/** The name under which the preload exposes the API (`window.drivesync`). */
export const API_NAME = 'drivesync';

// ---------------------------------------------------------------------------------------------------------------
// Shared shapes

export type FolderState = 'starting' | 'idle' | 'scanning' | 'syncing' | 'paused' | 'offline' | 'error';
/** The whole app: signed out, or the most telling of its folders' states. */
export type OverallState = 'signed-out' | FolderState;
/** What the tray shows. */
export type TrayState = 'idle' | 'syncing' | 'paused' | 'error' | 'offline';
export const TRAY_STATES: readonly TrayState[] = ['idle', 'syncing', 'paused', 'error', 'offline'];

export type Permission = 'view' | 'edit' | 'download';
export const PERMISSIONS: readonly Permission[] = ['view', 'edit', 'download'];

export interface Account {
  server: string;
  email: string;
}

export interface FolderStatus {
  root: string;
  state: FolderState;
  /** Why, when the state needs a reason (an error, a pause for consent). */
  detail: string | null;
  lastSync: string | null;
  /** Items the folder's mirror holds as synced. */
  synced: number;
  inSync: boolean | null;
}

export interface DeletionQuestion {
  root: string;
  /** Items the pass would delete. */
  count: number;
  /** Items synced before the pass. */
  synced: number;
}

/** A folder's status as the window shows it. */
export interface FolderView extends FolderStatus {
  /** The state in words (describeState), so the window and the tray say the same. */
  stateText: string;
}

export interface StatusSnapshot {
  account: Account | null;
  state: OverallState;
  /** The state in words (describeState), so the window and the tray say the same. */
  stateText: string;
  detail: string | null;
  paused: boolean;
  folders: FolderView[];
  /** Mass-delete questions still waiting for an answer. */
  pendingDeletions: DeletionQuestion[];
}

export interface Transfer {
  root: string;
  path: string;
  direction: 'up' | 'down';
  transferred: number;
  total: number | null;
}

export interface Progress {
  /** True while at least one folder is scanning or syncing. */
  active: boolean;
  /** Bytes moved by the transfers of the current round of passes. */
  bytesDone: number;
  /** Bytes of those transfers (as far as their sizes are known). */
  bytesTotal: number;
  /** Smoothed rate over the last seconds. */
  bytesPerSecond: number;
  /** Seconds left at the current rate; null when unknown. */
  etaSeconds: number | null;
  filesDone: number;
  /** Transfers under way now. */
  transfers: Transfer[];
}

export type ActivityKind =
  | 'upload'
  | 'download'
  | 'replace-remote'
  | 'create-remote-folder'
  | 'create-local-folder'
  | 'rename-remote'
  | 'move-remote'
  | 'move-local'
  | 'trash-remote'
  | 'trash-local'
  | 'conflict'
  | 'merge'
  | 'record'
  | 'forget'
  | 'notice';

export interface ActivityItem {
  id: number;
  at: string;
  root: string;
  path: string;
  kind: ActivityKind;
  /** One line for a person, e.g. "Uploaded". */
  description: string;
}

export interface ConflictItem {
  id: number;
  at: string;
  root: string;
  /** The path both sides changed: it now holds the drive's version. */
  path: string;
  /** Where the local version was kept: `name (conflicted copy YYYY-MM-DD HHMMSS host).ext` beside it. */
  copyPath: string;
}

export interface ErrorItem {
  id: number;
  at: string;
  root: string;
  /** '' when the error concerns the whole folder. */
  path: string;
  /** In plain words: what went wrong, where, and what to do (host/plain-words.ts). */
  message: string;
  /** The technical line it was made from, for a report. */
  technical?: string;
}

export interface Notice {
  at: string;
  root: string | null;
  message: string;
}

export interface EntryRef {
  /** A synced folder, as listed in `StatusSnapshot.folders`. */
  root: string;
  /** '/'-separated path inside it, as the mirror records it. */
  path: string;
}

export interface SyncedEntry extends EntryRef {
  name: string;
  type: 'file' | 'folder';
  remoteId: number;
  size: number;
  /** Last change of the local copy as synced (ISO), null when unknown. */
  modifiedAt: string | null;
}

/** What the drive knows of an entry beyond the synced copy. */
export interface EntryMarkers {
  path: string;
  /** Shared with at least one person. */
  shared: boolean;
  starred: boolean;
  hasLink: boolean;
}

/** A file the engines touched lately, as the window's and the tray's "Recent files" show it. */
export interface RecentFile extends EntryRef {
  name: string;
  at: string;
  /** What happened last, in words ("Uploaded"). */
  description: string;
  state: 'synced' | 'conflict' | 'failed';
  /** Why, when the state is not `synced`. */
  problem: string | null;
}

/** A mailing list the user has shared with or added: the service has no list of lists, so the app remembers them. */
export interface SavedList {
  id: string;
  /** The name the user gave it. */
  name: string;
  /** Subscribed members when last looked at; null when that failed. */
  subscribers: number | null;
  lastUsed: string | null;
}

export interface Person {
  userId: number;
  email: string;
  name: string | null;
  permissions: Permission[];
}

export interface ShareOutcome {
  people: Person[];
  /** Addresses that have no account on the drive: not shared. */
  unknown: string[];
}

export interface ListShareOutcome extends ShareOutcome {
  listId: string;
  /** Subscribed members the entry was shared with (asked for). */
  subscribed: number;
  /** Members left out because they are not subscribed. */
  skipped: number;
}

export interface LinkView {
  url: string;
  hasPassword: boolean;
  expiresAt: string | null;
  allowDownload: boolean;
  allowEdit: boolean;
}

export interface LinkInput {
  /** A new password, or null/'' for none. The service keeps only a hash: an update always sets or clears it. */
  password?: string | null;
  /** ISO 8601, or null for no expiry. */
  expiresAt?: string | null;
  allowDownload?: boolean;
  allowEdit?: boolean;
}

export interface Settings {
  /** Absolute paths of the synced folders (shared with the command line's config). */
  folders: string[];
  pollIntervalSeconds: number;
  /** Transfers at once per folder. */
  concurrency: number;
  /** Kilobytes per second, 0 for no limit. Stored; the engine has no throttle yet (see docs/desktop.md). */
  bandwidthLimitKBps: number;
  /** gitignore-style rules, kept as `.syncignore` at the root of each synced folder. */
  ignoreRules: string;
  startAtLogin: boolean;
  paused: boolean;
}

export interface SignInInput {
  server: string;
  email: string;
  password: string;
  /** Create the account first. */
  register?: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// Calls: channel → [argument, result]. `void` means the call takes no argument.

export interface InvokeMap {
  'auth:sign-in': [SignInInput, Account];
  'auth:sign-out': [void, void];
  'status:get': [void, StatusSnapshot];
  'progress:get': [void, Progress];
  'sync:now': [void, void];
  'sync:pause': [void, void];
  'sync:resume': [void, void];
  'activity:list': [void, ActivityItem[]];
  'conflicts:list': [void, ConflictItem[]];
  'errors:list': [void, ErrorItem[]];
  'errors:clear': [void, void];
  /** Children of a synced folder (path '' is the folder itself), folders first. */
  'entries:browse': [EntryRef, SyncedEntry[]];
  'folder:open': [{ root?: string; path?: string }, void];
  'share:list': [EntryRef, Person[]];
  'share:add': [EntryRef & { emails: string[]; permissions: Permission[] }, ShareOutcome];
  'share:change': [EntryRef & { userId: number; permissions: Permission[] }, Person[]];
  'share:remove': [EntryRef & { userId: number }, Person[]];
  'share:list-members': [EntryRef & { listId: string; permissions: Permission[] }, ListShareOutcome];
  'link:get': [EntryRef, LinkView | null];
  'link:create': [EntryRef & LinkInput, LinkView];
  'link:update': [EntryRef & LinkInput, LinkView];
  'link:delete': [EntryRef, void];
  /** Copies the entry's link to the clipboard, creating a plain one when it has none; answers the URL. */
  'link:copy': [EntryRef, string];
  'settings:get': [void, Settings];
  'settings:set': [Partial<Settings>, Settings];
  'deletions:answer': [{ root: string; confirm: boolean }, void];
  /** Files the engines touched lately, newest first, each with its state. */
  'recent:list': [void, RecentFile[]];
  /** Shared / starred / has-a-link markers of the children of a synced folder path (asked of the drive). */
  'entries:markers': [EntryRef, EntryMarkers[]];
  'entries:star': [EntryRef & { starred: boolean }, void];
  /** Opens a synced file or folder with the desktop's default application. */
  'file:open': [EntryRef, void];
  /** Shows a synced file in the desktop's file manager. */
  'file:show': [EntryRef, void];
  /** The desktop's folder picker; null when the user cancels. */
  'folder:pick': [void, string | null];
  'lists:list': [void, SavedList[]];
  /** Remembers a list under a name (checked on the drive: it must exist and be the user's). */
  'lists:save': [{ id: string; name: string }, SavedList[]];
  'lists:forget': [{ id: string }, SavedList[]];
}

export type InvokeChannel = keyof InvokeMap;
export type InvokeArg<C extends InvokeChannel> = InvokeMap[C][0];
export type InvokeResult<C extends InvokeChannel> = InvokeMap[C][1];
/** The argument list of a call: none for `void`. */
export type InvokeArgs<C extends InvokeChannel> = InvokeArg<C> extends void ? [] : [InvokeArg<C>];

const invokeChannels: { [C in InvokeChannel]: true } = {
  'auth:sign-in': true,
  'auth:sign-out': true,
  'status:get': true,
  'progress:get': true,
  'sync:now': true,
  'sync:pause': true,
  'sync:resume': true,
  'activity:list': true,
  'conflicts:list': true,
  'errors:list': true,
  'errors:clear': true,
  'entries:browse': true,
  'folder:open': true,
  'share:list': true,
  'share:add': true,
  'share:change': true,
  'share:remove': true,
  'share:list-members': true,
  'link:get': true,
  'link:create': true,
  'link:update': true,
  'link:delete': true,
  'link:copy': true,
  'settings:get': true,
  'settings:set': true,
  'deletions:answer': true,
  'recent:list': true,
  'entries:markers': true,
  'entries:star': true,
  'file:open': true,
  'file:show': true,
  'folder:pick': true,
  'lists:list': true,
  'lists:save': true,
  'lists:forget': true,
};
export const INVOKE_CHANNELS = Object.keys(invokeChannels) as InvokeChannel[];

// ---------------------------------------------------------------------------------------------------------------
// Events: name → payload.

export interface EventMap {
  state: StatusSnapshot;
  progress: Progress;
  activity: ActivityItem;
  conflict: ConflictItem;
  'item-error': ErrorItem;
  'confirm-deletions': DeletionQuestion;
  notice: Notice;
  settings: Settings;
}

export type EventName = keyof EventMap;

const eventNames: { [E in EventName]: true } = {
  state: true,
  progress: true,
  activity: true,
  conflict: true,
  'item-error': true,
  'confirm-deletions': true,
  notice: true,
  settings: true,
};
export const EVENT_NAMES = Object.keys(eventNames) as EventName[];

// ---------------------------------------------------------------------------------------------------------------
// Answers. A call never rejects across the bridge: it answers a Result, so the window gets the failure's kind and
// field messages intact (an Error crossing contextBridge keeps only its message).

/** The service's error kinds, plus the app's own. */
export type FailureKind = ApiErrorKind | 'invalid-argument' | 'not-signed-in' | 'not-synced' | 'failed';

export interface Failure {
  kind: FailureKind;
  /** One line a person can read. */
  message: string;
  /** Field → message, for a refused form. */
  fields?: Record<string, string>;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: Failure };

/** What the preload exposes as `window.drivesync`. */
export interface DrivesyncApi {
  invoke<C extends InvokeChannel>(channel: C, ...arg: InvokeArgs<C>): Promise<Result<InvokeResult<C>>>;
  /** Subscribes; the returned function removes the listener. */
  on<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void): () => void;
}

/** IPC channel names on the wire. */
export const ipcInvokeChannel = (channel: InvokeChannel): string => `drivesync:invoke:${channel}`;
export const ipcEventChannel = (event: EventName): string => `drivesync:event:${event}`;

/** The tray's state for the app's state. */
export function trayStateOf(state: OverallState): TrayState {
  switch (state) {
    case 'idle':
      return 'idle';
    case 'starting':
    case 'scanning':
    case 'syncing':
      return 'syncing';
    case 'paused':
      return 'paused';
    case 'error':
      return 'error';
    case 'offline':
    case 'signed-out':
      return 'offline';
  }
}

/** Words for a state, as the window and the tray show them. */
export function describeState(state: OverallState): string {
  switch (state) {
    case 'signed-out':
      return 'Signed out';
    case 'starting':
      return 'Starting…';
    case 'idle':
      return 'Up to date';
    case 'scanning':
      return 'Looking for changes…';
    case 'syncing':
      return 'Syncing…';
    case 'paused':
      return 'Paused';
    case 'offline':
      return 'Offline';
    case 'error':
      return 'Needs attention';
  }
}
