/**
 * The run-time shape of every call's argument (TypeBox). What arrives over IPC comes from a page and is checked
 * against these before the host sees it; the argument types of the calls are derived from them, so the check and
 * the type cannot drift apart.
 */
import { Type, type Static } from '@sinclair/typebox';

const strict = { additionalProperties: false };
const Text = (max = 4096) => Type.String({ maxLength: max });
const Root = Type.String({ minLength: 1, maxLength: 4096 });

/** A call that takes no argument (JSON over IPC may turn it into null: the check allows that). */
export const NoArgument = Type.Undefined();

const refFields = {
  /** A synced folder, as listed in `StatusSnapshot.folders`. */
  root: Root,
  /** '/'-separated path inside it, as the mirror records it. */
  path: Text(),
};
export const EntryRefSchema = Type.Object(refFields, strict);
/** An entry of a synced folder: the folder and a path inside it ('' for the folder itself where a call allows it). */
export type EntryRef = Static<typeof EntryRefSchema>;

/** How many entries `entries:browse` answers when asked for no count: a folder the window shows whole comes in one call. */
export const ENTRY_PAGE_DEFAULT = 300;
/** The most entries one `entries:browse` answers. */
export const ENTRY_PAGE_MAX = 1000;

/** A window of a synced folder's children: the folder (`path`, '' for the synced folder itself), where and how many. */
export const EntryPageRefSchema = Type.Object(
  {
    ...refFields,
    /** Index of the first child in the folder's order (0 when absent). */
    from: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    /** How many children at most (`ENTRY_PAGE_DEFAULT` when absent; 0 asks only how many there are). */
    count: Type.Optional(Type.Integer({ minimum: 0, maximum: ENTRY_PAGE_MAX })),
  },
  strict,
);
export type EntryPageRef = Static<typeof EntryPageRefSchema>;

export const PermissionsSchema = Type.Array(Type.Union([Type.Literal('view'), Type.Literal('edit'), Type.Literal('download')]), {
  minItems: 1,
  maxItems: 3,
  uniqueItems: true,
});

const linkFields = {
  /**
   * A new password (set or changed); null or '' removes it; absent keeps the current one. The service keeps only a
   * hash and resets what an update does not send, so to keep it the host sends again the password it set (see
   * `LinkView.passwordKnown`), and refuses the update when it does not know it.
   */
  password: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  /** ISO 8601, or null for no expiry. */
  expiresAt: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
  allowDownload: Type.Optional(Type.Boolean()),
  allowEdit: Type.Optional(Type.Boolean()),
};
export const LinkInputSchema = Type.Object({ ...refFields, ...linkFields }, strict);
/** An entry and the settings of its link. */
export type LinkInput = Static<typeof LinkInputSchema>;

export const SignInSchema = Type.Object(
  {
    server: Type.String({ minLength: 1, maxLength: 2048 }),
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    /** Create the account first. */
    register: Type.Optional(Type.Boolean()),
  },
  strict,
);
export type SignInInput = Static<typeof SignInSchema>;

export const FolderOpenSchema = Type.Object({ root: Type.Optional(Root), path: Type.Optional(Text()) }, strict);

export const ShareAddSchema = Type.Object(
  { ...refFields, emails: Type.Array(Type.String({ minLength: 3, maxLength: 320 }), { minItems: 1, maxItems: 500 }), permissions: PermissionsSchema },
  strict,
);
export const ShareChangeSchema = Type.Object({ ...refFields, userId: Type.Integer({ minimum: 1 }), permissions: PermissionsSchema }, strict);
export const ShareRemoveSchema = Type.Object({ ...refFields, userId: Type.Integer({ minimum: 1 }) }, strict);
export const ShareListMembersSchema = Type.Object({ ...refFields, listId: Type.String({ minLength: 1, maxLength: 64 }), permissions: PermissionsSchema }, strict);

/** Changes to the settings: any of them, each within its bounds. */
export const SettingsChangesSchema = Type.Object(
  {
    folders: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 20 })),
    pollIntervalSeconds: Type.Optional(Type.Integer({ minimum: 5, maximum: 86_400 })),
    keepVersionsDays: Type.Optional(Type.Union([Type.Null(), Type.Integer({ minimum: 1, maximum: 36_500 })])),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 16 })),
    bandwidthUpKBps: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000 })),
    bandwidthDownKBps: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000 })),
    ignoreRules: Type.Optional(Type.String({ maxLength: 100_000 })),
    startAtLogin: Type.Optional(Type.Boolean()),
    paused: Type.Optional(Type.Boolean()),
  },
  strict,
);
export type SettingsChanges = Static<typeof SettingsChangesSchema>;

export const DeletionAnswerSchema = Type.Object(
  { root: Root, answer: Type.Union([Type.Literal('delete'), Type.Literal('keep'), Type.Literal('later')]) },
  strict,
);

/** A synced folder, named by its path. */
export const FolderRootSchema = Type.Object({ root: Root }, strict);

/**
 * A check of a synced folder: every synced file, or `sample` of them picked at random; `fromStart` begins afresh
 * instead of going on with a check that was stopped.
 */
export const FolderCheckSchema = Type.Object(
  { root: Root, sample: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })), fromStart: Type.Optional(Type.Boolean()) },
  strict,
);

/** Entries of one synced folder to bring back from the drive's trash (the window's Restore on deletions). */
export const TrashRestoreSchema = Type.Object({ root: Root, remoteIds: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: 1000 }) }, strict);

/** A file of a synced folder and one of its earlier versions (its entry id, as `versions:list` answers). */
export const VersionRestoreSchema = Type.Object({ ...refFields, versionId: Type.Integer({ minimum: 1 }) }, strict);

export const StarSchema = Type.Object({ ...refFields, starred: Type.Boolean() }, strict);

/**
 * Where a synced folder keeps what others share with the account: a folder's name at its top, or null to not sync
 * what is shared with the account there.
 */
export const SharedFolderSchema = Type.Object({ root: Root, name: Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()]) }, strict);

const ListId = Type.String({ minLength: 1, maxLength: 64 });
export const ListSaveSchema = Type.Object({ id: ListId, name: Type.String({ minLength: 1, maxLength: 100 }) }, strict);
export const ListForgetSchema = Type.Object({ id: ListId }, strict);

/** What a synced folder syncs of the drive's new folders: all of them, or none until chosen. */
export const NewFoldersSchema = Type.Union([Type.Literal('sync'), Type.Literal('exclude')]);

/**
 * Changes to what a synced folder leaves out of the drive, in the order the person made them: each includes or leaves
 * out one folder of the drive, by its entry id (as `selection:tree` answers it); and, when given, the setting for the
 * drive's new folders.
 */
export const SelectionChangesSchema = Type.Object(
  {
    root: Root,
    changes: Type.Array(Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), include: Type.Boolean() }, strict), { maxItems: 1000 }),
    newFolders: Type.Optional(NewFoldersSchema),
  },
  strict,
);
export type SelectionChanges = Static<typeof SelectionChangesSchema>;
