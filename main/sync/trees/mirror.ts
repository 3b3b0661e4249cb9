/**
 * The synced tree (base) in SQLite, plus the intent journal: an operation is written before it starts and
 * cleared in the same transaction that records its result, so a crash leaves a trace of what may have happened.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { birthField, known } from '../model/birth.js';
import { BaseTree } from './trees.js';
import { SHA256_HEX } from './columns.js';
import type { BaseItem, ItemType, RelPath, RemoteId, SyncedIds } from '../model/types.js';

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE base (
    remote_id INTEGER PRIMARY KEY,
    parent_id INTEGER,
    remote_name TEXT NOT NULL,
    path TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('file', 'folder')),
    inode INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    hash TEXT,
    remote_size INTEGER NOT NULL,
    remote_updated_at TEXT NOT NULL
  );
  CREATE INDEX base_path ON base(path);
  CREATE TABLE intents (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    started_at TEXT NOT NULL
  );
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  `,
  // The local item's birth time, with its inode what tells it from a new file given its freed inode number. Rows
  // written before have NULL: unknown, and matched by inode as they were.
  `ALTER TABLE base ADD COLUMN birthtime_ms REAL;`,
  // Whether this computer made the entry: of two entries of one name on the drive made at once by two computers,
  // the one that made the later can tell it is a conflict (rule C5). Rows written before: not made here.
  `ALTER TABLE base ADD COLUMN made_here INTEGER NOT NULL DEFAULT 0;`,
  // What this computer moved to the drive's trash, and when: `drivesync trash restore --since` and the window's
  // Restore on a deletion undo them by entry id. The last TRASHED_KEPT are kept.
  `CREATE TABLE trashed (remote_id INTEGER PRIMARY KEY, path TEXT NOT NULL, type TEXT NOT NULL, at TEXT NOT NULL);
   CREATE INDEX trashed_at ON trashed(at);`,
  // A folder's children found without reading the whole table (it can hold a million rows): the window's Files view
  // reads them a page at a time, with their count (mirror-read.ts, `childrenOf`).
  `CREATE INDEX IF NOT EXISTS base_parent ON base(parent_id);`,
  // What an engine kept for a warm start (WARM_START) holds only while base says of the drive what it said when it was
  // kept, and the journal holds no new intent: any change to either, by any process, lets it go, and the next start
  // lists the drive first. What base records of the local side (inode, size, times, hash) may change meanwhile: the
  // first pass scans the folder in full anyway.
  `CREATE TRIGGER IF NOT EXISTS warm_start_base_insert AFTER INSERT ON base BEGIN DELETE FROM meta WHERE key = 'warm-start'; END;
   CREATE TRIGGER IF NOT EXISTS warm_start_base_update AFTER UPDATE ON base
     WHEN OLD.remote_id IS NOT NEW.remote_id OR OLD.parent_id IS NOT NEW.parent_id OR OLD.remote_name IS NOT NEW.remote_name
       OR OLD.type IS NOT NEW.type OR OLD.remote_size IS NOT NEW.remote_size OR OLD.remote_updated_at IS NOT NEW.remote_updated_at
     BEGIN DELETE FROM meta WHERE key = 'warm-start'; END;
   CREATE TRIGGER IF NOT EXISTS warm_start_base_delete AFTER DELETE ON base BEGIN DELETE FROM meta WHERE key = 'warm-start'; END;
   CREATE TRIGGER IF NOT EXISTS warm_start_intent AFTER INSERT ON intents BEGIN DELETE FROM meta WHERE key = 'warm-start'; END;`,
];

/**
 * The meta key of what a running engine keeps, while everything is in sync, for its next start to trust base instead
 * of listing the whole drive first (engine.ts, `warmStart`). Named in the triggers above.
 */
export const WARM_START = 'warm-start';

/** Trashes remembered for `trash restore --since`. */
const TRASHED_KEPT = 10_000;

/** An entry this computer moved to the drive's trash. */
export interface TrashedByHere {
  remoteId: RemoteId;
  path: string;
  type: 'file' | 'folder';
  /** ISO time of the trash. */
  at: string;
}

export const MIRROR_SCHEMA_VERSION = MIGRATIONS.length;

interface BaseRow {
  remote_id: number;
  parent_id: number | null;
  remote_name: string;
  path: string;
  type: 'file' | 'folder';
  inode: number;
  size: number;
  mtime_ms: number;
  birthtime_ms: number | null;
  hash: Buffer | string | null;
  remote_size: number;
  remote_updated_at: string;
  made_here: number;
}

