// The files part of the reference server: listing, trash/delete, rename, folders, move, duplicate, restore and the
// fields of an entry, against the real server on a loopback port.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freshAccount, uploadForm, useTestServer, type Account, type Answer } from '../helpers/server.js';
import { checkedBody, expectSchema } from '../helpers/schema.js';
import {
  EntriesResponse,
  EntryResponse,
  ErrorBody,
  FileEntry,
  FolderResponse,
  Paginator,
  Status,
  UploadResponse,
  UsersResponse,
  ValidationErrorBody,
} from '../../main/api/schemas.js';
import { setTimeout as sleep } from 'node:timers/promises';

const API = '/api/v1';
const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

const server = useTestServer();

type Entry = FileEntry & { id: number };

const account = () => freshAccount(server, 'entries');

function expect422(answer: Answer, field?: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(422);
  expectSchema(ValidationErrorBody, answer.body, '422 body');
  expect(typeof answer.body.status).toBe('string');
  expect(answer.body.message.length).toBeGreaterThan(0);
  expect(typeof answer.body.errors).toBe('object');
  if (field !== undefined) expect(Object.keys(answer.body.errors)).toContain(field);
}

function expectError(answer: Answer, status: 401 | 403 | 404): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expectSchema(ErrorBody, answer.body, `${status} body`);
  expect(answer.body.message.length).toBeGreaterThan(0);
}

async function upload(who: Account, name: string, content: string | Uint8Array = `content of ${name}`, parentId?: number | null): Promise<Entry> {
  const answer = await server.call(who.token, 'POST', `${API}/uploads`, uploadForm(name, content, parentId === undefined ? {} : { parentId }));
  const entry = checkedBody(answer, UploadResponse, 201).fileEntry;
  expectEntryFormat(entry);
  return entry;
}

async function folder(who: Account, name: string, parentId: number | null = null): Promise<Entry> {
  const answer = await server.call(who.token, 'POST', `${API}/folders`, { name, parentId });
  const created = checkedBody(answer, FolderResponse).folder;
  expectEntryFormat(created);
  return created;
}

function query(params: Record<string, string | number | boolean>): string {
  const search = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]));
  const text = search.toString();
  return text ? `?${text}` : '';
}

async function list(who: Account, params: Record<string, string | number | boolean> = {}): Promise<any> {
  const answer = await server.call(who.token, 'GET', `${API}/drive/file-entries${query(params)}`);
  const body = checkedBody(answer, Paginator);
  for (const entry of body.data) expectEntryFormat(entry);
  return body;
}

/** The formats every entry answer has, whatever the endpoint (checked on every listed entry of this file). */
function expectEntryFormat(entry: Entry): void {
  expectSchema(FileEntry, entry, `entry ${entry.id}`);
  expect(entry.hash).toBe(expectedHash(entry.id));
  expect(entry.path!.split('/').at(-1)).toBe(String(entry.id));
  expect(entry.path).toBe(entry.parent_id === null ? String(entry.id) : `${entry.parent!.path}/${entry.id}`);
  expect(entry.url).toBe(entry.type === 'folder' ? null : `api/v1/file-entries/${entry.id}`);
  expect(entry.created_at).toMatch(ISO_MICROS);
  expect(entry.updated_at).toMatch(ISO_MICROS);
  if (entry.deleted_at != null) expect(entry.deleted_at).toMatch(ISO_MICROS);
}

const ids = (entries: ReadonlyArray<{ id: number }>) => entries.map((e) => e.id);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

async function share(owner: Account, entryId: number, withWhom: Account, permissions: string[]): Promise<void> {
  const answer = await server.call(owner.token, 'POST', `${API}/file-entries/${entryId}/share`, { emails: [withWhom.email], permissions });
  checkedBody(answer, UsersResponse);
  expect(ids(answer.body.users)).toContain(withWhom.id);
}

async function remove(who: Account, entryIds: number[], deleteForever?: string): Promise<Answer> {
  return server.call(who.token, 'DELETE', `${API}/file-entries`, deleteForever === undefined ? { entryIds } : { entryIds, deleteForever });
}

async function download(who: Account, entry: Entry): Promise<Answer> {
  return server.call(who.token, 'GET', `/${entry.url}`);
}


function expectedHash(id: number): string {
  return Buffer.from(`${id}|padding`, 'utf8').subarray(0, 10).toString('base64').replace(/=+$/, '');
}

