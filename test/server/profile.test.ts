// The two profiles of the reference server side by side: each behaviour where the deployed versions differ from the
// documents (docs/server.md, Profiles), asked of a documents server and of a deployed one.
import { describe, expect, it } from 'vitest';
import { freshAccount, uploadForm, useTestServer, wholeDrive, type Account, type TestServer } from '../helpers/server.js';
import { expectSchema } from '../helpers/schema.js';
import { startServer } from '../../server/app.js';
import { ProfileError } from '../../server/profile.js';
import { addList } from '../../server/lists.js';
import {
  AuthResponse,
  BootstrapAuthResponse,
  EntryListResponse,
  LinkResponse,
  Paginator,
  UsersResponse,
  ValidationErrorBody,
} from '../../main/api/schemas.js';

const API = '/api/v1';
const documents = useTestServer();
const deployed = useTestServer({ profile: 'deployed' });

async function folder(server: TestServer, who: Account, name: string, parentId: number | null = null): Promise<number> {
  const answer = await server.call(who.token, 'POST', `${API}/folders`, { name, parentId });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.folder.id;
}

async function upload(server: TestServer, who: Account, name: string, parentId: number | null = null, type?: string): Promise<any> {
  const form = new FormData();
  if (parentId !== null) form.append('parentId', String(parentId));
  form.append('file', new Blob(['content'], type ? { type } : {}), name);
  const answer = await server.call(who.token, 'POST', `${API}/uploads`, form);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.fileEntry;
}

/** A drive with a folder two levels deep: top/, top/inner/, top/inner/deep.txt, root.txt. */
async function smallDrive(server: TestServer, label: string) {
  const who = await freshAccount(server, label);
  const top = await folder(server, who, 'top');
  const inner = await folder(server, who, 'inner', top);
  const deep = await upload(server, who, 'deep.txt', inner);
  const root = await upload(server, who, 'root.txt');
  return { who, top, inner, deep: deep.id as number, root: root.id as number };
}

const ids = (body: any) => (Array.isArray(body) ? body : body.data).map((e: { id: number }) => e.id).sort((a: number, b: number) => a - b);

describe('listing', () => {
  it('without parentIds: the whole drive as documented; the root’s children only as deployed', async () => {
    const doc = await smallDrive(documents, 'list');
    const all = await documents.call(doc.who.token, 'GET', `${API}/drive/file-entries`);
    expect(ids(all.body)).toEqual([doc.top, doc.inner, doc.deep, doc.root].sort((a, b) => a - b));

    const dep = await smallDrive(deployed, 'list');
    const roots = await deployed.call(dep.who.token, 'GET', `${API}/drive/file-entries`);
    expect(roots.status).toBe(200);
    expect(ids(roots.body)).toEqual([dep.top, dep.root].sort((a, b) => a - b));
    // parentIds and the other selectors are the same in both.
    const children = await deployed.call(dep.who.token, 'GET', `${API}/drive/file-entries?parentIds=${dep.top},${dep.inner}`);
    expect(ids(children.body)).toEqual([dep.inner, dep.deep]);
    const found = await deployed.call(dep.who.token, 'GET', `${API}/drive/file-entries?query=deep`);
    expect(ids(found.body)).toEqual([dep.deep]);
    // Walked breadth-first, the deployed drive is whole again.
    expect((await wholeDrive(deployed, dep.who.token)).map((e) => e.id)).toEqual(
      [dep.top, dep.inner, dep.deep, dep.root].sort((a, b) => a - b),
    );
  });

  it('perPage is honoured as documented and forced to 50 as deployed; the paginator wrapper always', async () => {
    for (const server of [documents, deployed]) {
      const who = await freshAccount(server, 'pages');
      for (let i = 0; i < 60; i++) await upload(server, who, `f-${i}.txt`);
      const answer = await server.call(who.token, 'GET', `${API}/drive/file-entries?perPage=100`);
      expect(answer.status).toBe(200);
      expectSchema(Paginator, answer.body);
      const expected = server === deployed ? { per_page: 50, count: 50, last_page: 2, next_page: 2 } : { per_page: 100, count: 60, last_page: 1, next_page: null };
      expect({ per_page: answer.body.per_page, count: answer.body.data.length, last_page: answer.body.last_page, next_page: answer.body.next_page }).toEqual(expected);
      const second = await server.call(who.token, 'GET', `${API}/drive/file-entries?perPage=100&page=2`);
      expect(second.body.data.length).toBe(server === deployed ? 10 : 0);
    }
  });

  it('the deployed profile never answers a bare array: --list-format array is refused with it, as is an unknown profile', async () => {
    await expect(startServer({ profile: 'deployed', listFormat: 'array', port: 0 })).rejects.toThrow(ProfileError);
    await expect(startServer({ profile: 'deployed', listFormat: 'array', port: 0 })).rejects.toThrow(/always answers listings as a paginator/);
    for (const name of ['staging', '__proto__', 'constructor']) {
      await expect(startServer({ profile: name as 'deployed', port: 0 })).rejects.toThrow(/unknown profile/);
    }
  });
});

