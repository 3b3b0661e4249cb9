/**
 * The small status file kept per synced folder while it syncs (`status/KEY.json`), so `drivesync status` can say how
 * a folder is doing whichever process syncs it.
 */
import { readFileSync } from 'node:fs';
import { writeJsonAtomic } from './json-file.js';
import { statusFile, type StatePaths } from './paths.js';
import type { DeletionQuestion } from '../sync/engine/deletions.js';

export interface RootStatus {
  root: string;
  server: string;
  email: string | null;
  /** The engine's state, or `stopped` once the folder was closed. */
  state: string;
  detail: string | null;
  pid: number;
  updatedAt: string;
  /** When a pass last compared the folder with the drive, and whether it left them in sync. */
  lastSync: string | null;
  inSync: boolean | null;
  /** Set while the last pass could not reach the server (kept after the folder stops): since when, and why. */
  offline?: { since: string; reason: string; waitingUp?: number } | null;
  /**
   * `done`: the changes of the last pass that had something to tell (a pass that only confirmed it, such as the scan
   * after a burst of changes, leaves it as it was), so that it is what the command line said.
   */
  counts: { synced: number; done: number; failed: number };
  /** That pass's result in the words the command line printed for it (`in sync (3 changes)`). */
  result?: string | null;
  /**
   * The folder at the synced path is not the synced folder (gone, or another one there): nothing is compared until
   * it is back or synced afresh. What happened and what to do, as the engine says it.
   */
  folderProblem?: { kind: 'gone' | 'replaced' | 'not-a-folder'; message: string } | null;
  /** What others share with the account, as the engine last looked (null: not synced in this folder). */
  shared?: { folder: string; entries: number; viewOnly: number } | null;
  errors: Array<{ path: string; message: string }>;
  /**
   * What the last pass left out by design, not failures: symbolic links, ignored names (temp files, `.syncignore`),
   * empty folders the drive cannot hold; `ignored` counts every ignored name, the list names the first few.
   */
  skipped?: { items: Array<{ path: string; message: string }>; ignored: number };
  /**
   * The deletions the mass-delete guard stopped at, while they wait for an answer: how many, where, why, and the
   * items (the first ten thousand of each side).
   */
  deletions?: DeletionQuestion | null;
  /** The last answer given elsewhere that the folder took up (or set aside, `taken` false, for another count). */
  answer?: { answer: 'delete' | 'keep'; count: number; taken: boolean; asked: number; at: string } | null;
}

export function writeStatus(paths: StatePaths, key: string, status: RootStatus): void {
  writeJsonAtomic(statusFile(paths, key), status);
}

export function readStatus(paths: StatePaths, key: string): RootStatus | null {
  try {
    return JSON.parse(readFileSync(statusFile(paths, key), 'utf8')) as RootStatus;
  } catch {
    return null;
  }
}
