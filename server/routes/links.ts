import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App, Context } from '../context.js';
import { timestamp } from '../clock.js';
import { HttpError, invalid, notFound } from '../errors.js';
import { sendContent } from '../content.js';
import { idFromHash, type EntryRow } from '../entries.js';
import { hashPassword, linkHash, verifyPassword } from '../secrets.js';
import { serializeEntries, serializeEntry } from '../serialize.js';
import type { LinkBodyInput, Profile } from '../profile.js';

interface LinkRow {
  id: number;
  hash: string;
  entry_id: number;
  user_id: number;
  password_hash: string | null;
  expires_at: string | null;
  allow_edit: number;
  allow_download: number;
  created_at: string;
  updated_at: string;
}

/** The path parameter is "the ID or hash of the entry". */
const LinkParams = Type.Object({ entryId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) });

const Optional = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Boolean>>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]));

/** Snake case per the document, camelCase as deployed versions send it; which ones count is the profile's. */
const LinkBody = Type.Union([
  Type.Object({
    password: Optional(Type.String({ maxLength: 1024 })),
    expires_at: Optional(Type.String({ maxLength: 64 })),
    allow_edit: Optional(Type.Boolean()),
    allow_download: Optional(Type.Boolean()),
    expiresAt: Optional(Type.String({ maxLength: 64 })),
    allowEdit: Optional(Type.Boolean()),
    allowDownload: Optional(Type.Boolean()),
  }),
  Type.Null(),
]);

interface LinkSettings {
  passwordHash: string | null;
  expiresAt: string | null;
  allowEdit: boolean;
  allowDownload: boolean;
}

function parseExpiry(value: string | null | undefined): string | null {
  if (value === undefined || value === null || value === '') return null;
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time)) {
    throw invalid('expires_at', 'The expires_at must be an ISO 8601 date.');
  }
  return timestamp(new Date(time));
}

/** Omitted fields take their defaults, as the service's PUT resets what it is not sent. */
async function settingsFrom(profile: Profile, body: LinkBodyInput | null | undefined): Promise<LinkSettings> {
  const asked = profile.linkRequest(body ?? {});
  const password = asked.password ?? null;
  return {
    passwordHash: password ? await hashPassword(password) : null,
    expiresAt: parseExpiry(asked.expiresAt),
    allowEdit: asked.allowEdit === true,
    allowDownload: asked.allowDownload !== false,
  };
}

const isExpired = (link: LinkRow) => link.expires_at !== null && Date.parse(link.expires_at) <= Date.now();

