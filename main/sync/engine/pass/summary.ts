/**
 * What a pass tells: its summary, the activity and item errors it reports as it goes, and the words it uses for them.
 * The engine's events and both front ends speak these types.
 */
import { ApiError } from '../../../api/errors.js';
import { osReason } from '../../../api/os-words.js';
import type { FolderProblem } from '../../local/folder-identity.js';
import type { EngineRuleId, Operation, RemoteId, RuleId, SelectionRuleId, SharedRuleId } from '../../model/types.js';


export interface Activity {
  at: string;
  /** A duplicate this computer made on the drive, resolved (rule C5), is told as a conflict or a merge. */
  kind: Exclude<Operation['kind'], 'resolve-twin'> | 'conflict' | 'notice';
  path: string;
  rule?: RuleId | EngineRuleId | SelectionRuleId | SharedRuleId;
  /** The entry a deletion put in the drive's trash (here or elsewhere): what "Restore" brings back. */
  remoteId?: RemoteId;
}

export interface ItemError {
  path: string;
  message: string;
  /**
   * Left out by design, not a failure (a symbolic link, an empty folder the drive cannot hold): told once as it is
   * found, and listed in each pass's `skipped` while it is there. A front end that keeps a list of errors leaves it
   * out of that list.
   */
  leftOut?: true;
}

export interface SharedWithMe {
  /** The folder at the top of the synced folder it arrives in. */
  folder: string;
  entries: number;
  viewOnly: number;
}

export interface PassSummary {
  /**
   * Changes carried out, on either side. A `record` is not one: it only brings base up to date with what both sides
   * already agree on (a deployed server's move answers no time stamp; the next listing's is recorded), and a running
   * sync that said "in sync" after the move would otherwise say it again for the record.
   */
  done: number;
  /** What could not be synced: operations that failed, names the service refuses, folders the scan cannot read. */
  failed: ItemError[];
  /**
   * What is left out by design, reported and not a failure: symbolic links, ignored names (temp files,
   * `.syncignore`; the first IGNORED_LISTED of them), empty folders with a name the drive refuses.
   */
  skipped: ItemError[];
  /** How many names the ignore rules left out in all. */
  ignored: number;
  /** The server could not be reached: nothing was compared, and nothing failed. */
  offline: boolean;
  /** Offline: how many changes made here wait to go up to the drive (changes-here.ts). */
  waitingUp?: number;
  /** Synced items gone locally whose deletion waits for the folder to settle (live mode): they may have moved. */
  waiting: number;
  /** True when the pass stopped at the mass-delete guard. */
  needsConfirmation: boolean;
  inSync: boolean;
  /** The pass did nothing because the synced folder is gone, or another folder is at its path (folder-identity.ts). */
  folder?: FolderProblem['kind'];
  /** The pass's last plan was cut to a scope (scope.ts): how many synced items it looked at. */
  scoped?: number;
}

export const emptySummary = (): PassSummary => ({
  done: 0,
  failed: [],
  skipped: [],
  ignored: 0,
  offline: false,
  waiting: 0,
  needsConfirmation: false,
  inSync: false,
});

/**
 * A pass's result in one line, as the command line prints it and `drivesync status` repeats it: in sync or not, why
 * not, and how many changes.
 */
export function resultLine(summary: PassSummary): string {
  const changes = `${summary.done} change${summary.done === 1 ? '' : 's'}`;
  if (summary.inSync) return `in sync (${changes})`;
  if (summary.offline) return 'offline: nothing was compared with the drive';
  if (summary.failed.length > 0) return `not in sync: ${summary.failed.length} item${summary.failed.length === 1 ? '' : 's'} failed (${changes})`;
  // Live mode: deletions held until the folder settles (they may be the first half of a move) say why it is not yet.
  if (summary.waiting > 0) return `not in sync yet: ${summary.waiting} item${summary.waiting === 1 ? '' : 's'} gone, waiting for the folder to settle (${changes})`;
  return `not in sync (${changes})`;
}

/** The idle state's detail when items failed: the folder goes on, and says how many it left out. */
export const itemsNotSynced = (n: number): string => `${n} item${n === 1 ? '' : 's'} not synced`;
export const ITEMS_NOT_SYNCED = /^\d+ items? not synced$/;

/** A failure as the state's detail says it: where, then what. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.summary;
  // The disk's own errors name a syscall and an absolute path; a person needs what the disk said, in words.
  if (typeof (error as NodeJS.ErrnoException | null)?.syscall === 'string') return `this computer's disk: ${osReason(error)}`;
  if (error instanceof Error) return error.message.split('\n')[0]!;
  return String(error);
}
