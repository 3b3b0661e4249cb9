/**
 * One process syncs a folder at a time: a lock file beside the folder's mirror (`MIRROR.lock`, holding the pid),
 * taken by `drivesync sync` and the window alike, so they never run two engines on one folder. A lock whose
 * process is gone is taken over.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { FolderLocked } from './errors.js';

/** Whether a process with this pid runs (one we may not signal counts as running). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock, or throws FolderLocked naming the process that holds it; answers the release function. */
export function lockFolder(lockFile: string, root: string, pid = process.pid): () => void {
  mkdirSync(dirname(lockFile), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      writeSync(fd, String(pid));
      closeSync(fd);
      return () => {
        try {
          // Released only while it is still ours: a process that took over a stale lock keeps it.
          if (readFileSync(lockFile, 'utf8').trim() === String(pid)) rmSync(lockFile, { force: true });
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let holder = NaN;
      try {
        holder = Number(readFileSync(lockFile, 'utf8').trim());
      } catch {
        // vanished in between: try again
      }
      if (isAlive(holder) && holder !== pid) throw new FolderLocked(`${root} is already being synced by process ${holder}`);
      rmSync(lockFile, { force: true });
    }
  }
  throw new FolderLocked(`cannot lock ${root} for syncing`);
}