describe('entry fields', () => {
  it('a root file carries hash, path, url, type, mime, size and microsecond timestamps', async () => {
    const me = await account();
    const before = Date.now();
    const file = await upload(me, 'notes.txt', 'twelve bytes');
    const after = Date.now();
    expect(file.name).toBe('notes.txt');
    expect(file.file_size).toBe(12);
    expect(file.mime).toBe('text/plain');
    expect(file.type).toBe('text');
    expect(file.parent_id).toBeNull();
    expect(file.parent).toBeNull();
    expect(file.path).toBe(String(file.id));
    expect(file.url).toBe(`api/v1/file-entries/${file.id}`);
    expect(file.hash).toBe(expectedHash(file.id));
    expect(file.hash).not.toContain('=');
    // 10 bytes of "{id}|padding": the decoded hash starts with the id and a bar
    expect(Buffer.from(file.hash!, 'base64').toString('utf8')).toBe(`${file.id}|padding`.slice(0, 10));
    expect(file.deleted_at ?? null).toBeNull();
    expect(file.description ?? null).toBeNull();
    expect(file.users).toEqual([]);
    expect(file.created_at).toMatch(ISO_MICROS);
    expect(file.updated_at).toMatch(ISO_MICROS);
    const created = Date.parse(file.created_at!);
    expect(created).toBeGreaterThanOrEqual(before - 1);
    expect(created).toBeLessThanOrEqual(after + 1);
    // the stored name is not the display name
    expect(file.file_name).toBeTruthy();
    expect(file.file_name).not.toBe('notes.txt');
  });

  it('hashes follow "{id}|padding" cut to 10 bytes for one- to many-digit ids', async () => {
    const me = await account();
    const entries = [await upload(me, 'a.txt'), await folder(me, 'folder-hash')];
    for (const entry of entries) expect(entry.hash).toBe(expectedHash(entry.id));
    // the formula itself: a 1-digit id keeps the whole 9-byte string, longer ids are cut
    expect(expectedHash(7)).toBe(Buffer.from('7|padding').toString('base64'));
    expect(Buffer.from(expectedHash(123456), 'base64').toString()).toBe('123456|pad');
  });

  it('nested entries carry the ancestor ids and their own id in path, and their parent', async () => {
    const me = await account();
    const top = await folder(me, 'top');
    const middle = await folder(me, 'middle', top.id);
    const file = await upload(me, 'deep.txt', 'deep', middle.id);
    expect(top.path).toBe(`${top.id}`);
    expect(top.url).toBeNull();
    expect(top.type).toBe('folder');
    expect(top.hash).toBe(expectedHash(top.id));
    expect(middle.path).toBe(`${top.id}/${middle.id}`);
    expect(middle.parent_id).toBe(top.id);
    expect(middle.parent).toMatchObject({ id: top.id, name: 'top', type: 'folder', path: `${top.id}` });
    expect(file.path).toBe(`${top.id}/${middle.id}/${file.id}`);
    expect(file.parent_id).toBe(middle.id);
    expect(file.parent).toMatchObject({ id: middle.id, name: 'middle', path: `${top.id}/${middle.id}` });
    const listed = await list(me);
    const byId = new Map<number, Entry>(listed.data.map((e: Entry) => [e.id, e]));
    expect(byId.get(file.id)?.path).toBe(file.path);
    expect(byId.get(file.id)?.parent?.id).toBe(middle.id);
  });

  it('type comes from the MIME type of the name', async () => {
    const me = await account();
    const cases: Array<[string, string, string]> = [
      ['photo.png', 'image/png', 'image'],
      ['photo.jpg', 'image/jpeg', 'image'],
      ['song.mp3', 'audio/mpeg', 'audio'],
      ['clip.mp4', 'video/mp4', 'video'],
      ['paper.pdf', 'application/pdf', 'pdf'],
      ['readme.md', 'text/markdown', 'text'],
      ['page.html', 'text/html', 'text'],
      ['archive.zip', 'application/zip', 'file'],
      ['no-extension', 'application/octet-stream', 'file'],
    ];
    for (const [name, mime, type] of cases) {
      const entry = await upload(me, name);
      expect({ name, mime: entry.mime, type: entry.type }).toEqual({ name, mime, type });
    }
    const dir = await folder(me, 'a folder');
    expect(dir.type).toBe('folder');
    const typed = await list(me, { type: 'image' });
    expect(typed.data.map((e: Entry) => e.name).sort()).toEqual(['photo.jpg', 'photo.png']);
  });

  it('entries shared with someone list that user with permissions', async () => {
    const owner = await account();
    const friend = await account();
    const file = await upload(owner, 'shared.txt');
    await share(owner, file.id, friend, ['view', 'download']);
    const listed = await list(owner);
    const entry = listed.data.find((e: Entry) => e.id === file.id);
    expect(entry.users).toEqual([
      { id: friend.id, email: friend.email, entry_permissions: { view: true, edit: false, download: true }, owns_entry: false },
    ]);
  });
});

