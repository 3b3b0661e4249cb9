// Every DriveClient function against the real reference server on loopback: the documents profile in both listing
// formats, and the deployed profile (root-children listings, perPage 50, camelCase link fields, permissions as an
// object, bootstrapData on register, {link: null}, delete forever without the flag, empty move answers). Plus a small
// stub server to see exactly what the client sends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startTestServer, type ProfileName, type TestServer } from '../helpers/server.js';
import { addList } from '../../server/lists.js';
import {
  ApiError,
  BadResponseError,
  DriveClient,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  UnauthorizedError,
  type FileEntry,
  type TransferProgress,
} from '../../main/api/index.js';
import { tempDir } from '../helpers/temp.js';

type ListFormat = 'paginator' | 'array';

interface Logged {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

/** Every request the reference server receives (observed on its node server, without touching the handling). */
function recordRequests(server: TestServer): Logged[] {
  const log: Logged[] = [];
  server.app.server.on('request', (req: IncomingMessage) => {
    const url = new URL(req.url ?? '/', 'http://x');
    log.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers });
  });
  return log;
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The error a promise rejects with; a promise that resolves fails the test. */
async function failure(promise: Promise<unknown>): Promise<ApiError> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error(`expected a failure, got ${JSON.stringify(value)?.slice(0, 200)}`);
}

function expectOneLine(error: ApiError) {
  expect(error.message.length).toBeGreaterThan(0);
  expect(error.message).not.toMatch(/[\r\n]/);
  expect(error.summary).toBe(`${error.endpoint}: ${error.message}`);
}

const ids = (entries: readonly { id: number }[]) => entries.map((e) => e.id).sort((a, b) => a - b);

// ---------------------------------------------------------------------------------------------------------------
// The stub: register with bootstrapData, GET shareable-link 200 {link: null}, DELETE /file-entries recorded, and a
// listing that answers only the root's children unless parentIds is given (as deployed versions do).

interface StubEntry {
  id: number;
  name: string;
  type: string;
  parent_id: number | null;
}

interface Stub {
  url: string;
  requests: Array<{ method: string; path: string; query: URLSearchParams; body: string }>;
  entries: StubEntry[];
  close(): Promise<void>;
}

function stubTree(): StubEntry[] {
  const entries: StubEntry[] = [];
  // 60 root folders (more than one parentIds batch of 50), each with a folder inside; the first of those holds a
  // third-level folder with a file; plus one root file.
  for (let i = 1; i <= 60; i++) entries.push({ id: i, name: `root folder ${i}`, type: 'folder', parent_id: null });
  for (let i = 1; i <= 60; i++) entries.push({ id: 100 + i, name: `inner ${i}`, type: 'folder', parent_id: i });
  entries.push({ id: 201, name: 'third level', type: 'folder', parent_id: 101 });
  entries.push({ id: 301, name: 'deep.txt', type: 'text', parent_id: 201 });
  entries.push({ id: 400, name: 'top.txt', type: 'text', parent_id: null });
  return entries;
}

