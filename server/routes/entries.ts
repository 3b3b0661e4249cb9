import { Type } from '@sinclair/typebox';
import { copyFileSync, constants as fsConstants, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { App, Context } from '../context.js';
import { timestamp } from '../clock.js';
import { forbidden, invalid } from '../errors.js';
import type { EntryRow } from '../entries.js';
import { serializeEntries, serializeEntry } from '../serialize.js';
import { DESCRIPTION_MAX, EntryIdParams, Flag, Id, IdList, checkName, flag, toIds } from './common.js';

const MAX_PER_PAGE = 1000;
const MAX_MOVE = 30;

const ListQuery = Type.Object({
  perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  deletedOnly: Type.Optional(Flag),
  starredOnly: Type.Optional(Flag),
  recentOnly: Type.Optional(Flag),
  sharedOnly: Type.Optional(Flag),
  query: Type.Optional(Type.String({ maxLength: 255 })),
  type: Type.Optional(Type.String({ maxLength: 50 })),
  parentIds: Type.Optional(
    Type.Union([
      Type.String({ pattern: '^\\s*[0-9]{1,16}(\\s*,\\s*[0-9]{1,16})*\\s*$' }),
      Type.Array(Type.String({ pattern: '^\\s*[0-9]{1,16}(\\s*,\\s*[0-9]{1,16})*\\s*$' }), { maxItems: 1000 }),
    ]),
  ),
  workspaceId: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
});

const DeleteBody = Type.Object({ entryIds: IdList, deleteForever: Type.Optional(Type.Union([Flag, Type.Null()])) });
const UpdateBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  // Null first: with type coercion on, a string branch tried first would turn null into "" and never clear.
  description: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: DESCRIPTION_MAX })])),
});
const FolderBody = Type.Object({
  name: Type.String({ maxLength: 1000 }),
  parentId: Type.Optional(Type.Union([Id, Type.Null(), Type.Literal(0)])),
});
const MoveBody = Type.Object({
  entryIds: IdList,
  destinationId: Type.Optional(Type.Union([Id, Type.Null(), Type.Literal(0)])),
});
const IdsBody = Type.Object({ entryIds: IdList });

/** Every page of a listing comes from one WHERE clause over `entries e`. */
interface Filter {
  where: string[];
  params: unknown[];
  order: string;
}