export function linkRoutes(app: App, ctx: Context): void {
  const { db, entries } = ctx;
  const linkOf = db.prepare<[number], LinkRow>('SELECT * FROM links WHERE entry_id = ?');

  const entryOf = (param: string): EntryRow => {
    const id = /^[0-9]{1,16}$/.test(param) ? Number(param) : idFromHash(param);
    if (id === null || id < 1) throw notFound('Entry not found.');
    return entries.require(id);
  };

  /** The entry's live link; an expired one is removed on sight, as the service's cleanup job would. */
  const liveLink = (entryId: number): LinkRow | undefined => {
    const link = linkOf.get(entryId);
    if (link && isExpired(link)) {
      db.prepare('DELETE FROM links WHERE id = ?').run(link.id);
      return undefined;
    }
    return link;
  };

  const serializeLink = (link: LinkRow, entry: EntryRow) => ({
    id: link.id,
    hash: link.hash,
    password: link.password_hash,
    user_id: link.user_id,
    entry_id: link.entry_id,
    entry: serializeEntry(db, entry, ctx.profile),
    expires_at: link.expires_at,
    allow_edit: link.allow_edit === 1,
    allow_download: link.allow_download === 1,
    created_at: link.created_at,
    updated_at: link.updated_at,
  });

  app.get('/file-entries/:entryId/shareable-link', { schema: { params: LinkParams } }, async (request) => {
    const entry = entryOf(request.params.entryId);
    entries.authorize(request.userId, entry, 'view');
    const link = liveLink(entry.id);
    if (!link) {
      if (ctx.profile.missingLink === 'null') return { status: 'success', link: null };
      throw notFound('This entry has no shareable link.');
    }
    return {
      status: 'success',
      link: serializeLink(link, entry),
      ...(entry.type === 'folder'
        ? { folderChildren: serializeEntries(db, entries.children(entry.id, entry.owner_id), ctx.profile) }
        : {}),
    };
  });

  app.post('/file-entries/:entryId/shareable-link', { schema: { params: LinkParams, body: LinkBody } }, async (request) => {
    const entry = entryOf(request.params.entryId);
    entries.authorize(request.userId, entry, 'edit');
    // As the service does, asking again for a link answers the one that exists.
    const existing = liveLink(entry.id);
    if (existing) return { status: 'success', link: serializeLink(existing, entry) };
    const s = await settingsFrom(ctx.profile, request.body);
    const now = timestamp();
    const link = db.transaction(() => {
      const again = liveLink(entry.id);
      if (again) return again;
      const info = db
        .prepare(
          `INSERT INTO links (hash, entry_id, user_id, password_hash, expires_at, allow_edit, allow_download, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(linkHash(), entry.id, request.userId, s.passwordHash, s.expiresAt, s.allowEdit ? 1 : 0, s.allowDownload ? 1 : 0, now, now);
      return db.prepare<[number], LinkRow>('SELECT * FROM links WHERE id = ?').get(Number(info.lastInsertRowid))!;
    })();
    return { status: 'success', link: serializeLink(link, entry) };
  });

  app.put('/file_entries/:entryId/shareable-link', { schema: { params: LinkParams, body: LinkBody } }, async (request) => {
    const entry = entryOf(request.params.entryId);
    entries.authorize(request.userId, entry, 'edit');
    const link = liveLink(entry.id);
    if (!link) throw notFound('This entry has no shareable link.');
    const s = await settingsFrom(ctx.profile, request.body);
    db.prepare(
      'UPDATE links SET password_hash = ?, expires_at = ?, allow_edit = ?, allow_download = ?, updated_at = ? WHERE id = ?',
    ).run(s.passwordHash, s.expiresAt, s.allowEdit ? 1 : 0, s.allowDownload ? 1 : 0, timestamp(), link.id);
    return { status: 'success', link: serializeLink(linkOf.get(entry.id)!, entry) };
  });

  app.delete('/file_entries/:entryId/shareable-link', { schema: { params: LinkParams } }, async (request) => {
    const entry = entryOf(request.params.entryId);
    entries.authorize(request.userId, entry, 'edit');
    const link = liveLink(entry.id);
    if (!link) throw notFound('This entry has no shareable link.');
    db.prepare('DELETE FROM links WHERE id = ?').run(link.id);
    return { status: 'success' };
  });
}

const PublicParams = Type.Object({ hash: Type.String({ minLength: 1, maxLength: 64 }) });
const PublicQuery = Type.Object({ password: Type.Optional(Type.String({ maxLength: 1024 })) });

function passwordPage(reply: FastifyReply, wrong: boolean) {
  const note = wrong ? '<p role="alert">That password is not right.</p>' : '';
  return reply
    .code(401)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
    .send(
      `<!doctype html><meta charset="utf-8"><title>Password required</title>` +
        `<form method="get"><label>This link is protected. Password <input type="password" name="password" autofocus></label>` +
        ` <button>Open</button></form>${note}`,
    );
}

/** `GET /drive/s/{hash}`: the public face of a shareable link, so a copied link works in a browser. */
export function publicLinkRoutes(app: App, ctx: Context): void {
  const { db, entries } = ctx;
  app.get('/drive/s/:hash', { schema: { params: PublicParams, querystring: PublicQuery } }, async (request, reply) => {
    const link = db.prepare<[string], LinkRow>('SELECT * FROM links WHERE hash = ?').get(request.params.hash);
    const entry = link ? entries.get(link.entry_id) : undefined;
    if (!link || !entry || entry.deleted_at) throw notFound('This link does not exist.');
    if (isExpired(link)) throw new HttpError(410, 'This link has expired.');
    if (link.password_hash) {
      const given = request.query.password ?? (request.headers['x-link-password'] as string | undefined);
      if (!given) return passwordPage(reply, false);
      if (!(await verifyPassword(given, link.password_hash))) return passwordPage(reply, true);
    }
    if (entry.type === 'folder') {
      return {
        link: { hash: link.hash, entry_id: entry.id, allow_download: link.allow_download === 1 },
        folder: { id: entry.id, name: entry.name },
        folderChildren: serializeEntries(db, entries.children(entry.id, entry.owner_id)).map((child) => ({
          id: child.id,
          name: child.name,
          type: child.type,
          file_size: child.file_size,
        })),
      };
    }
    if (link.allow_download !== 1) throw new HttpError(403, 'Downloading is not allowed for this link.');
    return sendContent(ctx, entry, request, reply, 'attachment');
  });
}
