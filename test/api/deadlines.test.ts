// Deadlines against real slow servers on loopback: a metadata call has one overall deadline (connecting, headers and
// the whole body, retries and the waits between them included); a transfer has none, but fails when no byte has moved
// for the stall time, in either direction. Each test configures short limits (1–2 s); what is timed is only a generous
// upper bound on a deliberately hung request.
import { drip } from '../helpers/slow-responses.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  AbortedError,
  ApiError,
  DriveClient,
  ServerError,
  TimeoutError,
  describeApiError,
  type HttpOptions,
  type RetryEvent,
} from '../../main/api/index.js';
import { tempDir } from '../helpers/temp.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const LISTING = JSON.stringify({ current_page: 1, data: [{ id: 1, name: 'a.txt', type: 'file', parent_id: null }], next_page: null });
const CONTENT = randomBytes(64 * 1024);
const SMALL = randomBytes(10 * 1024);

let server: Server;
let origin: string;
let dir: string;
const sockets = new Set<Socket>();
const timers = new Set<NodeJS.Timeout>();
const hits = new Map<string, number>();
/** Per behaviour: whether the server saw its connection closed by the client (a given-up request lets go). */
const closed = new Map<string, number>();

/** Sends `content` in pieces of `size`, one every `everyMs`. */
function trickle(res: ServerResponse, content: Buffer, size: number, everyMs: number, stopAt = content.length) {
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed || sent >= stopAt) {
      clearInterval(timer);
      timers.delete(timer);
      if (!res.destroyed && sent >= content.length) res.end();
      return;
    }
    const piece = content.subarray(sent, Math.min(stopAt, sent + size));
    sent += piece.length;
    res.write(piece);
  }, everyMs);
  timers.add(timer);
}

const uploaded = (size: number) =>
  JSON.stringify({ status: 'success', fileEntry: { id: 7, name: 'up.bin', type: 'file', parent_id: null, file_size: size } });

const behaviours: Record<string, Handler> = {
  // A listing one byte a second: headers at once, then a body that would take minutes.
  'drip-listing': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    drip(res, LISTING + ' '.repeat(600), 1000, timers);
  },
  // Headers never come; every attempt of a GET waits for them.
  silent: () => {},
  'busy-long': (_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '30' });
    res.end(JSON.stringify({ message: 'maintenance' }));
  },
  // Takes the whole upload, then never answers.
  'upload-no-answer': (req) => {
    req.resume();
  },
  // Reads the first bytes of an upload, then stops reading; the connection stays open.
  'upload-stops-reading': (req) => {
    req.once('data', () => req.pause());
  },
  'upload-ok': (req, res) => {
    let size = 0;
    req.on('data', (chunk: Buffer) => (size += chunk.length));
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(uploaded(size));
    });
  },
  // Half the content, then nothing more on an open connection.
  'download-stalls': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(CONTENT.length) });
    res.write(CONTENT.subarray(0, CONTENT.length / 2));
  },
  // Stalls midway the first time; a Range request afterwards gets the rest.
  'download-stalls-once': (req, res) => {
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      res.writeHead(206, {
        'content-type': 'application/octet-stream',
        'content-length': String(CONTENT.length - start),
        'content-range': `bytes ${start}-${CONTENT.length - 1}/${CONTENT.length}`,
      });
      res.end(CONTENT.subarray(start));
      return;
    }
    behaviours['download-stalls']!(req, res);
  },
  'download-pauses': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(SMALL.length) });
    res.write(SMALL.subarray(0, 8 * 1024));
    const timer = setTimeout(() => res.end(SMALL.subarray(8 * 1024)), 2500);
    timers.add(timer);
  },
  // 4 KiB every 250 ms: slower than any deadline a metadata call would get, but never still for long.
  'download-slow': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(CONTENT.length) });
    trickle(res, CONTENT, 4096, 250);
  },
};

