// The client against a hostile server: garbage, truncated or mistyped JSON, endless and slow bodies, silence,
// listings that never end or go backwards, odd error bodies and a redirect off the server. Every call must end in the
// right typed error, within its timeout. The server picks its behaviour from the bearer token (one per test), so
// every behaviour answers whatever path the client calls; a few are chosen by path instead.
import { drip } from '../helpers/slow-responses.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  AbortedError,
  ApiError,
  BadResponseError,
  ConflictError,
  DriveClient,
  ForbiddenError,
  InvalidError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  type HttpOptions,
  type RetryEvent,
} from '../../main/api/index.js';
import { tempDir } from '../helpers/temp.js';

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
};

const entry = (id: number) => ({ id, name: `entry ${id}`, type: 'file', parent_id: null });
const subscriber = (n: number) => ({ uid: `uid${n}`, email: `s${n}@example.com`, status: 'subscribed' });
const CONTENT = randomBytes(100_000);

/** Streams `total` bytes of '[' with backpressure, stopping as soon as the client goes away. */
function endless(res: ServerResponse, status: number, total: number, counter: { sent: number }) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(total) });
  const chunk = Buffer.alloc(64 * 1024, '[');
  const pump = () => {
    while (counter.sent < total && !res.destroyed) {
      counter.sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  res.on('error', () => {});
  pump();
}

let hostile: Server;
let elsewhere: Server;
let origin: string;
let elsewhereOrigin: string;
let dir: string;
const sockets = new Set<Socket>();
const hits = new Map<string, number>();
const elsewhereHeaders: IncomingHttpHeaders[] = [];
const huge = { sent: 0 };
const hugeError = { sent: 0 };
const timers = new Set<NodeJS.Timeout>();
const rangesSeen: Array<string | undefined> = [];

const behaviours: Record<string, Handler> = {
  garbage: (_req, res) => json(res, 200, 'this is <b>not</b> JSON at all'),
  'html-200': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html><body>Welcome</body></html>');
  },
  truncated: (_req, res) => json(res, 200, '{"current_page":1,"data":[{"id":1,"name":"x'),
  'cut-mid-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' });
    res.write('{"current_page":1,"data":[');
    setTimeout(() => res.socket?.destroy(), 20);
  },
  'empty-200': (_req, res) => json(res, 200, ''),
  'null-200': (_req, res) => json(res, 200, 'null'),
  'id-as-string': (_req, res) => json(res, 200, { current_page: 1, data: [{ id: '1', name: 'x', type: 'file' }], next_page: null }),
  'data-not-array': (_req, res) => json(res, 200, { current_page: 1, data: { 0: entry(1) }, next_page: null }),
  'array-of-numbers': (_req, res) => json(res, 200, [1, 2, 3]),
  'folder-without-folder': (_req, res) => json(res, 200, { status: 'success' }),
  'subscribers-object': (_req, res) => json(res, 200, { data: [subscriber(1)] }),
  huge: (_req, res) => endless(res, 200, 80 * 1024 * 1024, huge),
  'huge-error': (_req, res) => endless(res, 500, 80 * 1024 * 1024, hugeError),
  drip: (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    drip(res, JSON.stringify({ current_page: 1, data: [], next_page: null }), 200, timers);
  },
  silent: () => {
    // Never answers; the socket stays open until the client gives up.
  },
  'same-page-array': (_req, res, url) => {
    const perPage = Number(url.searchParams.get('perPage') ?? 50);
    json(res, 200, Array.from({ length: perPage }, (_, i) => entry(i + 1)));
  },
  'same-page-paginator': (_req, res, url) => {
    const perPage = Number(url.searchParams.get('perPage') ?? 50);
    json(res, 200, { current_page: 1, data: Array.from({ length: perPage }, (_, i) => entry(i + 1)), next_page: 2, per_page: perPage });
  },
  'same-page-no-hints': (_req, res, url) => {
    const perPage = Number(url.searchParams.get('perPage') ?? 50);
    json(res, 200, { current_page: 1, data: Array.from({ length: perPage }, (_, i) => entry(i + 1)) });
  },
  backwards: (_req, res, url) => {
    const page = Number(url.searchParams.get('page') ?? 1);
    json(res, 200, { current_page: page, data: [entry(page * 10)], next_page: page === 1 ? 2 : 1 });
  },
  'subscribers-same-page': (_req, res, url) => {
    const perPage = Number(url.searchParams.get('per_page') ?? 25);
    json(res, 200, Array.from({ length: perPage }, (_, i) => subscriber(i)));
  },
  '500-html': (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/html' });
    res.end('<html>\n<head><title>500 Internal Server Error</title></head>\n<body>nginx</body>\n</html>');
  },
  '502-empty': (_req, res) => {
    res.writeHead(502);
    res.end();
  },
  '429-no-retry-after': (_req, res) => json(res, 429, { message: 'Too Many Attempts.' }),
  '429-date': (_req, res) =>
    json(res, 429, { message: 'Slow down' }, { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() }),
  '401-html': (_req, res) => {
    res.writeHead(401, { 'content-type': 'text/html' });
    res.end('<html><body>Login required</body></html>');
  },
  '401-multiline': (_req, res) => json(res, 401, { message: 'Unauthenticated.\nPlease sign in again.\r\nThanks' }),
  '401-message-object': (_req, res) => json(res, 401, { message: { text: 'nested' } }),
  '403-text': (_req, res) => {
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end('Forbidden');
  },
  '403-fields': (_req, res) =>
    json(res, 403, { message: 'The given data was invalid.', errors: { EMAIL: ['The EMAIL has already been taken.'] } }),
  '404-null': (_req, res) => json(res, 404, 'null'),
  '404-empty': (_req, res) => {
    res.writeHead(404);
    res.end();
  },
  '409-conflict': (_req, res) => json(res, 409, { message: 'Already subscribed' }),
  '422-arrays-no-status': (_req, res) =>
    json(res, 422, { message: 'The name is too short.', errors: { name: ['The name is too short.', 'Another one.'] } }),
  '422-errors-list': (_req, res) => json(res, 422, { message: 'Invalid.', errors: ['first problem', 'second problem'] }),
  '422-no-message': (_req, res) => json(res, 422, { errors: { name: 'first line\nsecond line' } }),
  '422-nothing': (_req, res) => json(res, 422, '[]'),
  'redirect-elsewhere': (_req, res) => {
    res.writeHead(302, { location: `${elsewhereOrigin}/api/v1/drive/file-entries?page=1` });
    res.end();
  },
  'redirect-loop': (req, res) => {
    res.writeHead(302, { location: req.url ?? '/' });
    res.end();
  },
  'range-416': (req, res) => {
    rangesSeen.push(req.headers.range);
    if (req.headers.range) {
      res.writeHead(416, { 'content-range': `bytes */${CONTENT.length}`, 'content-type': 'application/json' });
      return void res.end('{"message":"Range not satisfiable."}');
    }
    res.writeHead(200, { 'content-length': String(CONTENT.length), 'content-type': 'application/octet-stream' });
    res.end(CONTENT);
  },
  'range-ignored': (req, res) => {
    rangesSeen.push(req.headers.range);
    res.writeHead(200, { 'content-length': String(CONTENT.length), 'content-type': 'application/octet-stream' });
    res.end(CONTENT);
  },
  'content-short': (_req, res) => {
    res.writeHead(200, { 'content-length': String(CONTENT.length), 'content-type': 'application/octet-stream' });
    res.write(CONTENT.subarray(0, 1000));
    setTimeout(() => res.socket?.destroy(), 20);
  },
};

