// Retries, backoff and the typed errors of failures, against the reference server with fault injection turned on
// live (server.faults.set). The client waits through an injected clock: `sleep` records the delay and resolves at
// once, `random` is fixed, so every delay is exact and the file runs fast.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addList } from '../../server/lists.js';
import {
  ApiError,
  DriveClient,
  NetworkError,
  RateLimitedError,
  ServerError,
  isTransient,
  type FileEntry,
  type HttpOptions,
  type RetryEvent,
} from '../../main/api/index.js';
import { tempDir } from '../helpers/temp.js';

let server: TestServer;
let dir: string;
let seq = 0;

beforeAll(async () => {
  server = await startTestServer();
  dir = tempDir('faults');
});
afterAll(async () => {
  await server?.close();
  if (server) await rm(server.context.dataDir, { recursive: true, force: true });
  if (dir) await rm(dir, { recursive: true, force: true });
});
afterEach(() => server.faults.set(null));

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected a failure');
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

interface Harness {
  client: DriveClient;
  /** A client of the same account without faults' bookkeeping, to look at the server's state. */
  plain: DriveClient;
  retries: RetryEvent[];
  sleeps: number[];
}

/** A fresh account and a client on a virtual clock. */
async function harness(options: Partial<HttpOptions> = {}): Promise<Harness> {
  const { token } = await server.register(`faults-${++seq}@example.com`);
  const retries: RetryEvent[] = [];
  const sleeps: number[] = [];
  const client = new DriveClient({
    origin: server.url,
    token,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    onRetry: (event) => retries.push(event),
    ...options,
  });
  const plain = new DriveClient({ origin: server.url, token, retry: { limit: 0 } });
  return { client, plain, retries, sleeps };
}

async function sourceFile(content: string | Uint8Array): Promise<string> {
  const path = join(dir, `src-${++seq}`);
  await writeFile(path, content);
  return path;
}

const LISTING = 'match=GET:/api/v1/drive/file-entries';

