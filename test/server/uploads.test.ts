// POST /uploads and the file content behind an entry's url, against the real server on a loopback port.
import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freshAccount, uploadForm, useTestServer, type Account, type Answer } from '../helpers/server.js';
import { expectSchema } from '../helpers/schema.js';
import { ErrorBody, FileEntry, FolderResponse, Paginator, UploadResponse, UsersResponse, ValidationErrorBody } from '../../main/api/schemas.js';

const API = '/api/v1';

const server = useTestServer();

type Entry = FileEntry & { id: number };

const account = () => freshAccount(server, 'uploads');

function expect422(answer: Answer, field?: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(422);
  expectSchema(ValidationErrorBody, answer.body, '422 body');
  expect(typeof answer.body.status).toBe('string');
  expect(answer.body.message.length).toBeGreaterThan(0);
  if (field !== undefined) expect(Object.keys(answer.body.errors)).toContain(field);
}

function expectError(answer: { status: number; body: unknown }, status: 401 | 403 | 404 | 416): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expectSchema(ErrorBody, answer.body, `${status} body`);
}

async function post(who: Account | null, form: FormData): Promise<Answer> {
  return server.call(who?.token ?? null, 'POST', `${API}/uploads`, form);
}

async function upload(who: Account, name: string, content: string | Uint8Array = `content of ${name}`, fields: { parentId?: number | null; relativePath?: string } = {}): Promise<Entry> {
  const answer = await post(who, uploadForm(name, content, fields));
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  expectSchema(UploadResponse, answer.body);
  expect(answer.body.status).toBe('success');
  return answer.body.fileEntry;
}

async function folder(who: Account, name: string, parentId: number | null = null): Promise<Entry> {
  const answer = await server.call(who.token, 'POST', `${API}/folders`, { name, parentId });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expectSchema(FolderResponse, answer.body);
  return answer.body.folder;
}

