import { Type } from '@sinclair/typebox';
import type { App, Context } from '../context.js';
import { timestamp } from '../clock.js';
import { invalid, notFound } from '../errors.js';
import { idFromHash, type Entries, type EntryRow } from '../entries.js';
import { Links, type LinkRow, type LinkSettings } from '../links.js';
import { hashPassword } from '../secrets.js';
import { serializeEntries, serializeEntry } from '../serialize.js';
import type { LinkBodyInput, Profile } from '../profile.js';

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

function entryOf(entries: Entries, param: string): EntryRow {
  const id = /^[0-9]{1,16}$/.test(param) ? Number(param) : idFromHash(param);
  if (id === null || id < 1) throw notFound('Entry not found.');
  return entries.require(id);
}

function serializeLink({ db, profile }: Context, link: LinkRow, entry: EntryRow) {
  return {
    id: link.id,
    hash: link.hash,
    password: link.password_hash,
    user_id: link.user_id,
    entry_id: link.entry_id,
    entry: serializeEntry(db, entry, profile),
    expires_at: link.expires_at,
    allow_edit: link.allow_edit === 1,
    allow_download: link.allow_download === 1,
    created_at: link.created_at,
    updated_at: link.updated_at,
  };
}

/**
 * An entry's shareable link: read, created, changed and deleted. GET and POST use `file-entries`, PUT and DELETE
 * `file_entries`, as the document spells them.
 */
export function linkRoutes(app: App, ctx: Context): void {
  const links = new Links(ctx.db);
  registerLinkRead(app, ctx, links);
  registerLinkCreate(app, ctx, links);
  registerLinkUpdate(app, ctx, links);
  registerLinkDelete(app, ctx, links);
}

function registerLinkRead(app: App, ctx: Context, links: Links): void {
  const { db, entries } = ctx;
  app.get('/file-entries/:entryId/shareable-link', { schema: { params: LinkParams } }, async (request) => {
    const entry = entryOf(entries, request.params.entryId);
    entries.authorize(request.userId, entry, 'view');
    const link = links.liveOfEntry(entry.id);
    if (!link) {
      if (ctx.profile.missingLink === 'null') return { status: 'success', link: null };
      throw notFound('This entry has no shareable link.');
    }
    return {
      status: 'success',
      link: serializeLink(ctx, link, entry),
      ...(entry.type === 'folder'
        ? { folderChildren: serializeEntries(db, entries.children(entry.id, entry.owner_id), ctx.profile) }
        : {}),
    };
  });
}

function registerLinkCreate(app: App, ctx: Context, links: Links): void {
  const schema = { params: LinkParams, body: LinkBody };
  app.post('/file-entries/:entryId/shareable-link', { schema }, async (request) => {
    const entry = entryOf(ctx.entries, request.params.entryId);
    ctx.entries.authorize(request.userId, entry, 'edit');
    // As the service does, asking again for a link answers the one that exists.
    const existing = links.liveOfEntry(entry.id);
    if (existing) return { status: 'success', link: serializeLink(ctx, existing, entry) };
    const link = links.create(entry.id, request.userId, await settingsFrom(ctx.profile, request.body));
    return { status: 'success', link: serializeLink(ctx, link, entry) };
  });
}

function registerLinkUpdate(app: App, ctx: Context, links: Links): void {
  const schema = { params: LinkParams, body: LinkBody };
  app.put('/file_entries/:entryId/shareable-link', { schema }, async (request) => {
    const entry = entryOf(ctx.entries, request.params.entryId);
    ctx.entries.authorize(request.userId, entry, 'edit');
    const link = links.liveOfEntry(entry.id);
    if (!link) throw notFound('This entry has no shareable link.');
    links.update(link.id, await settingsFrom(ctx.profile, request.body));
    return { status: 'success', link: serializeLink(ctx, links.ofEntry(entry.id)!, entry) };
  });
}

function registerLinkDelete(app: App, ctx: Context, links: Links): void {
  app.delete('/file_entries/:entryId/shareable-link', { schema: { params: LinkParams } }, async (request) => {
    const entry = entryOf(ctx.entries, request.params.entryId);
    ctx.entries.authorize(request.userId, entry, 'edit');
    const link = links.liveOfEntry(entry.id);
    if (!link) throw notFound('This entry has no shareable link.');
    links.remove(link.id);
    return { status: 'success' };
  });
}
