/**
 * Every call the window may make, declared once: its channel, the schema of its argument (the argument's type is
 * derived from it) and the type of its answer. The preload, the main process's IPC, the argument check and the host's
 * handler table are all driven by this one table.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import {
  DeletionAnswerSchema,
  EntryPageRefSchema,
  EntryRefSchema,
  FolderOpenSchema,
  LinkInputSchema,
  ListForgetSchema,
  ListSaveSchema,
  NoArgument,
  SettingsChangesSchema,
  ShareAddSchema,
  ShareChangeSchema,
  ShareListMembersSchema,
  ShareRemoveSchema,
  SharedFolderSchema,
  SignInSchema,
  StarSchema,
  TrashRestoreSchema,
  FolderRootSchema,
  FolderCheckSchema,
  SelectionChangesSchema,
  VersionRestoreSchema,
} from './arguments.js';
import type {
  Account,
  ActivityItem,
  CheckRepair,
  CheckReport,
  CheckState,
  ConflictItem,
  DriveFolderTree,
  EntryAccess,
  EntryMarkers,
  EntryPage,
  ErrorItem,
  FirstSyncPreview,
  FileVersions,
  LinkView,
  ListShareOutcome,
  Person,
  Progress,
  RecentFile,
  SavedList,
  SelectionPlan,
  SharedWithMeItem,
  Settings,
  ShareOutcome,
  StatusSnapshot,
} from './shapes.js';

/** A call's answer type, carried by the table (nothing at run time). */
const answers = <T>() => undefined as unknown as T;