async function list(who: Account, params: Record<string, string> = {}): Promise<Entry[]> {
  const search = new URLSearchParams({ perPage: '1000', ...params });
  const answer = await server.call(who.token, 'GET', `${API}/drive/file-entries?${search}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expectSchema(Paginator, answer.body);
  return answer.body.data;
}

const ids = (entries: ReadonlyArray<{ id: number }>) => entries.map((e) => e.id);

interface Fetched {
  status: number;
  headers: Headers;
  bytes: Buffer;
  body: unknown;
}

/** The raw bytes behind a url (call() would decode them as text). */
async function fetchBytes(who: Account | null, url: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<Fetched> {
  const headers: Record<string, string> = { ...init.headers };
  if (who) headers.authorization = `Bearer ${who.token}`;
  const response = await fetch(`${server.url}/${url}`, { method: init.method ?? 'GET', headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, bytes, body };
}

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const tmpFiles = () => readdirSync(server.context.tmpDir);

describe('POST /uploads', () => {
  it('answers 201 with the new entry at the root', async () => {
    const me = await account();
    const entry = await upload(me, 'hello.txt', 'hello world');
    expect(entry).toMatchObject({ name: 'hello.txt', file_size: 11, mime: 'text/plain', type: 'text', parent_id: null, path: String(entry.id) });
    expect(entry.url).toBe(`api/v1/file-entries/${entry.id}`);
    expect(existsSync(join(server.context.blobDir, entry.file_name!))).toBe(true);
    expect(readFileSync(join(server.context.blobDir, entry.file_name!), 'utf8')).toBe('hello world');
    expect(ids(await list(me))).toEqual([entry.id]);
    expect(tmpFiles()).toEqual([]);
  });

  it('uploads to the root when parentId is absent, "null", "" or "0", and into a folder by id', async () => {
    const me = await account();
    const absent = await upload(me, 'absent.txt');
    const nulled = await upload(me, 'null.txt', 'n', { parentId: null });
    const emptyForm = uploadForm('empty-id.txt', 'e');
    emptyForm.append('parentId', '');
    const zeroForm = uploadForm('zero.txt', 'z');
    zeroForm.append('parentId', '0');
    const empty = (await post(me, emptyForm)).body.fileEntry as Entry;
    const zero = (await post(me, zeroForm)).body.fileEntry as Entry;
    for (const entry of [absent, nulled, empty, zero]) expect(entry).toMatchObject({ parent_id: null, path: String(entry.id) });
    const dir = await folder(me, 'inbox');
    const inside = await upload(me, 'inside.txt', 'i', { parentId: dir.id });
    expect(inside).toMatchObject({ parent_id: dir.id, path: `${dir.id}/${inside.id}` });
    expect(inside.parent).toMatchObject({ id: dir.id, name: 'inbox' });
    expect(ids(await list(me, { parentIds: String(dir.id) }))).toEqual([inside.id]);
  });

  it('creates the folders of a relativePath and reuses them on the next upload', async () => {
    const me = await account();
    const first = await upload(me, 'ignored-name.bin', 'jpeg bytes', { relativePath: 'photos/2024/a.jpg' });
    expect(first).toMatchObject({ name: 'a.jpg', mime: 'image/jpeg', type: 'image' });
    const folders = await list(me, { type: 'folder' });
    expect(folders.map((f) => f.name)).toEqual(['photos', '2024']);
    const [photos, year] = folders as [Entry, Entry];
    expect(photos).toMatchObject({ parent_id: null, path: String(photos.id) });
    expect(year).toMatchObject({ parent_id: photos.id, path: `${photos.id}/${year.id}` });
    expect(first).toMatchObject({ parent_id: year.id, path: `${photos.id}/${year.id}/${first.id}` });

    const second = await upload(me, 'b.jpg', 'more', { relativePath: 'photos/2024/b.jpg' });
    expect(second.parent_id).toBe(year.id);
    const third = await upload(me, 'c.txt', 'c', { relativePath: 'photos/other/c.txt' });
    const afterwards = await list(me, { type: 'folder' });
    expect(afterwards.map((f) => f.name)).toEqual(['photos', '2024', 'other']);
    const other = afterwards[2]!;
    expect(other.parent_id).toBe(photos.id);
    expect(third.parent_id).toBe(other.id);
    expect(ids(await list(me, { parentIds: String(year.id) }))).toEqual([first.id, second.id]);

    // empty and "." segments are skipped
    const odd = await upload(me, 'd.txt', 'd', { relativePath: 'photos//./2024/d.txt' });
    expect(odd.parent_id).toBe(year.id);
    // a file name alone makes no folder
    const bare = await upload(me, 'x.txt', 'x', { relativePath: 'renamed.txt' });
    expect(bare).toMatchObject({ name: 'renamed.txt', parent_id: null });
    expect((await list(me, { type: 'folder' })).length).toBe(3);
  });

  it('puts the folders of a relativePath under parentId, reusing a folder made with POST /folders', async () => {
    const me = await account();
    const base = await folder(me, 'base');
    const made = await folder(me, 'docs', base.id);
    const entry = await upload(me, 'f.txt', 'f', { parentId: base.id, relativePath: 'docs/deeper/f.txt' });
    const deeper = (await list(me, { parentIds: String(made.id) })).find((e) => e.name === 'deeper')!;
    expect(deeper).toBeDefined();
    expect(deeper).toMatchObject({ type: 'folder', path: `${base.id}/${made.id}/${deeper.id}` });
    expect(entry).toMatchObject({ parent_id: deeper.id, path: `${base.id}/${made.id}/${deeper.id}/${entry.id}` });
    // a root folder of the same name is not used when a parent is given
    expect((await list(me, { type: 'folder' })).map((f) => f.name)).toEqual(['base', 'docs', 'deeper']);
  });

  it('does not reuse a folder that is in trash', async () => {
    const me = await account();
    const first = await upload(me, 'a.txt', 'a', { relativePath: 'box/a.txt' });
    const box = first.parent_id!;
    const trash = await server.call(me.token, 'DELETE', `${API}/file-entries`, { entryIds: [box] });
    expect(trash.status).toBe(200);
    const second = await upload(me, 'b.txt', 'b', { relativePath: 'box/b.txt' });
    expect(second.parent_id).not.toBe(box);
    expect((await list(me, { type: 'folder' })).map((f) => [f.name, f.id])).toEqual([['box', second.parent_id]]);
  });

  it('keeps two entries when the same name is uploaded twice', async () => {
    const me = await account();
    const one = await upload(me, 'same.txt', 'first');
    const two = await upload(me, 'same.txt', 'second');
    expect(two.id).not.toBe(one.id);
    expect(two.file_name).not.toBe(one.file_name);
    const listed = await list(me);
    expect(listed.map((e) => [e.id, e.name])).toEqual([
      [one.id, 'same.txt'],
      [two.id, 'same.txt'],
    ]);
    expect((await fetchBytes(me, one.url!)).bytes.toString()).toBe('first');
    expect((await fetchBytes(me, two.url!)).bytes.toString()).toBe('second');
    // the same through a relativePath: one folder, two files
    await upload(me, 'r.txt', '1', { relativePath: 'dir/r.txt' });
    await upload(me, 'r.txt', '2', { relativePath: 'dir/r.txt' });
    const dirs = await list(me, { type: 'folder' });
    expect(dirs).toHaveLength(1);
    expect((await list(me, { parentIds: String(dirs[0]!.id) })).map((e) => e.name)).toEqual(['r.txt', 'r.txt']);
  });

  it('answers 422 to a request that is not multipart', async () => {
    const me = await account();
    expect422(await server.call(me.token, 'POST', `${API}/uploads`, { file: 'not a file' }), 'file');
    expect422(await server.call(me.token, 'POST', `${API}/uploads`, 'plain text', { 'content-type': 'text/plain' }), 'file');
    expect422(await server.call(me.token, 'POST', `${API}/uploads`, 'raw bytes', { 'content-type': 'application/octet-stream' }), 'file');
    expect422(await server.call(me.token, 'POST', `${API}/uploads`, 'a=b', { 'content-type': 'application/x-www-form-urlencoded' }), 'file');
    expect422(await server.call(me.token, 'POST', `${API}/uploads`), 'file');
    expect(await list(me)).toEqual([]);
  });

  it('answers 422 when the file part is missing', async () => {
    const me = await account();
    const onlyFields = new FormData();
    onlyFields.append('parentId', 'null');
    onlyFields.append('relativePath', 'a/b.txt');
    expect422(await post(me, onlyFields), 'file');
    const otherName = new FormData();
    otherName.append('attachment', new Blob(['x']), 'x.txt');
    expect422(await post(me, otherName), 'file');
    expect422(await post(me, new FormData()));
    expect(await list(me)).toEqual([]);
    expect(tmpFiles()).toEqual([]);
  });

  it('answers 422 to ".." in relativePath and creates nothing', async () => {
    const me = await account();
    for (const relativePath of ['../x.txt', 'a/../x.txt', 'a/b/..', '..', 'a/../../etc/passwd', '/']) {
      expect422(await post(me, uploadForm('x.txt', 'x', { relativePath })), 'relativePath');
    }
    expect(await list(me)).toEqual([]);
    expect(tmpFiles()).toEqual([]);
    // dots that are not a whole segment are names like any other
    const dotted = await upload(me, 'x', 'x', { relativePath: '..a/b../...' });
    expect(dotted.name).toBe('...');
    expect((await list(me, { type: 'folder' })).map((f) => f.name)).toEqual(['..a', 'b..']);
  });

  it('answers 422 for a bad parentId, 403 for a folder the caller may not write to, 401 without a token', async () => {
    const owner = await account();
    const viewer = await account();
    const editor = await account();
    const stranger = await account();
    const file = await upload(owner, 'plain.txt');
    const trashed = await folder(owner, 'trashed');
    await server.call(owner.token, 'DELETE', `${API}/file-entries`, { entryIds: [trashed.id] });
    const shared = await folder(owner, 'shared');
    for (const [who, permissions] of [
      [viewer, ['view', 'download']],
      [editor, ['view', 'edit']],
    ] as const) {
      const answer = await server.call(owner.token, 'POST', `${API}/file-entries/${shared.id}/share`, { emails: [who.email], permissions });
      expectSchema(UsersResponse, answer.body);
    }
    const withParent = (parentId: string) => {
      const form = new FormData();
      form.append('parentId', parentId);
      form.append('file', new Blob(['x']), 'x.txt');
      return form;
    };
    for (const bad of ['abc', '-1', '1.5', String(file.id), '99999999', String(trashed.id)]) {
      expect422(await post(owner, withParent(bad)), 'parentId');
    }
    expectError(await post(stranger, withParent(String(shared.id))), 403);
    expectError(await post(viewer, withParent(String(shared.id))), 403);
    expectError(await post(null, uploadForm('x.txt', 'x')), 401);
    expectError(await server.call('bogus', 'POST', `${API}/uploads`, uploadForm('x.txt', 'x')), 401);
    expect(tmpFiles()).toEqual([]);
    // an editor uploads into the shared folder; the entry belongs to the owner's drive
    const byEditor = await upload(editor, 'by-editor.txt', 'e', { parentId: shared.id });
    expect(byEditor.path).toBe(`${shared.id}/${byEditor.id}`);
    expect(ids(await list(owner, { parentIds: String(shared.id) }))).toEqual([byEditor.id]);
    expect(await list(editor)).toEqual([]);
    expect(await list(stranger)).toEqual([]);
  });

  it('keeps odd and unicode names verbatim', async () => {
    const me = await account();
    const nfd = 'NFD cafe\u0301.txt';
    const names = ['a\\b.txt', '..', '.', '...', nfd, 'NFC caf\u00e9.txt', 'C:\\dir\\file.txt', '%41%2F.txt', '😀 emoji.txt', '  spaced  .txt', 'ab', 'x'.repeat(250)];
    for (const name of names) {
      const entry = await upload(me, name, `body of ${name}`);
      expect(entry.name).toBe(name);
      const back = await fetchBytes(me, entry.url!);
      expect(back.bytes.toString()).toBe(`body of ${name}`);
      expect(back.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''${encodeURIComponent(name)}`);
    }
    const listed = (await list(me)).map((e) => e.name);
    expect(listed).toEqual(names);
    // NFD stays NFD (not normalised to the NFC form), and both forms are separate entries
    expect(listed).toContain(nfd);
    expect(nfd.normalize('NFC')).not.toBe(nfd);
    expect(listed.filter((n) => n.normalize('NFC') === 'NFD café.txt')).toEqual([nfd]);

    // names from a relativePath: folders and the file's own name
    const viaPath = await upload(me, 'ignored', 'p', { relativePath: 'dir cafe\u0301/q"uote\\d.txt' });
    expect(viaPath.name).toBe('q"uote\\d.txt');
    const dir = (await list(me, { type: 'folder' }))[0]!;
    expect(dir.name).toBe('dir cafe\u0301');
    expect(viaPath.parent_id).toBe(dir.id);
  });

  it('serves the content back byte for byte', async () => {
    const me = await account();
    const every = Uint8Array.from({ length: 512 }, (_, i) => i % 256);
    const random = randomBytes(200_000);
    for (const [name, content] of [
      ['bytes.bin', every],
      ['random.dat', random],
      ['empty.txt', new Uint8Array(0)],
      ['crlf.txt', Buffer.from('line\r\nline\n\r\0end')],
    ] as const) {
      const entry = await upload(me, name, content);
      expect(entry.file_size).toBe(content.length);
      const back = await fetchBytes(me, entry.url!);
      expect(back.status).toBe(200);
      expect(back.headers.get('content-length')).toBe(String(content.length));
      expect(back.bytes.equals(Buffer.from(content)), name).toBe(true);
    }
  });

  it('streams an upload of about 20 MB and serves it back identically', async () => {
    const me = await account();
    const big = randomBytes(20 * 1024 * 1024 + 123);
    const entry = await upload(me, 'big.bin', big);
    expect(entry.file_size).toBe(big.length);
    expect(sha256(readFileSync(join(server.context.blobDir, entry.file_name!)))).toBe(sha256(big));
    const back = await fetchBytes(me, entry.url!);
    expect(back.status).toBe(200);
    expect(back.bytes.length).toBe(big.length);
    expect(sha256(back.bytes)).toBe(sha256(big));
    const tail = await fetchBytes(me, entry.url!, { headers: { range: `bytes=${big.length - 1000}-` } });
    expect(tail.status).toBe(206);
    expect(tail.bytes.equals(big.subarray(big.length - 1000))).toBe(true);
    expect(tmpFiles()).toEqual([]);
  });
});

