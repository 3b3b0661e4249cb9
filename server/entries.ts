import { lookup as mimeLookup } from 'mime-types';
import type { Db } from './db.js';
import { timestamp } from './clock.js';
import { forbidden, notFound } from './errors.js';

export interface EntryRow {
  id: number;
  name: string;
  file_name: string | null;
  file_size: number;
  parent_id: number | null;
  owner_id: number;
  mime: string | null;
  type: string;
  description: string | null;
  workspace_id: number;
  path: string;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface Access {
  owner: boolean;
  view: boolean;
  edit: boolean;
  download: boolean;
}

export type Need = 'view' | 'edit' | 'download' | 'owner';

const OWNER: Access = { owner: true, view: true, edit: true, download: true };

/** The entry hash of the real product: base64 of "{id}|padding" cut to 10 bytes, without '='. */
export function entryHash(id: number): string {
  return Buffer.from(`${id}|padding`).subarray(0, 10).toString('base64').replace(/=+$/, '');
}

export function idFromHash(hash: string): number | null {
  if (!/^[A-Za-z0-9+/_-]{2,24}$/.test(hash)) return null;
  const text = Buffer.from(hash, 'base64').toString('latin1');
  const match = /^(\d{1,15})\|/.exec(text) ?? /^(\d{1,15})$/.exec(text);
  if (!match) return null;
  const id = Number(match[1]);
  return id >= 1 && entryHash(id) === hash ? id : null;
}

/** Bounds for a path range query over one subtree: `path = p OR path LIKE 'p/%'` that an index can serve. */
function subtreeRange(path: string): [string, string, string] {
  return [path, `${path}/`, `${path}0`]; // '0' is the character right after '/'
}

export class Entries {
  private readonly byId;
  private readonly sharesOnPath;

  constructor(private readonly db: Db) {
    this.byId = db.prepare<[number], EntryRow>('SELECT * FROM entries WHERE id = ?');
    this.sharesOnPath = db.prepare<[number, string], { can_view: number; can_edit: number; can_download: number }>(
      `SELECT can_view, can_edit, can_download FROM shares
       WHERE user_id = ? AND entry_id IN (SELECT value FROM json_each(?))`,
    );
  }

  get(id: number): EntryRow | undefined {
    return this.byId.get(id);
  }

  /** The entry or a 404; ids that cannot exist are simply not found. */
  require(id: number): EntryRow {
    const row = Number.isSafeInteger(id) && id >= 1 ? this.byId.get(id) : undefined;
    if (!row) throw notFound('Entry not found.');
    return row;
  }

  access(userId: number, entry: EntryRow): Access | null {
    if (entry.owner_id === userId) return OWNER;
    const ids = JSON.stringify(entry.path.split('/').map(Number));
    const rows = this.sharesOnPath.all(userId, ids);
    if (rows.length === 0) return null;
    return {
      owner: false,
      view: true,
      edit: rows.some((r) => r.can_edit === 1),
      download: rows.some((r) => r.can_download === 1),
    };
  }

  can(userId: number, entry: EntryRow, need: Need): boolean {
    const access = this.access(userId, entry);
    return access !== null && access[need];
  }

  /** Throws 404 when the caller cannot see the entry at all, 403 when they see it but lack `need`. */
  authorize(userId: number, entry: EntryRow, need: Need): Access {
    const access = this.access(userId, entry);
    if (!access) throw forbidden('You do not have access to this entry.');
    if (!access[need]) throw forbidden(`You do not have ${need === 'owner' ? 'ownership of' : `${need} permission on`} this entry.`);
    return access;
  }

  children(parentId: number | null, ownerId: number): EntryRow[] {
    if (parentId === null) {
      return this.db
        .prepare<[number], EntryRow>('SELECT * FROM entries WHERE parent_id IS NULL AND owner_id = ? AND deleted_at IS NULL')
        .all(ownerId);
    }
    return this.db
      .prepare<[number], EntryRow>('SELECT * FROM entries WHERE parent_id = ? AND deleted_at IS NULL')
      .all(parentId);
  }

  /** The entry and all its descendants, shallowest first. */
  subtree(entry: EntryRow): EntryRow[] {
    return this.db
      .prepare<[string, string, string], EntryRow>(
        'SELECT * FROM entries WHERE path = ? OR (path > ? AND path < ?) ORDER BY length(path), id',
      )
      .all(...subtreeRange(entry.path));
  }

