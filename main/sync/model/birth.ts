/**
 * Birth times: what tells a file that moved from a new file the file system gave a freed inode number. File systems
 * hand a freed inode number to the next file made (a `git checkout` deletes and creates hundreds at once), so an
 * inode alone would take a deleted file and a new one for one file moved; a rename keeps the birth time, a new file
 * has its own. 0 means unknown: the file system does not record it (Linux reports it through statx on ext4, btrfs,
 * xfs and recent tmpfs; macOS and Windows always), or the row was written before it was recorded.
 */
import { lstatSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let real: boolean | undefined;

/**
 * Where statx is refused (an old kernel, a container's seccomp filter), Node reports a Linux file's change time as
 * its birth time, which a rename moves on: such a "birth time" would make every move look like a new file. In that
 * fallback the two are always equal, so one look at a folder just changed, but made long before, tells (asked once).
 */
function birthTimesAreReal(): boolean {
  if (real !== undefined) return real;
  if (process.platform === 'darwin' || process.platform === 'win32') return (real = true);
  try {
    const dir = tmpdir();
    const probe = join(dir, `.drivesync-birth-${randomUUID()}`);
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
    const stats = lstatSync(dir);
    real = stats.birthtimeMs !== stats.ctimeMs;
  } catch {
    real = false;
  }
  return real;
}

/** An item's birth time from its stats, or 0 when unknown. */
export function birthTimeOf(stats: { birthtimeMs?: number }): number {
  const birth = stats.birthtimeMs;
  return birth !== undefined && birth > 0 && Number.isFinite(birth) && birthTimesAreReal() ? birth : 0;
}

export const known = (birth: number | null | undefined): birth is number => birth !== undefined && birth !== null && birth > 0;

/** A birth time as an item's optional field: there when known, absent when 0 or missing (unknown). */
export const birthField = (birth: number | null | undefined): { birthtimeMs?: number } => (known(birth) ? { birthtimeMs: birth } : {});

/**
 * Whether two records with one inode number can be one item by their birth times: 'same' and 'different' when both
 * are known; 'unknown' otherwise (then only the inode, size and mtime tell, as before birth times were recorded).
 */
export function birthMatch(a: { birthtimeMs?: number }, b: { birthtimeMs?: number }): 'same' | 'different' | 'unknown' {
  if (!known(a.birthtimeMs) || !known(b.birthtimeMs)) return 'unknown';
  return a.birthtimeMs === b.birthtimeMs ? 'same' : 'different';
}

/** Same inode, and not told apart by birth time: the same item (as far as the file system says). */
export function sameItem(a: { inode: number; birthtimeMs?: number }, b: { inode: number; birthtimeMs?: number }): boolean {
  return a.inode === b.inode && birthMatch(a, b) !== 'different';
}
