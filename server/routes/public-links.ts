import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App, Context } from '../context.js';
import { HttpError, invalid, notFound } from '../errors.js';
import { sendContent } from '../content.js';
import type { Entries, EntryRow } from '../entries.js';
import { escapeHtml, sendFolderPage } from '../link-page.js';
import { Links, isExpired, type LinkRow } from '../links.js';
import { prefersHtml } from '../negotiate.js';
import { verifyPassword } from '../secrets.js';
import { serializeEntries } from '../serialize.js';

const PublicParams = Type.Object({ hash: Type.String({ minLength: 1, maxLength: 64 }) });
const EntryIdQuery = Type.String({ pattern: '^[0-9]{1,15}$' });
const PublicQuery = Type.Object({
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  /** A folder inside the shared folder (or the shared folder itself), to list instead of it. */
  folder: Type.Optional(EntryIdQuery),
  /** A file inside the shared folder, to download. */
  file: Type.Optional(EntryIdQuery),
});

interface PublicQueryInput {
  password?: string;
  folder?: string;
  file?: string;
}

/** The password form; a `folder` or `file` asked for is kept in hidden fields, as a GET form replaces the query. */
function passwordPage(reply: FastifyReply, wrong: boolean, query: PublicQueryInput) {
  const note = wrong ? '<p role="alert">That password is not right.</p>' : '';
  const kept = (['folder', 'file'] as const)
    .filter((name) => query[name] !== undefined)
    .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(query[name]!)}">`)
    .join('');
  return reply
    .code(401)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
    .send(
      `<!doctype html><meta charset="utf-8"><title>Password required</title>` +
        `<form method="get">${kept}<label>This link is protected. Password <input type="password" name="password" autofocus></label>` +
        ` <button>Open</button></form>${note}`,
    );
}

/**
 * What the request reaches through the link: the shared entry itself, or the folder or file of `?folder=`/`?file=`,
 * which must be an active entry of that kind inside the shared entry's subtree (anything else is a 404).
 */
function targetOf(entries: Entries, shared: EntryRow, query: PublicQueryInput): EntryRow {
  if (query.folder !== undefined && query.file !== undefined) throw invalid('file', 'Ask for a folder or a file, not both.');
  const asked = query.file ?? query.folder;
  if (asked === undefined) return shared;
  const target = entries.get(Number(asked));
  const wantFolder = query.file === undefined;
  const inside =
    target !== undefined &&
    entries.isWithin(target, shared) &&
    (target.type === 'folder') === wantFolder &&
    // The target and every folder between it and the shared one are active (not in the trash).
    target.path
      .split('/')
      .slice(shared.path.split('/').length)
      .every((id) => entries.get(Number(id))?.deleted_at === null);
  if (!inside) throw notFound('This entry is not in the shared folder.');
  return target!;
}

/** The JSON answer of a folder reached through the link; for the shared folder itself, as it has always been. */
function folderJson(ctx: Context, link: LinkRow, shared: EntryRow, folder: EntryRow) {
  return {
    link: { hash: link.hash, entry_id: shared.id, allow_download: link.allow_download === 1 },
    folder: { id: folder.id, name: folder.name },
    folderChildren: serializeEntries(ctx.db, ctx.entries.children(folder.id, folder.owner_id)).map((child) => ({
      id: child.id,
      name: child.name,
      type: child.type,
      file_size: child.file_size,
    })),
  };
}

/**
 * A folder reached through the link: an HTML page for a browser (Accept preferring text/html), else the JSON answer.
 * The password travels on the page's addresses only when it came in the query, where the browser already has it.
 */
function answerFolder(
  ctx: Context,
  reach: { link: LinkRow; shared: EntryRow; folder: EntryRow },
  request: { headers: { accept?: string | undefined }; query: PublicQueryInput },
  reply: FastifyReply,
) {
  const { link, shared, folder } = reach;
  reply.header('vary', 'Accept');
  if (!prefersHtml(request.headers.accept)) return folderJson(ctx, link, shared, folder);
  const up: Record<string, string> | null = folder.id === shared.id ? null : folder.parent_id === shared.id ? {} : { folder: String(folder.parent_id) };
  return sendFolderPage(reply, {
    hash: link.hash,
    folder,
    children: ctx.entries.children(folder.id, folder.owner_id),
    up,
    allowDownload: link.allow_download === 1,
    password: request.query.password,
  });
}

/**
 * `GET /drive/s/{hash}`: the public face of a shareable link, so a copied link works in a browser. A file link serves
 * the file; a folder link answers its children as JSON, or a page of them to a browser, and `?folder=`/`?file=`
 * reach the folders and files inside it.
 */
export function publicLinkRoutes(app: App, ctx: Context): void {
  const { db, entries } = ctx;
  const links = new Links(db);
  app.get('/drive/s/:hash', { schema: { params: PublicParams, querystring: PublicQuery } }, async (request, reply) => {
    const link = links.withHash(request.params.hash);
    const entry = link ? entries.get(link.entry_id) : undefined;
    if (!link || !entry || entry.deleted_at) throw notFound('This link does not exist.');
    if (isExpired(link)) throw new HttpError(410, 'This link has expired.');
    if (link.password_hash) {
      const given = request.query.password ?? (request.headers['x-link-password'] as string | undefined);
      if (!given) return passwordPage(reply, false, request.query);
      if (!(await verifyPassword(given, link.password_hash))) return passwordPage(reply, true, request.query);
    }
    const target = targetOf(entries, entry, request.query);
    if (target.type === 'folder') return answerFolder(ctx, { link, shared: entry, folder: target }, request, reply);
    if (link.allow_download !== 1) throw new HttpError(403, 'Downloading is not allowed for this link.');
    return sendContent(ctx, target, request, reply, 'attachment');
  });
}
