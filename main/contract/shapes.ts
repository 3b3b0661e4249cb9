/**
 * What the host answers and sends the window: the shapes of the contract's results and events, and the words for
 * a state (the same in the window and the tray). Types and a few constants only.
 *
 * Entries are named by `EntryRef` — a synced folder and a path inside it — never by a bare remote id: the host turns a
 * path into its remote entry through that folder's mirror, so the window can only act on what is actually synced.
 */
import type { EngineState, PathState } from '../sync/model/states.js';
import type { EntryRef } from './arguments.js';

// ---------------------------------------------------------------------------------------------------------------
// Shared shapes

/** A synced folder's state: its engine's, as the engine names it. */
export type FolderState = EngineState;
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
  /**
   * How many items the last pass left out by design, not failures: symbolic links, ignored names (temp files,
   * `.syncignore`), empty folders the drive cannot hold. Every ignored name is counted, listed or not.
   */
  skipped: number;
  /**
   * The first LEFT_OUT_LISTED of them, each with why: links and folders first, then ignored names (the engine names
   * only the first 200 of those, so a folder with more has fewer here than `skipped` counts).
   */
  leftOut: LeftOutItem[];
  /**
   * The folder is gone, or another folder is at its path (re-created, replaced, a disk not mounted): nothing is synced
   * and nothing deleted until it is back, or until it is synced afresh (`folders:afresh`, a merge).
   */
  folderProblem?: 'gone' | 'replaced' | 'not-a-folder';
  /**
   * What the drive holds for this folder does not fit on this computer's disk: the downloads were not started (the
   * state is an error, the detail says how much is needed). Leaving folders out (`selection:apply`) is a way on.
   */
  needsSpace?: boolean;
  /** Set from the first pass that could not reach the drive until a pass reaches it again. */
  offline?: OfflineView;
}

/** Since when a folder (or the app) cannot reach the drive, and what waits here meanwhile. */
export interface OfflineView {
  /** When the first pass that could not reach the drive ended (ISO). */
  since: string;
  /** Changes made here that wait to go up to the drive, as the last such pass counted them; null when not counted. */
  waitingUp: number | null;
}

/** How many left-out items a folder's status lists at most. */
export const LEFT_OUT_LISTED = 100;

/** An item a pass left out by design. */
export interface LeftOutItem {
  /** '/'-separated path inside the synced folder. */
  path: string;
  /** Why, in plain words where the host has them (host/plain-words.ts), otherwise the engine's own line. */
  reason: string;
}

/** One side's deletions in a mass-delete question: on the drive (made here), or here (made on the drive). */
/** What a first sync of a folder would do, before it is added (a dry run: nothing is changed to find it out). */
export interface FirstSyncPreview {
  root: string;
  /** Nothing is in the folder yet: a first sync only brings the drive down. */
  empty: boolean;
  /** Files and folders that would go up, and their bytes. */
  up: { count: number; bytes: number };
  /** Files and folders that would come down, and their bytes. */
  down: { count: number; bytes: number };
  /** Files at one path on both sides: compared by their bytes, and a copy kept of one that differs. */
  compared: number;
  /** The first items, each with what would happen to it (`upload`, `download`, `compare`, …). */
  items: Array<{ kind: string; path: string; bytes: number }>;
}

export interface DeletionGroup {
  where: 'drive' | 'here';
  /** Why, in a few words. */
  why: string;
  count: number;
  bytes: number;
  /** What would go, shallowest first (a folder stands for what is inside it). */
  items: Array<{ path: string; type: 'file' | 'folder'; size: number }>;
}

export interface DeletionQuestion {
  root: string;
  /** Items the pass would delete. */
  count: number;
  /** Items synced before the pass. */
  synced: number;
  bytes: number;
  groups: DeletionGroup[];
  /**
   * What the drive's trash would take along from inside folders this computer leaves out (selective sync): not on this
   * computer, so in none of the groups, but gone from the drive all the same.
   */
  excluded?: { items: number; bytes: number };
  /** The person chose to decide later: the window does not ask again by itself, and the folder syncs on. */
  later?: boolean;
}

/** The three answers to a mass-delete question: delete them, keep them (put back where deleted), decide later (pause). */
export type DeletionAnswer = 'delete' | 'keep' | 'later';

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
  /**
   * Folders cannot reach the drive: since the earliest of them, and the changes waiting in all of them (null when
   * none was counted). Absent or null while every folder reaches it.
   */
  offline?: OfflineView | null;
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
  | 'drop-local'
  | 'notice'
  /** A folder reached the drive again after passes that could not: how long it was offline, what goes up now. */
  | 'back-online';