export const CALLS = {
  'auth:sign-in': { arg: SignInSchema, result: answers<Account>() },
  'auth:sign-out': { arg: NoArgument, result: answers<void>() },
  'status:get': { arg: NoArgument, result: answers<StatusSnapshot>() },
  'progress:get': { arg: NoArgument, result: answers<Progress>() },
  'sync:now': { arg: NoArgument, result: answers<void>() },
  /** The user is looking (the window or the tray menu opened): each folder checks the drive for changes now. */
  'sync:look': { arg: NoArgument, result: answers<void>() },
  'sync:pause': { arg: NoArgument, result: answers<void>() },
  'sync:resume': { arg: NoArgument, result: answers<void>() },
  'activity:list': { arg: NoArgument, result: answers<ActivityItem[]>() },
  /** Brings deletions back from the drive's trash (one, or a group); the folder syncs them back at once. */
  'trash:restore': { arg: TrashRestoreSchema, result: answers<{ restored: number }>() },
  /** Syncs a folder that was re-created or replaced at its path as it is now: a merge, nothing deleted. */
  'folders:afresh': { arg: FolderRootSchema, result: answers<void>() },
  /** What a first sync of a folder not synced yet would do: what goes up, what comes down, what is compared. */
  'folders:preview': { arg: FolderRootSchema, result: answers<FirstSyncPreview>() },
  /**
   * Compares every synced file of a folder (or a sample) with the drive's bytes, with `check-progress` events; answers
   * when it ends or is stopped. A stopped check goes on where it stopped unless `fromStart`. One at a time per folder.
   */
  'folders:check': { arg: FolderCheckSchema, result: answers<CheckReport>() },
  /** Stops the folder's check under way; where it got to is kept. */
  'folders:check-stop': { arg: FolderRootSchema, result: answers<void>() },
  /** A check under way, one stopped before its end, and the last one's report. */
  'folders:check-state': { arg: FolderRootSchema, result: answers<CheckState>() },
  /** Keeps both versions of each difference the folder's last check found: a conflict, or a copy to the other side. */
  'folders:check-repair': { arg: FolderRootSchema, result: answers<CheckRepair>() },
  'conflicts:list': { arg: NoArgument, result: answers<ConflictItem[]>() },
  'errors:list': { arg: NoArgument, result: answers<ErrorItem[]>() },
  'errors:clear': { arg: NoArgument, result: answers<void>() },
  /**
   * A page of the children of a synced folder (path '' is the folder itself), read from its mirror: folders first,
   * then by path, ASCII case aside. `from` (default 0) is the first child's index, `count` how many at most (default
   * `ENTRY_PAGE_DEFAULT`, 300: a folder the window shows whole comes in one call; at most `ENTRY_PAGE_MAX`, 1,000).
   * Answers how many children there are in all and the page; a `from` at or past the end answers no entries. What
   * crosses per call is bounded by the page, not by the folder: the window asks for the pages in sight.
   */
  'entries:browse': { arg: EntryPageRefSchema, result: answers<EntryPage>() },
  'folder:open': { arg: FolderOpenSchema, result: answers<void>() },
  /** Who has access to an entry: its owner, the people, its link, the mailing lists this computer shared it with. */
  'share:access': { arg: EntryRefSchema, result: answers<EntryAccess>() },
  /** Lists again what others share with the account (the Files view's marks use what was listed last). */
  'shared:refresh': { arg: NoArgument, result: answers<SharedWithMeItem[]>() },
  'share:list': { arg: EntryRefSchema, result: answers<Person[]>() },
  'share:add': { arg: ShareAddSchema, result: answers<ShareOutcome>() },
  'share:change': { arg: ShareChangeSchema, result: answers<Person[]>() },
  'share:remove': { arg: ShareRemoveSchema, result: answers<Person[]>() },
  'share:list-members': { arg: ShareListMembersSchema, result: answers<ListShareOutcome>() },
  'link:get': { arg: EntryRefSchema, result: answers<LinkView | null>() },
  'link:create': { arg: LinkInputSchema, result: answers<LinkView>() },
  'link:update': { arg: LinkInputSchema, result: answers<LinkView>() },
  'link:delete': { arg: EntryRefSchema, result: answers<void>() },
  /** Copies the entry's link to the clipboard, creating a plain one when it has none; answers the URL. */
  'link:copy': { arg: EntryRefSchema, result: answers<string>() },
  /** A file's earlier versions, newest first, read from the drive now. */
  'versions:list': { arg: EntryRefSchema, result: answers<FileVersions>() },
  /** Makes an earlier version the file's content (as a saved edit does); the folder syncs it here at once. */
  'versions:restore': { arg: VersionRestoreSchema, result: answers<{ savedAt: string | null }>() },
  'settings:get': { arg: NoArgument, result: answers<Settings>() },
  'settings:set': { arg: SettingsChangesSchema, result: answers<Settings>() },
  /** Names (or turns off, with null) the folder a synced folder keeps what is shared with the account in. */
  'settings:shared-folder': { arg: SharedFolderSchema, result: answers<Settings>() },
  'deletions:answer': { arg: DeletionAnswerSchema, result: answers<void>() },
  /** The drive's folders as a synced folder chooses from them: each with its size and whether it is left out (one listing). */
  'selection:tree': { arg: FolderRootSchema, result: answers<DriveFolderTree>() },
  /** What the changes would do, written nowhere: the folders that would come down and those that would leave. */
  'selection:preview': { arg: SelectionChangesSchema, result: answers<SelectionPlan>() },
  /** Writes the changes to the config (the folder's engine follows it) and answers what they do. */
  'selection:apply': { arg: SelectionChangesSchema, result: answers<SelectionPlan>() },
  /** Files the engines touched lately, newest first, each with its state. */
  'recent:list': { arg: NoArgument, result: answers<RecentFile[]>() },
  /**
   * Shared / starred / has-a-link markers of the children of a synced folder path (asked of the drive), and in the
   * shared folder who shared each and what the account may do. Sparse: only the children with at least one marker
   * set (shared, starred, hasLink, sharedWithMe or sharedFolder); a child not in the answer has none.
   */
  'entries:markers': { arg: EntryRefSchema, result: answers<EntryMarkers[]>() },
  'entries:star': { arg: StarSchema, result: answers<void>() },
  /** Opens a synced file or folder with the desktop's default application. */
  'file:open': { arg: EntryRefSchema, result: answers<void>() },
  /** Shows a synced file in the desktop's file manager. */
  'file:show': { arg: EntryRefSchema, result: answers<void>() },
  /** The desktop's folder picker; null when the user cancels. */
  'folder:pick': { arg: NoArgument, result: answers<string | null>() },
  'lists:list': { arg: NoArgument, result: answers<SavedList[]>() },
  /** Remembers a list under a name (checked on the drive: it must exist and be the user's). */
  'lists:save': { arg: ListSaveSchema, result: answers<SavedList[]>() },
  'lists:forget': { arg: ListForgetSchema, result: answers<SavedList[]>() },
} satisfies Record<string, { arg: TSchema; result: unknown }>;

export type InvokeChannel = keyof typeof CALLS;
/** A call's argument, as its schema describes it (`undefined` for a call without one). */
export type InvokeArg<C extends InvokeChannel> = Static<(typeof CALLS)[C]['arg']>;
export type InvokeResult<C extends InvokeChannel> = (typeof CALLS)[C]['result'];
/** Channel → [argument, result]. */
export type InvokeMap = { [C in InvokeChannel]: [InvokeArg<C>, InvokeResult<C>] };
/** The argument list of a call: none for a call without an argument. */
export type InvokeArgs<C extends InvokeChannel> = InvokeArg<C> extends void ? [] : [InvokeArg<C>];

export const INVOKE_CHANNELS = Object.keys(CALLS) as InvokeChannel[];
