import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App, Context } from '../context.js';
import { HttpError, notFound } from '../errors.js';
import { sendContent } from '../content.js';
import { Links, isExpired } from '../links.js';
import { verifyPassword } from '../secrets.js';
import { serializeEntries } from '../serialize.js';

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
  const links = new Links(db);
  app.get('/drive/s/:hash', { schema: { params: PublicParams, querystring: PublicQuery } }, async (request, reply) => {
    const link = links.withHash(request.params.hash);
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