describe('retries of idempotent requests', () => {
  it('a GET listing answered 503 twice succeeds after exactly 2 retries', async () => {
    const h = await harness();
    const folder = await h.client.entries.createFolder('still here', null);
    server.faults.set(`503=1,count=2,${LISTING}`);
    const page = await h.client.entries.page({}, 1);
    expect(page.entries.map((e) => e.id)).toEqual([folder.id]);
    expect(h.retries).toHaveLength(2);
    expect(h.retries.map((r) => r.attempt)).toEqual([1, 2]);
    for (const r of h.retries) {
      expect(r.reason).toBe('status 503');
      expect(r.endpoint).toBe('GET /api/v1/drive/file-entries');
    }
    expect(server.faults.count).toBe(2);
  });

  it('a 429 with Retry-After: 1 waits exactly 1000 ms (on the injected clock), then succeeds', async () => {
    const h = await harness();
    server.faults.set(`429=1,count=1,retry-after=1,${LISTING}`);
    const started = Date.now();
    await h.client.entries.page({}, 1);
    expect(h.retries.map((r) => r.delayMs)).toEqual([1000]);
    expect(h.sleeps).toEqual([1000]);
    expect(h.retries[0]!.reason).toBe('status 429');
    // The wait went through the virtual clock, not the real one.
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('a Retry-After longer than maxRetryAfterMs is not waited for: RateLimitedError with retryAfterMs', async () => {
    const h = await harness({ retry: { maxRetryAfterMs: 2000 } });
    server.faults.set(`429=1,retry-after=5,${LISTING}`);
    const error = await failure(h.client.entries.page({}, 1));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.kind).toBe('rate-limited');
    expect((error as RateLimitedError).retryAfterMs).toBe(5000);
    expect(error.endpoint).toBe('GET /drive/file-entries');
    expect(h.retries).toEqual([]);
    expect(h.sleeps).toEqual([]);
    expect(server.faults.count).toBe(1);
    expect(isTransient(error)).toBe(true);
  });

  it('a 429 on every try ends in RateLimitedError after the retry limit', async () => {
    const h = await harness({ retry: { limit: 2 } });
    server.faults.set(`429=1,retry-after=1,${LISTING}`);
    const error = await failure(h.client.entries.page({}, 1));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(1000);
    expect(h.sleeps).toEqual([1000, 1000]);
  });

  it('a 500 on every try ends in ServerError after `limit` retries', async () => {
    const h = await harness({ retry: { limit: 3 } });
    server.faults.set(`500=1,${LISTING}`);
    const error = await failure(h.client.entries.page({}, 1));
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ kind: 'server', status: 500, endpoint: 'GET /drive/file-entries' });
    expect(error.message).not.toMatch(/\n/);
    expect(h.retries).toHaveLength(3);
    expect(server.faults.count).toBe(4);
  });

  it('a dropped connection on GET is retried, and a persistent one ends in NetworkError', async () => {
    const h = await harness({ retry: { limit: 2 } });
    const folder = await h.client.entries.createFolder('after a drop', null);
    server.faults.set(`drop=1,count=1,${LISTING}`);
    expect((await h.client.entries.page({}, 1)).entries.map((e) => e.id)).toEqual([folder.id]);
    expect(h.retries).toHaveLength(1);
    expect(h.retries[0]!.reason).not.toMatch(/^status/);

    h.retries.length = 0;
    server.faults.set(`drop=1,${LISTING}`);
    const error = await failure(h.client.entries.page({}, 1));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.kind).toBe('network');
    expect(error.endpoint).toBe('GET /drive/file-entries');
    expect(error.message).not.toMatch(/\n/);
    expect(h.retries).toHaveLength(2);
    expect(server.faults.count).toBe(3);
  });

  it('list() retries each page on its own and still walks every page', async () => {
    const h = await harness();
    const made: FileEntry[] = [];
    for (let i = 0; i < 5; i++) made.push(await h.client.entries.createFolder(`paged ${i}`, null));
    server.faults.set(`503=0.5,seed=7,${LISTING}`);
    const listed = await all(h.client.entries.list({ perPage: 1 }));
    expect(listed.map((e) => e.id)).toEqual(made.map((e) => e.id));
    expect(h.retries.length).toBe(server.faults.count);
    expect(server.faults.count).toBeGreaterThan(0);
  });

  it('DELETE and PUT are retried (idempotent): a 503 on trash and rename still takes effect once', async () => {
    const h = await harness();
    const file = await h.client.transfers.upload(await sourceFile('x'), { name: 'retry me.txt', parentId: null });
    server.faults.set('503=1,count=1,match=PUT:/api/v1/file-entries/');
    const renamed = await h.client.entries.rename(file.id, 'renamed after 503.txt');
    expect(renamed.name).toBe('renamed after 503.txt');
    server.faults.set('503=1,count=1,match=DELETE:/api/v1/file-entries');
    await h.client.entries.trash([file.id]);
    expect(h.retries.map((r) => r.reason)).toEqual(['status 503', 'status 503']);
    const trashed = await all(h.plain.entries.list({ deletedOnly: true }));
    expect(trashed.map((e) => e.id)).toEqual([file.id]);
  });

  it('a mailing-list GET (store) is retried through a 503 and creates the subscriber once', async () => {
    // store is a GET that changes data, as the document says; a retry after a 503 answered before handling is safe.
    const h = await harness();
    const email = `faults-${seq}@example.com`;
    const listId = addList(server.context.db, 'Retry list', email);
    server.faults.set('503=1,count=1,match=GET:/api/v1/lists/');
    const uid = await h.client.lists.store(listId, { EMAIL: 'member@example.com' });
    expect(h.retries).toHaveLength(1);
    const members = await all(h.plain.lists.subscribers(listId));
    expect(members.map((m) => m.uid)).toEqual([uid]);
  });
});

describe('POST is never retried', () => {
  it('POST /uploads answered 500 fails at once: one attempt, no entry on the server', async () => {
    const h = await harness();
    server.faults.set('500=1,match=POST:/api/v1/uploads');
    const error = await failure(h.client.transfers.upload(await sourceFile('payload'), { name: 'refused.txt', parentId: null }));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.endpoint).toBe('POST /uploads');
    expect(h.retries).toEqual([]);
    expect(h.sleeps).toEqual([]);
    expect(server.faults.count).toBe(1);
    server.faults.set(null);
    expect(await all(h.plain.entries.list())).toEqual([]);
  });

  it('apply-drop on POST /uploads: NetworkError, and the entry is on the server exactly once', async () => {
    const h = await harness();
    const bytes = randomBytes(10_000);
    server.faults.set('apply-drop=1,match=POST:/api/v1/uploads');
    const error = await failure(h.client.transfers.upload(await sourceFile(bytes), { name: 'applied.bin', parentId: null }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.endpoint).toBe('POST /uploads');
    expect(h.retries).toEqual([]);
    expect(server.faults.count).toBe(1);
    server.faults.set(null);
    const listed = await all(h.plain.entries.list());
    expect(listed.map((e) => e.name)).toEqual(['applied.bin']);
    expect(listed[0]!.file_size).toBe(bytes.length);
    const dest = join(dir, `applied-${seq}`);
    await h.plain.transfers.download(listed[0]!, dest);
    expect((await readFile(dest)).equals(bytes)).toBe(true);
  });

  it('POST /folders answered 503 is not retried either', async () => {
    const h = await harness();
    server.faults.set('503=1,count=1,match=POST:/api/v1/folders');
    const error = await failure(h.client.entries.createFolder('not retried', null));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.status).toBe(503);
    expect(h.retries).toEqual([]);
    expect(await all(h.plain.entries.list())).toEqual([]);
  });
});

