import FormData from 'form-data';
import { createReadStream, createWriteStream, openSync, readFileSync, statSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { Transform, Writable, pipeline as pipelineStreams } from 'node:stream';
import type { Http } from './http.js';
import { stallMessage, toApiError } from './http.js';
import type { EntryId } from './entries.js';
import { AbortedError, BadResponseError, isTransient, TimeoutError, UnreadableFileError, UnwritableFileError } from './errors.js';
import { osReason } from './os-words.js';
import { UploadResponse } from './checks.js';
import type { FileEntry } from './schemas.js';

export interface TransferProgress {
  /** Bytes of the file moved so far. */
  transferred: number;
  /** Size of the file, when known. */
  total: number | undefined;
}

export interface UploadOptions {
  /** Name of the new entry. */
  name: string;
  /** Folder to upload into; null is the root. */
  parentId: EntryId | null;
  /** Sent when the upload should create missing folders on its way (`a/b/name`). */
  relativePath?: string;
  signal?: AbortSignal;
  onProgress?: (progress: TransferProgress) => void;
  /** Sees every byte of the file as it is sent (to hash what was uploaded without reading the file twice). */
  onData?: (chunk: Buffer) => void;
}

export interface DownloadOptions {
  signal?: AbortSignal;
  onProgress?: (progress: TransferProgress) => void;
  /** Continue a partial file at `destination` with a Range request instead of starting over. */
  resume?: boolean;
  /** The size the entry says it has; a finished download of another size is an error. */
  expectedSize?: number;
  /** Attempts after the first when the connection breaks mid-transfer; each resumes where it stopped. */
  retries?: number;
  sleep?: (ms: number) => Promise<void>;
}

export type CompareOptions = Pick<DownloadOptions, 'signal' | 'onProgress' | 'expectedSize'>;

const UPLOAD = 'POST /uploads';
const DOWNLOAD = 'GET /file-entries/{entryId}';

const sleepReal = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Counts bytes passing through, for progress, without holding any of them. */
function counter(start: number, total: number | undefined, onProgress?: (p: TransferProgress) => void, moved?: () => void) {
  let transferred = start;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      transferred += chunk.length;
      moved?.();
      onProgress?.({ transferred, total });
      done(null, chunk);
    },
  });
}

const CHANGED_WHILE_SENT = 'the file changed while it was being sent';

/**
 * A multipart/form-data body (the `form-data` package) that streams the file from disk (small files: read whole,
 * see WHOLE_BODY_BYTES). Field values go byte for
 * byte (FormData encoders of the fetch family turn a lone LF or CR into CRLF, which would change a name that has
 * one). Exactly `size` bytes of the file are sent: a file that shrank meanwhile fails the upload.
 */
function multipartBody(
  fields: ReadonlyArray<readonly [string, string]>,
  file: { path: string; name: string; size: number },
  throttle: Transform,
  onData?: (chunk: Buffer) => void,
  limited = false,
) {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  const tail = () => `--${form.getBoundary()}--\r\n`.length;
  if (!limited && file.size <= WHOLE_BODY_BYTES) {
    // A small file, with no upload limit in force, goes as one buffer: one read, one write to the socket, one chunk
    // for the server to parse. The read is synchronous: for a few KB, four thread-pool round trips (open, fstat,
    // read, close) cost more than the read itself. On 10,000 files of a few KB, streams and round trips cost the
    // client and the server more than the bytes do.
    const content = readFileSync(file.path);
    if (content.length !== file.size) {
      throw new Error(`${CHANGED_WHILE_SENT} (${content.length} of ${file.size} bytes)`);
    }
    onData?.(content);
    form.append('file', content, { filename: file.name, knownLength: file.size, contentType: 'application/octet-stream' });
    const body = form.getBuffer();
    return { body, headers: form.getHeaders() as Record<string, string>, length: body.length, headLength: body.length - file.size - tail() };
  }
  let read = 0;
  const exact = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      read += chunk.length;
      onData?.(chunk);
      done(null, chunk);
    },
    flush(done) {
      done(read === file.size ? null : new Error(`${CHANGED_WHILE_SENT} (${read} of ${file.size} bytes)`));
    },
  });
  // pipeline() carries a read error or a size mismatch through to the request body, which fails the upload.
  const content =
    file.size > 0
      ? // Opened here, so a file that cannot be read fails before the request, not as a broken request body.
        pipelineStreams(createReadStream('', { fd: openSync(file.path, 'r'), start: 0, end: file.size - 1 }), exact, throttle, () => undefined)
      : Buffer.alloc(0);
  form.append('file', content, { filename: file.name, knownLength: file.size, contentType: 'application/octet-stream' });
  const length = form.getLengthSync();
  return { body: form, headers: form.getHeaders() as Record<string, string>, length, headLength: length - file.size - tail() };
}