export interface Intent {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  startedAt: string;
}

const BASE_COLUMNS = 'remote_id, parent_id, remote_name, path, type, inode, size, mtime_ms, birthtime_ms, hash, remote_size, remote_updated_at, made_here';
type BaseRowValues = [
  RemoteId,
  RemoteId | null,
  string,
  RelPath,
  ItemType,
  number,
  number,
  number,
  number | null,
  Buffer | string | null,
  number,
  string,
  number,
];

/**
 * A sha256 is kept as its 32 bytes, not 64 hex digits: at a million files that is 32 MB of the mirror. Rows written
 * before hold the digits, which read back as they are.
 */
const storedHash = (hash: string | null): Buffer | string | null => (hash !== null && SHA256_HEX.test(hash) ? Buffer.from(hash, 'hex') : hash);
const readHash = (stored: Buffer | string | null): string | null => (Buffer.isBuffer(stored) ? stored.toString('hex') : stored);

export class Mirror {
  private readonly db: Database.Database;
  private readonly upsertStmt;
  private readonly deleteStmt;
  private readonly clearIntentStmt;
  private readonly beginIntentStmt;

  constructor(file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    // better-sqlite3 builds SQLite with a 16 MB page cache per connection; reads of the whole base are sequential,
    // so 2 MB serves them as well and the rest stays out of the idle footprint.
    this.db.pragma('cache_size = -2000');
    this.migrate();
    this.upsertStmt = this.db.prepare(
      `INSERT INTO base (remote_id, parent_id, remote_name, path, type, inode, size, mtime_ms, birthtime_ms, hash, remote_size, remote_updated_at, made_here)
       VALUES (@remoteId, @parentId, @remoteName, @path, @type, @inode, @size, @mtimeMs, @birthtimeMs, @hash, @remoteSize, @remoteUpdatedAt, @madeHere)
       ON CONFLICT (remote_id) DO UPDATE SET parent_id = excluded.parent_id, remote_name = excluded.remote_name,
         path = excluded.path, type = excluded.type, inode = excluded.inode, size = excluded.size,
         mtime_ms = excluded.mtime_ms, birthtime_ms = excluded.birthtime_ms, hash = excluded.hash, remote_size = excluded.remote_size,
         remote_updated_at = excluded.remote_updated_at, made_here = excluded.made_here`,
    );
    this.deleteStmt = this.db.prepare('DELETE FROM base WHERE remote_id = ?');
    this.clearIntentStmt = this.db.prepare('DELETE FROM intents WHERE id = ?');
    // Prepared once: preparing costs more than the insert itself, once per operation.
    this.beginIntentStmt = this.db.prepare('INSERT INTO intents (kind, payload, started_at) VALUES (?, ?, ?)');
  }

