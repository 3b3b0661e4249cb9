/**
 * One engine syncs a folder at a time, whoever starts it. Two locks are taken, each a file holding who has it:
 * - beside the folder's mirror (`MIRROR.lock`): the command line and the window of one state folder;
 * - inside the synced folder itself (`.drivesync/lock`): any process at all — another state folder
 *   (`DRIVESYNC_HOME`), another user account, another computer that reaches the folder over a network share.
 * A lock whose process is gone (on this computer) is taken over; one held on another computer is refused, naming it.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
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

/** Who holds a lock, as its file says. */
export interface LockHolder {
  pid: number;
  /** The computer it runs on. */
  host: string;
  /** The state folder of the engine that holds it, when known. */
  stateDir?: string;
}

/** A lock file's content: JSON, or a bare pid (locks written before the holder was named). */
function readHolder(lockFile: string): LockHolder | null {
  let text: string;
  try {
    text = readFileSync(lockFile, 'utf8').trim();
  } catch {
    return null;
  }
  if (/^\d+$/.test(text)) return { pid: Number(text), host: hostname() };
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid === 'number') {
      return { pid: parsed.pid, host: typeof parsed.host === 'string' ? parsed.host : hostname(), ...(typeof parsed.stateDir === 'string' ? { stateDir: parsed.stateDir } : {}) };
    }
  } catch {
    // half-written: treated as gone
  }
  return null;
}

function describeHolder(holder: LockHolder, here: string): string {
  const where = holder.host === here ? '' : ` on ${holder.host}`;
  const state = holder.stateDir ? ` (state folder ${holder.stateDir})` : '';
  return `process ${holder.pid}${where}${state}`;
}

export interface LockOptions {
  pid?: number;
  /** The state folder of the engine taking it, named to whoever is refused. */
  stateDir?: string;
  /** Said after the holder when refused (what to do about a holder on another computer). */
  host?: string;
}

/** Takes the lock, or throws FolderLocked naming the process that holds it; answers the release function. */
export function lockFolder(lockFile: string, root: string, options: LockOptions | number = {}): () => void {
  const { pid = process.pid, stateDir, host = hostname() } = typeof options === 'number' ? { pid: options } : options;
  mkdirSync(dirname(lockFile), { recursive: true, mode: 0o700 });
  const mine: LockHolder = { pid, host, ...(stateDir !== undefined ? { stateDir } : {}) };
  const text = JSON.stringify(mine);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      try {
        writeSync(fd, text);
      } catch (error) {
        // A lock that could not be written (a full disk) is no lock: it is not left behind.
        closeSync(fd);
        rmSync(lockFile, { force: true });
        throw error;
      }
      closeSync(fd);
      return () => {
        // Released only while it is still ours: a process that took over a stale lock keeps it.
        const holder = readHolder(lockFile);
        if (holder && holder.pid === pid && holder.host === host) rmSync(lockFile, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(lockFile);
      if (holder && holder.host !== host) {
        throw new FolderLocked(
          `${root} is already being synced by ${describeHolder(holder, host)}; if that computer no longer syncs it, delete ${lockFile}`,
        );
      }
      if (holder && isAlive(holder.pid) && holder.pid !== pid) throw new FolderLocked(`${root} is already being synced by ${describeHolder(holder, host)}`);
      rmSync(lockFile, { force: true });
    }
  }
  throw new FolderLocked(`cannot lock ${root} for syncing`);
}
