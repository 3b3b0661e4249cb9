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

/** Which of a folder's children to read, in the order `childrenOf` lists them. */
export interface ChildRange {
  /** Index of the first child read (0 when absent); past the end reads none. */
  from?: number;
  /** How many children at most (all from `from` on when absent). */
  count?: number;
}

/** A window of a folder's children, with how many the folder holds in all. */
export interface ChildrenPage {
  total: number;
  entries: MirrorEntry[];
}

/** The questions a front end may ask a mirror. */
export interface MirrorReader {
  /** The synced item at a path relative to the folder ('' is the folder itself, which has no item). */
  itemAt(path: string): MirrorEntry | undefined;
  /** The synced item with this remote id. */
  itemById(remoteId: number): MirrorEntry | undefined;
  /**
   * The synced items directly inside a folder ('' is the synced folder), folders first, then by path without regard
   * to ASCII case (SQLite's NOCASE; the exact path breaks ties): the `range` of them (all when absent), and how many
   * there are in all. A path that is not a synced folder has none. Read in SQL, a window at a time: a folder of
   * 100,000 children is never read whole to show a page of it.
   */
  childrenOf(path: string, range?: ChildRange): ChildrenPage;
  /** What this computer moved to the drive's trash at `since` (ISO) or later, newest first. */
  trashedSince(since: string): Array<{ remoteId: number; path: string; type: 'file' | 'folder'; at: string }>;
  /** How many synced files the mirror holds. */
  fileCount(): number;
  /** Up to `count` synced files with a remote id above `after`, by id: a walk over every file, a page at a time. */
  filesAfter(after: number, count: number): MirrorEntry[];
  /** Up to `count` synced files picked at random. */
  randomFiles(count: number): MirrorEntry[];
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

/** Folders first, then by path, ASCII case aside; the exact path orders two names that differ only in case. */
const CHILD_ORDER = "ORDER BY type = 'folder' DESC, path COLLATE NOCASE, path";

function readerOn(db: Database.Database): MirrorReader {
  const byPath = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM base WHERE path = ?`);
  const byId = db.prepare<[number], Row>(`SELECT ${COLUMNS} FROM base WHERE remote_id = ?`);
  // `parent_id IS ?` matches NULL (the top of the folder) and an id alike; base_parent finds either without a scan.
  const countInside = db.prepare<[number | null], { n: number }>('SELECT count(*) AS n FROM base WHERE parent_id IS ?');
  const inside = db.prepare<[number | null, number, number], Row>(`SELECT ${COLUMNS} FROM base WHERE parent_id IS ? ${CHILD_ORDER} LIMIT ? OFFSET ?`);
  const itemAt = (path: string) => {
    const row = byPath.get(path);
    return row ? toEntry(row) : undefined;
  };
  const files = db.prepare<[number, number], Row>(`SELECT ${COLUMNS} FROM base WHERE type = 'file' AND remote_id > ? ORDER BY remote_id LIMIT ?`);
  return {
    fileCount: () => (db.prepare("SELECT count(*) AS n FROM base WHERE type = 'file'").get() as { n: number }).n,
    filesAfter: (after, count) => files.all(after, count).map(toEntry),
    randomFiles: (count) => (db.prepare(`SELECT ${COLUMNS} FROM base WHERE type = 'file' ORDER BY random() LIMIT ?`).all(count) as Row[]).map(toEntry),
    itemAt,
    itemById: (remoteId) => {
      const row = byId.get(remoteId);
      return row ? toEntry(row) : undefined;
    },
    childrenOf: (path, range = {}) =>
      // One read transaction: the count and the window agree even while the engine writes.
      db.transaction((): ChildrenPage => {
        let parentId: number | null = null;
        if (path !== '') {
          const parent = itemAt(path);
          if (!parent || parent.type !== 'folder') return { total: 0, entries: [] };
          parentId = parent.remoteId;
        }
        const total = countInside.get(parentId)!.n;
        const from = Math.max(0, Math.floor(range.from ?? 0));
        const count = range.count === undefined ? -1 : Math.max(0, Math.floor(range.count));
        const entries = from >= total || count === 0 ? [] : inside.all(parentId, count, from).map(toEntry);
        return { total, entries };
      })(),
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

/**
 * The synced items directly inside `path` ('' is the synced folder), as `MirrorReader.childrenOf` reads them: the
 * `range` of them (all when absent) and how many there are; none without a readable mirror.
 */
export function syncedChildrenOf(file: string, path: string, range?: ChildRange): ChildrenPage {
  return readForView(file, (mirror) => mirror.childrenOf(path, range)) ?? { total: 0, entries: [] };
}