describe('GET /drive/file-entries', () => {
  /** A drive: root {docs/{a.txt, sub/{b.png}}, pics/{c.png}, top.txt, old.txt (trashed)}. */
  async function drive() {
    const me = await account();
    const docs = await folder(me, 'docs');
    const sub = await folder(me, 'sub', docs.id);
    const pics = await folder(me, 'pics');
    const a = await upload(me, 'a.txt', 'a', docs.id);
    const b = await upload(me, 'b.png', 'b', sub.id);
    const c = await upload(me, 'c.png', 'c', pics.id);
    const top = await upload(me, 'top.txt', 'top');
    const old = await upload(me, 'old.txt', 'old');
    checkedBody(await remove(me, [old.id]), Status);
    return { me, docs, sub, pics, a, b, c, top, old };
  }

  it('without a selector answers every active entry of the caller at any depth, by id', async () => {
    const d = await drive();
    const stranger = await account();
    await upload(stranger, 'not-mine.txt');
    const body = await list(d.me);
    const expected = [d.docs, d.sub, d.pics, d.a, d.b, d.c, d.top].map((e) => e.id);
    expect(ids(body.data)).toEqual(sorted(expected));
    expect(body.total).toBe(7);
    expect(body.current_page).toBe(1);
    expect(body.per_page).toBe(50);
    for (const entry of body.data) expect(entry.deleted_at ?? null).toBeNull();
  });

  it('deletedOnly answers the trashed entries whose parent is not trashed, newest first', async () => {
    const d = await drive();
    await sleep(2);
    checkedBody(await remove(d.me, [d.docs.id]), Status); // trashes docs, sub, a, b
    const body = await list(d.me, { deletedOnly: true });
    expect(ids(body.data)).toEqual([d.docs.id, d.old.id]);
    expect(body.total).toBe(2);
    for (const entry of body.data) expect(entry.deleted_at).toMatch(ISO_MICROS);
    expect(Date.parse(body.data[0].deleted_at)).toBeGreaterThanOrEqual(Date.parse(body.data[1].deleted_at));
    // "false" as a string is no selector at all
    const plain = await list(d.me, { deletedOnly: 'false' });
    expect(ids(plain.data)).toEqual(sorted([d.pics.id, d.c.id, d.top.id]));
    // another user's trash is not the caller's
    const stranger = await account();
    expect((await list(stranger, { deletedOnly: 'true' })).data).toEqual([]);
  });

  it('starredOnly answers the active entries the caller starred', async () => {
    const d = await drive();
    checkedBody(await server.call(d.me.token, 'POST', `${API}/file-entries/star`, { entryIds: [d.a.id, d.pics.id, d.old.id] }), Status);
    const body = await list(d.me, { starredOnly: 'true' });
    expect(ids(body.data)).toEqual(sorted([d.a.id, d.pics.id])); // old.txt is in trash
    expect(body.total).toBe(2);
  });

  it('recentOnly answers the caller\'s active files, most recently changed first (made, renamed, moved), without folders', async () => {
    const d = await drive();
    const body = await list(d.me, { recentOnly: true });
    expect(ids(body.data)).toEqual([d.top.id, d.c.id, d.b.id, d.a.id]);
    for (const entry of body.data) expect(entry.type).not.toBe('folder');
    const times = body.data.map((e: Entry) => Date.parse(e.updated_at!));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    // A rename and a move are changes: the file comes first.
    checkedBody(await server.call(d.me.token, 'PUT', `${API}/file-entries/${d.a.id}`, { name: 'a-renamed.txt' }), EntryResponse);
    expect(ids((await list(d.me, { recentOnly: true })).data)[0]).toBe(d.a.id);
    checkedBody(await server.call(d.me.token, 'POST', `${API}/file-entries/move`, { entryIds: [d.b.id], destinationId: d.pics.id }), EntriesResponse);
    expect(ids((await list(d.me, { recentOnly: true })).data).slice(0, 2)).toEqual([d.b.id, d.a.id]);
  });

  it('sharedOnly answers the active entries shared with the caller', async () => {
    const d = await drive();
    const friend = await account();
    await share(d.me, d.docs.id, friend, ['view']);
    await share(d.me, d.top.id, friend, ['view', 'download']);
    const mine = await upload(friend, 'mine.txt');
    const body = await list(friend, { sharedOnly: true });
    expect(ids(body.data)).toEqual(sorted([d.docs.id, d.top.id]));
    expect(ids(body.data)).not.toContain(mine.id);
    // the owner has nothing shared with them
    expect((await list(d.me, { sharedOnly: true })).data).toEqual([]);
    // a trashed shared entry drops out
    checkedBody(await remove(d.me, [d.top.id]), Status);
    expect(ids((await list(friend, { sharedOnly: true })).data)).toEqual([d.docs.id]);
  });

  it('query matches a part of the name of the caller\'s active entries, literally', async () => {
    const d = await drive();
    expect(ids((await list(d.me, { query: '.png' })).data)).toEqual(sorted([d.b.id, d.c.id]));
    expect(ids((await list(d.me, { query: 'do' })).data)).toEqual([d.docs.id]);
    expect(ids((await list(d.me, { query: 'old' })).data)).toEqual([]); // trashed
    const percent = await upload(d.me, '50% off.txt');
    await upload(d.me, '500 off.txt');
    const under = await upload(d.me, 'x_y.txt');
    await upload(d.me, 'xzy.txt');
    expect(ids((await list(d.me, { query: '50%' })).data)).toEqual([percent.id]);
    expect(ids((await list(d.me, { query: 'x_y' })).data)).toEqual([under.id]);
    const stranger = await account();
    expect((await list(stranger, { query: '.png' })).data).toEqual([]);
    // an empty query is no selector
    expect((await list(d.me, { query: '' })).total).toBe(11);
  });

  it('type filters the default listing and every selector', async () => {
    const d = await drive();
    expect(ids((await list(d.me, { type: 'folder' })).data)).toEqual(sorted([d.docs.id, d.sub.id, d.pics.id]));
    expect(ids((await list(d.me, { type: 'text' })).data)).toEqual(sorted([d.a.id, d.top.id]));
    expect(ids((await list(d.me, { type: 'image', parentIds: String(d.pics.id) })).data)).toEqual([d.c.id]);
    expect(ids((await list(d.me, { type: 'text', deletedOnly: true })).data)).toEqual([d.old.id]);
    expect(ids((await list(d.me, { type: 'video' })).data)).toEqual([]);
  });

  it('parentIds answers the children of one or several folders (comma-separated)', async () => {
    const d = await drive();
    expect(ids((await list(d.me, { parentIds: String(d.docs.id) })).data)).toEqual(sorted([d.sub.id, d.a.id]));
    expect(ids((await list(d.me, { parentIds: `${d.docs.id},${d.pics.id}` })).data)).toEqual(sorted([d.sub.id, d.a.id, d.c.id]));
    expect(ids((await list(d.me, { parentIds: `${d.docs.id}, ${d.sub.id} ,${d.pics.id}` })).data)).toEqual(
      sorted([d.sub.id, d.a.id, d.b.id, d.c.id]),
    );
    // an unknown id is ignored
    expect(ids((await list(d.me, { parentIds: `${d.sub.id},99999999` })).data)).toEqual([d.b.id]);
    // a folder without children and a file have no children
    const empty = await folder(d.me, 'empty');
    expect((await list(d.me, { parentIds: `${empty.id},${d.top.id}` })).data).toEqual([]);
    // trashed children do not show
    checkedBody(await remove(d.me, [d.a.id]), Status);
    expect(ids((await list(d.me, { parentIds: String(d.docs.id) })).data)).toEqual([d.sub.id]);
    // another selector wins over parentIds
    expect(ids((await list(d.me, { parentIds: String(d.docs.id), query: 'top' })).data)).toEqual([d.top.id]);
  });

  it('parentIds lets a user the folder is shared with list it, and refuses a stranger with 403', async () => {
    const d = await drive();
    const friend = await account();
    const stranger = await account();
    await share(d.me, d.docs.id, friend, ['view']);
    expect(ids((await list(friend, { parentIds: String(d.docs.id) })).data)).toEqual(sorted([d.sub.id, d.a.id]));
    // a share on a folder covers its subtree
    expect(ids((await list(friend, { parentIds: String(d.sub.id) })).data)).toEqual([d.b.id]);
    expectError(await server.call(stranger.token, 'GET', `${API}/drive/file-entries?parentIds=${d.docs.id}`), 403);
    expectError(await server.call(friend.token, 'GET', `${API}/drive/file-entries?parentIds=${d.docs.id},${d.pics.id}`), 403);
  });

  it('workspaceId 0 is every entry; another workspace is empty', async () => {
    const d = await drive();
    expect((await list(d.me, { workspaceId: 0 })).total).toBe(7);
    const other = await list(d.me, { workspaceId: 5 });
    expect(other.data).toEqual([]);
    expect(other.total).toBe(0);
    expect(ids((await list(d.me, { workspaceId: 0, parentIds: String(d.pics.id) })).data)).toEqual([d.c.id]);
  });

  it('perPage and page select a slice of the listing', async () => {
    const d = await drive();
    const all = ids((await list(d.me)).data);
    const second = await list(d.me, { perPage: 3, page: 2 });
    expect(ids(second.data)).toEqual(all.slice(3, 6));
    expect(second).toMatchObject({ current_page: 2, per_page: 3, total: 7, last_page: 3, from: 4, to: 6, next_page: 3, prev_page: 1 });
    const last = await list(d.me, { perPage: 3, page: 3 });
    expect(ids(last.data)).toEqual(all.slice(6));
    expect(last.next_page).toBeNull();
  });

  it('answers 401 without a valid token', async () => {
    expectError(await server.call(null, 'GET', `${API}/drive/file-entries`), 401);
    expectError(await server.call('not-a-token', 'GET', `${API}/drive/file-entries`), 401);
  });

  it('answers 422 for invalid parameters', async () => {
    const me = await account();
    const bad: Array<[string, string]> = [
      ['perPage=0', 'perPage'],
      ['perPage=1001', 'perPage'],
      ['perPage=abc', 'perPage'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['workspaceId=-1', 'workspaceId'],
      ['parentIds=abc', 'parentIds'],
      ['parentIds=1,,2', 'parentIds'],
      ['deletedOnly=maybe', 'deletedOnly'],
      ['starredOnly=perhaps', 'starredOnly'],
    ];
    for (const [search, field] of bad) {
      const answer = await server.call(me.token, 'GET', `${API}/drive/file-entries?${search}`);
      expect422(answer);
      expect(Object.keys(answer.body.errors).join(' '), search).toContain(field);
    }
  });
});

describe('DELETE /file-entries', () => {
  it('without deleteForever moves the entry and its subtree to trash and keeps the bytes', async () => {
    const me = await account();
    const dir = await folder(me, 'to-trash');
    const inner = await upload(me, 'inner.txt', 'inner', dir.id);
    const blob = join(server.context.blobDir, inner.file_name!);
    expect(existsSync(blob)).toBe(true);
    const answer = checkedBody(await remove(me, [dir.id]), Status);
    expect(answer.status).toBe('success');
    expect((await list(me)).data).toEqual([]);
    const trash = await list(me, { deletedOnly: true });
    expect(ids(trash.data)).toEqual([dir.id]);
    expect(trash.data[0].deleted_at).toMatch(ISO_MICROS);
    expect(existsSync(blob)).toBe(true);
    // the child is in trash too: restore the folder and see it come back with it
    checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/restore`, { entryIds: [dir.id] }), Status);
    expect(ids((await list(me)).data)).toEqual([dir.id, inner.id]);
  });

  it('deleteForever "false" moves to trash; "true" removes entries, subtrees and stored bytes', async () => {
    const me = await account();
    const keep = await upload(me, 'keep.txt');
    const trashed = await upload(me, 'trashed.txt');
    checkedBody(await remove(me, [trashed.id], 'false'), Status);
    expect(ids((await list(me, { deletedOnly: 'true' })).data)).toEqual([trashed.id]);

    const dir = await folder(me, 'gone');
    const sub = await folder(me, 'gone-sub', dir.id);
    const deep = await upload(me, 'deep.bin', new Uint8Array([1, 2, 3]), sub.id);
    const loose = await upload(me, 'loose.txt', 'loose');
    const blobs = [deep, loose, trashed].map((e) => join(server.context.blobDir, e.file_name!));
    for (const blob of blobs) expect(existsSync(blob)).toBe(true);

    checkedBody(await remove(me, [dir.id, loose.id, trashed.id], 'true'), Status);
    for (const blob of blobs) expect(existsSync(blob), blob).toBe(false);
    expect(ids((await list(me)).data)).toEqual([keep.id]);
    expect((await list(me, { deletedOnly: 'true' })).data).toEqual([]);
    for (const gone of [dir, sub, deep, loose, trashed]) {
      expectError(await server.call(me.token, 'PUT', `${API}/file-entries/${gone.id}`, { name: 'renamed' }), 404);
    }
    expectError(await download(me, deep), 404);
    // the untouched entry still has its bytes
    expect((await download(me, keep)).body).toBe('content of keep.txt');
  });

  it('takes deleteForever as a boolean or 1/0 too', async () => {
    const me = await account();
    const [a, b, c, d] = [await upload(me, 'a.txt'), await upload(me, 'b.txt'), await upload(me, 'c.txt'), await upload(me, 'd.txt')];
    checkedBody(await server.call(me.token, 'DELETE', `${API}/file-entries`, { entryIds: [a.id], deleteForever: false }), Status);
    checkedBody(await server.call(me.token, 'DELETE', `${API}/file-entries`, { entryIds: [b.id], deleteForever: 0 }), Status);
    checkedBody(await server.call(me.token, 'DELETE', `${API}/file-entries`, { entryIds: [c.id], deleteForever: true }), Status);
    checkedBody(await server.call(me.token, 'DELETE', `${API}/file-entries`, { entryIds: [String(d.id)], deleteForever: 1 }), Status);
    expect(sorted(ids((await list(me, { deletedOnly: true })).data))).toEqual([a.id, b.id]);
    expect((await list(me)).data).toEqual([]);
    for (const gone of [c, d]) expect(existsSync(join(server.context.blobDir, gone.file_name!))).toBe(false);
  });

  it('deleteForever "true" removes shares and stars with the entry', async () => {
    const owner = await account();
    const friend = await account();
    const file = await upload(owner, 'shared.txt');
    await share(owner, file.id, friend, ['view']);
    checkedBody(await server.call(friend.token, 'POST', `${API}/file-entries/star`, { entryIds: [file.id] }), Status);
    checkedBody(await remove(owner, [file.id], 'true'), Status);
    expect((await list(friend, { sharedOnly: true })).data).toEqual([]);
    expect((await list(friend, { starredOnly: true })).data).toEqual([]);
  });

  it('an editor may trash but not delete forever; a viewer and a stranger may do neither', async () => {
    const owner = await account();
    const editor = await account();
    const viewer = await account();
    const stranger = await account();
    const dir = await folder(owner, 'shared-dir');
    const a = await upload(owner, 'a.txt', 'a', dir.id);
    const b = await upload(owner, 'b.txt', 'b', dir.id);
    await share(owner, dir.id, editor, ['view', 'edit']);
    await share(owner, dir.id, viewer, ['view', 'download']);
    expectError(await remove(editor, [a.id], 'true'), 403);
    expectError(await remove(viewer, [a.id]), 403);
    expectError(await remove(stranger, [a.id]), 403);
    expectError(await remove(stranger, [a.id], 'true'), 403);
    expect(ids((await list(owner, { parentIds: String(dir.id) })).data)).toEqual([a.id, b.id]);
    checkedBody(await remove(editor, [a.id]), Status);
    expect(ids((await list(owner, { deletedOnly: true })).data)).toEqual([a.id]);
  });

  it('answers 401, 404 and 422 as the contract says', async () => {
    const me = await account();
    const file = await upload(me, 'x.txt');
    expectError(await server.call(null, 'DELETE', `${API}/file-entries`, { entryIds: [file.id] }), 401);
    expectError(await remove(me, [99999999]), 404);
    expectError(await remove(me, [file.id, 99999999]), 404);
    expect422(await server.call(me.token, 'DELETE', `${API}/file-entries`, {}), 'entryIds');
    expect422(await server.call(me.token, 'DELETE', `${API}/file-entries`)); // the body is required
    expect422(await remove(me, []), 'entryIds');
    expect422(await server.call(me.token, 'DELETE', `${API}/file-entries`, { entryIds: ['abc'] }));
    expect422(await server.call(me.token, 'DELETE', `${API}/file-entries`, { entryIds: [0] }));
    expect422(await remove(me, [file.id], 'maybe'), 'deleteForever');
    expect422(await server.call(me.token, 'DELETE', `${API}/file-entries`, '{"entryIds": ['), 'body');
    // none of the refused requests touched the entry
    expect(ids((await list(me)).data)).toEqual([file.id]);
  });
});

describe('PUT /file-entries/{id}', () => {
  it('renames a file and a folder; updated_at changes with the name', async () => {
    const me = await account();
    const file = await upload(me, 'before.txt', 'body');
    const dir = await folder(me, 'old-folder');
    await sleep(2);
    const renamed = checkedBody(await server.call(me.token, 'PUT', `${API}/file-entries/${file.id}`, { name: 'after.txt' }), EntryResponse).fileEntry;
    expect(renamed).toMatchObject({ id: file.id, name: 'after.txt', path: file.path, parent_id: null, file_size: 4 });
    expect(renamed.file_name).toBe(file.file_name); // the stored bytes stay where they are
    expect(renamed.updated_at).toMatch(ISO_MICROS);
    expect(renamed.updated_at).not.toBe(file.updated_at);
    expect(Date.parse(renamed.updated_at)).toBeGreaterThanOrEqual(Date.parse(file.updated_at!));
    expect(renamed.created_at).toBe(file.created_at);
    expect((await download(me, renamed)).body).toBe('body');

    const folderRenamed = checkedBody(await server.call(me.token, 'PUT', `${API}/file-entries/${dir.id}`, { name: 'new-folder' }), EntryResponse).fileEntry;
    expect(folderRenamed.name).toBe('new-folder');
    expect(folderRenamed.type).toBe('folder');
    const listed = await list(me);
    expect(listed.data.map((e: Entry) => e.name).sort()).toEqual(['after.txt', 'new-folder']);
  });

  it('sets and clears a description without renaming', async () => {
    const me = await account();
    const file = await upload(me, 'described.txt');
    const set = checkedBody(await server.call(me.token, 'PUT', `${API}/file-entries/${file.id}`, { description: 'What this is.' }), EntryResponse).fileEntry;
    expect(set).toMatchObject({ name: 'described.txt', description: 'What this is.' });
    const listed = (await list(me)).data.find((e: Entry) => e.id === file.id);
    expect(listed.description).toBe('What this is.');
    const both = checkedBody(await server.call(me.token, 'PUT', `${API}/file-entries/${file.id}`, { name: 'both.txt', description: 'Two' }), EntryResponse).fileEntry;
    expect(both).toMatchObject({ name: 'both.txt', description: 'Two' });
    const cleared = checkedBody(await server.call(me.token, 'PUT', `${API}/file-entries/${file.id}`, { description: null }), EntryResponse).fileEntry;
    expect(cleared.description ?? null).toBeNull();
    expect(cleared.name).toBe('both.txt');
    const same = checkedBody(await server.call(me.token, 'PUT', `${API}/file-entries/${file.id}`, {}), EntryResponse).fileEntry;
    expect(same.name).toBe('both.txt');
    const max = 'd'.repeat(200);
    expect(checkedBody(await server.call(me.token, 'PUT', `${API}/file-entries/${file.id}`, { description: max }), EntryResponse).fileEntry.description).toBe(max);
  });

  it('takes names of 3 to 200 characters and refuses others with 422', async () => {
    const me = await account();
    const file = await upload(me, 'name-rules.txt');
    for (const name of ['abc', 'x'.repeat(200), 'ééé', '😀😀😀', 'a b']) {
      const answer = checkedBody(await server.call(me.token, 'PUT', `${API}/file-entries/${file.id}`, { name }), EntryResponse);
      expect(answer.fileEntry.name).toBe(name);
    }
    for (const name of ['', 'ab', 'x'.repeat(201), '   ', '😀😀']) {
      expect422(await server.call(me.token, 'PUT', `${API}/file-entries/${file.id}`, { name }), 'name');
    }
    expect422(await server.call(me.token, 'PUT', `${API}/file-entries/${file.id}`, { description: 'd'.repeat(201) }), 'description');
    expect422(await server.call(me.token, 'PUT', `${API}/file-entries/${file.id}`, { name: 42 }), 'name');
    // nothing refused was stored
    expect((await list(me)).data[0].name).toBe('a b');
  });

  it('answers 401, 403, 404 and 422 for the caller and the id', async () => {
    const owner = await account();
    const viewer = await account();
    const editor = await account();
    const stranger = await account();
    const file = await upload(owner, 'guarded.txt');
    await share(owner, file.id, viewer, ['view', 'download']);
    await share(owner, file.id, editor, ['view', 'edit']);
    expectError(await server.call(null, 'PUT', `${API}/file-entries/${file.id}`, { name: 'nope' }), 401);
    expectError(await server.call(stranger.token, 'PUT', `${API}/file-entries/${file.id}`, { name: 'nope' }), 403);
    expectError(await server.call(viewer.token, 'PUT', `${API}/file-entries/${file.id}`, { name: 'nope' }), 403);
    expectError(await server.call(owner.token, 'PUT', `${API}/file-entries/99999999`, { name: 'nope' }), 404);
    expect422(await server.call(owner.token, 'PUT', `${API}/file-entries/abc`, { name: 'nope' }), 'entryId');
    expect422(await server.call(owner.token, 'PUT', `${API}/file-entries/0`, { name: 'nope' }), 'entryId');
    expect((await list(owner)).data[0].name).toBe('guarded.txt');
    const edited = checkedBody(await server.call(editor.token, 'PUT', `${API}/file-entries/${file.id}`, { name: 'edited.txt' }), EntryResponse);
    expect(edited.fileEntry.name).toBe('edited.txt');
  });
});

describe('POST /folders', () => {
  it('creates folders at the root (parentId null, 0 or absent) and inside a folder', async () => {
    const me = await account();
    const a = await folder(me, 'root-null', null);
    const b = checkedBody(await server.call(me.token, 'POST', `${API}/folders`, { name: 'root-absent' }), FolderResponse).folder;
    const c = checkedBody(await server.call(me.token, 'POST', `${API}/folders`, { name: 'root-zero', parentId: 0 }), FolderResponse).folder;
    for (const f of [a, b, c]) {
      expect(f).toMatchObject({ type: 'folder', parent_id: null, path: String(f.id), url: null });
      expect(f.created_at).toMatch(ISO_MICROS);
    }
    const child = await folder(me, 'child', a.id);
    expect(child).toMatchObject({ name: 'child', parent_id: a.id, path: `${a.id}/${child.id}`, type: 'folder' });
    expect(child.parent).toMatchObject({ id: a.id, name: 'root-null' });
    expect(ids((await list(me, { parentIds: String(a.id) })).data)).toEqual([child.id]);
    expect(ids((await list(me, { type: 'folder' })).data)).toEqual([a.id, b.id, c.id, child.id]);
  });

  it('refuses an active folder name taken in the same parent with 422 errors.name', async () => {
    const me = await account();
    const other = await account();
    const parent = await folder(me, 'parent');
    await folder(me, 'same', null);
    await folder(me, 'same', parent.id); // another parent: fine
    await folder(other, 'same', null); // another drive: fine
    expect422(await server.call(me.token, 'POST', `${API}/folders`, { name: 'same', parentId: null }), 'name');
    expect422(await server.call(me.token, 'POST', `${API}/folders`, { name: 'same', parentId: parent.id }), 'name');
    // a file of that name does not block a folder
    await upload(me, 'file-name', 'x', parent.id);
    await folder(me, 'file-name', parent.id);
    expect((await list(me, { query: 'same' })).total).toBe(2);
    // once the taken folder is in trash the name is free again
    const children = (await list(me, { parentIds: String(parent.id), type: 'folder' })).data as Entry[];
    const sameInParent = children.find((e) => e.name === 'same')!;
    checkedBody(await remove(me, [sameInParent.id]), Status);
    const again = await folder(me, 'same', parent.id);
    expect(again.id).not.toBe(sameInParent.id);
  });

  it('refuses a parent that is a file, unknown or in trash with 422, and someone else\'s with 403', async () => {
    const me = await account();
    const stranger = await account();
    const file = await upload(me, 'plain.txt');
    const trashed = await folder(me, 'trashed');
    checkedBody(await remove(me, [trashed.id]), Status);
    const foreign = await folder(stranger, 'foreign');
    expect422(await server.call(me.token, 'POST', `${API}/folders`, { name: 'inside', parentId: file.id }), 'parentId');
    expect422(await server.call(me.token, 'POST', `${API}/folders`, { name: 'inside', parentId: 99999999 }), 'parentId');
    expect422(await server.call(me.token, 'POST', `${API}/folders`, { name: 'inside', parentId: trashed.id }), 'parentId');
    expect422(await server.call(me.token, 'POST', `${API}/folders`, { name: 'inside', parentId: 'abc' }), 'parentId');
    expect422(await server.call(me.token, 'POST', `${API}/folders`, { name: 'ab' }), 'name');
    expect422(await server.call(me.token, 'POST', `${API}/folders`, { name: 'x'.repeat(201) }), 'name');
    expect422(await server.call(me.token, 'POST', `${API}/folders`, {}), 'name');
    expectError(await server.call(me.token, 'POST', `${API}/folders`, { name: 'inside', parentId: foreign.id }), 403);
    expectError(await server.call(null, 'POST', `${API}/folders`, { name: 'inside' }), 401);
    expect(ids((await list(me)).data)).toEqual([file.id]);
    expect((await list(stranger)).total).toBe(1);
  });

  it('lets an editor create a folder inside a shared folder; it belongs to the owner\'s drive', async () => {
    const owner = await account();
    const editor = await account();
    const viewer = await account();
    const shared = await folder(owner, 'shared');
    await share(owner, shared.id, editor, ['view', 'edit']);
    await share(owner, shared.id, viewer, ['view']);
    const made = await folder(editor, 'by-editor', shared.id);
    expect(made.path).toBe(`${shared.id}/${made.id}`);
    expect(ids((await list(owner)).data)).toEqual([shared.id, made.id]);
    expect((await list(editor)).data).toEqual([]);
    expectError(await server.call(viewer.token, 'POST', `${API}/folders`, { name: 'by-viewer', parentId: shared.id }), 403);
  });
});

describe('POST /file-entries/move', () => {
  it('moves a folder with its subtree: parent_id, paths and updated_at follow', async () => {
    const me = await account();
    const a = await folder(me, 'AAA');
    const b = await folder(me, 'BBB');
    const moving = await folder(me, 'moving', a.id);
    const sub = await folder(me, 'sub', moving.id);
    const leaf = await upload(me, 'leaf.txt', 'leaf', sub.id);
    await sleep(2);
    const body = checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/move`, { entryIds: [moving.id], destinationId: b.id }), EntriesResponse);
    expect(body.entries).toHaveLength(1);
    const moved = body.entries[0];
    expect(moved).toMatchObject({ id: moving.id, parent_id: b.id, path: `${b.id}/${moving.id}` });
    expect(moved.parent).toMatchObject({ id: b.id, name: 'BBB' });
    expect(moved.updated_at).toMatch(ISO_MICROS);
    expect(moved.updated_at).not.toBe(moving.updated_at);
    expect(Date.parse(moved.updated_at)).toBeGreaterThanOrEqual(Date.parse(moving.updated_at!));
    const byId = new Map<number, Entry>((await list(me)).data.map((e: Entry) => [e.id, e]));
    expect(byId.get(sub.id)).toMatchObject({ parent_id: moving.id, path: `${b.id}/${moving.id}/${sub.id}` });
    expect(byId.get(leaf.id)).toMatchObject({ parent_id: sub.id, path: `${b.id}/${moving.id}/${sub.id}/${leaf.id}` });
    expect((await list(me, { parentIds: String(a.id) })).data).toEqual([]);
    expect(ids((await list(me, { parentIds: String(b.id) })).data)).toEqual([moving.id]);
    // the bytes follow the entry
    expect((await download(me, leaf)).body).toBe('leaf');
  });

  it('moves to the root with destinationId null, 0 or absent', async () => {
    const me = await account();
    const dir = await folder(me, 'dir');
    const x = await upload(me, 'x.txt', 'x', dir.id);
    const y = await upload(me, 'y.txt', 'y', dir.id);
    const z = await upload(me, 'z.txt', 'z', dir.id);
    const one = checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/move`, { entryIds: [x.id], destinationId: null }), EntriesResponse);
    expect(one.entries[0]).toMatchObject({ id: x.id, parent_id: null, path: String(x.id), parent: null });
    const two = checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/move`, { entryIds: [y.id], destinationId: 0 }), EntriesResponse);
    expect(two.entries[0]).toMatchObject({ id: y.id, parent_id: null, path: String(y.id) });
    const three = checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/move`, { entryIds: [String(z.id)] }), EntriesResponse);
    expect(three.entries[0]).toMatchObject({ id: z.id, parent_id: null, path: String(z.id) });
    expect((await list(me, { parentIds: String(dir.id) })).data).toEqual([]);
  });

  it('moves several entries at once, up to 30', async () => {
    const me = await account();
    const target = await folder(me, 'target');
    const many: Entry[] = [];
    for (let i = 0; i < 30; i++) many.push(await folder(me, `f-${String(i).padStart(2, '0')}`));
    const body = checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/move`, { entryIds: ids(many), destinationId: target.id }), EntriesResponse);
    expect(sorted(ids(body.entries))).toEqual(sorted(ids(many)));
    for (const entry of body.entries) expect(entry.parent_id).toBe(target.id);
    expect((await list(me, { parentIds: String(target.id) })).total).toBe(30);
    // 31 distinct ids are refused, even if they exist
    const extra = await folder(me, 'f-30');
    expect422(
      await server.call(me.token, 'POST', `${API}/file-entries/move`, { entryIds: [...ids(many), extra.id], destinationId: null }),
      'entryIds',
    );
    expect((await list(me, { parentIds: String(target.id) })).total).toBe(30);
  });

  it('refuses a folder into itself or a descendant with 422 errors.destinationId', async () => {
    const me = await account();
    const top = await folder(me, 'top');
    const child = await folder(me, 'child', top.id);
    const grandchild = await folder(me, 'grandchild', child.id);
    for (const destinationId of [top.id, child.id, grandchild.id]) {
      expect422(await server.call(me.token, 'POST', `${API}/file-entries/move`, { entryIds: [top.id], destinationId }), 'destinationId');
    }
    // a sibling whose path merely starts with the same digits is not a descendant
    const byId = new Map<number, Entry>((await list(me)).data.map((e: Entry) => [e.id, e]));
    expect(byId.get(grandchild.id)?.path).toBe(`${top.id}/${child.id}/${grandchild.id}`);
    expect(byId.get(top.id)?.parent_id).toBeNull();
  });

  it('refuses a destination that is a file, unknown or in trash (422), and bad ids', async () => {
    const me = await account();
    const file = await upload(me, 'file.txt');
    const other = await upload(me, 'other.txt');
    const trashed = await folder(me, 'trashed');
    checkedBody(await remove(me, [trashed.id]), Status);
    for (const destinationId of [file.id, 99999999, trashed.id]) {
      expect422(await server.call(me.token, 'POST', `${API}/file-entries/move`, { entryIds: [other.id], destinationId }), 'destinationId');
    }
    expect422(await server.call(me.token, 'POST', `${API}/file-entries/move`, { destinationId: null }), 'entryIds');
    expect422(await server.call(me.token, 'POST', `${API}/file-entries/move`, { entryIds: [], destinationId: null }), 'entryIds');
    expect422(await server.call(me.token, 'POST', `${API}/file-entries/move`, { entryIds: [other.id], destinationId: 'x' }), 'destinationId');
    expectError(await server.call(me.token, 'POST', `${API}/file-entries/move`, { entryIds: [99999999], destinationId: null }), 404);
    expectError(await server.call(null, 'POST', `${API}/file-entries/move`, { entryIds: [other.id], destinationId: null }), 401);
    expect(ids((await list(me)).data)).toEqual([file.id, other.id]);
  });

  it('answers 403 for a stranger, a viewer and a move across drives', async () => {
    const owner = await account();
    const editor = await account();
    const viewer = await account();
    const stranger = await account();
    const shared = await folder(owner, 'shared');
    const inner = await upload(owner, 'inner.txt', 'i', shared.id);
    const sub = await folder(owner, 'sub', shared.id);
    await share(owner, shared.id, editor, ['view', 'edit']);
    await share(owner, shared.id, viewer, ['view', 'download']);
    const mine = await upload(editor, 'editors-own.txt');
    expectError(await server.call(stranger.token, 'POST', `${API}/file-entries/move`, { entryIds: [inner.id], destinationId: null }), 403);
    expectError(await server.call(viewer.token, 'POST', `${API}/file-entries/move`, { entryIds: [inner.id], destinationId: sub.id }), 403);
    expectError(await server.call(editor.token, 'POST', `${API}/file-entries/move`, { entryIds: [mine.id], destinationId: shared.id }), 403);
    expectError(await server.call(owner.token, 'POST', `${API}/file-entries/move`, { entryIds: [mine.id], destinationId: null }), 403);
    // an editor moves within the shared drive
    const body = checkedBody(await server.call(editor.token, 'POST', `${API}/file-entries/move`, { entryIds: [inner.id], destinationId: sub.id }), EntriesResponse);
    expect(body.entries[0]).toMatchObject({ parent_id: sub.id, path: `${shared.id}/${sub.id}/${inner.id}` });
  });
});

