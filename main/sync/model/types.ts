/**
 * The engine's three trees. Paths are relative to the sync root, '/'-separated, never starting with '/'.
 * Remote ids are the service's entry ids; the sync root itself is `null`.
 */
export type ItemType = 'file' | 'folder';
export type RemoteId = number;
export type RelPath = string;

/** What the last listing said of one entry below the sync root. */
export interface RemoteItem {
  id: RemoteId;
  /** null: directly in the sync root. */
  parentId: RemoteId | null;
  name: string;
  type: ItemType;
  size: number;
  updatedAt: string;
  createdAt?: string;
}

/** What the last scan saw at one local path. */
export interface LocalItem {
  path: RelPath;
  type: ItemType;
  inode: number;
  size: number;
  mtimeMs: number;
  /**
   * When the file system made the item (ms); missing or 0 where it cannot tell. With the inode, what tells the same
   * item from a new one given a freed inode number (birth.ts).
   */
  birthtimeMs?: number;
  /** sha256 of the content, when the scan computed it (files whose size or mtime differ from the base). */
  hash?: string;
}

/** The synced state of one item: what both sides agreed on when it was last synced. */
export interface BaseItem {
  remoteId: RemoteId;
  parentId: RemoteId | null;
  remoteName: string;
  /** Local path; may differ from the remote name (sanitised or de-duplicated). */
  path: RelPath;
  type: ItemType;
  inode: number;
  size: number;
  mtimeMs: number;
  /** The local item's birth time when synced; missing or 0: unknown (rows written before it was recorded). */
  birthtimeMs?: number;
  hash: string | null;
  remoteSize: number;
  remoteUpdatedAt: string;
  /**
   * This computer made the entry (an upload, a saved edit, a new folder). Of two entries one name on the drive that
   * two computers made at once, only the one that made the later entry can tell it is a conflict (C5).
   */
  madeHere?: true;
}

export interface Trees {
  base: ReadonlyMap<RemoteId, BaseItem>;
  local: ReadonlyMap<RelPath, LocalItem>;
  remote: ReadonlyMap<RemoteId, RemoteItem>;
}

/** The rows of docs/sync-rules.md's decision table (C: content, M: moves, D: deletions, N: one side only). */
export const RULE_IDS = [
  'C1', 'C2', 'C3', 'C4', 'C5',
  'M1', 'M2', 'M3', 'M4', 'M5', 'M6',
  'D1', 'D2', 'D3', 'D4', 'D5', 'D6',
  'N1', 'N2', 'N3', 'N4', 'N5', 'N6',
] as const;
export type RuleId = (typeof RULE_IDS)[number];

/** The rows of selective sync (docs/sync-rules.md, "Excluded folders"): applied before the table (selective.ts). */
export const SELECTION_RULE_IDS = ['E1', 'E2', 'E3', 'E4'] as const;
export type SelectionRuleId = (typeof SELECTION_RULE_IDS)[number];

/**
 * The rows of what the account may do in what others share with it (docs/sync-rules.md, "Shared with me"): applied
 * to the table's plan (plan/access.ts).
 */
export const SHARED_RULE_IDS = ['S1', 'S2', 'S3', 'S4', 'S5', 'S6'] as const;
export type SharedRuleId = (typeof SHARED_RULE_IDS)[number];

/** What the engine does outside the planner, named like a row (crash adoption). */
export const ENGINE_RULE_IDS = ['adopt'] as const;
export type EngineRuleId = (typeof ENGINE_RULE_IDS)[number];

/**
 * One step of a sync pass. Every operation names the rule (row of docs/sync-rules.md) that produced it, so a log
 * line or a test can say why it happened.
 */