/** Files up to this size are sent as one buffer (see multipartBody); larger ones stream from disk. */
const WHOLE_BODY_BYTES = 256 * 1024;

/** File content both ways, streamed from and to disk, never held whole in memory. */
export class TransfersApi {
  constructor(private readonly http: Http) {}

  /**
   * Uploads a file from disk as multipart, read as it is sent. POST is never retried here:
   * whether a lost answer took effect is for the caller to find out from the listing.
   */
  async upload(path: string, options: UploadOptions): Promise<FileEntry> {
    let total: number;
    try {
      const info = statSync(path);
      if (!info.isFile()) throw new Error('not a regular file');
      total = info.size;
    } catch (error) {
      throw new UnreadableFileError(UPLOAD, osReason(error), error);
    }
    // A multipart filename cannot carry every name intact (quotes and line breaks get escaped, some servers strip
    // backslashes); relativePath is a plain field, so the exact name always travels there as well.
    let form;
    try {
      form = multipartBody(
        [
          ['parentId', options.parentId === null ? 'null' : String(options.parentId)],
          ['relativePath', options.relativePath ?? options.name],
        ],
        { path, name: options.name, size: total },
        this.http.bandwidth.throttle('up'),
        options.onData,
        (this.http.bandwidth.current.upBytesPerSecond ?? 0) > 0,
      );
    } catch (error) {
      if (error instanceof Error && error.message.startsWith(CHANGED_WHILE_SENT)) throw new AbortedError(UPLOAD, error.message);
      throw new UnreadableFileError(UPLOAD, osReason(error), error);
    }
    const { body } = await this.http.json({
      endpoint: UPLOAD,
      method: 'POST',
      path: 'uploads',
      body: form.body,
      headers: { ...form.headers, 'content-length': String(form.length) },
      check: UploadResponse,
      signal: options.signal,
      requestTimeout: null,
      onUploadProgress: options.onProgress
        ? (p) => options.onProgress!({ transferred: Math.max(0, Math.min(total, p.transferred - form.headLength)), total })
        : undefined,
    });
    return body.fileEntry;
  }

  /**
   * Streams a file's content to `destination`. With `resume`, a partial file there is continued with a Range
   * request; a broken connection is resumed the same way up to `retries` times.
   */
  async download(entry: Pick<FileEntry, 'id' | 'url'>, destination: string, options: DownloadOptions = {}): Promise<number> {
    const url = this.http.resolve(entry.url ?? `api/v1/file-entries/${entry.id}`, DOWNLOAD);
    const sleep = options.sleep ?? sleepReal;
    const retries = options.retries ?? 3;
    let resume = options.resume === true;
    for (let attempt = 0; ; attempt++) {
      try {
        const size = await this.attempt(url, destination, resume, options);
        if (options.expectedSize !== undefined && size !== options.expectedSize) {
          throw new BadResponseError(DOWNLOAD, `received ${size} bytes, expected ${options.expectedSize}`);
        }
        return size;
      } catch (error) {
        if (resume && (error as { status?: number }).status === 416) {
          // The partial file is no prefix of what the server has now: start over.
          resume = false;
          continue;
        }
        if (attempt >= retries || !isTransient(error) || options.signal?.aborted) throw error;
        resume = true;
        await sleep(Math.min(30_000, 500 * 2 ** attempt));
      }
    }
  }