describe('POST /file-entries/duplicate', () => {
  it('copies a folder deeply into a destination, with readable bytes and fresh ids', async () => {
    const me = await account();
    const source = await folder(me, 'source');
    const sub = await folder(me, 'sub', source.id);
    const bytes = new Uint8Array(4096).map((_, i) => (i * 7) % 256);
    await upload(me, 'data.bin', bytes, sub.id);
    const text = await upload(me, 'note.txt', 'note body', source.id);
    const trashedChild = await upload(me, 'trashed.txt', 'gone', source.id);
    checkedBody(await remove(me, [trashedChild.id]), Status);
    const target = await folder(me, 'target');

    const body = checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/duplicate`, { entryIds: [source.id], destinationId: target.id }), EntriesResponse);
    expect(body.entries).toHaveLength(1);
    const copy = body.entries[0];
    expect(copy.id).not.toBe(source.id);
    expect(copy).toMatchObject({ name: 'source', type: 'folder', parent_id: target.id, path: `${target.id}/${copy.id}` });

    const copyChildren = (await list(me, { parentIds: String(copy.id) })).data as Entry[];
    expect(copyChildren.map((e) => e.name).sort()).toEqual(['note.txt', 'sub']); // no trashed child
    const copySub = copyChildren.find((e) => e.name === 'sub')!;
    const copyText = copyChildren.find((e) => e.name === 'note.txt')!;
    expect(copySub.id).not.toBe(sub.id);
    expect(copySub.path).toBe(`${target.id}/${copy.id}/${copySub.id}`);
    expect(copyText.file_name).not.toBe(text.file_name);
    expect(copyText.file_size).toBe(text.file_size);
    expect(copyText.mime).toBe(text.mime);
    const copyBinary = (await list(me, { parentIds: String(copySub.id) })).data[0] as Entry;
    expect(copyBinary).toMatchObject({ name: 'data.bin', file_size: 4096, path: `${target.id}/${copy.id}/${copySub.id}/${copyBinary.id}` });
    expect(copyBinary.url).toBe(`api/v1/file-entries/${copyBinary.id}`);
    const fetched = await fetch(`${server.url}/${copyBinary.url}`, { headers: { authorization: `Bearer ${me.token}` } });
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    expect((await download(me, copyText)).body).toBe('note body');

    // a second copy into the same destination finds the name taken
    const again = checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/duplicate`, { entryIds: [source.id], destinationId: target.id }), EntriesResponse);
    expect(again.entries[0]).toMatchObject({ name: 'source (copy)', parent_id: target.id });

    // the copy is independent: deleting the original forever leaves the copy's bytes
    checkedBody(await remove(me, [source.id], 'true'), Status);
    expect((await download(me, copyText)).body).toBe('note body');
    expect(existsSync(join(server.context.blobDir, copyBinary.file_name!))).toBe(true);
  });

  it('copies into the entry\'s own folder when no destination is given; folder names get "(copy)"', async () => {
    const me = await account();
    const parent = await folder(me, 'parent');
    const dir = await folder(me, 'Photos', parent.id);
    const file = await upload(me, 'one.txt', 'one', parent.id);
    const first = checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/duplicate`, { entryIds: [dir.id] }), EntriesResponse).entries[0];
    expect(first).toMatchObject({ name: 'Photos (copy)', parent_id: parent.id, type: 'folder' });
    const second = checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/duplicate`, { entryIds: [dir.id] }), EntriesResponse).entries[0];
    expect(second.name).toBe('Photos (copy 2)');
    const third = checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/duplicate`, { entryIds: [dir.id, file.id] }), EntriesResponse).entries;
    expect(third.map((e: Entry) => e.name)).toEqual(['Photos (copy 3)', 'one.txt']);
    expect(third[1].id).not.toBe(file.id);
    expect(third[1].parent_id).toBe(parent.id);
    expect((await download(me, third[1])).body).toBe('one');
    const names = ((await list(me, { parentIds: String(parent.id) })).data as Entry[]).map((e) => e.name).sort();
    expect(names).toEqual(['Photos', 'Photos (copy 2)', 'Photos (copy 3)', 'Photos (copy)', 'one.txt', 'one.txt']);
    // a root folder copied at the root
    const rootDir = await folder(me, 'RootDir');
    const rootCopy = checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/duplicate`, { entryIds: [rootDir.id] }), EntriesResponse).entries[0];
    expect(rootCopy).toMatchObject({ name: 'RootDir (copy)', parent_id: null, path: String(rootCopy.id) });
  });

  it('answers 401, 403, 404 and 422', async () => {
    const owner = await account();
    const viewOnly = await account();
    const stranger = await account();
    const file = await upload(owner, 'dup.txt');
    const other = await upload(owner, 'other.txt');
    await share(owner, file.id, viewOnly, ['view']);
    expectError(await server.call(null, 'POST', `${API}/file-entries/duplicate`, { entryIds: [file.id] }), 401);
    expectError(await server.call(stranger.token, 'POST', `${API}/file-entries/duplicate`, { entryIds: [file.id] }), 403);
    expectError(await server.call(viewOnly.token, 'POST', `${API}/file-entries/duplicate`, { entryIds: [file.id] }), 403);
    expectError(await server.call(owner.token, 'POST', `${API}/file-entries/duplicate`, { entryIds: [99999999] }), 404);
    expect422(await server.call(owner.token, 'POST', `${API}/file-entries/duplicate`, { entryIds: [file.id], destinationId: other.id }), 'destinationId');
    expect422(await server.call(owner.token, 'POST', `${API}/file-entries/duplicate`, { entryIds: [] }), 'entryIds');
    expect422(await server.call(owner.token, 'POST', `${API}/file-entries/duplicate`, {}), 'entryIds');
    expect(ids((await list(owner)).data)).toEqual([file.id, other.id]);
  });
});