async function startStub(format: ListFormat): Promise<Stub> {
  const requests: Stub['requests'] = [];
  const entries = stubTree();
  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body = Buffer.concat(chunks).toString('utf8');
      const method = req.method ?? '';
      requests.push({ method, path: url.pathname, query: url.searchParams, body });
      const user = { id: 7, email: 'stub@example.com', access_token: 'stub-token', display_name: 'stub' };
      if (method === 'POST' && url.pathname === '/api/v1/auth/register') return send(res, 200, { bootstrapData: { user } });
      if (method === 'POST' && url.pathname === '/api/v1/auth/login') return send(res, 200, { status: 'success', user });
      if (method === 'GET' && /^\/api\/v1\/file-entries\/[^/]+\/shareable-link$/.test(url.pathname)) {
        return send(res, 200, { link: null });
      }
      if (method === 'DELETE' && url.pathname === '/api/v1/file-entries') return send(res, 200, { status: 'success' });
      if (method === 'GET' && url.pathname === '/api/v1/drive/file-entries') {
        const page = Number(url.searchParams.get('page') ?? '1');
        const perPage = Number(url.searchParams.get('perPage') ?? '50');
        const parentIds = url.searchParams.get('parentIds');
        const parents = parentIds === null ? null : new Set(parentIds.split(',').map(Number));
        const matching = entries.filter((e) => (parents === null ? e.parent_id === null : e.parent_id !== null && parents.has(e.parent_id)));
        const data = matching.slice((page - 1) * perPage, page * perPage);
        if (format === 'array') return send(res, 200, data);
        const last = Math.max(1, Math.ceil(matching.length / perPage));
        return send(res, 200, {
          current_page: page,
          data,
          last_page: last,
          next_page: page < last ? page + 1 : null,
          per_page: perPage,
          total: matching.length,
        });
      }
      send(res, 404, { message: 'stub: no such route' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    entries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---------------------------------------------------------------------------------------------------------------

const VARIANTS: ReadonlyArray<{ profile: ProfileName; listFormat: ListFormat }> = [
  { profile: 'documents', listFormat: 'paginator' },
  { profile: 'documents', listFormat: 'array' },
  { profile: 'deployed', listFormat: 'paginator' },
];

describe.each(VARIANTS)('DriveClient against the reference server ($profile profile, $listFormat listings)', ({ profile, listFormat }) => {
  const deployed = profile === 'deployed';
  let server: TestServer;
  let stub: Stub;
  let log: Logged[];
  let dir: string;
  let seq = 0;

  beforeAll(async () => {
    server = await startTestServer({ profile, listFormat });
    log = recordRequests(server);
    stub = await startStub(listFormat);
    dir = tempDir(`api-${profile}-${listFormat}`);
  });
  afterAll(async () => {
    await server?.close();
    if (server) await rm(server.context.dataDir, { recursive: true, force: true });
    await stub?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const email = (label: string) => `${label}-${profile}-${listFormat}-${++seq}@example.com`;
  const tempFile = async (content: string | Uint8Array) => {
    const path = join(dir, `src-${++seq}`);
    await writeFile(path, content);
    return path;
  };
  /** A fresh account and a client signed in as it. */
  const account = async (label = 'user') => {
    const anonymous = new DriveClient({ origin: server.url });
    const address = email(label);
    const session = await anonymous.auth.register({ email: address, password: 'secret-password', tokenName: 'tests' });
    const client = new DriveClient({ origin: server.url, token: session.token });
    return { client, session, email: address };
  };
  const upload = async (client: DriveClient, name: string, content: string | Uint8Array, parentId: number | null = null) =>
    client.transfers.upload(await tempFile(content), { name, parentId });
  const contentOf = async (client: DriveClient, entry: FileEntry) => {
    const dest = join(dir, `dl-${++seq}`);
    await client.transfers.download(entry, dest);
    return readFile(dest);
  };

  describe('auth', () => {
    it('register answers the user and a working token; login issues another working token', async () => {
      const anonymous = new DriveClient({ origin: server.url });
      const address = email('auth');
      const registered = await anonymous.auth.register({ email: address, password: 'secret-password', tokenName: 'reg' });
      expect(registered.user.email).toBe(address);
      expect(registered.token).toBe(registered.user.access_token);
      expect(registered.token.length).toBeGreaterThan(10);

      const loggedIn = await anonymous.auth.login({ email: address, password: 'secret-password', tokenName: 'login' });
      expect(loggedIn.user.id).toBe(registered.user.id);
      expect(loggedIn.token).not.toBe(registered.token);

      for (const token of [registered.token, loggedIn.token]) {
        const client = new DriveClient({ origin: server.url, token });
        const folder = await client.entries.createFolder(`made with ${token.slice(0, 4)}`, null);
        expect(folder.type).toBe('folder');
      }
      // The token may also come from a function, read on every request.
      let current: string | undefined;
      const lazy = new DriveClient({ origin: server.url, token: () => current });
      expect(await failure(lazy.entries.page({}, 1))).toBeInstanceOf(UnauthorizedError);
      current = loggedIn.token;
      expect((await lazy.entries.page({}, 1)).entries).toHaveLength(2);
    });

    it('wrong credentials and a taken e-mail are InvalidError with the email field', async () => {
      const { email: address } = await account('auth-bad');
      const anonymous = new DriveClient({ origin: server.url });
      const wrong = await failure(anonymous.auth.login({ email: address, password: 'not-the-password', tokenName: 't' }));
      expect(wrong).toBeInstanceOf(InvalidError);
      expect(wrong.endpoint).toBe('POST /auth/login');
      expect((wrong as InvalidError).fields.email).toBeTruthy();
      expectOneLine(wrong);
      const taken = await failure(anonymous.auth.register({ email: address, password: 'secret-password', tokenName: 't' }));
      expect(taken).toBeInstanceOf(InvalidError);
      expect(taken.endpoint).toBe('POST /auth/register');
      expect((taken as InvalidError).fields.email).toMatch(/taken/);
    });
  });

  describe('entries: listing', () => {
    it('page() answers one page and the number of the next one', async () => {
      const { client } = await account('page');
      // Deployed versions answer 50 a page whatever perPage asks.
      const size = deployed ? 50 : 2;
      const made: FileEntry[] = [];
      for (let i = 0; i < 2 * size + 1; i++) made.push(await client.entries.createFolder(`folder ${i}`, null));
      const first = await client.entries.page({ perPage: 2 }, 1);
      expect(ids(first.entries)).toEqual(ids(made.slice(0, size)));
      expect(first.next).toBe(2);
      const third = await client.entries.page({ perPage: 2 }, 3);
      expect(ids(third.entries)).toEqual(ids(made.slice(2 * size)));
      expect(third.next).toBeNull();
      const past = await client.entries.page({ perPage: 2 }, 9);
      expect(past.entries).toEqual([]);
      expect(past.next).toBeNull();
      // The paginator's total, when the server answers one (the idle poll's cheap check reads it).
      expect(first.total).toBe(listFormat === 'array' ? undefined : 2 * size + 1);
      // count(): the total from a page past the end, no entries sent; none where the server gives no total.
      const before = log.length;
      expect(await client.entries.count({})).toBe(listFormat === 'array' ? null : 2 * size + 1);
      expect(log.slice(before).map((r) => r.query.get('page'))).toEqual(['1000000']);
      // list() follows the pages the server makes, whatever their size.
      expect(ids(await all(client.entries.list({ perPage: 2 })))).toEqual(ids(made));
    });

    it('list() walks every page of children of several parentIds, sent as one comma-separated value', async () => {
      const { client } = await account('list');
      const a = await client.entries.createFolder('folder A', null);
      const b = await client.entries.createFolder('folder B', null);
      const c = await client.entries.createFolder('folder C', null);
      const expected: FileEntry[] = [];
      for (let i = 0; i < 3; i++) expected.push(await client.entries.createFolder(`in A ${i}`, a.id));
      for (let i = 0; i < 3; i++) expected.push(await upload(client, `in B ${i}.txt`, `b${i}`, b.id));
      expected.push(await client.entries.createFolder('in B folder', b.id));
      await client.entries.createFolder('in C only', c.id);

      log.length = 0;
      const listed = await all(client.entries.list({ parentIds: [a.id, b.id], perPage: 2 }));
      expect(ids(listed)).toEqual(ids(expected));
      expect(new Set(listed.map((e) => e.id)).size).toBe(listed.length);
      const requests = log.filter((r) => r.path === '/api/v1/drive/file-entries');
      expect(requests.length).toBeGreaterThanOrEqual(deployed ? 1 : 4);
      expect(requests.map((r) => r.query.get('page'))).toEqual(requests.map((_, i) => String(i + 1)));
      for (const r of requests) {
        expect(r.query.getAll('parentIds')).toEqual([`${a.id},${b.id}`]);
        expect(r.query.get('perPage')).toBe('2');
      }
    });

    it('filters: query, type, starredOnly, deletedOnly, recentOnly, sharedOnly, workspaceId', async () => {
      const { client } = await account('filters');
      const other = await account('filters-other');
      const folder = await client.entries.createFolder('needle folder', null);
      const needle = await upload(client, 'a needle.txt', 'n', folder.id);
      const hay = await upload(client, 'hay.txt', 'h');
      const older = await upload(client, 'older.txt', 'o');
      const newest = await upload(client, 'newest.txt', 'x');

      expect(ids(await all(client.entries.list({ query: 'needle', perPage: 1 })))).toEqual(ids([folder, needle]));
      expect(ids(await all(client.entries.list({ type: 'folder' })))).toEqual([folder.id]);

      await client.entries.star([hay.id, needle.id]);
      expect(ids(await all(client.entries.list({ starredOnly: true, perPage: 1 })))).toEqual(ids([hay, needle]));

      await client.entries.trash([older.id]);
      expect(ids(await all(client.entries.list({ deletedOnly: true })))).toEqual([older.id]);

      const recent = await all(client.entries.list({ recentOnly: true, perPage: 2 }));
      expect(recent.map((e) => e.id)).toEqual([newest.id, hay.id, needle.id]);

      await client.sharing.share(hay.id, [other.email], ['view']);
      expect(ids(await all(other.client.entries.list({ sharedOnly: true })))).toEqual([hay.id]);
      expect(await all(client.entries.list({ sharedOnly: true }))).toEqual([]);

      // Without a selector: the whole drive as documented, the root's children as deployed.
      expect(ids(await all(client.entries.list({ workspaceId: 0 })))).toEqual(ids(deployed ? [folder, hay, newest] : [folder, needle, hay, newest]));
      expect(await all(client.entries.list({ workspaceId: 5 }))).toEqual([]);
    });

    it('tree() answers the whole drive with folders nested three levels deep', async () => {
      const { client } = await account('tree');
      const top = await client.entries.createFolder('level one', null);
      const mid = await client.entries.createFolder('level two', top.id);
      const low = await client.entries.createFolder('level three', mid.id);
      const deep = await upload(client, 'deep.txt', 'deep', low.id);
      const side = await client.entries.createFolder('side folder', null);
      const sideFile = await upload(client, 'side.txt', 'side', side.id);
      const rootFile = await upload(client, 'root.txt', 'root');

      log.length = 0;
      const whole = await all(client.entries.tree({ perPage: 2 }));
      expect(ids(whole)).toEqual(ids([top, mid, low, deep, side, sideFile, rootFile]));
      expect(new Set(whole.map((e) => e.id)).size).toBe(whole.length);
      // As documented one listing holds it all; as deployed the folders are walked by parentIds, several a request.
      const walked = log.filter((r) => r.path === '/api/v1/drive/file-entries' && r.query.has('parentIds'));
      expect(walked.map((r) => r.query.get('parentIds'))).toEqual(deployed ? [`${top.id},${side.id}`, `${mid.id}`, `${low.id}`] : []);

      // Under one folder: walked breadth-first with parentIds, the folder itself excluded.
      const under = await all(client.entries.tree({ rootId: top.id, perPage: 1 }));
      expect(under.map((e) => e.id)).toEqual([mid.id, low.id, deep.id]);
    });

    it('tree() walks breadth-first, many parentIds per request, when the listing holds only the root', async () => {
      const client = new DriveClient({ origin: stub.url, token: 'stub-token' });
      stub.requests.length = 0;
      const tree = await all(client.entries.tree({ perPage: 20 }));
      expect(ids(tree)).toEqual(ids(stub.entries));
      expect(new Set(tree.map((e) => e.id)).size).toBe(tree.length);
      // Breadth-first: every entry comes after its parent.
      const position = new Map(tree.map((e, i) => [e.id, i]));
      for (const entry of stub.entries) {
        if (entry.parent_id !== null) expect(position.get(entry.id)!).toBeGreaterThan(position.get(entry.parent_id)!);
      }
      const listings = stub.requests.filter((r) => r.path === '/api/v1/drive/file-entries');
      const batches = listings.map((r) => r.query.get('parentIds')).filter((p): p is string => p !== null);
      expect(batches.length).toBeGreaterThan(2);
      expect(Math.max(...batches.map((b) => b.split(',').length))).toBeGreaterThan(1);
      for (const batch of batches) expect(batch.split(',').length).toBeLessThanOrEqual(50);
      // Bounded: far fewer requests than one per folder.
      expect(listings.length).toBeLessThan(30);
    });
  });

  describe('entries: changes', () => {
    it('rename, update (description set and cleared) and createFolder at the root and inside a folder', async () => {
      const { client } = await account('rename');
      const parent = await client.entries.createFolder('parent folder', null);
      expect(parent).toMatchObject({ name: 'parent folder', type: 'folder' });
      expect(parent.parent_id ?? null).toBeNull();
      const child = await client.entries.createFolder('child folder', parent.id);
      expect(child.parent_id).toBe(parent.id);

      const file = await upload(client, 'before.txt', 'content');
      const renamed = await client.entries.rename(file.id, 'after.txt');
      expect(renamed).toMatchObject({ id: file.id, name: 'after.txt' });
      const described = await client.entries.update(file.id, { description: 'a description' });
      expect(described).toMatchObject({ name: 'after.txt', description: 'a description' });
      const cleared = await client.entries.update(file.id, { description: null });
      expect(cleared.description ?? null).toBeNull();
      const listed = await all(client.entries.list({ query: 'after' }));
      expect(listed.map((e) => e.name)).toEqual(['after.txt']);
    });

    it('move() of more than 30 entries goes in several requests and moves them all', async () => {
      const { client } = await account('move');
      const destination = await client.entries.createFolder('destination', null);
      const many: FileEntry[] = [];
      for (let i = 0; i < 35; i++) many.push(await client.entries.createFolder(`to move ${i}`, null));
      log.length = 0;
      const moved = await client.entries.move(many.map((e) => e.id), destination.id);
      const moves = log.filter((r) => r.method === 'POST' && r.path === '/api/v1/file-entries/move');
      expect(moves).toHaveLength(2);
      // Deployed versions answer an empty `entries`; the move happened all the same.
      expect(ids(moved)).toEqual(deployed ? [] : ids(many));
      for (const entry of moved) expect(entry.parent_id).toBe(destination.id);
      const inside = await all(client.entries.list({ parentIds: [destination.id] }));
      expect(ids(inside)).toEqual(ids(many));
      // And back to the root with null.
      await client.entries.move([many[0]!.id], null);
      expect((await all(client.entries.list({ query: 'to move 0' }))).map((e) => e.parent_id ?? null)).toEqual([null]);
    });

    it('duplicate() copies into a folder or beside the original, with the same content', async () => {
      const { client } = await account('duplicate');
      const target = await client.entries.createFolder('copies', null);
      const bytes = randomBytes(4096);
      const file = await upload(client, 'original.bin', bytes);
      const [copy] = await client.entries.duplicate([file.id], target.id);
      expect(copy).toBeDefined();
      expect(copy!.id).not.toBe(file.id);
      expect(copy).toMatchObject({ name: 'original.bin', parent_id: target.id, file_size: 4096 });
      expect((await contentOf(client, copy!)).equals(bytes)).toBe(true);
      const [beside] = await client.entries.duplicate([file.id]);
      expect(beside!.parent_id ?? null).toBeNull();
      expect(beside!.id).not.toBe(copy!.id);
    });

    // Deployed versions delete for good when deleteForever is absent: this passing there shows the flag is sent.
    it('trash() moves to trash (listed under deletedOnly), restore() brings it back to its folder', async () => {
      const { client } = await account('trash');
      const folder = await client.entries.createFolder('holder', null);
      const file = await upload(client, 'trashed.txt', 'bye', folder.id);
      await client.entries.trash([file.id]);
      const trashed = await all(client.entries.list({ deletedOnly: true }));
      expect(trashed.map((e) => e.id)).toEqual([file.id]);
      expect(trashed[0]!.deleted_at).toBeTruthy();
      expect(await all(client.entries.list({ parentIds: [folder.id] }))).toEqual([]);

      await client.entries.restore([file.id]);
      expect(await all(client.entries.list({ deletedOnly: true }))).toEqual([]);
      const back = await all(client.entries.list({ parentIds: [folder.id] }));
      expect(back.map((e) => e.id)).toEqual([file.id]);
      expect(back[0]!.deleted_at ?? null).toBeNull();
    });

    it('deleteForever() removes the entry and its content for good', async () => {
      const { client } = await account('forever');
      const file = await upload(client, 'gone.txt', 'gone');
      const kept = await upload(client, 'kept.txt', 'kept');
      await client.entries.trash([file.id]);
      await client.entries.deleteForever([file.id]);
      expect(await all(client.entries.list({ deletedOnly: true }))).toEqual([]);
      expect(ids(await all(client.entries.list()))).toEqual([kept.id]);
      const error = await failure(client.transfers.download(file, join(dir, `gone-${++seq}`), { retries: 0 }));
      expect(error).toBeInstanceOf(NotFoundError);
      // An active entry can be deleted for good directly too.
      await client.entries.deleteForever([kept.id]);
      expect(await all(client.entries.list())).toEqual([]);
      expect(await all(client.entries.list({ deletedOnly: true }))).toEqual([]);
    });

    it('trash and deleteForever always send deleteForever explicitly, as "false" / "true"', async () => {
      const client = new DriveClient({ origin: stub.url, token: 'stub-token' });
      stub.requests.length = 0;
      await client.entries.trash([5, 6]);
      await client.entries.deleteForever([7]);
      const deletes = stub.requests.filter((r) => r.method === 'DELETE' && r.path === '/api/v1/file-entries');
      expect(deletes.map((r) => JSON.parse(r.body))).toEqual([
        { entryIds: ['5', '6'], deleteForever: 'false' },
        { entryIds: ['7'], deleteForever: 'true' },
      ]);
    });

    it('star() and unstar() answer the tag and change starredOnly', async () => {
      const { client } = await account('star');
      const file = await upload(client, 'star.txt', 's');
      const tag = await client.entries.star([file.id]);
      expect(tag.name).toBe('starred');
      expect(ids(await all(client.entries.list({ starredOnly: true })))).toEqual([file.id]);
      const again = await client.entries.unstar([file.id]);
      expect(again.name).toBe('starred');
      expect(await all(client.entries.list({ starredOnly: true }))).toEqual([]);
    });
  });

  describe('sharing', () => {
    it('share reports unknown addresses; changePermissions and unshare change what the other account can do', async () => {
      const owner = await account('owner');
      const friend = await account('friend');
      const bytes = randomBytes(2048);
      const file = await upload(owner.client, 'shared.bin', bytes);

      const shared = await owner.client.sharing.share(file.id, [friend.email, 'nobody-here@example.com'], ['view', 'download']);
      expect(shared.users.map((u) => u.id)).toEqual([friend.session.user.id]);
      expect(shared.unknown).toEqual(['nobody-here@example.com']);
      expect(ids(await all(friend.client.entries.list({ sharedOnly: true })))).toEqual([file.id]);
      expect((await contentOf(friend.client, file)).equals(bytes)).toBe(true);

      const changed = await owner.client.sharing.changePermissions(file.id, friend.session.user.id, ['view']);
      expect(changed.map((u) => u.id)).toEqual([friend.session.user.id]);
      const refused = await failure(friend.client.transfers.download(file, join(dir, `refused-${++seq}`), { retries: 0 }));
      expect(refused).toBeInstanceOf(ForbiddenError);

      const left = await owner.client.sharing.unshare(file.id, friend.session.user.id);
      expect(left).toEqual([]);
      expect(await all(friend.client.entries.list({ sharedOnly: true }))).toEqual([]);
    });

    it('permissions go as the document’s list; where the answer shows fewer rights (deployed), again as an object, and so on after', async () => {
      const owner = await account('perm-owner');
      const friend = await account('perm-friend');
      const first = await upload(owner.client, 'first.txt', 'one');
      const second = await upload(owner.client, 'second.txt', 'two');
      const sent = () =>
        log.filter((r) => r.method === 'POST' && /\/share$/.test(r.path)).map((r) => r.path.split('/')[4]);
      log.length = 0;
      const shared = await owner.client.sharing.share(first.id, [friend.email], ['view', 'edit', 'download']);
      expect(shared.users[0]!.entry_permissions).toEqual({ view: true, edit: true, download: true });
      expect(sent()).toEqual(deployed ? [String(first.id), String(first.id)] : [String(first.id)]);
      // The friend may do what was asked: rename needs edit.
      expect((await friend.client.entries.rename(first.id, 'renamed by friend.txt')).name).toBe('renamed by friend.txt');
      log.length = 0;
      const again = await owner.client.sharing.share(second.id, [friend.email], ['view', 'download']);
      expect(again.users[0]!.entry_permissions).toEqual({ view: true, edit: false, download: true });
      expect(sent()).toEqual([String(second.id)]);
      const changed = await owner.client.sharing.changePermissions(second.id, friend.session.user.id, ['view', 'edit']);
      expect(changed[0]!.entry_permissions).toEqual({ view: true, edit: true, download: false });
    });
  });

  describe('shareable links', () => {
    it('get (null when none), create, update, publicUrl serves the bytes, delete', async () => {
      const { client } = await account('links');
      const bytes = randomBytes(3000);
      const file = await upload(client, 'linked.bin', bytes);
      expect(await client.links.get(file.id)).toBeNull();

      const link = await client.links.create(file.id, { allowDownload: true });
      expect(link.entry_id).toBe(file.id);
      expect(link.hash.length).toBeGreaterThan(0);
      const got = await client.links.get(file.id);
      expect(got?.link.id).toBe(link.id);
      // The entry's hash works as the id too.
      expect((await client.links.get(file.hash!))?.link.id).toBe(link.id);

      const url = client.links.publicUrl(link);
      expect(url.startsWith(`${server.url}/drive/s/`)).toBe(true);
      const fetched = await fetch(url);
      expect(fetched.status).toBe(200);
      expect(Buffer.from(await fetched.arrayBuffer()).equals(bytes)).toBe(true);

      const locked = await client.links.update(file.id, { allowDownload: false, allowEdit: true });
      expect(locked).toMatchObject({ id: link.id, allow_download: false, allow_edit: true });
      expect((await fetch(url)).status).toBe(403);
      const protectedLink = await client.links.update(file.id, { password: 'link-password' });
      expect(protectedLink.allow_download).toBe(true);
      expect(protectedLink.password).toBeTruthy();
      expect(protectedLink.password).not.toBe('link-password');
      expect((await fetch(url)).status).toBe(401);
      const opened = await fetch(`${url}?password=link-password`);
      expect(Buffer.from(await opened.arrayBuffer()).equals(bytes)).toBe(true);

      await client.links.delete(file.id);
      expect(await client.links.get(file.id)).toBeNull();
      expect((await fetch(url)).status).toBe(404);
      expect(await failure(client.links.delete(file.id))).toBeInstanceOf(NotFoundError);
      expect(await failure(client.links.update(file.id, {}))).toBeInstanceOf(NotFoundError);
    });

    it('a folder link carries its children', async () => {
      const { client } = await account('folder-link');
      const folder = await client.entries.createFolder('linked folder', null);
      const child = await upload(client, 'child.txt', 'c', folder.id);
      await client.links.create(folder.id);
      const info = await client.links.get(folder.id);
      expect(info?.folderChildren?.map((e) => e.id)).toEqual([child.id]);
    });
  });

  describe('mailing lists', () => {
    it('store, page, subscribers over several pages, show, subscribe/unsubscribe ("already" on 409), delete', async () => {
      const owner = await account('lists');
      const listId = addList(server.context.db, 'News', owner.email);
      const lists = owner.client.lists;
      const emails: string[] = [];
      const uids: string[] = [];
      for (let i = 0; i < 30; i++) {
        const address = `member${i}@example.com`;
        emails.push(address);
        uids.push(await lists.store(listId, { EMAIL: address, FIRST_NAME: `First ${i}` }));
      }
      expect(new Set(uids).size).toBe(30);

      const first = await lists.page(listId, 1);
      expect(first.map((s) => s.email)).toEqual(emails.slice(0, 25));
      expect(await lists.page(listId, 2, 10)).toHaveLength(10);

      log.length = 0;
      const everyone = await all(lists.subscribers(listId));
      expect(everyone.map((s) => s.email)).toEqual(emails);
      expect(everyone.map((s) => s.uid)).toEqual(uids);
      const pages = log.filter((r) => r.path === `/api/v1/lists/${listId}/subscribers`).map((r) => r.query.get('page'));
      expect(pages).toEqual(['1', '2']);
      expect(await all(lists.subscribers(listId, 7))).toHaveLength(30);

      const shown = await lists.show(listId, uids[3]!);
      expect(shown).toMatchObject({ uid: uids[3], email: emails[3], status: 'subscribed', FIRST_NAME: 'First 3' });
      expect((await lists.show(listId, emails[4]!)).uid).toBe(uids[4]);

      expect(await lists.subscribe(listId, uids[0]!)).toBe('already');
      expect(await lists.unsubscribe(listId, uids[0]!)).toBe('changed');
      expect((await lists.show(listId, uids[0]!)).status).toBe('unsubscribed');
      expect(await lists.unsubscribe(listId, uids[0]!)).toBe('already');
      expect(await lists.subscribe(listId, uids[0]!)).toBe('changed');
      expect((await lists.show(listId, uids[0]!)).status).toBe('subscribed');

      if (deployed) {
        // Deployed versions update the subscriber the list has and answer its id.
        expect(await lists.store(listId, { EMAIL: emails[0]!, LAST_NAME: 'Again' })).toBe(uids[0]);
        expect(await lists.show(listId, uids[0]!)).toMatchObject({ LAST_NAME: 'Again' });
      } else {
        const duplicate = await failure(lists.store(listId, { EMAIL: emails[0]! }));
        expect(duplicate).toBeInstanceOf(InvalidError);
        expect((duplicate as InvalidError).fields.EMAIL).toBeTruthy();
      }

      await lists.delete(listId, uids[1]!);
      const missing = await failure(lists.show(listId, uids[1]!));
      expect(missing).toBeInstanceOf(NotFoundError);
      expect(missing.endpoint).toBe('GET /lists/{list_id}/subscribers/{id}');
      expect(await failure(lists.subscribe(listId, uids[1]!))).toBeInstanceOf(NotFoundError);
      expect(await all(lists.subscribers(listId))).toHaveLength(29);

      // Only the owner reaches the list.
      const stranger = await account('lists-stranger');
      expect(await failure(stranger.client.lists.page(listId, 1))).toBeInstanceOf(ForbiddenError);
      expect(await failure(stranger.client.lists.page('0123456789abc', 1))).toBeInstanceOf(NotFoundError);
    });
  });

  describe('transfers', () => {
    it('upload keeps names with quotes, backslashes and unicode exactly; download gives the same bytes', async () => {
      const { client } = await account('names');
      const folder = await client.entries.createFolder('uploads here', null);
      const names = [
        'he said "hi".txt',
        'back\\slash\\name.txt',
        'ünïcødé 日本語 🎉.txt',
        "it's; a=b & c%20d.bin",
        'tab\tand\u00a0nbsp.txt',
        'line\nbreak and\rreturn.txt',
        'crlf\r\nname.txt',
      ];
      for (const name of names) {
        const bytes = randomBytes(1000 + name.length);
        const progress: TransferProgress[] = [];
        const entry = await client.transfers.upload(await tempFile(bytes), {
          name,
          parentId: folder.id,
          onProgress: (p) => progress.push(p),
        });
        expect(entry.name).toBe(name);
        expect(entry.parent_id).toBe(folder.id);
        expect(entry.file_size).toBe(bytes.length);
        expect(progress.at(-1)).toEqual({ transferred: bytes.length, total: bytes.length });
        expect((await contentOf(client, entry)).equals(bytes)).toBe(true);
      }
      const listed = await all(client.entries.list({ parentIds: [folder.id] }));
      expect(listed.map((e) => e.name).sort()).toEqual([...names].sort());
    });

    it('upload of an empty file works; a missing file or a folder is refused before any request', async () => {
      const { client } = await account('empty');
      const empty = await upload(client, 'empty.txt', '');
      expect(empty.file_size).toBe(0);
      expect((await contentOf(client, empty)).length).toBe(0);
      log.length = 0;
      const missing = await failure(client.transfers.upload(join(dir, 'no-such-file'), { name: 'x.txt', parentId: null }));
      expect(missing).toMatchObject({ kind: 'aborted', endpoint: 'POST /uploads' });
      const folder = await failure(client.transfers.upload(dir, { name: 'x.txt', parentId: null }));
      expect(folder.kind).toBe('aborted');
      expect(log.filter((r) => r.path === '/api/v1/uploads')).toEqual([]);
    });

    it('upload with a relativePath creates the folders on it', async () => {
      const { client } = await account('relative');
      const entry = await client.transfers.upload(await tempFile('x'), { name: 'leaf.txt', parentId: null, relativePath: 'one/two/leaf.txt' });
      expect(entry.name).toBe('leaf.txt');
      const tree = await all(client.entries.tree());
      expect(tree.map((e) => e.name).sort()).toEqual(['leaf.txt', 'one', 'two']);
    });

    it('download resumes a partial file with a Range request and transfers only the rest', async () => {
      const { client } = await account('resume');
      const size = 1024 * 1024;
      const bytes = randomBytes(size);
      const entry = await upload(client, 'resume.bin', bytes);
      const half = size / 2;
      const dest = join(dir, `resume-${++seq}`);
      await writeFile(dest, bytes.subarray(0, half));

      log.length = 0;
      const progress: TransferProgress[] = [];
      const received = await client.transfers.download(entry, dest, {
        resume: true,
        expectedSize: size,
        onProgress: (p) => progress.push(p),
      });
      expect(received).toBe(size);
      expect((await readFile(dest)).equals(bytes)).toBe(true);
      const contentRequests = log.filter((r) => r.path === `/api/v1/file-entries/${entry.id}`);
      expect(contentRequests.map((r) => r.headers.range)).toEqual([`bytes=${half}-`]);
      // Counting started at the half already there: the first chunk took it past the half, not from zero.
      expect(progress[0]!.transferred).toBeGreaterThan(half);
      expect(progress.at(-1)).toEqual({ transferred: size, total: size });

      // Without resume the same destination is overwritten from zero.
      const fresh: TransferProgress[] = [];
      await writeFile(dest, 'garbage that is not a prefix');
      await client.transfers.download(entry, dest, { onProgress: (p) => fresh.push(p) });
      expect((await readFile(dest)).equals(bytes)).toBe(true);
      expect(fresh[0]!.transferred).toBeLessThan(half);

      // A size other than the expected one is an error.
      const wrong = await failure(client.transfers.download(entry, join(dir, `wrong-${++seq}`), { expectedSize: size + 1 }));
      expect(wrong).toBeInstanceOf(BadResponseError);
    });

    it('resume of a partial file as long as the content or longer (416 from the server) starts over', async () => {
      const { client } = await account('resume-416');
      const bytes = randomBytes(64 * 1024);
      const entry = await upload(client, 'whole.bin', bytes);
      const dest = join(dir, `resume416-${++seq}`);
      const instant = async () => {};
      for (const partial of [Buffer.concat([bytes, Buffer.from('extra')]), randomBytes(bytes.length)]) {
        await writeFile(dest, partial);
        log.length = 0;
        const size = await client.transfers.download(entry, dest, { resume: true, retries: 0, sleep: instant });
        expect(size).toBe(bytes.length);
        expect((await readFile(dest)).equals(bytes)).toBe(true);
        // One ranged request answered 416, then one whole download.
        const sent = log.filter((r) => r.path === `/api/v1/file-entries/${entry.id}`).map((r) => r.headers.range ?? null);
        expect(sent).toEqual([`bytes=${partial.length}-`, null]);
      }
    });

    it('resume with expectedSize does not ask for a range past the end: one whole download', async () => {
      const { client } = await account('resume-size');
      const bytes = randomBytes(64 * 1024);
      const entry = await upload(client, 'sized.bin', bytes);
      const dest = join(dir, `resume-size-${++seq}`);
      await writeFile(dest, randomBytes(bytes.length + 10));
      log.length = 0;
      const size = await client.transfers.download(entry, dest, { resume: true, expectedSize: bytes.length, retries: 0 });
      expect(size).toBe(bytes.length);
      expect((await readFile(dest)).equals(bytes)).toBe(true);
      const sent = log.filter((r) => r.path === `/api/v1/file-entries/${entry.id}`).map((r) => r.headers.range ?? null);
      expect(sent).toEqual([null]);
    });
  });

  describe('typed errors', () => {
    it('401 UnauthorizedError for a bad token', async () => {
      const client = new DriveClient({ origin: server.url, token: 'not-a-real-token' });
      const error = await failure(client.entries.page({}, 1));
      expect(error).toBeInstanceOf(UnauthorizedError);
      expect(error).toMatchObject({ kind: 'unauthorized', status: 401, endpoint: 'GET /drive/file-entries' });
      expectOneLine(error);
    });

    it('403 ForbiddenError for an entry of someone else', async () => {
      const owner = await account('forbidden-owner');
      const stranger = await account('forbidden-stranger');
      const folder = await owner.client.entries.createFolder('private folder', null);
      const error = await failure(stranger.client.entries.rename(folder.id, 'mine now'));
      expect(error).toBeInstanceOf(ForbiddenError);
      expect(error).toMatchObject({ kind: 'forbidden', status: 403, endpoint: 'PUT /file-entries/{entryId}' });
      expectOneLine(error);
      const listing = await failure(all(stranger.client.entries.list({ parentIds: [folder.id] })));
      expect(listing).toBeInstanceOf(ForbiddenError);
      expect(listing.endpoint).toBe('GET /drive/file-entries');
    });

    it('404 NotFoundError for an unknown entry', async () => {
      const { client } = await account('not-found');
      const error = await failure(client.entries.rename(987654321, 'whatever'));
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ kind: 'not-found', status: 404, endpoint: 'PUT /file-entries/{entryId}' });
      expectOneLine(error);
      const share = await failure(client.sharing.share(987654321, ['x@example.com'], ['view']));
      expect(share).toBeInstanceOf(NotFoundError);
      expect(share.endpoint).toBe('POST /file-entries/{entryId}/share');
    });

    it('422 InvalidError with the fields', async () => {
      const { client } = await account('invalid');
      const error = await failure(client.entries.createFolder('ab', null));
      expect(error).toBeInstanceOf(InvalidError);
      expect(error).toMatchObject({ kind: 'invalid', status: 422, endpoint: 'POST /folders' });
      expect((error as InvalidError).fields.name).toMatch(/between 3 and 200/);
      expectOneLine(error);
      await client.entries.createFolder('taken name', null);
      const taken = await failure(client.entries.createFolder('taken name', null));
      expect((taken as InvalidError).fields.name).toMatch(/exists/);
      const folder = await client.entries.createFolder('into itself', null);
      const loop = await failure(client.entries.move([folder.id], folder.id));
      expect(loop).toBeInstanceOf(InvalidError);
      expect((loop as InvalidError).fields.destinationId).toBeTruthy();
      expect(loop.endpoint).toBe('POST /file-entries/move');
    });
  });

  describe('deployment variants (stub server)', () => {
    it('register answering {bootstrapData: {user}} gives the session', async () => {
      const client = new DriveClient({ origin: stub.url });
      const session = await client.auth.register({ email: 'stub@example.com', password: 'secret-password', tokenName: 't' });
      expect(session).toEqual({ user: expect.objectContaining({ id: 7, email: 'stub@example.com' }), token: 'stub-token' });
      const body = JSON.parse(stub.requests.filter((r) => r.path === '/api/v1/auth/register').at(-1)!.body);
      expect(body).toEqual({
        email: 'stub@example.com',
        password: 'secret-password',
        password_confirmation: 'secret-password',
        token_name: 't',
      });
    });

    it('GET shareable-link answering 200 {link: null} is "no link"', async () => {
      const client = new DriveClient({ origin: stub.url, token: 'stub-token' });
      expect(await client.links.get(42)).toBeNull();
    });
  });
});