describe('backoff', () => {
  it('grows exponentially: with random 0.5 each delay is half of min(maxDelayMs, baseDelayMs * 2^(n-1))', async () => {
    const h = await harness({ retry: { limit: 6, baseDelayMs: 100, maxDelayMs: 1000 } });
    server.faults.set(`500=1,${LISTING}`);
    await failure(h.client.entries.page({}, 1));
    expect(h.retries.map((r) => r.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(h.sleeps).toEqual([50, 100, 200, 400, 500, 500]);
    expect(h.retries.map((r) => r.delayMs)).toEqual(h.sleeps);
  });

  it('full jitter: every delay lies within [0, min(maxDelayMs, baseDelayMs * 2^(n-1))]', async () => {
    const rolls = [0, 0.999999, 0.25, 0.75, 0.1, 0.9, 0.5, 0.33];
    let i = 0;
    const h = await harness({
      retry: { limit: rolls.length, baseDelayMs: 40, maxDelayMs: 2000 },
      random: () => rolls[i++ % rolls.length]!,
    });
    server.faults.set(`503=1,${LISTING}`);
    await failure(h.client.entries.page({}, 1));
    expect(h.sleeps).toHaveLength(rolls.length);
    h.sleeps.forEach((delay, n) => {
      const cap = Math.min(2000, 40 * 2 ** n);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(cap);
      expect(delay).toBe(Math.round(rolls[n]! * cap));
    });
  });

  it('with real timers the client really waits (a tiny base delay)', async () => {
    const { token } = await server.register(`faults-real-${++seq}@example.com`);
    const retries: RetryEvent[] = [];
    const client = new DriveClient({
      origin: server.url,
      token,
      random: () => 1,
      retry: { limit: 2, baseDelayMs: 60, maxDelayMs: 1000 },
      onRetry: (event) => retries.push(event),
    });
    server.faults.set(`503=1,count=2,${LISTING}`);
    const started = performance.now();
    await client.entries.page({}, 1);
    expect(retries.map((r) => r.delayMs)).toEqual([60, 120]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(170);
  });
});

describe('downloads', () => {
  it('a dropped content request is resumed by download() itself', async () => {
    const h = await harness();
    const bytes = randomBytes(200_000);
    const entry = await h.client.transfers.upload(await sourceFile(bytes), { name: 'dropped.bin', parentId: null });
    server.faults.set(`drop=1,count=1,match=GET:/api/v1/file-entries/${entry.id}`);
    const waits: number[] = [];
    const dest = join(dir, `dl-${++seq}`);
    const size = await h.client.transfers.download(entry, dest, {
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect(size).toBe(bytes.length);
    expect((await readFile(dest)).equals(bytes)).toBe(true);
    expect(waits).toHaveLength(1);
    expect(server.faults.count).toBe(1);
  });

  it('a content request failing every time ends in a typed error after `retries`', async () => {
    const h = await harness();
    const entry = await h.client.transfers.upload(await sourceFile('abc'), { name: 'never.bin', parentId: null });
    server.faults.set(`503=1,match=GET:/api/v1/file-entries/${entry.id}`);
    const waits: number[] = [];
    const error = await failure(
      h.client.transfers.download(entry, join(dir, `dl-${++seq}`), {
        retries: 2,
        sleep: async (ms) => {
          waits.push(ms);
        },
      }),
    );
    expect(error).toBeInstanceOf(ServerError);
    expect(error.status).toBe(503);
    expect(waits).toHaveLength(2);
    expect(server.faults.count).toBe(3);
  });
});