describe('errors', () => {
  it('422: {status, message, errors: {field: string}} as documented; {message, errors: {field: [..]}} as deployed, the duplicate folder name a string', async () => {
    for (const server of [documents, deployed]) {
      const who = await freshAccount(server, 'errors');
      const short = await server.call(who.token, 'POST', `${API}/folders`, { name: 'ab', parentId: null });
      expect(short.status).toBe(422);
      expectSchema(ValidationErrorBody, short.body);
      await folder(server, who, 'twice');
      const twice = await server.call(who.token, 'POST', `${API}/folders`, { name: 'twice', parentId: null });
      expect(twice.status).toBe(422);
      expectSchema(ValidationErrorBody, twice.body);
      if (server === documents) {
        expect(short.body).toEqual({ status: 'error', message: expect.any(String), errors: { name: expect.any(String) } });
        expect(typeof twice.body.errors.name).toBe('string');
      } else {
        expect(short.body).toEqual({ message: expect.any(String), errors: { name: [expect.any(String)] } });
        expect(twice.body).toEqual({ message: expect.any(String), errors: { name: expect.any(String) } });
      }
      // Malformed JSON and schema violations take the same shape.
      const malformed = await server.call(who.token, 'POST', `${API}/folders`, '{"name":');
      expect(malformed.status).toBe(422);
      expect('status' in malformed.body).toBe(server === documents);
      expect(Array.isArray(malformed.body.errors.body)).toBe(server === deployed);
    }
  });

  it('401 and 403 answer {message} in both', async () => {
    for (const server of [documents, deployed]) {
      const none = await server.call(null, 'GET', `${API}/drive/file-entries`);
      expect(none.status).toBe(401);
      expect(none.body).toEqual({ message: 'Unauthenticated.' });
      const owner = await freshAccount(server, 'owner');
      const other = await freshAccount(server, 'other');
      const id = await folder(server, owner, 'mine');
      const refused = await server.call(other.token, 'PUT', `${API}/file-entries/${id}`, { name: 'theirs' });
      expect(refused.status).toBe(403);
      expect(Object.keys(refused.body)).toEqual(['message']);
    }
  });
});