/** Behaviours chosen by path, for calls that carry no token. */
const byPath: Record<string, Handler> = {
  '/api/v1/auth/login': (_req, res) => json(res, 200, { status: 'success', user: { id: 1, email: 'a@example.com' } }),
  '/api/v1/auth/register': (_req, res) => json(res, 200, { status: 'success', user: { id: 'one', email: 'a@example.com' } }),
};

beforeAll(async () => {
  dir = tempDir('hostile');
  hostile = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const name = token ?? url.pathname;
    hits.set(name, (hits.get(name) ?? 0) + 1);
    const handler = (token ? behaviours[token] : byPath[url.pathname]) ?? ((_q, r) => json(r, 404, { message: `no behaviour ${name}` }));
    // Read (and discard) any body first, so uploads are fully received.
    req.resume();
    req.on('end', () => handler(req, res, url));
  });
  hostile.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  elsewhere = createServer((req, res) => {
    elsewhereHeaders.push(req.headers);
    json(res, 200, { current_page: 1, data: [], next_page: null });
  });
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  elsewhereOrigin = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => hostile?.close(() => resolve()));
  elsewhere?.closeAllConnections();
  await new Promise<void>((resolve) => elsewhere?.close(() => resolve()));
  if (dir) await rm(dir, { recursive: true, force: true });
});