  private migrate(): void {
    const current = this.db.pragma('user_version', { simple: true }) as number;
    if (current > MIGRATIONS.length) {
      throw new Error(`the sync database was written by a newer drivesync (schema ${current}); update drivesync`);
    }
    for (let version = current; version < MIGRATIONS.length; version++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[version]!);
        this.db.pragma(`user_version = ${version + 1}`);
      })();
    }
  }

  get schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  /** The synced tree, with nothing marked as touched. */
  loadBase(): BaseTree {
    const out = new BaseTree();
    // Rows as arrays, each made into its item at once: a million rows are read back when a pass follows an idle spell.
    const rows = this.db.prepare(`SELECT ${BASE_COLUMNS} FROM base`).raw().iterate() as IterableIterator<BaseRowValues>;
    for (const [remoteId, parentId, remoteName, path, type, inode, size, mtimeMs, birthtimeMs, hash, remoteSize, remoteUpdatedAt, madeHere] of rows) {
      // A sha256 stored as its 32 bytes goes into the tree as bytes; anything else as text.
      const digest = Buffer.isBuffer(hash) && hash.length === 32 ? hash : null;
      const item: BaseItem = { remoteId, parentId, remoteName, path, type, inode, size, mtimeMs, hash: digest ? null : readHash(hash), remoteSize, remoteUpdatedAt };
      if (known(birthtimeMs)) item.birthtimeMs = birthtimeMs;
      if (madeHere) item.madeHere = true;
      out.load(item, digest);
    }
    return out;
  }

  /**
   * What is synced, for the cheap check while base is not held in memory: each id looked up in the database, the
   * counts as base had them when it was let go (nothing changes base until a pass reads it back; counting 100,000
   * rows on every poll would be most of an idle engine's CPU).
   */
  syncedIds(counts: { size: number; rootChildren: number }): SyncedIds {
    this.hasStmt ??= this.db.prepare('SELECT 1 FROM base WHERE remote_id = ?').pluck();
    this.entryStmt ??= this.db.prepare('SELECT parent_id, remote_name, type, remote_size, remote_updated_at FROM base WHERE remote_id = ?');
    const has = this.hasStmt;
    const entry = this.entryStmt;
    return {
      has: (id) => has.get(id) !== undefined,
      get: (id) => {
        const row = entry.get(id) as Pick<BaseRow, 'parent_id' | 'remote_name' | 'type' | 'remote_size' | 'remote_updated_at'> | undefined;
        return row && { parentId: row.parent_id, name: row.remote_name, type: row.type, size: row.remote_size, updatedAt: row.remote_updated_at };
      },
      size: counts.size,
      rootChildren: () => counts.rootChildren,
    };
  }

  private hasStmt: Database.Statement | undefined;
  private entryStmt: Database.Statement | undefined;

  beginIntent(kind: string, payload: Record<string, unknown>, startedAt: string): number {
    const info = this.beginIntentStmt.run(kind, JSON.stringify(payload), startedAt);
    return Number(info.lastInsertRowid);
  }

  /** Records an operation's result and clears its intent, atomically. */
  commit(intentId: number | null, upserts: Iterable<BaseItem>, deletes: Iterable<RemoteId>): void {
    this.db.transaction(() => {
      for (const id of deletes) this.deleteStmt.run(id);
      for (const item of upserts) {
        this.upsertStmt.run({ ...item, hash: storedHash(item.hash), birthtimeMs: birthField(item.birthtimeMs).birthtimeMs ?? null, madeHere: item.madeHere ? 1 : 0 });
      }
      if (intentId !== null) this.clearIntentStmt.run(intentId);
    })();
  }

  clearIntent(id: number): void {
    this.clearIntentStmt.run(id);
  }

  /**
   * Settles what a check of the folder found (check.ts) at the next pass, keeping both sides: a file whose bytes
   * differ here and on the drive is recorded as changed on both sides (its next pass is a conflict, C3, which compares
   * the bytes once more); one gone from either side is forgotten, so the side that still has it brings it back (N1,
   * N2) instead of deleting it from the other.
   */
  settleChecked(changedOnBoth: readonly RemoteId[], forget: readonly RemoteId[]): void {
    const mark = this.db.prepare('UPDATE base SET hash = NULL, mtime_ms = -1, remote_size = -1 WHERE remote_id = ?');
    const drop = this.db.prepare('DELETE FROM base WHERE remote_id = ?');
    this.db.transaction(() => {
      for (const id of changedOnBoth) mark.run(id);
      for (const id of forget) drop.run(id);
    })();
  }

  /** Replaces what an intent records (an upload the drive answered before a later step of its operation failed). */
  updateIntent(id: number, payload: Record<string, unknown>): void {
    this.db.prepare('UPDATE intents SET payload = ? WHERE id = ?').run(JSON.stringify(payload), id);
  }

  intents(): Intent[] {
    return (this.db.prepare('SELECT * FROM intents ORDER BY id').all() as Array<{ id: number; kind: string; payload: string; started_at: string }>).map(
      (row) => ({ id: row.id, kind: row.kind, payload: JSON.parse(row.payload) as Record<string, unknown>, startedAt: row.started_at }),
    );
  }

  /** Remembers that this computer moved an entry to the drive's trash. */
  recordTrashed(item: TrashedByHere): void {
    this.db
      .prepare('INSERT INTO trashed (remote_id, path, type, at) VALUES (?, ?, ?, ?) ON CONFLICT (remote_id) DO UPDATE SET path = excluded.path, type = excluded.type, at = excluded.at')
      .run(item.remoteId, item.path, item.type, item.at);
    this.db.prepare('DELETE FROM trashed WHERE remote_id NOT IN (SELECT remote_id FROM trashed ORDER BY at DESC LIMIT ?)').run(TRASHED_KEPT);
  }

  getMeta(key: string): string | undefined {
    return (this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  close(): void {
    this.db.close();
  }

  /**
   * A consistent copy of the mirror at `from` into `to` (what a dry run plans on), whatever another process is
   * writing meanwhile; nothing when there is no mirror yet (a first sync).
   */
  static copy(from: string, to: string): void {
    if (!existsSync(from)) return;
    const db = new Database(from, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      db.prepare('VACUUM INTO ?').run(to);
    } finally {
      db.close();
    }
  }
}
