/**
 * What a pass is given and what it gives back. A pass reads the folder's options, the request the folder loop merged
 * for it (with the watcher's paths and the user's answers about deletions as they stood when it began) and its ports
 * (`PassPorts`: what it tells as it goes, the watcher's further paths, whether the engine was halted); it returns what
 * it did, how it ended and what the engine needs for the next one (`PassResult`).
 */
import type { DriveClient } from '../../../api/client.js';
import type { TransferEvent } from '../../execute/executor.js';
import type { PassRequest } from '../folder-loop.js';
import type { HoldLimits } from '../hold.js';
import type { OsTrash, RandomId } from '../../local/ports.js';
import type { Selection } from '../../plan/selective.js';
import type { SharedPlace } from '../../model/shared-area.js';
import type { BaseTree } from '../../trees/trees.js';
import type { LocalItem, RelPath, RemoteId, RemoteItem } from '../../model/types.js';
import type { FolderProblem } from '../../local/folder-identity.js';
import type { Activity, ItemError, PassSummary } from './summary.js';
import type { DeletionQuestion } from '../deletions.js';

/** The folder's options a pass reads (the engine's options add its timers, watcher and mirror). */
export interface PassOptions {
  /** The local folder kept in sync. */
  root: string;
  /** The remote folder it mirrors; null is the whole drive. */
  remoteRootId?: RemoteId | null;
  client: DriveClient;
  trash: OsTrash;
  hostname: string;
  concurrency?: number;
  /** Deletions above this many items stop the pass and ask. */
  maxDeletions?: number;
  /** Passes within one sync before giving up on convergence. */
  maxIterations?: number;
  /** Names that differ only by case are one name on the folder's volume; by default the volume is asked (FileSystem.volume). */
  caseInsensitive?: boolean;
  /** Names of temp files; random UUIDs by default. */
  randomId?: RandomId;
  /** How long a local disappearance waits for the folder to settle before it counts as a deletion (live mode). */
  hold?: HoldLimits;
  /**
   * When items another program held locked are first tried again (live mode; closing a file is no change to watch);
   * 10 s by default, then twice as long each time they are still locked, up to 5 minutes.
   */
  busyRetryMs?: number;
  /** What this computer leaves out of the folder (selective sync), read at the start of every pass. */
  selection?: () => Selection;
  /** New top-level folders the folder's setting leaves out were found: keep them excluded (the selection's owner). */
  excludeNewFolders?: (ids: RemoteId[]) => void;
  /**
   * Where what others share with the account arrives (a folder at the top) and who the account is, read at every pass
   * and look; null or absent: nothing shared with the account is synced here. Only a folder synced with the whole drive.
   */
  sharedPlace?: () => SharedPlace | null;}

/** The folder's three trees, as the passes keep them from one to the next. */
export interface FolderTrees {
  base: BaseTree;
  local: Map<RelPath, LocalItem>;
  remote: Map<RemoteId, RemoteItem>;
}

/** What a pass tells as it happens (the engine tells its listeners; its state follows the phase). */
export type PassEvent =
  /** The pass scans and lists (`scanning`), or plans and carries out (`syncing`). */
  | { kind: 'phase'; phase: 'scanning' | 'syncing' }
  | { kind: 'activity'; activity: Omit<Activity, 'at'> }
  | { kind: 'transfer'; transfer: TransferEvent }
  /** The pass's transfers are over (their rates are forgotten). */
  | { kind: 'transfers-ended' }
  | { kind: 'notice'; message: string }
  | { kind: 'conflict'; copyPath: RelPath; path: RelPath }
  | { kind: 'item-error'; error: ItemError }
  /** Operations planned (held ones too): their paths are syncing until done. */
  | { kind: 'planned'; paths: RelPath[] };

/** The folder's watcher, as a pass reads it (the engine owns it, and starts and stops it). */
export interface PassWatcher {
  /** Paths it has still settling; null when the folder is not watched. */
  pending(): number | null;
  /**
   * Resolves once it has reported every path it saw change, or after `limitMs` (a file written on and on never
   * settles); at once when nothing is settling.
   */
  untilQuiet(limitMs: number): Promise<void>;
  /** Paths it named since the pass began (the engine gathers them; a pass takes them as data). */
  takeChanges(): ReadonlySet<RelPath>;
}

/** What a pass is given to act and tell through. */
export interface PassPorts {
  /** The engine was paused or stopped since: a pass ends at its next step. */
  halted(): 'paused' | 'stopped' | null;
  /** Aborts what a pass sends when the engine stops. */
  readonly signal: AbortSignal;
  readonly pollMs: number;
  tell(event: PassEvent): void;
  readonly watcher: PassWatcher;
}

/** How a pass ended, from which the engine takes its state. */
export type PassEnd =
  /** Paused or stopped before it began. */
  | { kind: 'halted' }
  /** The synced folder is gone or another is at its path: nothing was compared. */
  | { kind: 'folder-problem'; problem: FolderProblem }
  /** The server could not be reached. */
  | { kind: 'offline'; detail: string }
  /** Something other than an item failed. */
  | { kind: 'failed'; detail: string }
  /** The mass-delete guard stopped it: the user is asked about `count` deletions (`question`: when newly asked). */
  | { kind: 'asked'; count: number; question?: DeletionQuestion }
  /** It reached its end: downloads that did not fit, and disappearances still held, say what is left. */
  | { kind: 'done'; spaceProblem: string | null; held: number };

/** What the user said about the deletions the guard stopped at. */
export interface DeletionAnswers {
  /** The number of deletions the user was last asked to consent to; asked again only when it changes. */
  askedFor: number | null;
  /** The user consented: the next pass may make them. */
  consent: boolean;
  /** The user refused them: the next pass undoes them where they were made (deletions.ts). */
  keep: boolean;
}

/**
 * One pass's inputs: the merged request, the paths the watcher named since the last pass, whether the engine is live
 * (watching and polling), the user's answers.
 */
export interface PassInput extends PassRequest {
  /** Paths the watcher named: looked at again (a full scan looks at everything). */
  paths?: ReadonlySet<RelPath>;
  live: boolean;
  answers: Readonly<DeletionAnswers>;
}

/** What a pass did, and what the engine keeps for the next one. */
export interface PassResult {
  summary: PassSummary;
  end: PassEnd;
  /** The user's answers as the pass leaves them (a consent used, a refusal carried out, the count asked about). */
  answers: DeletionAnswers;
  /** The guard weighed deletions: `answers.askedFor` is what the user was last asked about. */
  guarded: boolean;
  /** When the next full listing of the drive is due (absent: as before). */
  fullListingDue?: number;
  /** How long the pass's full scan took (absent: it made none). */
  fullScanMs?: number;
  /** The conflicted copies its full scan found (absent: it made none). */
  conflictCopies?: RelPath[];
  /** When it reached its end (absent: it did not). */
  ended?: Date;
  /** Look at the drive at once: to see what this pass sent, and what others changed meanwhile. */
  checkDrive?: true;
  /** Items another program locked: try again in this many milliseconds. */
  retryInMs?: number;
  /** Everything is in sync and base holds all the drive lists here: what a warm start needs may be kept. */
  warm?: true;
}