  /** True when `candidate` is `entry` itself or lies below it. */
  isWithin(candidate: EntryRow, entry: EntryRow): boolean {
    return candidate.path === entry.path || candidate.path.startsWith(`${entry.path}/`);
  }

  siblingFolderNamed(parentId: number | null, ownerId: number, name: string, exceptId?: number): EntryRow | undefined {
    const sql =
      parentId === null
        ? `SELECT * FROM entries WHERE parent_id IS NULL AND owner_id = ? AND name = ? AND type = 'folder' AND deleted_at IS NULL AND id IS NOT ?`
        : `SELECT * FROM entries WHERE parent_id = ? AND name = ? AND type = 'folder' AND deleted_at IS NULL AND id IS NOT ?`;
    return this.db.prepare<[number, string, number | null], EntryRow>(sql).get(parentId ?? ownerId, name, exceptId ?? null);
  }

  insert(fields: {
    name: string;
    fileName: string | null;
    size: number;
    parent: EntryRow | null;
    ownerId: number;
    mime: string | null;
    type: string;
    description?: string | null;
  }): EntryRow {
    const now = timestamp();
    const info = this.db
      .prepare(
        `INSERT INTO entries (name, file_name, file_size, parent_id, owner_id, mime, type, description, workspace_id, path, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, '', ?, ?)`,
      )
      .run(
        fields.name,
        fields.fileName,
        fields.size,
        fields.parent?.id ?? null,
        fields.ownerId,
        fields.mime,
        fields.type,
        fields.description ?? null,
        now,
        now,
      );
    const id = Number(info.lastInsertRowid);
    const path = fields.parent ? `${fields.parent.path}/${id}` : String(id);
    this.db.prepare('UPDATE entries SET path = ? WHERE id = ?').run(path, id);
    return this.byId.get(id)!;
  }

  update(id: number, fields: { name?: string; description?: string | null }): EntryRow {
    const entry = this.require(id);
    const name = fields.name ?? entry.name;
    const description = fields.description === undefined ? entry.description : fields.description;
    const nameChanged = name !== entry.name;
    this.db
      .prepare(
        `UPDATE entries SET name = ?, description = ?, updated_at = ?,
           file_name = CASE WHEN type = 'folder' THEN ? ELSE file_name END WHERE id = ?`,
      )
      .run(name, description, nameChanged ? timestamp() : entry.updated_at, name, id);
    return this.require(id);
  }

  /** Re-parents an entry; every descendant's path follows. */
  move(entry: EntryRow, destination: EntryRow | null): EntryRow {
    const newPath = destination ? `${destination.path}/${entry.id}` : String(entry.id);
    const [exact, low, high] = subtreeRange(entry.path);
    this.db
      .prepare('UPDATE entries SET path = ? || substr(path, ?) WHERE path = ? OR (path > ? AND path < ?)')
      .run(newPath, entry.path.length + 1, exact, low, high);
    this.db
      .prepare('UPDATE entries SET parent_id = ?, updated_at = ? WHERE id = ?')
      .run(destination?.id ?? null, timestamp(), entry.id);
    return this.require(entry.id);
  }

  setDeleted(entries: readonly EntryRow[], deletedAt: string | null): void {
    const stmt = this.db.prepare('UPDATE entries SET deleted_at = ? WHERE id = ?');
    for (const e of entries) stmt.run(deletedAt, e.id);
  }

  removeRows(entries: readonly EntryRow[]): void {
    const ids = JSON.stringify(entries.map((e) => e.id));
    // Children first, so the parent reference never dangles mid-statement.
    this.db.prepare('UPDATE entries SET parent_id = NULL WHERE id IN (SELECT value FROM json_each(?))').run(ids);
    this.db.prepare('DELETE FROM entries WHERE id IN (SELECT value FROM json_each(?))').run(ids);
  }
}

export function mimeForUpload(name: string, declared: string | undefined): string {
  const fromName = mimeLookup(name);
  if (fromName) return fromName;
  if (declared && declared !== 'application/octet-stream' && /^[\w.+-]+\/[\w.+-]+$/.test(declared)) return declared;
  return 'application/octet-stream';
}