export interface ActivityItem {
  id: number;
  at: string;
  root: string;
  path: string;
  kind: ActivityKind;
  /** One line for a person, e.g. "Uploaded". */
  description: string;
  /** A deletion's entry, in the drive's trash: "Restore" brings it back (here and on the drive). */
  remoteId?: number;
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

/** The file manager's menu asked for a view of an item (docs/file-manager.md): the window opens on it. */
export interface OpenView {
  view: 'share' | 'versions';
  entry: SyncedEntry;
}

export interface Notice {
  at: string;
  root: string | null;
  message: string;
}

/** A path's state as the file manager's emblems say it (docs/file-manager.md). */
export type ItemState = PathState;

export interface SyncedEntry extends EntryRef {
  name: string;
  type: 'file' | 'folder';
  remoteId: number;
  size: number;
  /** Last change of the local copy as synced (ISO), null when unknown. */
  modifiedAt: string | null;
  /** Its state as the emblems say it; absent when its folder's engine does not run in this app. */
  state?: ItemState;
}

/** A page of a synced folder's children (`entries:browse`). */
export interface EntryPage {
  /** How many children the folder has in all. */
  total: number;
  /** Index of the first of `entries` among them, as asked. */
  from: number;
  /** The children from `from` on, at most as many as asked; none when `from` is at or past the end. */
  entries: SyncedEntry[];
}

/**
 * What the drive knows of an entry beyond the synced copy. `entries:markers` answers only entries with at least one
 * of them set: an entry it leaves out has none.
 */
export interface EntryMarkers {
  path: string;
  /** Shared with at least one person. */
  shared: boolean;
  starred: boolean;
  hasLink: boolean;
  /** Shared with this account by someone else (it lies in the synced folder's shared folder). */
  sharedWithMe?: SharedBy;
  /** The synced folder's shared folder itself, or a folder in it that groups what one owner shares. */
  sharedFolder?: boolean;
}

/** Who shared an entry with this account, and what the account may do with it. */
export interface SharedBy {
  /** The owner's e-mail address; null when the drive does not say. */
  owner: string | null;
  /** What this account may do; null when the drive does not say. */
  permissions: Permission[] | null;
}

/** An entry another account shares with this one (the topmost of what it shares: what is inside comes along). */
export interface SharedWithMeItem extends SharedBy {
  entryId: number;
  name: string;
  type: 'file' | 'folder';
}

/** A person an entry is shared with, as the drive lists them. */
export interface AccessPerson {
  userId: number;
  email: string;
  name: string | null;
  /** null when the drive does not say. */
  permissions: Permission[] | null;
  /** The signed-in account itself (among the people of an entry shared with it). */
  you?: boolean;
}

/** Who has access to an entry, as far as the drive and this computer know. */
export interface EntryAccess {
  name: string;
  type: 'file' | 'folder';
  /** Another account shares it with this one: only that owner can share it further, change who has access or make a link. */
  sharedWithMe: boolean;
  /** The owner's e-mail address: the account's own for its entries; for one shared with it, null when the drive does not say. */
  owner: string | null;
  /** What this account may do with an entry shared with it; null for its own entries, or when the drive does not say. */
  myPermissions: Permission[] | null;
  /** This account may share it: it owns it. */
  canShare: boolean;
  /** The people it is shared with (the owner is not one of them). */
  people: AccessPerson[];
  /** Its shareable link; null when it has none, or when the owner's link is not this account's to see. */
  link: { url: string; hasPassword: boolean; expiresAt: string | null; allowDownload: boolean; allowEdit: boolean } | null;
  /**
   * The mailing lists it was shared with from this computer: the drive does not say which lists an entry went to (it
   * shares with their members one by one), so one shared from elsewhere is not here.
   */
  lists: Array<{ id: string; name: string }>;
}

/** A file the engines touched lately, as the window's and the tray's "Recent files" show it. */
export interface RecentFile extends EntryRef {
  name: string;
  at: string;
  /** What happened last, in words ("Uploaded"). */
  description: string;
  /** As the emblems say it: `error` when it failed, `conflict` when two versions were kept, else the engine's. */
  state: ItemState;
  /** Why, when the state is `error` or `conflict`. */
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
  /** The drive answers a link's password as a hash: whether one is set, never what it is. */
  hasPassword: boolean;
  /**
   * The host knows the password (it set it while running, and the drive still holds that one): saving the other
   * settings keeps it. When false with `hasPassword`, an update must carry the password again, or remove it.
   */
  passwordKnown: boolean;
  expiresAt: string | null;
  allowDownload: boolean;
  allowEdit: boolean;
}

/** An earlier version of a file: what a saved edit replaced, kept in the drive's trash. */
export interface FileVersion {
  /** The entry that holds it: what `versions:restore` takes. */
  id: number;
  /** 1 is the newest earlier version (the command line's `versions FILE --restore N`). */
  number: number;
  size: number | null;
  /** When this content was saved. */
  savedAt: string | null;
  /** When a newer version replaced it. */
  replacedAt: string | null;
}

export interface FileVersions {
  current: { size: number | null; savedAt: string | null };
  /** Newest first. */
  versions: FileVersion[];
}

export interface Settings {
  /** Absolute paths of the synced folders (shared with the command line's config). */
  folders: string[];
  pollIntervalSeconds: number;
  /** Days earlier versions of files are kept before they are deleted for good; null keeps them until the trash is emptied. */
  keepVersionsDays: number | null;
  /** Transfers at once per folder. */
  concurrency: number;
  /**
   * Upload and download limits in kilobytes per second, 0 for none: the config's (`sync --limit-up/--limit-down`),
   * for every transfer of the account, applied at once.
   */
  bandwidthUpKBps: number;
  bandwidthDownKBps: number;
  /** gitignore-style rules, kept as `.syncignore` at the root of each synced folder. */
  ignoreRules: string;
  startAtLogin: boolean;
  paused: boolean;
  /**
   * Per synced folder, in the order of `folders`: the name of the folder at its top that holds what others share
   * with the account, or null when what is shared with it is not synced there.
   */
  sharedFolders: Array<{ root: string; name: string | null }>;
}

/** What a synced folder does with folders made on the drive after its first sync: sync them, or leave them out. */
export type NewFolders = 'sync' | 'exclude';

/** A folder of the drive, as "Choose folders…" shows it. */
export interface DriveFolderView {
  /** Its entry id on the drive: what `selection:preview` and `selection:apply` take. */
  id: number;
  /** null for a folder at the top of the synced folder. */
  parentId: number | null;
  /** Its name on the drive. */
  name: string;
  /** Its '/'-separated path inside the synced folder, by the names this computer gives the drive's entries. */
  path: string;
  /** Bytes and files inside it, subfolders included. */
  bytes: number;
  files: number;
  /** Left out of this computer: itself, or a folder it is in. */
  excluded: boolean;
  /** Left out itself (chosen so), not only as part of a folder left out. */
  excludedHere: boolean;
}

/** The drive's folders for one synced folder, as the config leaves them out now. */
export interface DriveFolderTree {
  root: string;
  /** Every folder of the drive, each after its parent, brothers by name. */
  folders: DriveFolderView[];
  /** The folders left out, by entry id (the config's list). */
  excluded: number[];
  newFolders: NewFolders;
}

/** One side of a change to what a folder leaves out: the folders concerned (the topmost of each part) and their size. */
export interface SelectionSide {
  /** Each folder with the bytes and files of it that change side (a folder left out inside it does not count). */
  folders: Array<{ id: number; path: string; bytes: number; files: number }>;
  bytes: number;
  files: number;
}

/** What changing the selection does (or did): what comes down to this computer, and what leaves it. */
export interface SelectionPlan {
  root: string;
  /** The folders left out afterwards, by entry id. */
  excluded: number[];
  newFolders: NewFolders;
  /** Newly included: downloaded. */
  download: SelectionSide;
  /** Newly left out: removed from this computer once everything in it is on the drive (the drive keeps it). */
  remove: SelectionSide;
  /** Anything differs from the config as it is (the folders left out, or the new-folders setting). */
  changed: boolean;
}

/** What a check of a synced folder found different between this computer and the drive (`folders:check`). */
export type CheckDifferenceKind = 'different' | 'only-here' | 'only-on-drive';

export interface CheckDifference {
  kind: CheckDifferenceKind;
  /** '/'-separated path inside the synced folder. */
  path: string;
  /** One line: what differs, in plain words. */
  detail: string;
}

/** How far a check of a synced folder has got (`check-progress`). */
export interface CheckProgress {
  root: string;
  checked: number;
  total: number;
  /** Bytes of the drive's content compared so far. */
  bytes: number;
}

/** What a check of a synced folder found: every synced file's bytes here compared with the drive's. */
export interface CheckReport {
  root: string;
  checked: number;
  total: number;
  bytes: number;
  /** False when it was stopped before its last file: checking again goes on from there. */
  complete: boolean;
  /** When the check began (a stopped one's, when this one went on with it). */
  startedAt: string;
  /** How many files a stopped check had done when this one went on from there; null for a check begun afresh. */
  resumedAt: number | null;
  /** How many files were picked at random; null when every synced file is checked. */
  sample: number | null;
  differences: CheckDifference[];
}

/** A check of a synced folder stopped before its end, kept beside its mirror: checking again goes on from there. */
export interface UnfinishedCheck {
  checked: number;
  total: number;
  startedAt: string;
}

/** What the window shows when it opens a folder's check: one under way, one stopped, the last one's report. */
export interface CheckState {
  root: string;
  running: boolean;
  unfinished: UnfinishedCheck | null;
  /** The last check of the folder since the app started; null when none ran. */
  last: CheckReport | null;
}

/** What repairing a check's differences did (`folders:check-repair`). */
export interface CheckRepair {
  root: string;
  /** Files with different bytes: each kept twice, the drive's under its name and this computer's as a conflicted copy. */
  keptBoth: number;
  /** Files on one side only: copied to the other side again. */
  copiedBack: number;
  /** The folder was in sync after the repair; null when it is paused (the repair is made when syncing resumes). */
  inSync: boolean | null;
}

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
    case 'waiting-for-consent':
    case 'stopped':
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
    case 'waiting-for-consent':
      return 'Waiting for your answer';
    case 'stopped':
      return 'Stopped';
    case 'offline':
      return 'Offline';
    case 'error':
      return 'Needs attention';
  }
}