const TIMEOUTS = { connect: 1000, request: 1500, response: 1000, stall: 1000 };

function client(token: string | undefined, options: Partial<HttpOptions> = {}) {
  const retries: RetryEvent[] = [];
  const c = new DriveClient({
    origin,
    token,
    timeouts: TIMEOUTS,
    retry: { limit: 1 },
    maxResponseBytes: 1024 * 1024,
    sleep: async () => {},
    random: () => 0.5,
    onRetry: (event) => retries.push(event),
    ...options,
  });
  return Object.assign(c, { retries });
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/**
 * The typed error a call ends in, checked to be of the class and kind, with a one-line message. No ceiling on the time it
 * takes: a call that hung would end in a TimeoutError (the wrong class) or at the test's own timeout.
 */
async function failsWith<E extends ApiError>(
  call: () => Promise<unknown>,
  type: abstract new (...args: never[]) => E,
  kind: ApiError['kind'],
): Promise<E> {
  let error: unknown;
  try {
    const value = await call();
    throw new Error(`expected ${kind}, got ${JSON.stringify(value)?.slice(0, 200)}`);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(type);
  const typed = error as E;
  expect(typed.kind).toBe(kind);
  expect(typed.endpoint).toMatch(/^(GET|POST|PUT|DELETE) /);
  expect(typed.message.length).toBeGreaterThan(0);
  expect(typed.message).not.toMatch(/[\r\n]/);
  return typed;
}

describe('answers that are not what they claim', () => {
  it.each(['garbage', 'html-200', 'truncated', 'empty-200', 'null-200'])('%s with 200 → BadResponseError', async (token) => {
    const c = client(token);
    const error = await failsWith(() => c.entries.page({}, 1), BadResponseError, 'bad-response');
    expect(error.endpoint).toBe('GET /drive/file-entries');
    expect(error.status).toBe(200);
    expect(hits.get(token)).toBe(1); // a bad answer is not retried
  });

  it.each(['id-as-string', 'data-not-array', 'array-of-numbers'])('listing of wrong types (%s) → BadResponseError', async (token) => {
    const c = client(token);
    const error = await failsWith(() => all(c.entries.list()), BadResponseError, 'bad-response');
    expect(error.message).toMatch(/unexpected answer/);
  });

  it('other endpoints check their answers too', async () => {
    await failsWith(() => client('folder-without-folder').entries.createFolder('abc', null), BadResponseError, 'bad-response');
    await failsWith(() => client('folder-without-folder').entries.move([1], null), BadResponseError, 'bad-response');
    await failsWith(() => client('subscribers-object').lists.page('list', 1), BadResponseError, 'bad-response');
    await failsWith(() => client('array-of-numbers').links.get(1), BadResponseError, 'bad-response');
    await failsWith(() => client('null-200').sharing.share(1, ['a@example.com'], ['view']), BadResponseError, 'bad-response');
    const path = join(dir, 'upload-src');
    await writeFile(path, 'content');
    await failsWith(
      () => client('folder-without-folder').transfers.upload(path, { name: 'x.txt', parentId: null }),
      BadResponseError,
      'bad-response',
    );
  });

  it('login without an access token, register with a mistyped user → BadResponseError', async () => {
    const c = client(undefined);
    const credentials = { email: 'a@example.com', password: 'secret-password', tokenName: 't' };
    const login = await failsWith(() => c.auth.login(credentials), BadResponseError, 'bad-response');
    expect(login.endpoint).toBe('POST /auth/login');
    await failsWith(() => c.auth.register(credentials), BadResponseError, 'bad-response');
  });

  it('a body cut off mid-way → NetworkError', async () => {
    const c = client('cut-mid-body', { retry: { limit: 0 } });
    await failsWith(() => c.entries.page({}, 1), NetworkError, 'network');
  });
});

describe('bodies too big, too slow, or never', () => {
  it('an 80 MB body is cut off at maxResponseBytes → BadResponseError, without reading it all', async () => {
    const c = client('huge');
    const error = await failsWith(() => c.entries.page({}, 1), BadResponseError, 'bad-response');
    expect(error.message).toMatch(/larger than 1048576 bytes/);
    expect(hits.get('huge')).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(huge.sent).toBeLessThan(30 * 1024 * 1024);
  });

  it('an 80 MB error body is cut off too', async () => {
    const c = client('huge-error', { retry: { limit: 0 } });
    await failsWith(() => c.entries.page({}, 1), BadResponseError, 'bad-response');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hugeError.sent).toBeLessThan(30 * 1024 * 1024);
  });

  it('a slow drip (1 byte every 200 ms) → TimeoutError at the request timeout', async () => {
    const c = client('drip', { retry: { limit: 0 } });
    const started = performance.now();
    const error = await failsWith(() => c.entries.page({}, 1), TimeoutError, 'timeout');
    expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUTS.request - 100);
    expect(error.endpoint).toBe('GET /drive/file-entries');
  });

  it('a server that never answers → TimeoutError at the response timeout', async () => {
    const c = client('silent', { retry: { limit: 0 } });
    const started = performance.now();
    await failsWith(() => c.entries.page({}, 1), TimeoutError, 'timeout');
    expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUTS.response - 100);
  });

  it('a timed-out GET is retried within the call\'s one deadline', async () => {
    hits.delete('silent');
    const c = client('silent', { retry: { limit: 1 } });
    await failsWith(() => c.lists.show('list', 'someone'), TimeoutError, 'timeout');
    expect(c.retries).toHaveLength(1);
    expect(hits.get('silent')).toBe(2);
  });

  it('an upload to a server that never answers → TimeoutError, not a hang', async () => {
    const path = join(dir, 'silent-upload');
    await writeFile(path, randomBytes(10_000));
    const c = client('silent');
    await failsWith(() => c.transfers.upload(path, { name: 'x.bin', parentId: null }), TimeoutError, 'timeout');
    expect(c.retries).toEqual([]);
  });

  it('an upload or a download cancelled through its signal → AbortedError at once', async () => {
    const path = join(dir, 'cancelled-upload');
    await writeFile(path, randomBytes(2 * 1024 * 1024));
    const up = new AbortController();
    setTimeout(() => up.abort(), 150);
    await failsWith(() => client('silent').transfers.upload(path, { name: 'x.bin', parentId: null, signal: up.signal }), AbortedError, 'aborted');
    const down = new AbortController();
    setTimeout(() => down.abort(), 150);
    await failsWith(
      () => client('drip').transfers.download({ id: 1, url: 'api/v1/file-entries/1' }, join(dir, 'cancelled-dl'), { signal: down.signal }),
      AbortedError,
      'aborted',
    );
  });

  it('a download from a server that never answers → TimeoutError', async () => {
    const c = client('silent');
    await failsWith(
      () => c.transfers.download({ id: 1, url: 'api/v1/file-entries/1' }, join(dir, 'silent-dl'), { retries: 0 }),
      TimeoutError,
      'timeout',
    );
  });
});

