/**
 * Read-only answers from a folder's mirror database for the front ends (the command line, the window), on a
 * connection of their own: the engine that writes it may be running, in this process or another, and WAL lets a
 * reader in at any time. `Mirror` (mirror.ts) owns the schema; these are the only other queries on its tables.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';

/** What the mirror records of a synced item, as far as the front ends need it. */
export interface MirrorEntry {
  remoteId: number;
  parentId: number | null;
  remoteName: string;
  /** Relative to the synced folder, '/'-separated. */
  path: string;
  type: 'file' | 'folder';
  size: number;
  /** Local modification time of the synced copy, ms since the epoch. */
  mtimeMs: number;
}

/** The questions a front end may ask a mirror. */
export interface MirrorReader {
  /** The synced item at a path relative to the folder ('' is the folder itself, which has no item). */
  itemAt(path: string): MirrorEntry | undefined;
  /** The synced item with this remote id. */
  itemById(remoteId: number): MirrorEntry | undefined;
  /** The synced items directly inside a folder ('' is the synced folder), folders first, then by path. */
  childrenOf(path: string): MirrorEntry[];
  /** What this computer moved to the drive's trash at `since` (ISO) or later, newest first. */
  trashedSince(since: string): Array<{ remoteId: number; path: string; type: 'file' | 'folder'; at: string }>;
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

const COLUMNS = 'remote_id, parent_id, remote_name, path, type, size, mtime_ms';

const toEntry = (r: Row): MirrorEntry => ({
  remoteId: r.remote_id,
  parentId: r.parent_id,
  remoteName: r.remote_name,
  path: r.path,
  type: r.type,
  size: r.size,
  mtimeMs: r.mtime_ms,
});

const foldersFirst = (a: MirrorEntry, b: MirrorEntry) =>
  a.type === b.type ? a.path.localeCompare(b.path) : a.type === 'folder' ? -1 : 1;

function readerOn(db: Database.Database): MirrorReader {
  const byPath = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM base WHERE path = ?`);
  const byId = db.prepare<[number], Row>(`SELECT ${COLUMNS} FROM base WHERE remote_id = ?`);
  const atTop = db.prepare<[], Row>(`SELECT ${COLUMNS} FROM base WHERE parent_id IS NULL`);
  const inside = db.prepare<[number], Row>(`SELECT ${COLUMNS} FROM base WHERE parent_id = ?`);
  const itemAt = (path: string) => {
    const row = byPath.get(path);
    return row ? toEntry(row) : undefined;
  };
  return {
    itemAt,
    itemById: (remoteId) => {
      const row = byId.get(remoteId);
      return row ? toEntry(row) : undefined;
    },
    childrenOf: (path) => {
      if (path === '') return atTop.all().map(toEntry).sort(foldersFirst);
      const parent = itemAt(path);
      return parent ? inside.all(parent.remoteId).map(toEntry).sort(foldersFirst) : [];
    },
    trashedSince: (since) => {
      // A mirror written before trashes were remembered has no such table: nothing was remembered.
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'trashed'").get()) return [];
      const rows = db.prepare('SELECT remote_id, path, type, at FROM trashed WHERE at >= ? ORDER BY at DESC').all(since) as Array<{
        remote_id: number;
        path: string;
        type: 'file' | 'folder';
        at: string;
      }>;
      return rows.map((r) => ({ remoteId: r.remote_id, path: r.path, type: r.type, at: r.at }));
    },
  };
}

/** A read-only connection to the mirror in `file`; null when there is no such file (never synced with this account). */
function open(file: string): Database.Database | null {
  return existsSync(file) ? new Database(file, { readonly: true, fileMustExist: true }) : null;
}

function readOn<T>(db: Database.Database, read: (mirror: MirrorReader) => T): T | null {
  try {
    db.pragma('busy_timeout = 5000');
    // A mirror the engine has not created its tables in yet holds nothing.
    const ready = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'base'").get();
    return ready ? read(readerOn(db)) : null;
  } finally {
    db.close();
  }
}

/**
 * Runs `read` on a read-only connection to the mirror in `file`, closed after. Null when there is nothing to read:
 * no such file (the folder was never synced with this account), or a mirror the engine has not set up yet. A file
 * that cannot be opened throws.
 */
export function readMirror<T>(file: string, read: (mirror: MirrorReader) => T): T | null {
  const db = open(file);
  return db === null ? null : readOn(db, read);
}

/** `readMirror` for a view: a mirror file that cannot be opened shows as one with nothing synced yet. */
function readForView<T>(file: string, read: (mirror: MirrorReader) => T): T | null {
  let db: Database.Database | null;
  try {
    db = open(file);
  } catch {
    return null;
  }
  return db === null ? null : readOn(db, read);
}

/** The synced item at `path` in the mirror in `file`; null when there is none or no readable mirror. */
export function syncedItemAt(file: string, path: string): MirrorEntry | null {
  return readForView(file, (mirror) => mirror.itemAt(path)) ?? null;
}

/** The synced items directly inside `path` ('' is the synced folder), folders first; [] without a readable mirror. */
export function syncedChildrenOf(file: string, path: string): MirrorEntry[] {
  return readForView(file, (mirror) => mirror.childrenOf(path)) ?? [];
}