describe('register', () => {
  it('nests the user under bootstrapData and requires the confirmation as deployed', async () => {
    const email = (label: string) => `${label}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const plain = await documents.call(null, 'POST', `${API}/auth/register`, { email: email('doc'), password: 'secret-1', token_name: 't' });
    expect(plain.status).toBe(200);
    expectSchema(AuthResponse, plain.body);
    expect(plain.body.user.access_token).toEqual(expect.any(String));

    const missing = await deployed.call(null, 'POST', `${API}/auth/register`, { email: email('dep'), password: 'secret-1', token_name: 't' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.password).toEqual([expect.stringMatching(/confirmation/)]);
    const wrong = await deployed.call(null, 'POST', `${API}/auth/register`, {
      email: email('dep'),
      password: 'secret-1',
      password_confirmation: 'secret-2',
      token_name: 't',
    });
    expect(wrong.status).toBe(422);
    const address = email('dep');
    const nested = await deployed.call(null, 'POST', `${API}/auth/register`, {
      email: address,
      password: 'secret-1',
      password_confirmation: 'secret-1',
      token_name: 't',
    });
    expect(nested.status).toBe(200);
    expectSchema(BootstrapAuthResponse, nested.body);
    expect(nested.body.user).toBeUndefined();
    expect(nested.body.bootstrapData.user.email).toBe(address);
    const token = nested.body.bootstrapData.user.access_token;
    expect((await deployed.call(token, 'GET', `${API}/drive/file-entries`)).status).toBe(200);
    // Login answers {status, user} in both.
    const login = await deployed.call(null, 'POST', `${API}/auth/login`, { email: address, password: 'secret-1', token_name: 't' });
    expectSchema(AuthResponse, login.body);
  });
});

describe('delete and move', () => {
  it('delete without deleteForever: to the trash as documented, gone for good as deployed; "false" trashes in both', async () => {
    for (const server of [documents, deployed]) {
      const who = await freshAccount(server, 'delete');
      const unflagged = await upload(server, who, 'unflagged.txt');
      const flagged = await upload(server, who, 'flagged.txt');
      expect((await server.call(who.token, 'DELETE', `${API}/file-entries`, { entryIds: [String(unflagged.id)] })).status).toBe(200);
      expect((await server.call(who.token, 'DELETE', `${API}/file-entries`, { entryIds: [String(flagged.id)], deleteForever: 'false' })).status).toBe(200);
      const trash = await server.call(who.token, 'GET', `${API}/drive/file-entries?deletedOnly=true`);
      expect(ids(trash.body)).toEqual(server === deployed ? [flagged.id] : [unflagged.id, flagged.id]);
      const restored = await server.call(who.token, 'POST', `${API}/file-entries/restore`, { entryIds: [unflagged.id] });
      expect(restored.status).toBe(server === deployed ? 404 : 200);
    }
  });

  it('a move answers the moved entries as documented, and an empty list as deployed; the move happens in both', async () => {
    for (const server of [documents, deployed]) {
      const who = await freshAccount(server, 'move');
      const into = await folder(server, who, 'into');
      const file = await upload(server, who, 'moving.txt');
      const moved = await server.call(who.token, 'POST', `${API}/file-entries/move`, { entryIds: [file.id], destinationId: into });
      expect(moved.status).toBe(200);
      expect(moved.body.entries.map((e: { id: number }) => e.id)).toEqual(server === deployed ? [] : [file.id]);
      const inside = await server.call(who.token, 'GET', `${API}/drive/file-entries?parentIds=${into}`);
      expect(ids(inside.body)).toEqual([file.id]);
    }
  });
});

describe('entry types', () => {
  it('archives, spreadsheets, word and powerPoint documents have types of their own as deployed, `file` as documented', async () => {
    const cases: Array<[string, string, string]> = [
      ['a.zip', 'application/zip', 'archive'],
      ['b.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'spreadsheet'],
      ['c.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'word'],
      ['d.pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation', 'powerPoint'],
      ['e.pdf', 'application/pdf', 'pdf'],
      ['f.png', 'image/png', 'image'],
      ['g.bin', 'application/octet-stream', 'file'],
    ];
    for (const server of [documents, deployed]) {
      const who = await freshAccount(server, 'types');
      for (const [name, mime, deployedType] of cases) {
        const entry = await upload(server, who, name, null, mime);
        const documentType = ['pdf', 'image'].includes(deployedType) ? deployedType : 'file';
        expect([name, entry.type]).toEqual([name, server === deployed ? deployedType : documentType]);
      }
    }
  });
});

describe('sharing', () => {
  it('permissions: a list of names or an object as documented; as deployed only the object grants edit and download', async () => {
    for (const server of [documents, deployed]) {
      const owner = await freshAccount(server, 'sharer');
      const friend = await freshAccount(server, 'friend');
      const byList = await upload(server, owner, 'by-list.txt');
      const byObject = await upload(server, owner, 'by-object.txt');
      const listed = await server.call(owner.token, 'POST', `${API}/file-entries/${byList.id}/share`, {
        emails: [friend.email],
        permissions: ['view', 'edit', 'download'],
      });
      expectSchema(UsersResponse, listed.body);
      const flagged = await server.call(owner.token, 'POST', `${API}/file-entries/${byObject.id}/share`, {
        emails: [friend.email],
        permissions: { view: true, edit: true, download: true },
      });
      const all = { view: true, edit: true, download: true };
      expect(flagged.body.users).toEqual([expect.objectContaining({ email: friend.email, entry_permissions: all, owns_entry: false })]);
      expect(listed.body.users[0].entry_permissions).toEqual(server === deployed ? { view: true, edit: false, download: false } : all);
      // What the answer says is what the friend may do.
      const rename = await server.call(friend.token, 'PUT', `${API}/file-entries/${byList.id}`, { name: 'renamed.txt' });
      expect(rename.status).toBe(server === deployed ? 403 : 200);
      // change-permissions reads permissions the same way.
      const changed = await server.call(owner.token, 'PUT', `${API}/file-entries/${byObject.id}/change-permissions`, {
        userId: friend.id,
        permissions: ['view', 'download'],
      });
      expect(changed.body.users[0].entry_permissions).toEqual({ view: true, edit: false, download: server === documents });
    }
  });
});

describe('shareable links', () => {
  it('GET of an entry without a link: 404 as documented, 200 {link: null} as deployed', async () => {
    for (const server of [documents, deployed]) {
      const who = await freshAccount(server, 'nolink');
      const file = await upload(server, who, 'plain.txt');
      const answer = await server.call(who.token, 'GET', `${API}/file-entries/${file.id}/shareable-link`);
      if (server === documents) {
        expect(answer.status).toBe(404);
      } else {
        expect(answer.status).toBe(200);
        expectSchema(LinkResponse, answer.body);
        expect(answer.body.link).toBeNull();
      }
      // An unknown entry is a 404 in both.
      expect((await server.call(who.token, 'GET', `${API}/file-entries/99999999/shareable-link`)).status).toBe(404);
    }
  });

  it('request fields: snake_case or camelCase as documented, camelCase only as deployed; answers are snake_case in both', async () => {
    const expiry = '2031-01-02T03:04:05.000000Z';
    const snake = { expires_at: expiry, allow_edit: true, allow_download: false };
    const camel = { expiresAt: expiry, allowEdit: true, allowDownload: false };
    const asked = { expires_at: expiry, allow_edit: true, allow_download: false };
    const defaults = { expires_at: null, allow_edit: false, allow_download: true };
    for (const server of [documents, deployed]) {
      const who = await freshAccount(server, 'links');
      for (const [body, name] of [[snake, 'snake.txt'], [camel, 'camel.txt']] as const) {
        const file = await upload(server, who, name);
        const created = await server.call(who.token, 'POST', `${API}/file-entries/${file.id}/shareable-link`, body);
        expect(created.status).toBe(200);
        expectSchema(LinkResponse, created.body);
        const { expires_at, allow_edit, allow_download } = created.body.link;
        const expected = server === deployed && body === snake ? defaults : asked;
        expect([name, { expires_at, allow_edit, allow_download }]).toEqual([name, expected]);
        expect(created.body.link).not.toHaveProperty('expiresAt');
        // PUT reads the same fields, and resets what it does not read.
        const updated = await server.call(who.token, 'PUT', `${API}/file_entries/${file.id}/shareable-link`, body);
        expect(updated.body.link.allow_edit).toBe(expected.allow_edit);
      }
    }
  });
});

describe('mailing lists', () => {
  it('store of an e-mail the list has: 422 as documented; as deployed the subscriber is updated and its id answered', async () => {
    for (const server of [documents, deployed]) {
      const who = await freshAccount(server, 'lists');
      const listId = addList(server.context.db, 'Profile readers', who.email);
      const store = (query: string) => server.call(who.token, 'GET', `${API}/lists/${listId}/subscribers/store?${query}`);
      const first = await store('EMAIL=reader%40example.com&FIRST_NAME=Ann');
      expect(first.status).toBe(200);
      const again = await store('EMAIL=reader%40example.com&LAST_NAME=Lee&status=unsubscribed');
      if (server === documents) {
        expect(again.status).toBe(422);
        expect(again.body.errors.EMAIL).toEqual(expect.any(String));
      } else {
        expect(again.status).toBe(200);
        expect(again.body.subscriber_uid).toBe(first.body.subscriber_uid);
        const shown = await server.call(who.token, 'GET', `${API}/lists/${listId}/subscribers/${first.body.subscriber_uid}`);
        expect(shown.body.subscriber).toMatchObject({ FIRST_NAME: 'Ann', LAST_NAME: 'Lee', status: 'unsubscribed' });
      }
      // A repeated subscribe is a 409 in both.
      const uid = first.body.subscriber_uid;
      await server.call(who.token, 'GET', `${API}/lists/${listId}/subscribers/${uid}/subscribe`);
      const twice = await server.call(who.token, 'GET', `${API}/lists/${listId}/subscribers/${uid}/subscribe`);
      expect(twice.status).toBe(409);
      expect(twice.body).toEqual({ message: 'Already subscribed' });
      const entries = await server.call(who.token, 'GET', `${API}/drive/file-entries`);
      expectSchema(EntryListResponse, entries.body);
    }
  });
});

describe('uploads', () => {
  it('relativePath creates the folders on it in both, and the deployed listing shows the top one only', async () => {
    for (const server of [documents, deployed]) {
      const who = await freshAccount(server, 'relative');
      const answer = await server.call(who.token, 'POST', `${API}/uploads`, uploadForm('leaf.txt', 'x', { relativePath: 'ab/cd/leaf.txt' }));
      expect(answer.status).toBe(201);
      const listed = await server.call(who.token, 'GET', `${API}/drive/file-entries`);
      expect(listed.body.data.map((e: { name: string }) => e.name).sort()).toEqual(server === deployed ? ['ab'] : ['ab', 'cd', 'leaf.txt']);
      expect((await wholeDrive(server, who.token)).map((e) => e.name).sort()).toEqual(['ab', 'cd', 'leaf.txt']);
    }
  });
});
