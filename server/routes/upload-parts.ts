import type { FastifyRequest } from 'fastify';
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import { createWriteStream, rmSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { HttpError, invalid } from '../errors.js';

/** The file part of an upload, as written to the temp folder. */
export interface ReceivedFile {
  tmpPath: string;
  size: number;
  filename: string;
  mimetype: string;
  truncated: boolean;
}

export interface ReceivedParts {
  fields: Record<string, string>;
  /** The first part named `file`; null when there was none. */
  file: ReceivedFile | null;
}

/**
 * Reads a multipart upload: its text fields, and its first `file` part streamed into `tmpDir`. Other file parts are
 * drained unread. Whatever goes wrong removes the temp file.
 */
export async function receiveParts(request: FastifyRequest, tmpDir: string): Promise<ReceivedParts> {
  const fields: Record<string, string> = {};
  let file: ReceivedFile | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        readField(part, fields);
        continue;
      }
      if (part.fieldname !== 'file' || file) {
        part.file.resume();
        continue;
      }
      // Known before the bytes arrive, so that a failure half-way still finds the temp file to remove.
      const tmpPath = join(tmpDir, randomUUID());
      file = { tmpPath, size: 0, filename: part.filename, mimetype: part.mimetype, truncated: false };
      await writeFilePart(part, file);
    }
  } catch (error) {
    if (file) rmSync(file.tmpPath, { force: true });
    throw asUploadError(error);
  }
  return { fields, file };
}

function readField(part: MultipartValue, fields: Record<string, string>): void {
  if (part.valueTruncated || part.fieldnameTruncated) {
    throw invalid(part.fieldname.slice(0, 64), `The ${part.fieldname.slice(0, 64)} field is too long.`);
  }
  if (typeof part.value === 'string') fields[part.fieldname] = part.value;
  else if (part.fieldname === 'parentId' || part.fieldname === 'relativePath') {
    throw invalid(part.fieldname, `The ${part.fieldname} field must be text.`);
  }
}

async function writeFilePart(part: MultipartFile, into: ReceivedFile): Promise<void> {
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(part.file, counter, createWriteStream(into.tmpPath));
  into.size = size;
  into.truncated = part.file.truncated;
}

/** Our own refusals pass as they are; whatever the multipart parser refused is too large or unreadable. */
function asUploadError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  // A cut stream, a bad part, a reserved field name: invalid data, never a fault of the server.
  const code = (error as { statusCode?: number }).statusCode;
  if (code === 413) return new HttpError(413, 'The upload is too large.');
  return invalid('file', 'The upload could not be read.');
}