describe('listings that do not end', () => {
  it('a bare-array listing that ignores `page` (same full page forever) → BadResponseError, not a loop', async () => {
    const c = client('same-page-array');
    const error = await failsWith(() => all(c.entries.list({ perPage: 5 })), BadResponseError, 'bad-response');
    expect(error.message).toMatch(/repeats/);
    expect(hits.get('same-page-array')).toBe(2);
  });

  it('a paginator that ignores `page` → BadResponseError', async () => {
    const c = client('same-page-paginator');
    await failsWith(() => all(c.entries.list({ perPage: 5 })), BadResponseError, 'bad-response');
    expect(hits.get('same-page-paginator')).toBeLessThanOrEqual(2);
    const bare = client('same-page-no-hints');
    await failsWith(() => all(bare.entries.list({ perPage: 5 })), BadResponseError, 'bad-response');
    expect(hits.get('same-page-no-hints')).toBeLessThanOrEqual(2);
  });

  it('a paginator whose next_page goes backwards → BadResponseError', async () => {
    const c = client('backwards');
    const error = await failsWith(() => all(c.entries.list()), BadResponseError, 'bad-response');
    expect(error.message).toMatch(/page 2 names page 1/);
    expect(hits.get('backwards')).toBe(2);
  });

  it('tree() over a listing that ignores `page` fails the same way', async () => {
    const c = client('same-page-array');
    await failsWith(() => all(c.entries.tree({ perPage: 3 })), BadResponseError, 'bad-response');
  });

  it('a subscriber index that ignores `page` → BadResponseError', async () => {
    const c = client('subscribers-same-page');
    const error = await failsWith(() => all(c.lists.subscribers('list')), BadResponseError, 'bad-response');
    expect(error.endpoint).toBe('GET /lists/{list_id}/subscribers');
    expect(hits.get('subscribers-same-page')).toBe(2);
  });
});

