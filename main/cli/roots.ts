/**
 * Sync roots as the command line sees them: finding the root a local path is in, reading a root's mirror (read-only)
 * to turn a local path into the remote entry it is synced with, and the small status file `sync` keeps per root.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { writeJsonAtomic } from './config.js';
import { CliError } from './errors.js';
import { mirrorFile, rootKey, statusFile, type StatePaths } from './paths.js';

/** The absolute, symlink-free form of a path, also for one that does not exist (yet, or any more). */
export function canonicalPath(path: string): string {
  const abs = resolve(path);
  const rest: string[] = [];
  let dir = abs;
  for (;;) {
    try {
      const real = realpathSync(dir);
      return rest.length === 0 ? real : join(real, ...rest.reverse());
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return abs;
      rest.push(basename(dir));
      dir = parent;
    }
  }
}

/** The root `path` is in (the deepest one), with the path relative to it, '/'-separated ('' for the root). */
export function findRoot(roots: readonly string[], path: string): { root: string; rel: string } | null {
  let best: { root: string; rel: string } | null = null;
  for (const root of roots) {
    const rel = relative(root, path);
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) {
      if (!best || root.length > best.root.length) best = { root, rel: rel.split(sep).join('/') };
    }
  }
  return best;
}

export interface MirrorItem {
  remoteId: number;
  parentId: number | null;
  path: string;
  type: 'file' | 'folder';
}

export interface RootOfAccount {
  root: string;
  key: string;
  mirror: string;
}

export function rootOfAccount(paths: StatePaths, root: string, server: string, email: string | undefined): RootOfAccount {
  const key = rootKey(root, server, email);
  return { root, key, mirror: mirrorFile(paths, key) };
}

/** Runs `read` on a read-only connection to a root's mirror; null when the root was never synced. */
export async function withMirror<T>(file: string, read: (query: MirrorQuery) => T): Promise<T | null> {
  if (!existsSync(file)) return null;
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const byPath = db.prepare<[string], { remote_id: number; parent_id: number | null; path: string; type: 'file' | 'folder' }>(
      'SELECT remote_id, parent_id, path, type FROM base WHERE path = ?',
    );
    const byId = db.prepare<[number], { remote_id: number; parent_id: number | null; path: string; type: 'file' | 'folder' }>(
      'SELECT remote_id, parent_id, path, type FROM base WHERE remote_id = ?',
    );
    const toItem = (row: { remote_id: number; parent_id: number | null; path: string; type: 'file' | 'folder' } | undefined) =>
      row ? { remoteId: row.remote_id, parentId: row.parent_id, path: row.path, type: row.type } : undefined;
    return read({
      byPath: (path) => toItem(byPath.get(path)),
      byId: (id) => toItem(byId.get(id)),
    });
  } finally {
    db.close();
  }
}

export interface MirrorQuery {
  byPath(path: string): MirrorItem | undefined;
  byId(id: number): MirrorItem | undefined;
}

export interface Located extends MirrorItem {
  root: string;
  /** The path as the user gave it, for messages. */
  shown: string;
}

/** The remote entry a local path inside a synced root is synced with, or a one-line failure saying why not. */
export async function locate(
  paths: StatePaths,
  roots: readonly string[],
  server: string,
  email: string | undefined,
  given: string,
): Promise<Located> {
  const abs = canonicalPath(given);
  const found = findRoot(roots, abs);
  if (!found) {
    const list = roots.length === 0 ? 'no folder is synced yet: run drivesync sync DIR' : `synced folders: ${roots.join(', ')}`;
    throw new CliError(`${given} is not inside a synced folder (${list})`);
  }
  if (found.rel === '') throw new CliError(`${given} is the synced folder itself; name a file or folder inside it`);
  const { mirror } = rootOfAccount(paths, found.root, server, email);
  const item = await withMirror(mirror, (q) => q.byPath(found.rel));
  if (item === null) throw new CliError(`${found.root} has not been synced with this account yet: run drivesync sync ${found.root}`);
  if (!item) {
    const hint = existsSync(abs) ? `run drivesync sync ${found.root} first` : 'no such file or folder';
    throw new CliError(`${given} is not synced (${hint})`);
  }
  return { ...item, root: found.root, shown: given };
}

export interface RootStatus {
  root: string;
  server: string;
  email: string | null;
  /** The engine's state, or `stopped` once `sync` has ended. */
  state: string;
  detail: string | null;
  pid: number;
  updatedAt: string;
  lastSync: string | null;
  inSync: boolean | null;
  counts: { synced: number; done: number; failed: number };
  errors: Array<{ path: string; message: string }>;
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

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