describe('GET/HEAD on a file url', () => {
  const text = '0123456789abcdefghij';

  it('answers the whole file without Range, with Accept-Ranges', async () => {
    const me = await account();
    const entry = await upload(me, 'range.txt', text);
    const whole = await fetchBytes(me, entry.url!);
    expect(whole.status).toBe(200);
    expect(whole.bytes.toString()).toBe(text);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('content-length')).toBe('20');
    expect(whole.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(whole.headers.get('content-range')).toBeNull();
  });

  it('answers one range with 206 and Content-Range', async () => {
    const me = await account();
    const entry = await upload(me, 'range.txt', text);
    const cases: Array<[string, string, string]> = [
      ['bytes=0-4', '01234', 'bytes 0-4/20'],
      ['bytes=15-', 'fghij', 'bytes 15-19/20'],
      ['bytes=-3', 'hij', 'bytes 17-19/20'],
      ['bytes=10-100', 'abcdefghij', 'bytes 10-19/20'],
      ['bytes=19-19', 'j', 'bytes 19-19/20'],
      ['bytes=0-1,2-3', '0123', 'bytes 0-3/20'], // adjacent ranges combine into one
    ];
    for (const [range, body, contentRange] of cases) {
      const answer = await fetchBytes(me, entry.url!, { headers: { range } });
      expect({ range, status: answer.status, body: answer.bytes.toString() }).toEqual({ range, status: 206, body });
      expect(answer.headers.get('content-range')).toBe(contentRange);
      expect(answer.headers.get('content-length')).toBe(String(body.length));
    }
    // binary content: a range in the middle is exactly that slice
    const random = randomBytes(65_536);
    const binary = await upload(me, 'random.bin', random);
    const middle = await fetchBytes(me, binary.url!, { headers: { range: 'bytes=1000-1999' } });
    expect(middle.status).toBe(206);
    expect(middle.bytes.equals(random.subarray(1000, 2000))).toBe(true);
    expect(middle.headers.get('content-range')).toBe('bytes 1000-1999/65536');
  });

  it('answers 416 with the size for an unsatisfiable range', async () => {
    const me = await account();
    const entry = await upload(me, 'range.txt', text);
    for (const range of ['bytes=20-', 'bytes=100-200', 'bytes=25-30']) {
      const answer = await fetchBytes(me, entry.url!, { headers: { range } });
      expectError(answer, 416);
      expect(answer.headers.get('content-range')).toBe('bytes */20');
    }
    const empty = await upload(me, 'empty.txt', '');
    const emptyRange = await fetchBytes(me, empty.url!, { headers: { range: 'bytes=0-' } });
    expect(emptyRange.status).toBe(416);
    expect(emptyRange.headers.get('content-range')).toBe('bytes */0');
    const emptyWhole = await fetchBytes(me, empty.url!);
    expect(emptyWhole.status).toBe(200);
    expect(emptyWhole.bytes.length).toBe(0);
  });

  it('answers the whole file for several ranges or a malformed one', async () => {
    const me = await account();
    const entry = await upload(me, 'range.txt', text);
    for (const range of ['bytes=0-1,5-6', 'items=0-3', 'bytes=abc']) {
      const answer = await fetchBytes(me, entry.url!, { headers: { range } });
      expect({ range, status: answer.status, body: answer.bytes.toString() }).toEqual({ range, status: 200, body: text });
    }
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const me = await account();
    const entry = await upload(me, 'range.txt', text);
    const head = await fetchBytes(me, entry.url!, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.bytes.length).toBe(0);
    expect(head.headers.get('content-length')).toBe('20');
    expect(head.headers.get('accept-ranges')).toBe('bytes');
    expect(head.headers.get('content-type')).toMatch(/^text\/plain/);
    const ranged = await fetchBytes(me, entry.url!, { method: 'HEAD', headers: { range: 'bytes=2-5' } });
    expect(ranged.status).toBe(206);
    expect(ranged.bytes.length).toBe(0);
    expect(ranged.headers.get('content-range')).toBe('bytes 2-5/20');
    expect((await fetchBytes(null, entry.url!, { method: 'HEAD' })).status).toBe(401);
  });

  it('answers 401, 403 and 404 as the permissions say', async () => {
    const owner = await account();
    const downloader = await account();
    const viewer = await account();
    const stranger = await account();
    const entry = await upload(owner, 'secret.txt', 'secret');
    const dir = await folder(owner, 'a folder');
    for (const [who, permissions] of [
      [downloader, ['view', 'download']],
      [viewer, ['view']],
    ] as const) {
      await server.call(owner.token, 'POST', `${API}/file-entries/${entry.id}/share`, { emails: [who.email], permissions });
    }
    expect((await fetchBytes(downloader, entry.url!)).bytes.toString()).toBe('secret');
    expectError(await fetchBytes(viewer, entry.url!), 403);
    expectError(await fetchBytes(stranger, entry.url!), 403);
    expectError(await fetchBytes(null, entry.url!), 401);
    expectError(await fetchBytes(owner, `api/v1/file-entries/${dir.id}`), 404);
    expectError(await fetchBytes(owner, 'api/v1/file-entries/99999999'), 404);
    const malformed = await fetchBytes(owner, 'api/v1/file-entries/abc');
    expect(malformed.status).toBe(422);
    expectSchema(ValidationErrorBody, malformed.body);
    // no entry answers bytes once it is deleted forever
    await server.call(owner.token, 'DELETE', `${API}/file-entries`, { entryIds: [entry.id], deleteForever: 'true' });
    expectError(await fetchBytes(owner, entry.url!), 404);
    expectSchema(Type.Array(FileEntry), await list(owner));
  });
});