describe('odd error answers', () => {
  it('500 with an HTML body → ServerError (retried, then given up), one-line message', async () => {
    const c = client('500-html');
    const error = await failsWith(() => c.entries.page({}, 1), ServerError, 'server');
    expect(error.status).toBe(500);
    expect(error.message).toBe('server error 500');
    expect(c.retries).toHaveLength(1);
    expect(hits.get('500-html')).toBe(2);
  });

  it('502 with no body → ServerError', async () => {
    const error = await failsWith(() => client('502-empty').lists.page('l', 1), ServerError, 'server');
    expect(error.status).toBe(502);
  });

  it('429 without Retry-After → retried with backoff, then RateLimitedError without retryAfterMs', async () => {
    const c = client('429-no-retry-after');
    const error = await failsWith(() => c.entries.page({}, 1), RateLimitedError, 'rate-limited');
    expect(error.retryAfterMs).toBeUndefined();
    expect(c.retries.map((r) => r.delayMs)).toEqual([250]);
  });

  it('429 with a Retry-After date an hour away → RateLimitedError at once with about an hour', async () => {
    const c = client('429-date');
    const error = await failsWith(() => c.entries.page({}, 1), RateLimitedError, 'rate-limited');
    expect(error.retryAfterMs).toBeGreaterThan(3_500_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(3_600_000);
    expect(c.retries).toEqual([]);
  });

  it('401 with HTML, a multi-line message or a non-string message → UnauthorizedError', async () => {
    const html = await failsWith(() => client('401-html').entries.page({}, 1), UnauthorizedError, 'unauthorized');
    expect(html.status).toBe(401);
    const multi = await failsWith(() => client('401-multiline').entries.page({}, 1), UnauthorizedError, 'unauthorized');
    expect(multi.message).toBe('Unauthenticated.');
    await failsWith(() => client('401-message-object').entries.createFolder('abc', null), UnauthorizedError, 'unauthorized');
  });

  it('403 with a text body → ForbiddenError', async () => {
    const error = await failsWith(() => client('403-text').entries.rename(1, 'abc'), ForbiddenError, 'forbidden');
    expect(error).toMatchObject({ status: 403, endpoint: 'PUT /file-entries/{entryId}' });
  });

  it('403 with field errors (older list deployments) → InvalidError with the fields', async () => {
    const error = await failsWith(() => client('403-fields').lists.store('l', { EMAIL: 'a@example.com' }), InvalidError, 'invalid');
    expect(error.status).toBe(403);
    expect(error.fields).toEqual({ EMAIL: 'The EMAIL has already been taken.' });
  });

  it('404 with a null or empty body → NotFoundError; links.get answers null', async () => {
    await failsWith(() => client('404-null').entries.rename(1, 'abc'), NotFoundError, 'not-found');
    await failsWith(() => client('404-empty').lists.show('l', 'x'), NotFoundError, 'not-found');
    expect(await client('404-empty').links.get(1)).toBeNull();
  });

  it('409 → ConflictError, and "already" for subscribe/unsubscribe', async () => {
    await failsWith(() => client('409-conflict').entries.createFolder('abc', null), ConflictError, 'conflict');
    expect(await client('409-conflict').lists.subscribe('l', 'x')).toBe('already');
    expect(await client('409-conflict').lists.unsubscribe('l', 'x')).toBe('already');
  });

  it('422 with lists of messages per field and no status key → InvalidError with the first message', async () => {
    const error = await failsWith(() => client('422-arrays-no-status').entries.createFolder('abc', null), InvalidError, 'invalid');
    expect(error.fields).toEqual({ name: 'The name is too short.' });
    expect(error.message).toBe('The name is too short.');
    expect(error.status).toBe(422);
  });

  it('422 with errors as a bare list, without a message, or with nothing → InvalidError, one-line message', async () => {
    const list = await failsWith(() => client('422-errors-list').entries.createFolder('abc', null), InvalidError, 'invalid');
    expect(list.message).toBe('Invalid.');
    expect(list.fields).toEqual({});
    const noMessage = await failsWith(() => client('422-no-message').entries.createFolder('abc', null), InvalidError, 'invalid');
    expect(noMessage.fields.name).toMatch(/^first line/);
    expect(noMessage.message).toBe('first line');
    const nothing = await failsWith(() => client('422-nothing').entries.createFolder('abc', null), InvalidError, 'invalid');
    expect(nothing.fields).toEqual({});
  });
});

describe('redirects and content addresses', () => {
  it('a redirect to another origin never carries the bearer token there', async () => {
    const c = client('redirect-elsewhere');
    elsewhereHeaders.length = 0;
    // Following it or refusing it are both fine; leaking the token is not.
    await c.entries.page({}, 1).catch((error: unknown) => expect(error).toBeInstanceOf(ApiError));
    for (const headers of elsewhereHeaders) expect(headers.authorization).toBeUndefined();
  });

  it('a redirect loop ends in a typed error', async () => {
    const error = await anyFailure(() => client('redirect-loop').entries.page({}, 1));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).not.toMatch(/[\r\n]/);
  });

  it('a content url pointing off the server is refused before any request', async () => {
    const c = client('range-ignored');
    const error = await failsWith(
      () => c.transfers.download({ id: 1, url: 'http://localhost:1/steal' }, join(dir, 'off')),
      BadResponseError,
      'bad-response',
    );
    expect(error.message).toMatch(/off the server/);
  });
});