beforeAll(async () => {
  dir = tempDir('deadlines');
  server = createServer((req, res) => {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    hits.set(token, (hits.get(token) ?? 0) + 1);
    res.on('close', () => closed.set(token, (closed.get(token) ?? 0) + 1));
    res.on('error', () => {});
    const handler = behaviours[token];
    if (!handler) {
      res.writeHead(401).end();
      return;
    }
    handler(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  if (dir) await rm(dir, { recursive: true, force: true });
});

function client(token: string, options: Partial<HttpOptions> = {}) {
  const retries: RetryEvent[] = [];
  const c = new DriveClient({ origin, token, onRetry: (event) => retries.push(event), ...options });
  return Object.assign(c, { retries });
}

/** The error a call ends in, with how long it took. */
async function failure(call: () => Promise<unknown>): Promise<{ error: ApiError; ms: number }> {
  const started = performance.now();
  try {
    const value = await call();
    throw new Error(`expected a failure, got ${JSON.stringify(value)?.slice(0, 200)}`);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    expect(error.message).not.toMatch(/[\r\n]/);
    expect(error.summary).not.toMatch(/[\r\n]/);
    return { error, ms: performance.now() - started };
  }
}

async function file(name: string, size: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, randomBytes(size));
  return path;
}

describe('a metadata call has one overall deadline', () => {
  it('a listing dripped one byte a second fails at the deadline, headers and body counted', async () => {
    const c = client('drip-listing', { timeouts: { request: 1000 } });
    const { error, ms } = await failure(() => c.entries.page({}, 1));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.kind).toBe('timeout');
    expect(error.summary).toBe('GET /drive/file-entries: the server did not answer within 1 s');
    expect(ms).toBeLessThan(10_000);
    // A drip that met its deadline is given up, not retried.
    expect(c.retries).toEqual([]);
    expect(hits.get('drip-listing')).toBe(1);
    await expect.poll(() => closed.get('drip-listing')).toBe(1);
  });

  it('retries stay inside the deadline: a server that never answers costs one deadline, not one per attempt', async () => {
    // Without one deadline for the call, 21 attempts of 500 ms each would take over ten seconds.
    const c = client('silent', { timeouts: { request: 1500, response: 500 }, retry: { limit: 20, baseDelayMs: 50, maxDelayMs: 100 } });
    const { error, ms } = await failure(() => c.lists.show('list', 'someone'));
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/^the server did not answer within (1\.5 s|500 ms)$/);
    expect(ms).toBeLessThan(6_000);
    expect(hits.get('silent')).toBeGreaterThanOrEqual(2);
    expect(hits.get('silent')).toBeLessThan(21);
  });

  it('a wait the server asks for that would end past the deadline is not started: the failure is said as it is', async () => {
    const waits: number[] = [];
    const c = client('busy-long', { timeouts: { request: 2000 }, sleep: async (ms) => void waits.push(ms) });
    const { error } = await failure(() => c.entries.page({}, 1));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.message).toBe('server error 503: maintenance');
    expect(waits).toEqual([]);
    expect(hits.get('busy-long')).toBe(1);
  });

  it('the caller cancelling is still a cancellation, not a timeout', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const c = client('drip-listing', { timeouts: { request: 5000 } });
    const { error, ms } = await failure(() => c.entries.page({}, 1, controller.signal));
    expect(error).toBeInstanceOf(AbortedError);
    expect(ms).toBeLessThan(4000);
  });

  it('the default deadline is 60 s and a person reads it in one line', () => {
    const c = client('silent');
    expect(c.http.timeouts.request).toBe(60_000);
    expect(c.http.timeouts.stall).toBe(60_000);
    const error = new TimeoutError('GET /drive/file-entries', 'the server did not answer within 60 s');
    expect(describeApiError(error, { signIn: 'sign in', server: 'the server http://x' })).toBe('the server http://x did not answer within 60 s');
  });
});

