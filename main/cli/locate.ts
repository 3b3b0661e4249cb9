/**
 * A local path inside a synced folder turned into the remote entry it is synced with, through that folder's mirror
 * (read-only), with the command line's one-line failures when it cannot be.
 */
import { existsSync } from 'node:fs';
import { canonicalPath, findRoot, rootOfAccount } from '../state/roots.js';
import type { StatePaths } from '../state/paths.js';
import { CliError } from './errors.js';

export interface MirrorItem {
  remoteId: number;
  parentId: number | null;
  path: string;
  type: 'file' | 'folder';
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