  private async attempt(url: string, destination: string, resume: boolean, options: DownloadOptions): Promise<number> {
    // got leaves its abort listener on the signal it is given; a signal of our own per attempt keeps a
    // long-lived caller's signal (the engine's) free of one listener per download.
    const controller = new AbortController();
    const forward = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) forward();
    options.signal?.addEventListener('abort', forward, { once: true });
    try {
      return await this.attemptWith(url, destination, resume, { ...options, signal: controller.signal });
    } finally {
      options.signal?.removeEventListener('abort', forward);
    }
  }

  private async attemptWith(url: string, destination: string, resume: boolean, options: DownloadOptions): Promise<number> {
    let have = resume ? await stat(destination).then((s) => s.size, () => 0) : 0;
    // A partial file already as long as the content can only be answered 416: start over without asking.
    if (options.expectedSize !== undefined && have >= options.expectedSize) have = 0;
    await this.receive(url, have, options, (partial) => createWriteStream(destination, { flags: partial ? 'a' : 'w' }));
    return (await stat(destination)).size;
  }

  /**
   * Whether an entry's content is, byte for byte, the file at `localPath`. The content is compared as it arrives and
   * the transfer stops at the first byte that differs; a size that differs costs no transfer at all. Nothing is
   * written anywhere. One attempt: a broken connection is an error, since it proves nothing either way.
   */
  async sameBytes(entry: Pick<FileEntry, 'id' | 'url'>, localPath: string, options: CompareOptions = {}): Promise<boolean> {
    const url = this.http.resolve(entry.url ?? `api/v1/file-entries/${entry.id}`, DOWNLOAD);
    const local = await open(localPath, 'r');
    try {
      const size = (await local.stat()).size;
      if (options.expectedSize !== undefined && options.expectedSize !== size) return false;
      const compare = new LocalComparison(local);
      const controller = new AbortController();
      const forward = () => controller.abort(options.signal?.reason);
      if (options.signal?.aborted) forward();
      options.signal?.addEventListener('abort', forward, { once: true });
      try {
        await this.receive(url, 0, { ...options, signal: controller.signal }, () => compare);
      } catch (error) {
        if (compare.differs) return false;
        throw error;
      } finally {
        options.signal?.removeEventListener('abort', forward);
      }
      return !compare.differs && compare.offset === size;
    } finally {
      await local.close();
    }
  }

  /**
   * One GET of a file's content from byte `from`, into the stream `sink` makes (told whether the answer is partial),
   * under the download limit. It fails when nothing has moved for the stall time.
   */
  private async receive(
    url: string,
    from: number,
    options: Pick<DownloadOptions, 'signal' | 'onProgress' | 'expectedSize'>,
    sink: (partial: boolean) => Writable,
  ): Promise<void> {
    const stream = this.http.raw.stream(url, {
      headers: from > 0 ? { range: `bytes=${from}-` } : {},
      retry: { limit: 0 },
      signal: options.signal,
      // No overall deadline: a download may rightly take hours; it fails when nothing has moved for the stall time
      // (the watchdog below once the answer has begun).
      timeout: { connect: this.http.timeouts.connect, response: this.http.timeouts.stall, socket: undefined },
    });
    const response = await new Promise<{ statusCode: number; headers: Record<string, string | string[] | undefined> }>(
      (resolve, reject) => {
        stream.once('response', resolve);
        stream.once('error', reject);
      },
    ).catch((error: unknown) => {
      throw toApiError(DOWNLOAD, error, options.signal);
    });
    const partial = response.statusCode === 206;
    const start = partial ? from : 0;
    const lengthHeader = response.headers['content-length'];
    const length = typeof lengthHeader === 'string' ? Number(lengthHeader) : undefined;
    const total = options.expectedSize ?? (length !== undefined ? start + length : undefined);
    // Bytes move when they arrive and when they go on to the file. An idle-socket timeout would see only the first,
    // and under a bandwidth limit the connection waits, rightly, while what was received goes on at the limit.
    const stallMs = this.http.timeouts.stall;
    let stalled = false;
    const watchdog = setTimeout(() => {
      stalled = true;
      stream.destroy();
    }, stallMs);
    const moved = () => watchdog.refresh();
    stream.on('downloadProgress', moved);
    // What the disk refused is this computer's problem, not the connection's (a full disk is not "offline").
    let diskError: NodeJS.ErrnoException | undefined;
    const target = sink(partial).once('error', (error: NodeJS.ErrnoException) => {
      if (typeof error.syscall === 'string') diskError = error;
    });
    try {
      await pipeline(stream, this.http.bandwidth.throttle('down'), counter(start, total, options.onProgress, moved), target);
    } catch (error) {
      if (stalled && !options.signal?.aborted) throw new TimeoutError(DOWNLOAD, stallMessage(stallMs));
      if (diskError && !options.signal?.aborted) throw new UnwritableFileError(DOWNLOAD, osReason(diskError), diskError);
      throw toApiError(DOWNLOAD, error, options.signal);
    } finally {
      clearTimeout(watchdog);
      stream.off('downloadProgress', moved);
    }
  }
}

/** A sink that compares what it is given with a local file from its start, and fails at the first difference. */
class LocalComparison extends Writable {
  offset = 0;
  differs = false;

  constructor(private readonly file: FileHandle) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const mine = Buffer.allocUnsafe(chunk.length);
    this.file.read(mine, 0, chunk.length, this.offset).then(
      ({ bytesRead }) => {
        if (bytesRead !== chunk.length || !mine.equals(chunk)) {
          this.differs = true;
          done(new Error('the content differs'));
          return;
        }
        this.offset += chunk.length;
        done();
      },
      (error: unknown) => done(error as Error),
    );
  }
}
