import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { App, Context } from '../context.js';
import { HttpError, invalid } from '../errors.js';
import { mimeForUpload, type EntryRow } from '../entries.js';
import { serializeEntry } from '../serialize.js';
import { receiveParts, type ReceivedFile } from './upload-parts.js';

function parseParentId(value: string | undefined): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (text === '' || text === 'null' || text === '0' || text === 'undefined') return null;
  if (!/^[1-9][0-9]{0,15}$/.test(text)) throw invalid('parentId', 'The parentId must be an integer.');
  return Number(text);
}

/** Folder names of a relativePath (its last segment is the file's own name). */
function pathSegments(relativePath: string): { folders: string[]; name: string } {
  const segments = relativePath.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0 || segments.some((s) => s === '..')) {
    throw invalid('relativePath', 'The relativePath is invalid.');
  }
  return { folders: segments.slice(0, -1), name: segments[segments.length - 1]! };
}

export function uploadRoutes(parent: App, ctx: Context): void {
  // In a scope of its own, so that a body of any other media type reaches the handler (and its 422) instead of a
  // 415 from the content-type parsing; multipart keeps its own parser, which is more specific than '*'.
  parent.register(async (scope) => uploadRoute(scope as App, ctx));
}

/** `POST /uploads`: one file, into `parentId` and the folders of its `relativePath`, answered 201. */
function uploadRoute(app: App, ctx: Context): void {
  app.addContentTypeParser('*', (_request, payload, done) => {
    // Not multipart: drop the bytes; the handler answers that the file part is missing.
    payload.on('error', (error: Error) => done(error, undefined));
    payload.on('end', () => done(null, undefined));
    payload.resume();
  });

  app.post('/uploads', async (request, reply) => {
    if (!request.isMultipart()) throw invalid('file', 'The file field is required (multipart/form-data).');
    const { fields, file } = await receiveParts(request, ctx.tmpDir);
    if (!file) throw invalid('file', 'The file field is required.');
    try {
      const entry = storeUpload(ctx, request.userId, file, fields);
      return reply.code(201).send({ status: 'success', fileEntry: serializeEntry(ctx.db, entry, ctx.profile) });
    } finally {
      rmSync(file.tmpPath, { force: true });
    }
  });
}

/** Checks what the upload asks for, then makes its entry (and missing folders) and moves its bytes into place. */
function storeUpload(ctx: Context, userId: number, file: ReceivedFile, fields: Record<string, string>): EntryRow {
  const { db, entries } = ctx;
  if (file.truncated) throw new HttpError(413, 'The file is too large.');
  const relative = fields.relativePath ? pathSegments(fields.relativePath) : null;
  const name = relative?.name ?? file.filename;
  if (!name) throw invalid('file', 'The file must have a name.');
  const parent = uploadParent(ctx, parseParentId(fields.parentId));
  if (parent) entries.authorize(userId, parent, 'edit');
  const ownerId = parent?.owner_id ?? userId;
  const mime = mimeForUpload(name, file.mimetype);
  const fileName = randomUUID();
  return db.transaction(() => {
    let folder = parent;
    for (const segment of relative?.folders ?? []) {
      folder =
        entries.siblingFolderNamed(folder?.id ?? null, ownerId, segment) ??
        entries.insert({ name: segment, fileName: segment, size: 0, parent: folder, ownerId, mime: null, type: 'folder' });
    }
    const created = entries.insert({
      name,
      fileName,
      size: file.size,
      parent: folder,
      ownerId,
      mime,
      type: ctx.profile.entryType(mime),
    });
    renameSync(file.tmpPath, join(ctx.blobDir, fileName));
    return created;
  })();
}

/** The folder `parentId` names, which must be an active folder; the root when none is named. */
function uploadParent({ entries }: Context, parentId: number | null): EntryRow | null {
  if (parentId === null) return null;
  const found = entries.get(parentId);
  if (!found || found.deleted_at) throw invalid('parentId', 'The selected parentId is invalid.');
  if (found.type !== 'folder') throw invalid('parentId', 'The parentId must be a folder.');
  return found;
}