describe('downloads from odd servers', () => {
  it('a resume answered 416 starts over and gets the whole content', async () => {
    rangesSeen.length = 0;
    const dest = join(dir, 'resume-416');
    await writeFile(dest, randomBytes(5000));
    const size = await client('range-416').transfers.download({ id: 1, url: 'api/v1/file-entries/1' }, dest, { resume: true, retries: 0 });
    expect(size).toBe(CONTENT.length);
    expect((await readFile(dest)).equals(CONTENT)).toBe(true);
    expect(rangesSeen).toEqual(['bytes=5000-', undefined]);
  });

  it('a server ignoring Range (200 with everything) overwrites instead of appending', async () => {
    rangesSeen.length = 0;
    const dest = join(dir, 'resume-ignored');
    await writeFile(dest, CONTENT.subarray(0, 40_000));
    const size = await client('range-ignored').transfers.download({ id: 1, url: 'api/v1/file-entries/1' }, dest, { resume: true });
    expect(size).toBe(CONTENT.length);
    expect((await readFile(dest)).equals(CONTENT)).toBe(true);
    expect(rangesSeen).toEqual(['bytes=40000-']);
  });

  it('a content body cut short every time → typed error after the retries, never a short file reported as done', async () => {
    const waits: number[] = [];
    const dest = join(dir, 'short');
    const error = await anyFailure(() =>
      client('content-short').transfers.download({ id: 1, url: 'api/v1/file-entries/1' }, dest, {
        retries: 2,
        sleep: async (ms) => void waits.push(ms),
      }),
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(['network', 'bad-response']).toContain(error.kind);
    expect(waits).toHaveLength(2);
  });
});

async function anyFailure(call: () => Promise<unknown>): Promise<ApiError> {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected a failure');
}
