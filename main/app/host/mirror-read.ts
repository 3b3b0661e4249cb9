/**
 * Read-only look-ups in a folder's mirror database (the engine owns and writes it; WAL lets a reader in at any
 * time): the children of a synced folder for the window's browser, and the remote entry of a local path.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';

export interface MirrorRow {
  remoteId: number;
  parentId: number | null;
  remoteName: string;
  path: string;
  type: 'file' | 'folder';
  size: number;
  /** Local modification time of the synced copy, ms since the epoch. */
  mtimeMs: number;
}

interface Row {
  remote_id: number;
  parent_id: number | null;
  remote_name: string;
  path: string;
  type: 'file' | 'folder';
  size: number;
  mtime_ms: number;
}

const toRow = (r: Row): MirrorRow => ({
  remoteId: r.remote_id,
  parentId: r.parent_id,
  remoteName: r.remote_name,
  path: r.path,
  type: r.type,
  size: r.size,
  mtimeMs: r.mtime_ms,
});

const COLUMNS = 'remote_id, parent_id, remote_name, path, type, size, mtime_ms';

function withDb<T>(file: string, read: (db: Database.Database) => T): T | null {
  if (!existsSync(file)) return null;
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch {
    return null;
  }
  try {
    db.pragma('busy_timeout = 5000');
    // A mirror the engine has not created its tables in yet holds nothing.
    const ready = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'base'").get();
    return ready ? read(db) : null;
  } finally {
    db.close();
  }
}

export function mirrorItem(file: string, path: string): MirrorRow | null {
  return withDb(file, (db) => {
    const row = db.prepare(`SELECT ${COLUMNS} FROM base WHERE path = ?`).get(path) as Row | undefined;
    return row ? toRow(row) : null;
  });
}

/** Children of `path` ('' is the folder's root), folders first, then by name. */
export function mirrorChildren(file: string, path: string): MirrorRow[] {
  return (
    withDb(file, (db) => {
      let rows: Row[];
      if (path === '') {
        rows = db.prepare(`SELECT ${COLUMNS} FROM base WHERE parent_id IS NULL`).all() as Row[];
      } else {
        const parent = db.prepare('SELECT remote_id FROM base WHERE path = ?').get(path) as { remote_id: number } | undefined;
        if (!parent) return [];
        rows = db.prepare(`SELECT ${COLUMNS} FROM base WHERE parent_id = ?`).all(parent.remote_id) as Row[];
      }
      return rows
        .map(toRow)
        .sort((a, b) => (a.type === b.type ? a.path.localeCompare(b.path) : a.type === 'folder' ? -1 : 1));
    }) ?? []
  );
}
