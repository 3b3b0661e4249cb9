import { createReadStream, statSync } from 'node:fs';
import { join } from 'node:path';
import parseRange from 'range-parser';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from './context.js';
import { notFound } from './errors.js';
import type { EntryRow } from './entries.js';

/** Streams a file entry's bytes, honouring a single Range; several ranges are answered with the whole file. */
export function sendContent(ctx: Context, entry: EntryRow, request: FastifyRequest, reply: FastifyReply, disposition: 'inline' | 'attachment') {
  if (entry.type === 'folder' || !entry.file_name) throw notFound('This entry has no content.');
  const path = join(ctx.blobDir, entry.file_name);
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw notFound('The stored content of this entry is missing.');
  }
  const header = request.headers.range;
  const ranges = typeof header === 'string' ? parseRange(size, header, { combine: true }) : undefined;
  if (ranges === -1) {
    // Answered as JSON: the file's own content type must not be set on the error body (it made this a 500).
    return reply
      .code(416)
      .header('accept-ranges', 'bytes')
      .header('content-range', `bytes */${size}`)
      .send({ message: 'Range not satisfiable.' });
  }
  reply
    .header('accept-ranges', 'bytes')
    .header('content-type', entry.mime || 'application/octet-stream')
    .header('content-disposition', `${disposition}; filename*=UTF-8''${encodeURIComponent(entry.name)}`)
    .header('last-modified', new Date(entry.updated_at).toUTCString());
  if (ranges !== undefined) {
    if (Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1) {
      const { start, end } = ranges[0]!;
      return reply
        .code(206)
        .header('content-range', `bytes ${start}-${end}/${size}`)
        .header('content-length', end - start + 1)
        .send(createReadStream(path, { start, end }));
    }
  }
  return reply.code(200).header('content-length', size).send(size === 0 ? '' : createReadStream(path));
}
