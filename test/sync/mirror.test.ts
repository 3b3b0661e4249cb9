/**
 * The mirror's one owner: the front ends' read-only answers (main/sync/mirror-read.ts) on a database `Mirror`
 * writes, read while the writer is open; and `commitOutcome`, the one way the executor and crash adoption keep a
 * result: the trees, the rows and the cleared intent in one transaction.
 */
import Database from 'better-sqlite3';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitOutcome } from '../../main/sync/trees/apply.js';
import { Mirror, MIRROR_SCHEMA_VERSION, WARM_START } from '../../main/sync/trees/mirror.js';
import { readMirror, syncedChildrenOf, syncedItemAt } from '../../main/sync/trees/mirror-read.js';
import { LocalTree, RemoteTree } from '../../main/sync/trees/trees.js';
import type { BaseItem, LocalItem, RemoteItem } from '../../main/sync/model/types.js';
import { tempDir } from '../helpers/temp.js';

let dir: string;
beforeEach(() => {
  dir = tempDir('mirror');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const row = (remoteId: number, parentId: number | null, path: string, type: 'file' | 'folder', size = 0): BaseItem => ({
  remoteId,
  parentId,
  remoteName: path.split('/').at(-1)!,
  path,
  type,
  inode: 1000 + remoteId,
  size,
  mtimeMs: 1_700_000_000_000 + remoteId,
  hash: type === 'file' ? `h${remoteId}` : null,
  remoteSize: size,
  remoteUpdatedAt: '2026-11-23T10:00:00Z',
});

/** What a folder without children (or no folder, or no mirror) answers. */
const none = { total: 0, entries: [] };

describe("the front ends' read-only answers", () => {
  it('read what Mirror wrote, while it is open: by path, by id, and a folder’s children folders first', () => {
    const file = join(dir, 'm.sqlite');
    const mirror = new Mirror(file);
    try {
      mirror.commit(null, [row(1, null, 'b.txt', 'file', 5), row(2, null, 'a', 'folder'), row(3, 2, 'a/z.txt', 'file', 7), row(4, 2, 'a/inner', 'folder'), row(5, null, 'Z', 'folder')], []);
      const entry = { remoteId: 3, parentId: 2, remoteName: 'z.txt', path: 'a/z.txt', type: 'file', size: 7, mtimeMs: 1_700_000_000_003 };
      expect(syncedItemAt(file, 'a/z.txt')).toEqual(entry);
      expect(readMirror(file, (m) => [m.itemAt('a/z.txt'), m.itemById(3), m.itemById(99), m.itemAt('nope')])).toEqual([entry, entry, undefined, undefined]);
      expect(syncedChildrenOf(file, '').entries.map((e) => e.path)).toEqual(['a', 'Z', 'b.txt']);
      expect(syncedChildrenOf(file, 'a')).toEqual({ total: 2, entries: [expect.objectContaining({ path: 'a/inner', type: 'folder' }), entry] });
      expect(syncedChildrenOf(file, 'a/inner')).toEqual(none);
      expect(syncedChildrenOf(file, 'not/there')).toEqual(none);
      // A file has no children.
      expect(syncedChildrenOf(file, 'a/z.txt')).toEqual(none);
      expect(syncedItemAt(file, 'gone')).toBeNull();
      // A later commit shows at the next read.
      mirror.commit(null, [], [3]);
      expect(syncedItemAt(file, 'a/z.txt')).toBeNull();
    } finally {
      mirror.close();
    }
  });

  it('find nothing where there is no mirror yet: no file, or a database without its tables', () => {
    const none = join(dir, 'none.sqlite');
    expect(readMirror(none, () => 'read')).toBeNull();
    expect(syncedItemAt(none, 'a')).toBeNull();
    expect(syncedChildrenOf(none, '')).toEqual({ total: 0, entries: [] });
    const empty = join(dir, 'empty.sqlite');
    writeFileSync(empty, '');
    expect(readMirror(empty, () => 'read')).toBeNull();
    expect(syncedChildrenOf(empty, '', { from: 0, count: 10 })).toEqual({ total: 0, entries: [] });
    // Reading created nothing.
    expect(readMirror(none, () => 'read')).toBeNull();
  });

  it('a view shows a mirror that cannot be opened as empty; readMirror says it cannot', () => {
    const unopenable = join(dir, 'a-folder.sqlite');
    mkdirSync(unopenable);
    expect(() => readMirror(unopenable, () => 'read')).toThrow();
    expect(syncedItemAt(unopenable, 'a')).toBeNull();
    expect(syncedChildrenOf(unopenable, '')).toEqual(none);
  });

  it('read a window of a big folder’s children in SQL: how many in all, folders first, then by name, ASCII case aside', () => {
    const file = join(dir, 'm.sqlite');
    const mirror = new Mirror(file);
    try {
      const name = (i: number) => `${i % 2 === 0 ? 'f' : 'F'}ile-${String(i).padStart(4, '0')}.txt`;
      const files = Array.from({ length: 1_000 }, (_, i) => row(100 + i, 1, `big/${name(i)}`, 'file', i));
      // Folders written last and named to sort after the files by name: still listed first.
      const folders = [row(2, 1, 'big/zeta', 'folder'), row(3, 1, 'big/Alpha', 'folder'), row(4, 1, 'big/beta', 'folder')];
      // Two names that differ only in case: the exact path orders them.
      const twins = [row(5, 1, 'big/same.txt', 'file'), row(6, 1, 'big/Same.txt', 'file')];
      mirror.commit(null, [row(1, null, 'big', 'folder'), ...files, ...folders, ...twins, row(7, null, 'top.txt', 'file')], []);
      const paths = (range?: { from?: number; count?: number }) => syncedChildrenOf(file, 'big', range).entries.map((e) => e.path);

      const all = paths();
      const order = [
        'big/Alpha', 'big/beta', 'big/zeta',
        ...files.map((f) => f.path),
        'big/Same.txt', 'big/same.txt',
      ];
      expect(all).toEqual(order);
      expect(syncedChildrenOf(file, 'big', { from: 0, count: 300 }).total).toBe(1_005);
      expect(paths({ from: 0, count: 5 })).toEqual(order.slice(0, 5));
      expect(paths({ from: 300, count: 300 })).toEqual(order.slice(300, 600));
      // The last page is short; a page past the end is empty, with the count still said.
      expect(paths({ from: 900, count: 300 })).toEqual(order.slice(900));
      expect(syncedChildrenOf(file, 'big', { from: 1_005, count: 300 })).toEqual({ total: 1_005, entries: [] });
      expect(syncedChildrenOf(file, 'big', { from: 50_000 })).toEqual({ total: 1_005, entries: [] });
      // No count: every child from `from` on; a count of 0: only how many.
      expect(paths({ from: 1_000 })).toEqual(order.slice(1_000));
      expect(syncedChildrenOf(file, 'big', { count: 0 })).toEqual({ total: 1_005, entries: [] });
      // Each row as the mirror has it.
      expect(syncedChildrenOf(file, 'big', { from: 3, count: 1 }).entries).toEqual([
        { remoteId: 100, parentId: 1, remoteName: 'file-0000.txt', path: 'big/file-0000.txt', type: 'file', size: 0, mtimeMs: 1_700_000_000_100 },
      ]);
      // The top of the synced folder pages the same way.
      expect(syncedChildrenOf(file, '', { from: 1, count: 5 })).toEqual({ total: 2, entries: [expect.objectContaining({ path: 'top.txt' })] });
      // The children are found through the index on parent_id, not by reading the whole table.
      const db = new Database(file, { readonly: true });
      try {
        const plan = db.prepare('EXPLAIN QUERY PLAN SELECT path FROM base WHERE parent_id IS ?').all(1) as Array<{ detail: string }>;
        expect(plan.map((step) => step.detail).join('; ')).toMatch(/USING (COVERING )?INDEX base_parent/);
      } finally {
        db.close();
      }
    } finally {
      mirror.close();
    }
  });
});

describe('schema migrations', () => {
  it('a mirror written before birth times were recorded gets the column: its rows read as unknown, new rows keep theirs', () => {
    const file = join(dir, 'v1.sqlite');
    // The first schema's base table, as a drivesync of that version left it.
    const old = new Database(file);
    old.exec(`
      CREATE TABLE base (remote_id INTEGER PRIMARY KEY, parent_id INTEGER, remote_name TEXT NOT NULL, path TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('file', 'folder')), inode INTEGER NOT NULL, size INTEGER NOT NULL,
        mtime_ms REAL NOT NULL, hash TEXT, remote_size INTEGER NOT NULL, remote_updated_at TEXT NOT NULL);
      CREATE INDEX base_path ON base(path);
      CREATE TABLE intents (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, payload TEXT NOT NULL, started_at TEXT NOT NULL);
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO base VALUES (1, NULL, 'old.txt', 'old.txt', 'file', 1001, 3, 1700000000001, 'h1', 3, '2026-11-23T10:00:00Z');
      INSERT INTO intents (kind, payload, started_at) VALUES ('upload', '{"path":"x"}', '2026-11-23T10:00:00Z');
    `);
    old.pragma('user_version = 1');
    old.close();

    const mirror = new Mirror(file);
    try {
      expect(mirror.schemaVersion).toBe(MIRROR_SCHEMA_VERSION);
      expect(MIRROR_SCHEMA_VERSION).toBe(6);
      expect([...mirror.loadBase().values()]).toEqual([row(1, null, 'old.txt', 'file', 3)]);
      expect(mirror.intents().map((i) => i.payload)).toEqual([{ path: 'x' }]);
      const born = { ...row(2, null, 'new.txt', 'file', 4), birthtimeMs: 1_795_450_029_619.6077 };
      mirror.commit(null, [born, { ...row(1, null, 'old.txt', 'file', 3), birthtimeMs: 0 }], []);
    } finally {
      mirror.close();
    }
    const again = new Mirror(file);
    try {
      expect(again.schemaVersion).toBe(MIRROR_SCHEMA_VERSION);
      expect([...again.loadBase().values()]).toEqual([row(1, null, 'old.txt', 'file', 3), { ...row(2, null, 'new.txt', 'file', 4), birthtimeMs: 1_795_450_029_619.6077 }]);
    } finally {
      again.close();
    }
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.prepare('SELECT remote_id, birthtime_ms, made_here FROM base ORDER BY remote_id').all()).toEqual([
        { remote_id: 1, birthtime_ms: null, made_here: 0 },
        { remote_id: 2, birthtime_ms: 1_795_450_029_619.6077, made_here: 0 },
      ]);
      // The index that finds a folder's children was added on the way.
      expect(raw.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'base_parent'").get()).toEqual({ sql: expect.stringContaining('(parent_id)') });
    } finally {
      raw.close();
    }
  });

  it('a mirror written before it recorded which entries this computer made reads its rows as made elsewhere; new rows keep it', () => {
    const file = join(dir, 'v2.sqlite');
    const first = new Mirror(file);
    first.commit(null, [row(1, null, 'old.txt', 'file', 3)], []);
    first.close();
    const v2 = new Database(file);
    v2.exec('ALTER TABLE base DROP COLUMN made_here; DROP TABLE trashed; DROP INDEX base_parent;');
    v2.pragma('user_version = 2');
    v2.close();
    const mirror = new Mirror(file);
    try {
      expect(mirror.schemaVersion).toBe(MIRROR_SCHEMA_VERSION);
      expect([...mirror.loadBase().values()]).toEqual([row(1, null, 'old.txt', 'file', 3)]);
      mirror.commit(null, [{ ...row(2, null, 'mine.txt', 'file', 4), madeHere: true }], []);
      const base = mirror.loadBase();
      expect(base.get(1)?.madeHere).toBeUndefined();
      expect(base.get(2)?.madeHere).toBe(true);
    } finally {
      mirror.close();
    }
  });
});

describe('content hashes in the mirror', () => {
  it('a sha256 is kept as its 32 bytes and reads back as its digits; a hash written as digits before reads back too', () => {
    const file = join(dir, 'm.sqlite');
    const mirror = new Mirror(file);
    const sha = 'ab'.repeat(32);
    try {
      mirror.commit(null, [{ ...row(1, null, 'a.txt', 'file', 3), hash: sha }, row(2, null, 'b.txt', 'file', 3)], []);
      const db = new Database(file, { readonly: true });
      try {
        expect(db.prepare('SELECT typeof(hash) AS kind, length(hash) AS bytes FROM base WHERE remote_id = 1').get()).toEqual({ kind: 'blob', bytes: 32 });
      } finally {
        db.close();
      }
      const writer = new Database(file);
      writer.prepare("UPDATE base SET hash = ? WHERE remote_id = 2").run('cd'.repeat(32));
      writer.close();
      const base = mirror.loadBase();
      expect([base.get(1)?.hash, base.get(2)?.hash]).toEqual([sha, 'cd'.repeat(32)]);
    } finally {
      mirror.close();
    }
  });
});

describe('what a warm start keeps', () => {
  it('holds only while base says of the drive what it said, and no intent is journalled: any such write, by any process, lets it go', () => {
    const file = join(dir, 'm.sqlite');
    const mirror = new Mirror(file);
    try {
      mirror.commit(null, [row(1, null, 'a.txt', 'file', 3), row(2, null, 'b.txt', 'file', 3)], []);
      const kept = () => mirror.getMeta(WARM_START) !== undefined;
      const keep = () => mirror.setMeta(WARM_START, '{}');
      keep();
      mirror.setMeta('other', 'x');
      expect(kept()).toBe(true);
      mirror.commit(null, [row(3, null, 'c.txt', 'file', 3)], []);
      expect(kept()).toBe(false);
      keep();
      // What base records of the local side: the next start scans the folder anyway.
      mirror.commit(null, [{ ...row(1, null, 'a.txt', 'file', 3), size: 9, inode: 5, mtimeMs: 1_800_000_000_000, hash: 'cd'.repeat(32) }], []);
      expect(kept()).toBe(true);
      mirror.commit(null, [{ ...row(1, null, 'a.txt', 'file', 3), size: 9, remoteSize: 9 }], []);
      expect(kept()).toBe(false);
      keep();
      mirror.commit(null, [{ ...row(1, null, 'a.txt', 'file', 3), size: 9, remoteSize: 9, remoteUpdatedAt: '2026-11-24T10:00:00Z' }], []);
      expect(kept()).toBe(false);
      keep();
      mirror.commit(null, [{ ...row(1, 7, 'a.txt', 'file', 3), size: 9, remoteSize: 9, remoteUpdatedAt: '2026-11-24T10:00:00Z' }], []);
      expect(kept()).toBe(false);
      keep();
      mirror.commit(null, [], [2]);
      expect(kept()).toBe(false);
      keep();
      const id = mirror.beginIntent('upload', { name: 'd.txt' }, new Date().toISOString());
      expect(kept()).toBe(false);
      keep();
      mirror.clearIntent(id);
      expect(kept()).toBe(true);
      // Another process writing base (another drivesync, a tool): the same.
      const writer = new Database(file);
      writer.prepare('UPDATE base SET remote_name = ? WHERE remote_id = 1').run('z.txt');
      writer.close();
      expect(kept()).toBe(false);
      expect(mirror.getMeta('other')).toBe('x');
    } finally {
      mirror.close();
    }
  });
});

describe('commitOutcome', () => {
  const remote = (id: number, parentId: number | null, name: string): RemoteItem => ({ id, parentId, name, type: 'file', size: 3, updatedAt: '2026-11-23T11:00:00Z' });
  const local = (path: string): LocalItem => ({ path, type: 'file', inode: 77, size: 3, mtimeMs: 1_700_000_000_500, hash: 'abc' });

  it('changes the trees, writes the rows and clears the intent, kept across a reopen', () => {
    const file = join(dir, 'm.sqlite');
    const mirror = new Mirror(file);
    mirror.commit(null, [row(1, null, 'old.txt', 'file', 3)], []);
    const trees = { base: mirror.loadBase(), local: new LocalTree(), remote: new RemoteTree() };
    const intent = mirror.beginIntent('replace-remote', { path: 'new.txt', remoteId: 1 }, '2026-11-23T11:00:00Z');
    commitOutcome(trees, mirror, intent, [{ kind: 'synced', remote: { ...remote(2, null, 'new.txt'), createdAt: '2026-11-23T11:00:00Z' }, local: local('new.txt'), replaces: 1 }]);
    expect([...trees.base.keys()]).toEqual([2]);
    // Synced, the entry's creation time is not kept (it serves only to adopt an upload whose answer was lost).
    expect(trees.remote.get(2)).toEqual(remote(2, null, 'new.txt'));
    expect(trees.local.get('new.txt')?.inode).toBe(77);
    expect(trees.base.touched.size).toBe(0);
    mirror.close();
    const again = new Mirror(file);
    try {
      expect(again.intents()).toEqual([]);
      expect([...again.loadBase().values()].map((b) => [b.remoteId, b.path, b.hash])).toEqual([[2, 'new.txt', 'abc']]);
    } finally {
      again.close();
    }
  });

  it('keeps nothing of a result it cannot write whole: the rows and the intent stay as they were', () => {
    const file = join(dir, 'm.sqlite');
    const mirror = new Mirror(file);
    try {
      mirror.commit(null, [row(1, null, 'old.txt', 'file', 3)], []);
      const trees = { base: mirror.loadBase(), local: new LocalTree(), remote: new RemoteTree() };
      const intent = mirror.beginIntent('upload', { path: 'bad' }, '2026-11-23T11:00:00Z');
      // The delete of row 1 comes first in the transaction; the row the schema refuses (no size: NaN binds as NULL)
      // comes after.
      const refused = { ...remote(2, null, 'bad'), size: Number.NaN };
      expect(() => commitOutcome(trees, mirror, intent, [{ kind: 'synced', remote: refused, local: local('bad'), replaces: 1 }])).toThrow(/NOT NULL/);
      expect(mirror.intents().map((i) => i.id)).toEqual([intent]);
      expect([...mirror.loadBase().keys()]).toEqual([1]);
    } finally {
      mirror.close();
    }
  });
});
