import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { App, Context } from '../context.js';
import { HttpError, invalid } from '../errors.js';
import { mimeForUpload, type EntryRow } from '../entries.js';
import { serializeEntry } from '../serialize.js';

interface Received {
  tmpPath: string;
  size: number;
  filename: string;
  mimetype: string;
  truncated: boolean;
}

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

function uploadRoute(app: App, ctx: Context): void {
  const { db, entries } = ctx;

  app.addContentTypeParser('*', (_request, payload, done) => {
    // Not multipart: drop the bytes; the handler answers that the file part is missing.
    payload.on('error', (error: Error) => done(error, undefined));
    payload.on('end', () => done(null, undefined));
    payload.resume();
  });

  app.post('/uploads', async (request, reply) => {
    if (!request.isMultipart()) throw invalid('file', 'The file field is required (multipart/form-data).');
    const fields: Record<string, string> = {};
    let received: Received | null = null;
    try {
      for await (const part of request.parts()) {
        if (part.type === 'field') {
          if (part.valueTruncated || part.fieldnameTruncated) {
            throw invalid(part.fieldname.slice(0, 64), `The ${part.fieldname.slice(0, 64)} field is too long.`);
          }
          if (typeof part.value === 'string') fields[part.fieldname] = part.value;
          else if (part.fieldname === 'parentId' || part.fieldname === 'relativePath') {
            throw invalid(part.fieldname, `The ${part.fieldname} field must be text.`);
          }
          continue;
        }
        if (part.fieldname !== 'file' || received) {
          part.file.resume();
          continue;
        }
        const tmpPath = join(ctx.tmpDir, randomUUID());
        let size = 0;
        const counter = new Transform({
          transform(chunk: Buffer, _enc, done) {
            size += chunk.length;
            done(null, chunk);
          },
        });
        received = { tmpPath, size: 0, filename: part.filename, mimetype: part.mimetype, truncated: false };
        await pipeline(part.file, counter, createWriteStream(tmpPath));
        received.size = size;
        received.truncated = part.file.truncated;
      }
    } catch (error) {
      if (received) rmSync(received.tmpPath, { force: true });
      if (error instanceof HttpError) throw error;
      // Whatever the multipart parser refused (a cut stream, a bad part, a reserved field name) is invalid data.
      const code = (error as { statusCode?: number }).statusCode;
      if (code === 413) throw new HttpError(413, 'The upload is too large.');
      throw invalid('file', 'The upload could not be read.');
    }
    if (!received) throw invalid('file', 'The file field is required.');
    const upload: Received = received;
    try {
      if (upload.truncated) throw new HttpError(413, 'The file is too large.');
      const relative = fields.relativePath ? pathSegments(fields.relativePath) : null;
      const name = relative?.name ?? upload.filename;
      if (!name) throw invalid('file', 'The file must have a name.');
      const parentId = parseParentId(fields.parentId);
      let parent: EntryRow | null = null;
      if (parentId !== null) {
        const found = entries.get(parentId);
        if (!found || found.deleted_at) throw invalid('parentId', 'The selected parentId is invalid.');
        if (found.type !== 'folder') throw invalid('parentId', 'The parentId must be a folder.');
        parent = found;
      }
      if (parent) entries.authorize(request.userId, parent, 'edit');
      const ownerId = parent?.owner_id ?? request.userId;
      const mime = mimeForUpload(name, upload.mimetype);
      const fileName = randomUUID();
      const entry = db.transaction(() => {
        let folder = parent;
        for (const segment of relative?.folders ?? []) {
          folder =
            entries.siblingFolderNamed(folder?.id ?? null, ownerId, segment) ??
            entries.insert({ name: segment, fileName: segment, size: 0, parent: folder, ownerId, mime: null, type: 'folder' });
        }
        const created = entries.insert({
          name,
          fileName,
          size: upload.size,
          parent: folder,
          ownerId,
          mime,
          type: ctx.profile.entryType(mime),
        });
        renameSync(upload.tmpPath, join(ctx.blobDir, fileName));
        return created;
      })();
      return reply.code(201).send({ status: 'success', fileEntry: serializeEntry(db, entry, ctx.profile) });
    } finally {
      rmSync(upload.tmpPath, { force: true });
    }
  });
}