describe('POST /file-entries/restore', () => {
  it('puts a trashed entry back in its original folder', async () => {
    const me = await account();
    const dir = await folder(me, 'home');
    const file = await upload(me, 'back.txt', 'back', dir.id);
    checkedBody(await remove(me, [file.id]), Status);
    expect((await list(me, { parentIds: String(dir.id) })).data).toEqual([]);
    const answer = checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/restore`, { entryIds: [file.id] }), Status);
    expect(answer.status).toBe('success');
    const back = (await list(me, { parentIds: String(dir.id) })).data as Entry[];
    expect(ids(back)).toEqual([file.id]);
    expect(back[0]).toMatchObject({ parent_id: dir.id, path: `${dir.id}/${file.id}` });
    expect(back[0]?.deleted_at ?? null).toBeNull();
    expect((await list(me, { deletedOnly: true })).data).toEqual([]);
    expect((await download(me, file)).body).toBe('back');
  });

  it('restores a folder with its subtree', async () => {
    const me = await account();
    const dir = await folder(me, 'tree');
    const sub = await folder(me, 'branch', dir.id);
    const leaf = await upload(me, 'leaf.txt', 'leaf', sub.id);
    checkedBody(await remove(me, [dir.id]), Status);
    checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/restore`, { entryIds: [String(dir.id)] }), Status);
    const all = (await list(me)).data as Entry[];
    expect(ids(all)).toEqual([dir.id, sub.id, leaf.id]);
    for (const e of all) expect(e.deleted_at ?? null).toBeNull();
  });

  it('puts an entry at the root when its folder is itself in trash', async () => {
    const me = await account();
    const dir = await folder(me, 'doomed');
    const sub = await folder(me, 'kid', dir.id);
    const file = await upload(me, 'orphan.txt', 'orphan', sub.id);
    checkedBody(await remove(me, [file.id]), Status);
    checkedBody(await remove(me, [dir.id]), Status);
    checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/restore`, { entryIds: [file.id] }), Status);
    const active = (await list(me)).data as Entry[];
    expect(ids(active)).toEqual([file.id]);
    expect(active[0]).toMatchObject({ parent_id: null, path: String(file.id), parent: null });
    expect(ids((await list(me, { deletedOnly: true })).data)).toEqual([dir.id]);
    // a trashed subfolder restored on its own also lands at the root, with its subtree
    checkedBody(await server.call(me.token, 'POST', `${API}/file-entries/restore`, { entryIds: [sub.id] }), Status);
    const byId = new Map<number, Entry>((await list(me)).data.map((e: Entry) => [e.id, e]));
    expect(byId.get(sub.id)).toMatchObject({ parent_id: null, path: String(sub.id) });
    expect(ids((await list(me, { deletedOnly: true })).data)).toEqual([dir.id]);
  });

  it('answers 401, 403, 404 and 422', async () => {
    const owner = await account();
    const viewer = await account();
    const stranger = await account();
    const file = await upload(owner, 'r.txt');
    await share(owner, file.id, viewer, ['view', 'download']);
    checkedBody(await remove(owner, [file.id]), Status);
    expectError(await server.call(null, 'POST', `${API}/file-entries/restore`, { entryIds: [file.id] }), 401);
    expectError(await server.call(stranger.token, 'POST', `${API}/file-entries/restore`, { entryIds: [file.id] }), 403);
    expectError(await server.call(viewer.token, 'POST', `${API}/file-entries/restore`, { entryIds: [file.id] }), 403);
    expectError(await server.call(owner.token, 'POST', `${API}/file-entries/restore`, { entryIds: [99999999] }), 404);
    expect422(await server.call(owner.token, 'POST', `${API}/file-entries/restore`, {}), 'entryIds');
    expect422(await server.call(owner.token, 'POST', `${API}/file-entries/restore`, { entryIds: [] }), 'entryIds');
    expect422(await server.call(owner.token, 'POST', `${API}/file-entries/restore`, { entryIds: ['x1'] }));
    expect(ids((await list(owner, { deletedOnly: true })).data)).toEqual([file.id]);
  });
});
