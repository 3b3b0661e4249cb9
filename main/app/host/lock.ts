/**
 * One process syncs a folder at a time: the same lock file (`MIRROR.lock` holding the pid) the command line's
 * `sync` takes, so the window and `drivesync sync` never run two engines on one folder.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { isAlive } from '../../cli/roots.js';

export class FolderLocked extends Error {}

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
