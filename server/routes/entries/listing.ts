import { Type, type Static } from '@sinclair/typebox';
import type { App, Context } from '../../context.js';
import type { Db } from '../../db.js';
import type { EntryRow } from '../../entries.js';
import { forbidden } from '../../errors.js';
import { serializeEntries } from '../../serialize.js';
import { Flag, flag } from '../common.js';

const MAX_PER_PAGE = 1000;
const PARENT_IDS = '^\\s*[0-9]{1,16}(\\s*,\\s*[0-9]{1,16})*\\s*$';

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
      Type.String({ pattern: PARENT_IDS }),
      Type.Array(Type.String({ pattern: PARENT_IDS }), { maxItems: 1000 }),
    ]),
  ),
  workspaceId: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
});
type ListQuery = Static<typeof ListQuery>;

/** Every page of a listing comes from one WHERE clause over `entries e`. */
class Filter {
  readonly where: string[] = [];
  readonly params: unknown[] = [];
  order = 'e.id';

  add(condition: string, ...params: unknown[]): this {
    this.where.push(condition);
    this.params.push(...params);
    return this;
  }

  own(userId: number): this {
    return this.add('e.owner_id = ?', userId);
  }

  active(): this {
    return this.add('e.deleted_at IS NULL');
  }
}

/** `GET /drive/file-entries`: one page of the entries a selector picks, as a paginator or a bare array. */
export function registerListing(app: App, ctx: Context): void {
  app.get('/drive/file-entries', { schema: { querystring: ListQuery } }, async (request) => {
    const q = request.query;
    const perPage = ctx.profile.pageSize(q.perPage);
    const page = q.page ?? 1;
    const filter = selected(q, request.userId, ctx);
    if (q.type) filter.add('e.type = ?', q.type);
    filter.add('e.workspace_id = ?', q.workspaceId ?? 0);
    const { total, rows } = pageOf(ctx.db, filter, page, perPage);
    const data = serializeEntries(ctx.db, rows, ctx.profile);
    if (ctx.listFormat === 'array') return data;
    return paginator(data, page, perPage, total);
  });
}

/** The first selector the query sets decides what is listed. */
function selected(q: ListQuery, userId: number, ctx: Context): Filter {
  const filter = new Filter();
  // As in the real product, parentIds is ignored when any of the other selectors is set.
  if (flag(q.deletedOnly, 'deletedOnly')) return trashed(filter, userId);
  if (flag(q.starredOnly, 'starredOnly')) return starred(filter, userId);
  if (flag(q.recentOnly, 'recentOnly')) return recent(filter, userId);
  if (flag(q.sharedOnly, 'sharedOnly')) return sharedWith(filter, userId);
  if (q.query !== undefined && q.query !== '') return named(filter, userId, q.query);
  if (q.parentIds !== undefined) return childrenOf(filter, userId, q.parentIds, ctx);
  filter.own(userId).active();
  if (ctx.profile.unselectedListing === 'root-children') filter.add('e.parent_id IS NULL');
  return filter;
}

/** The tops of what the caller trashed: an entry inside a trashed folder comes back with that folder. */
function trashed(filter: Filter, userId: number): Filter {
  filter
    .own(userId)
    .add('e.deleted_at IS NOT NULL')
    .add(
      '(e.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM entries p WHERE p.id = e.parent_id AND p.deleted_at IS NOT NULL))',
    );
  filter.order = 'e.deleted_at DESC, e.id';
  return filter;
}

function starred(filter: Filter, userId: number): Filter {
  filter.active().add('e.id IN (SELECT entry_id FROM stars WHERE user_id = ?)', userId);
  // A star outlives the caller's access (an unshare keeps it); only entries the caller still sees are listed.
  return filter.add(
    `(e.owner_id = ? OR EXISTS (SELECT 1 FROM shares s WHERE s.user_id = ?
           AND s.entry_id IN (SELECT value FROM json_each('[' || replace(e.path, '/', ',') || ']'))))`,
    userId,
    userId,
  );
}

function recent(filter: Filter, userId: number): Filter {
  filter.own(userId).active().add("e.type <> 'folder'");
  // Recently changed first: the documents define updated_at as the last change to content, name or location.
  filter.order = 'e.updated_at DESC, e.id DESC';
  return filter;
}

function sharedWith(filter: Filter, userId: number): Filter {
  return filter.active().add('e.id IN (SELECT entry_id FROM shares WHERE user_id = ?)', userId);
}

function named(filter: Filter, userId: number, query: string): Filter {
  const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return filter.own(userId).active().add("e.name LIKE ? ESCAPE '\\'", pattern);
}

/** Children of the folders named; one the caller cannot see is refused, an unknown id is ignored. */
function childrenOf(filter: Filter, userId: number, parentIds: string | string[], { entries }: Context): Filter {
  const raw = Array.isArray(parentIds) ? parentIds.join(',') : parentIds;
  const ids = [...new Set(raw.split(',').map((s) => Number(s.trim())))].filter((n) => n >= 1);
  for (const id of ids) {
    const folder = entries.get(id);
    if (folder && !entries.access(userId, folder)) throw forbidden('You do not have access to this folder.');
  }
  return filter.active().add('e.parent_id IN (SELECT value FROM json_each(?))', JSON.stringify(ids));
}

function pageOf(db: Db, filter: Filter, page: number, perPage: number): { total: number; rows: EntryRow[] } {
  const where = filter.where.join(' AND ');
  const total = (db.prepare(`SELECT COUNT(*) AS n FROM entries e WHERE ${where}`).get(...filter.params) as { n: number }).n;
  const rows = db
    .prepare(`SELECT e.* FROM entries e WHERE ${where} ORDER BY ${filter.order} LIMIT ? OFFSET ?`)
    .all(...filter.params, perPage, (page - 1) * perPage) as EntryRow[];
  return { total, rows };
}

/** A page as the service's paginator answers it; a page past the end has null `from` and `to`. */
function paginator<T>(data: T[], page: number, perPage: number, total: number) {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const count = data.length;
  const from = count > 0 ? (page - 1) * perPage + 1 : null;
  return {
    current_page: page,
    data,
    from,
    last_page: lastPage,
    next_page: page < lastPage ? page + 1 : null,
    per_page: perPage,
    prev_page: page > 1 ? page - 1 : null,
    to: from === null ? null : from + count - 1,
    total,
  };
}