export type Operation =
  /**
   * `folders`: new local folders on the way from `parentId` to the file, created by the upload's relativePath (how
   * a folder whose name the service refuses to create is made: N6).
   */
  | { kind: 'upload'; rule: RuleId; path: RelPath; parentId: RemoteId | null; name: string; folders?: Array<{ path: RelPath; name: string }> }
  | { kind: 'replace-remote'; rule: RuleId; path: RelPath; remoteId: RemoteId }
  | { kind: 'create-remote-folder'; rule: RuleId; path: RelPath; parentId: RemoteId | null; name: string }
  | { kind: 'rename-remote'; rule: RuleId; remoteId: RemoteId; name: string; path: RelPath }
  | { kind: 'move-remote'; rule: RuleId; remoteId: RemoteId; parentId: RemoteId | null; name: string; path: RelPath }
  | { kind: 'trash-remote'; rule: RuleId; remoteId: RemoteId; count: number }
  /** `replaces`: the synced entry this one took the place of (the service replaces content by a new entry). */
  | { kind: 'download'; rule: RuleId; remoteId: RemoteId; path: RelPath; replaces?: RemoteId }
  | { kind: 'create-local-folder'; rule: RuleId; remoteId: RemoteId; path: RelPath }
  | { kind: 'move-local'; rule: RuleId; remoteId: RemoteId; from: RelPath; to: RelPath }
  | { kind: 'trash-local'; rule: RuleId | SharedRuleId; path: RelPath; remoteId: RemoteId | null; count: number }
  | { kind: 'conflict'; rule: RuleId; remoteId: RemoteId; path: RelPath; replaces?: RemoteId }
  /**
   * The entry this computer made has an older twin (`twinId`: the same name in the same folder): the same bytes, and
   * the entry goes to the drive's trash (the twin is the file); other bytes, and it is renamed on the drive, and here,
   * to its conflicted-copy name.
   */
  | { kind: 'resolve-twin'; rule: RuleId; remoteId: RemoteId; twinId: RemoteId; path: RelPath }
  | { kind: 'merge'; rule: RuleId; remoteId: RemoteId; path: RelPath }
  | { kind: 'record'; rule: RuleId; remoteId: RemoteId; path: RelPath }
  | { kind: 'forget'; rule: RuleId | SelectionRuleId | SharedRuleId; remoteId: RemoteId }
  /**
   * The local copy of a folder excluded from sync (or of an entry moved into one on the drive) leaves this computer:
   * the synced items inside it that are still as synced are deleted (not to the OS trash: the drive holds them).
   */
  | { kind: 'drop-local'; rule: SelectionRuleId; path: RelPath; remoteId: RemoteId; count: number; bytes: number; gone?: number };

export type OperationKind = Operation['kind'];

export interface Plan {
  operations: Operation[];
  /** Items counted by the deletions of this plan (a folder counts its subtree). */
  deletions: number;
  /**
   * Local items not synced, and why: `fails` when the user must act before the folder is in sync (a name the service
   * refuses with no way around it); otherwise left out by what the service allows (an empty folder with a name it
   * refuses), reported once and not a failure.
   */
  skipped: Array<{ path: RelPath; reason: string; fails: boolean }>;
  /** Items synced as nearly as the service allows, with what the user should know (the name the drive keeps). */
  notes: Array<{ path: RelPath; message: string; /** The local change is kept as a conflicted copy (S2): the note tells it. */ keptAsCopy?: boolean }>;
}


/** A synced entry as the drive had it when last synced. */
export interface SyncedEntry {
  parentId: RemoteId | null;
  name: string;
  type: ItemType;
  size: number;
  updatedAt: string;
}

/** What the cheap check asks of what is synced: base in memory, or the mirror while base is let go (engine idle). */
export interface SyncedIds {
  has(id: RemoteId): boolean;
  /** Where the drive had a synced entry and what it said of it when last synced (a rename or move shows against it). */
  get(id: RemoteId): SyncedEntry | undefined;
  readonly size: number;
  /** Synced entries at the drive's root. */
  rootChildren(): number;
}

/** A folder drivesync made up (the folder of what is shared with the account, an owner's in it): not on the drive. */
export const isPlacedFolder = (id: RemoteId | null): boolean => id !== null && id < 0;