describe('a transfer has no deadline but a stall time', () => {
  it('an upload the server takes whole but never answers fails after the stall time', async () => {
    const path = await file('no-answer.bin', 300_000);
    const c = client('upload-no-answer', { timeouts: { stall: 1000 } });
    const { error, ms } = await failure(() => c.transfers.upload(path, { name: 'up.bin', parentId: null }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.endpoint).toBe('POST /uploads');
    expect(error.message).toMatch(/^(the server did not answer within|no data moved for) 1 s$/);
    expect(ms).toBeLessThan(10_000);
    expect(c.retries).toEqual([]);
  });

  it('an upload the server stops reading midway fails after the stall time', async () => {
    // Larger than what loopback's socket buffers take in, so the client's writes really stop.
    const path = await file('stops-reading.bin', 48 * 1024 * 1024);
    const c = client('upload-stops-reading', { timeouts: { stall: 1000 } });
    const { error, ms } = await failure(() => c.transfers.upload(path, { name: 'up.bin', parentId: null }));
    expect(error.kind).toBe('timeout');
    expect(error.summary).toBe('POST /uploads: no data moved for 1 s');
    expect(describeApiError(error, { signIn: 'sign in' })).toBe('the transfer stalled: nothing moved to or from the server for 1 s');
    expect(ms).toBeLessThan(15_000);
  });

  it('a download that stops midway fails after the stall time', async () => {
    const c = client('download-stalls', { timeouts: { stall: 1000 } });
    const { error, ms } = await failure(() =>
      c.transfers.download({ id: 1, url: 'api/v1/file-entries/1' }, join(dir, 'stalls.bin'), { retries: 0 }),
    );
    expect(error.kind).toBe('timeout');
    expect(error.summary).toBe('GET /file-entries/{entryId}: no data moved for 1 s');
    expect(ms).toBeLessThan(10_000);
  });

  it('a download that stalled resumes where it stopped on its retry', async () => {
    const c = client('download-stalls-once', { timeouts: { stall: 1000 } });
    const destination = join(dir, 'stalls-once.bin');
    const size = await c.transfers.download({ id: 1, url: 'api/v1/file-entries/1' }, destination, { retries: 1, sleep: async () => {} });
    expect(size).toBe(CONTENT.length);
    expect((await readFile(destination)).equals(CONTENT)).toBe(true);
    expect(hits.get('download-stalls-once')).toBe(2);
  });

  it('a slow download that keeps moving runs past both the stall time and the metadata deadline', async () => {
    // 16 pieces, one every 250 ms: about 4 s in all, never 1 s without a byte.
    const c = client('download-slow', { timeouts: { stall: 1000, request: 1000 } });
    const destination = join(dir, 'slow.bin');
    let last = 0;
    const size = await c.transfers.download({ id: 1, url: 'api/v1/file-entries/1' }, destination, {
      retries: 0,
      onProgress: (p) => (last = p.transferred),
    });
    expect(size).toBe(CONTENT.length);
    expect(last).toBe(CONTENT.length);
    expect((await readFile(destination)).equals(CONTENT)).toBe(true);
    expect(hits.get('download-slow')).toBe(1);
  });

  it('a download held back by the bandwidth limit is moving, not stalled, even while the connection is still', async () => {
    // The server sends 8 KiB, waits 2.5 s and sends 2 KiB more; at 2 KiB a second (a piece a second) the client is
    // still writing the first part to the file throughout the wait, so nothing has stopped moving.
    const c = client('download-pauses', { timeouts: { stall: 1500 }, bandwidth: { downBytesPerSecond: 2 * 1024 } });
    const destination = join(dir, 'limited.bin');
    const started = performance.now();
    const size = await c.transfers.download({ id: 1, url: 'api/v1/file-entries/1' }, destination, { retries: 0 });
    expect(size).toBe(SMALL.length);
    expect((await readFile(destination)).equals(SMALL)).toBe(true);
    expect(performance.now() - started).toBeGreaterThan(3000);
  });

  it('a slow upload that keeps moving runs past both the stall time and the metadata deadline', async () => {
    // 768 KiB at 256 KiB a second: about 3 s, each piece well within the stall time.
    const path = await file('slow-up.bin', 768 * 1024);
    const c = client('upload-ok', { timeouts: { stall: 1000, request: 1000 }, bandwidth: { upBytesPerSecond: 256 * 1024 } });
    const started = performance.now();
    const entry = await c.transfers.upload(path, { name: 'up.bin', parentId: null });
    expect(entry.id).toBe(7);
    expect(entry.file_size).toBeGreaterThan(768 * 1024);
    // The limit really held it beyond the metadata deadline, so it is the stall time, not a deadline, that applies.
    expect(performance.now() - started).toBeGreaterThan(1000);
  });
});