export function entryRoutes(app: App, ctx: Context): void {
  const { db, entries } = ctx;

  const requireAll = (ids: number[]) => ids.map((id) => entries.require(id));

  /** The folder a new or moved entry goes into; root (null) belongs to the caller. */
  const destinationFolder = (userId: number, id: number | null | undefined, field: string): EntryRow | null => {
    if (!id) return null;
    const folder = entries.get(id);
    if (!folder || folder.deleted_at) throw invalid(field, `The selected ${field} is invalid.`);
    if (folder.type !== 'folder') throw invalid(field, `The ${field} must be a folder.`);
    entries.authorize(userId, folder, 'edit');
    return folder;
  };

  app.get('/drive/file-entries', { schema: { querystring: ListQuery } }, async (request) => {
    const q = request.query;
    const userId = request.userId;
    const perPage = ctx.profile.pageSize(q.perPage);
    const page = q.page ?? 1;
    const filter: Filter = { where: [], params: [], order: 'e.id' };
    const own = () => {
      filter.where.push('e.owner_id = ?');
      filter.params.push(userId);
    };
    const active = () => filter.where.push('e.deleted_at IS NULL');

    // As in the real product, parentIds is ignored when any of the other selectors is set.
    if (flag(q.deletedOnly, 'deletedOnly')) {
      own();
      filter.where.push(
        'e.deleted_at IS NOT NULL',
        '(e.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM entries p WHERE p.id = e.parent_id AND p.deleted_at IS NOT NULL))',
      );
      filter.order = 'e.deleted_at DESC, e.id';
    } else if (flag(q.starredOnly, 'starredOnly')) {
      active();
      filter.where.push('e.id IN (SELECT entry_id FROM stars WHERE user_id = ?)');
      filter.params.push(userId);
      // A star outlives the caller's access (an unshare keeps it); only entries the caller still sees are listed.
      filter.where.push(
        `(e.owner_id = ? OR EXISTS (SELECT 1 FROM shares s WHERE s.user_id = ?
           AND s.entry_id IN (SELECT value FROM json_each('[' || replace(e.path, '/', ',') || ']'))))`,
      );
      filter.params.push(userId, userId);
    } else if (flag(q.recentOnly, 'recentOnly')) {
      own();
      active();
      filter.where.push("e.type <> 'folder'");
      // Recently changed first: the documents define updated_at as the last change to content, name or location.
      filter.order = 'e.updated_at DESC, e.id DESC';
    } else if (flag(q.sharedOnly, 'sharedOnly')) {
      active();
      filter.where.push('e.id IN (SELECT entry_id FROM shares WHERE user_id = ?)');
      filter.params.push(userId);
    } else if (q.query !== undefined && q.query !== '') {
      own();
      active();
      filter.where.push("e.name LIKE ? ESCAPE '\\'");
      filter.params.push(`%${q.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    } else if (q.parentIds !== undefined) {
      const raw = Array.isArray(q.parentIds) ? q.parentIds.join(',') : q.parentIds;
      const ids = [...new Set(raw.split(',').map((s) => Number(s.trim())))].filter((n) => n >= 1);
      for (const id of ids) {
        const folder = entries.get(id);
        if (folder && !entries.access(userId, folder)) throw forbidden('You do not have access to this folder.');
      }
      active();
      filter.where.push('e.parent_id IN (SELECT value FROM json_each(?))');
      filter.params.push(JSON.stringify(ids));
    } else {
      own();
      active();
      if (ctx.profile.unselectedListing === 'root-children') filter.where.push('e.parent_id IS NULL');
    }
    if (q.type) {
      filter.where.push('e.type = ?');
      filter.params.push(q.type);
    }
    filter.where.push('e.workspace_id = ?');
    filter.params.push(q.workspaceId ?? 0);

    const where = filter.where.join(' AND ');
    const total = (db.prepare(`SELECT COUNT(*) AS n FROM entries e WHERE ${where}`).get(...filter.params) as { n: number }).n;
    const rows = db
      .prepare(`SELECT e.* FROM entries e WHERE ${where} ORDER BY ${filter.order} LIMIT ? OFFSET ?`)
      .all(...filter.params, perPage, (page - 1) * perPage) as EntryRow[];
    const data = serializeEntries(db, rows, ctx.profile);
    if (ctx.listFormat === 'array') return data;
    const lastPage = Math.max(1, Math.ceil(total / perPage));
    const from = rows.length > 0 ? (page - 1) * perPage + 1 : null;
    return {
      current_page: page,
      data,
      from,
      last_page: lastPage,
      next_page: page < lastPage ? page + 1 : null,
      per_page: perPage,
      prev_page: page > 1 ? page - 1 : null,
      to: from === null ? null : from + rows.length - 1,
      total,
    };
  });

  app.delete('/file-entries', { schema: { body: DeleteBody } }, async (request) => {
    const ids = toIds(request.body.entryIds);
    const given = request.body.deleteForever;
    const forever =
      given === undefined || given === null ? ctx.profile.deleteWithoutFlag === 'forever' : flag(given, 'deleteForever');
    const targets = requireAll(ids);
    for (const entry of targets) entries.authorize(request.userId, entry, forever ? 'owner' : 'edit');
    const blobs: string[] = [];
    db.transaction(() => {
      const now = timestamp();
      for (const target of targets) {
        const fresh = entries.get(target.id);
        if (!fresh) continue; // already removed as part of an earlier target's subtree
        const subtree = entries.subtree(fresh);
        if (forever) {
          for (const e of subtree) if (e.type !== 'folder' && e.file_name) blobs.push(e.file_name);
          entries.removeRows(subtree);
        } else {
          entries.setDeleted(subtree.filter((e) => !e.deleted_at), now);
        }
      }
    })();
    for (const name of blobs) rmSync(join(ctx.blobDir, name), { force: true });
    return { status: 'success' };
  });

  app.put('/file-entries/:entryId', { schema: { params: EntryIdParams, body: UpdateBody } }, async (request) => {
    const entry = entries.require(request.params.entryId);
    entries.authorize(request.userId, entry, 'edit');
    const { name, description } = request.body ?? {};
    if (name !== undefined) checkName(name);
    const updated = entries.update(entry.id, { name, description });
    return { status: 'success', fileEntry: serializeEntry(db, updated, ctx.profile) };
  });

  app.post('/folders', { schema: { body: FolderBody } }, async (request) => {
    const name = checkName(request.body.name);
    const parent = destinationFolder(request.userId, request.body.parentId, 'parentId');
    const ownerId = parent?.owner_id ?? request.userId;
    const folder = db.transaction(() => {
      if (entries.siblingFolderNamed(parent?.id ?? null, ownerId, name)) {
        throw invalid('name', 'A folder with this name already exists.', { plain: true });
      }
      return entries.insert({ name, fileName: name, size: 0, parent, ownerId, mime: null, type: 'folder' });
    })();
    return { status: 'success', folder: serializeEntry(db, folder, ctx.profile) };
  });

  app.post('/file-entries/move', { schema: { body: MoveBody } }, async (request) => {
    const ids = toIds(request.body.entryIds);
    if (ids.length > MAX_MOVE) throw invalid('entryIds', `At most ${MAX_MOVE} entries can be moved at once.`);
    const destination = destinationFolder(request.userId, request.body.destinationId, 'destinationId');
    const targets = requireAll(ids);
    for (const entry of targets) {
      entries.authorize(request.userId, entry, destination ? 'edit' : 'owner');
      if (destination && entries.isWithin(destination, entry)) {
        throw invalid('destinationId', 'A folder cannot be moved into itself or one of its descendants.');
      }
      if (destination && destination.owner_id !== entry.owner_id) {
        throw forbidden('Entries can only be moved within the same drive.');
      }
    }
    const moved = db.transaction(() => targets.map((entry) => entries.move(entries.require(entry.id), destination)))();
    return { status: 'success', entries: ctx.profile.moveAnswersEntries ? serializeEntries(db, moved, ctx.profile) : [] };
  });

  app.post('/file-entries/duplicate', { schema: { body: MoveBody } }, async (request) => {
    const ids = toIds(request.body.entryIds);
    const explicit = request.body.destinationId
      ? destinationFolder(request.userId, request.body.destinationId, 'destinationId')
      : undefined;
    const targets = requireAll(ids);
    for (const entry of targets) entries.authorize(request.userId, entry, 'download');
    const copies: EntryRow[] = [];
    const copied: Array<[string, string]> = [];
    db.transaction(() => {
      for (const target of targets) {
        const parent = explicit !== undefined ? explicit : target.parent_id ? entries.require(target.parent_id) : null;
        if (!explicit && parent) entries.authorize(request.userId, parent, 'edit');
        if (!parent && target.owner_id !== request.userId) throw forbidden('You cannot copy into this drive.');
        const ownerId = parent?.owner_id ?? request.userId;
        const newIds = new Map<number, EntryRow>();
        for (const source of entries.subtree(target).filter((e) => !e.deleted_at)) {
          const isTop = source.id === target.id;
          const into = isTop ? parent : newIds.get(source.parent_id!);
          if (!isTop && !into) continue;
          let name = source.name;
          if (isTop && source.type === 'folder') {
            for (let n = 1; entries.siblingFolderNamed(into?.id ?? null, ownerId, name); n++) {
              name = n === 1 ? `${source.name} (copy)` : `${source.name} (copy ${n})`;
            }
          }
          const fileName = source.type === 'folder' ? name : randomUUID();
          if (source.type !== 'folder' && source.file_name) copied.push([source.file_name, fileName]);
          const copy = entries.insert({
            name,
            fileName,
            size: source.file_size,
            parent: into ?? null,
            ownerId,
            mime: source.mime,
            type: source.type,
            description: source.description,
          });
          newIds.set(source.id, copy);
          if (isTop) copies.push(copy);
        }
      }
      for (const [from, to] of copied) {
        copyFileSync(join(ctx.blobDir, from), join(ctx.blobDir, to), fsConstants.COPYFILE_FICLONE);
      }
    })();
    return { status: 'success', entries: serializeEntries(db, copies, ctx.profile) };
  });

  app.post('/file-entries/restore', { schema: { body: IdsBody } }, async (request) => {
    const targets = requireAll(toIds(request.body.entryIds));
    for (const entry of targets) entries.authorize(request.userId, entry, 'edit');
    db.transaction(() => {
      for (const target of targets) {
        const entry = entries.require(target.id);
        if (!entry.deleted_at) continue;
        const parent = entry.parent_id ? entries.get(entry.parent_id) : undefined;
        const restored = parent && parent.deleted_at ? entries.move(entry, null) : entry;
        entries.setDeleted(entries.subtree(restored).filter((e) => e.deleted_at), null);
      }
    })();
    return { status: 'success' };
  });

  const STARRED = { id: 1, name: 'starred', display_name: 'Starred', type: 'label' };
  for (const action of ['star', 'unstar'] as const) {
    app.post(`/file-entries/${action}`, { schema: { body: IdsBody } }, async (request) => {
      const targets = requireAll(toIds(request.body.entryIds));
      for (const entry of targets) entries.authorize(request.userId, entry, 'view');
      const sql =
        action === 'star'
          ? 'INSERT OR IGNORE INTO stars (user_id, entry_id) VALUES (?, ?)'
          : 'DELETE FROM stars WHERE user_id = ? AND entry_id = ?';
      const statement = db.prepare(sql);
      db.transaction(() => targets.forEach((entry) => statement.run(request.userId, entry.id)))();
      return { status: 'success', tag: STARRED };
    });
  }
}
