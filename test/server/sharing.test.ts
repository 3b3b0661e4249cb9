import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { ErrorBody, Paginator, UsersResponse, ValidationErrorBody } from '../../main/api/schemas.js';
import { freshAccount, uploadForm, useTestServer } from '../helpers/server.js';

interface SharedUser {
  id: number;
  email: string;
  entry_permissions?: { view: boolean; edit: boolean; download: boolean };
  owns_entry?: boolean;
}

describe('sharing', () => {
  const server = useTestServer({ tempDataDir: 'sharing-test' });

  /** A fresh account per test, so tests do not depend on each other. */
  const account = (name: string) => freshAccount(server, name);

  const upload = async (token: string, name: string, content: string, parentId?: number) => {
    const answer = await server.call(token, 'POST', '/api/v1/uploads', uploadForm(name, content, { parentId }));
    expect(answer.status).toBe(201);
    return answer.body.fileEntry as { id: number; url: string; name: string };
  };

  const folder = async (token: string, name: string) => {
    const answer = await server.call(token, 'POST', '/api/v1/folders', { name, parentId: null });
    expect(answer.status).toBe(200);
    return answer.body.folder as { id: number };
  };

  const share = (token: string, entryId: number, emails: string[], permissions: unknown) =>
    server.call(token, 'POST', `/api/v1/file-entries/${entryId}/share`, { emails, permissions });

  const download = (token: string, url: string) => server.call(token, 'GET', `/${url}`);

  const sharedList = async (token: string) => {
    const answer = await server.call(token, 'GET', '/api/v1/drive/file-entries?sharedOnly=true');
    expect(answer.status).toBe(200);
    expect(Value.Check(Paginator, answer.body)).toBe(true);
    return answer.body.data as Array<{ id: number; users: SharedUser[] }>;
  };

  const userIn = (users: SharedUser[], id: number) => users.find((u) => u.id === id);

  describe('share by e-mail', () => {
    it('attaches existing users, ignores unknown e-mails and the owner, and answers users with entry_permissions', async () => {
      const owner = await account('owner');
      const bob = await account('bob');
      const carol = await account('carol');
      const file = await upload(owner.token, 'report.txt', 'quarterly report');

      const answer = await share(
        owner.token,
        file.id,
        [bob.email, 'nobody-here@example.com', owner.email, owner.email.toUpperCase(), carol.email],
        ['view'],
      );
      expect(answer.status).toBe(200);
      expect(Value.Check(UsersResponse, answer.body)).toBe(true);
      const users = answer.body.users as SharedUser[];
      expect(users.map((u) => u.id).sort((a, b) => a - b)).toEqual([bob.id, carol.id].sort((a, b) => a - b));
      expect(users.map((u) => u.email)).not.toContain('nobody-here@example.com');
      expect(users.map((u) => u.id)).not.toContain(owner.id);
      for (const user of users) {
        expect(user.entry_permissions).toEqual({ view: true, edit: false, download: false });
        expect(user.owns_entry).toBe(false);
      }
      // Users are accounts, never with someone's token.
      for (const user of users) expect(user).not.toHaveProperty('access_token');

      // Nothing was stored for the owner or the unknown address.
      const rows = server.context.db
        .prepare<[number], { user_id: number }>('SELECT user_id FROM shares WHERE entry_id = ?')
        .all(file.id);
      expect(rows.map((r) => r.user_id).sort((a, b) => a - b)).toEqual([bob.id, carol.id].sort((a, b) => a - b));
    });

    it('answers every account the entry is shared with, across calls', async () => {
      const owner = await account('owner');
      const bob = await account('bob');
      const carol = await account('carol');
      const file = await upload(owner.token, 'notes.txt', 'some notes');
      expect((await share(owner.token, file.id, [bob.email], ['view'])).status).toBe(200);
      const second = await share(owner.token, file.id, [carol.email], ['view', 'download']);
      expect(second.status).toBe(200);
      const users = second.body.users as SharedUser[];
      expect(userIn(users, bob.id)?.entry_permissions).toEqual({ view: true, edit: false, download: false });
      expect(userIn(users, carol.id)?.entry_permissions).toEqual({ view: true, edit: false, download: true });
    });

    it('takes permissions as a list and as an object of flags', async () => {
      const owner = await account('owner');
      const bob = await account('bob');
      const carol = await account('carol');
      const listFile = await upload(owner.token, 'list.txt', 'list permissions');
      const objectFile = await upload(owner.token, 'object.txt', 'object permissions');

      const asList = await share(owner.token, listFile.id, [bob.email], ['view', 'edit', 'download']);
      expect(asList.status).toBe(200);
      expect(userIn(asList.body.users, bob.id)?.entry_permissions).toEqual({ view: true, edit: true, download: true });

      const asObject = await share(owner.token, objectFile.id, [carol.email], { view: true, edit: false, download: true });
      expect(asObject.status).toBe(200);
      expect(userIn(asObject.body.users, carol.id)?.entry_permissions).toEqual({ view: true, edit: false, download: true });

      const editOnly = await share(owner.token, objectFile.id, [bob.email], { edit: true });
      expect(userIn(editOnly.body.users, bob.id)?.entry_permissions).toEqual({ view: true, edit: true, download: false });
    });

    it('refuses an unknown permission name with 422', async () => {
      const owner = await account('owner');
      const bob = await account('bob');
      const file = await upload(owner.token, 'bad.txt', 'bad permissions');
      const answer = await share(owner.token, file.id, [bob.email], ['view', 'delete']);
      expect(answer.status).toBe(422);
      expect(Value.Check(ValidationErrorBody, answer.body)).toBe(true);
      expect(server.context.db.prepare('SELECT * FROM shares WHERE entry_id = ?').all(file.id)).toEqual([]);
    });

    it('lets only the owner share (403), and answers 404 for an unknown entry', async () => {
      const owner = await account('owner');
      const editor = await account('editor');
      const carol = await account('carol');
      const file = await upload(owner.token, 'owned.txt', 'owned content');
      await share(owner.token, file.id, [editor.email], ['view', 'edit', 'download']);

      const byEditor = await share(editor.token, file.id, [carol.email], ['view']);
      expect(byEditor.status).toBe(403);
      expect(Value.Check(ErrorBody, byEditor.body)).toBe(true);
      const byStranger = await share(carol.token, file.id, [carol.email], ['view']);
      expect(byStranger.status).toBe(403);

      const missing = await share(owner.token, 99_999_999, [carol.email], ['view']);
      expect(missing.status).toBe(404);
    });
  });

  describe('change-permissions', () => {
    it('changes a shared user\'s permissions (list and object forms)', async () => {
      const owner = await account('owner');
      const bob = await account('bob');
      const file = await upload(owner.token, 'change.txt', 'changing content');
      await share(owner.token, file.id, [bob.email], ['view']);

      const toDownload = await server.call(owner.token, 'PUT', `/api/v1/file-entries/${file.id}/change-permissions`, {
        userId: bob.id,
        permissions: ['view', 'download'],
      });
      expect(toDownload.status).toBe(200);
      expect(Value.Check(UsersResponse, toDownload.body)).toBe(true);
      expect(userIn(toDownload.body.users, bob.id)?.entry_permissions).toEqual({ view: true, edit: false, download: true });

      const toEdit = await server.call(owner.token, 'PUT', `/api/v1/file-entries/${file.id}/change-permissions`, {
        userId: bob.id,
        permissions: { view: true, edit: true, download: false },
      });
      expect(toEdit.status).toBe(200);
      expect(userIn(toEdit.body.users, bob.id)?.entry_permissions).toEqual({ view: true, edit: true, download: false });
    });

    it('answers 422 for a user the entry is not shared with, and shares nothing', async () => {
      const owner = await account('owner');
      const bob = await account('bob');
      const carol = await account('carol');
      const file = await upload(owner.token, 'unshared.txt', 'not for carol');
      await share(owner.token, file.id, [bob.email], ['view']);

      const answer = await server.call(owner.token, 'PUT', `/api/v1/file-entries/${file.id}/change-permissions`, {
        userId: carol.id,
        permissions: ['view', 'download'],
      });
      expect(answer.status).toBe(422);
      expect(Value.Check(ValidationErrorBody, answer.body)).toBe(true);
      expect(answer.body.errors).toHaveProperty('userId');
      expect((await download(carol.token, file.url)).status).toBe(403);
      expect(await sharedList(carol.token)).toEqual([]);
    });

    it('is refused (403) to a recipient with edit', async () => {
      const owner = await account('owner');
      const bob = await account('bob');
      const file = await upload(owner.token, 'mine.txt', 'mine');
      await share(owner.token, file.id, [bob.email], ['view', 'edit']);
      const answer = await server.call(bob.token, 'PUT', `/api/v1/file-entries/${file.id}/change-permissions`, {
        userId: bob.id,
        permissions: ['view', 'edit', 'download'],
      });
      expect(answer.status).toBe(403);
      expect((await download(bob.token, file.url)).status).toBe(403);
    });
  });

  describe('unshare', () => {
    it('removes access via DELETE and is idempotent', async () => {
      const owner = await account('owner');
      const bob = await account('bob');
      const carol = await account('carol');
      const file = await upload(owner.token, 'gone.txt', 'soon gone');
      await share(owner.token, file.id, [bob.email, carol.email], ['view', 'download']);
      expect((await download(bob.token, file.url)).status).toBe(200);

      const first = await server.call(owner.token, 'DELETE', `/api/v1/file-entries/${file.id}/unshare`, { userId: bob.id });
      expect(first.status).toBe(200);
      expect(Value.Check(UsersResponse, first.body)).toBe(true);
      expect((first.body.users as SharedUser[]).map((u) => u.id)).toEqual([carol.id]);

      const again = await server.call(owner.token, 'DELETE', `/api/v1/file-entries/${file.id}/unshare`, { userId: bob.id });
      expect(again.status).toBe(200);
      expect((again.body.users as SharedUser[]).map((u) => u.id)).toEqual([carol.id]);

      expect((await download(bob.token, file.url)).status).toBe(403);
      expect((await download(carol.token, file.url)).status).toBe(200);
    });

    it('removes access via POST and is idempotent', async () => {
      const owner = await account('owner');
      const bob = await account('bob');
      const file = await upload(owner.token, 'posted.txt', 'post unshare');
      await share(owner.token, file.id, [bob.email], ['view', 'download']);

      const first = await server.call(owner.token, 'POST', `/api/v1/file-entries/${file.id}/unshare`, { userId: bob.id });
      expect(first.status).toBe(200);
      expect(first.body.users).toEqual([]);
      const again = await server.call(owner.token, 'POST', `/api/v1/file-entries/${file.id}/unshare`, { userId: bob.id });
      expect(again.status).toBe(200);
      expect(again.body.users).toEqual([]);
      expect((await download(bob.token, file.url)).status).toBe(403);
      expect(await sharedList(bob.token)).toEqual([]);
    });

    it('is refused (403) to anyone but the owner', async () => {
      const owner = await account('owner');
      const bob = await account('bob');
      const file = await upload(owner.token, 'kept.txt', 'kept');
      await share(owner.token, file.id, [bob.email], ['view', 'edit', 'download']);
      const answer = await server.call(bob.token, 'DELETE', `/api/v1/file-entries/${file.id}/unshare`, { userId: bob.id });
      expect(answer.status).toBe(403);
      expect((await download(bob.token, file.url)).status).toBe(200);
    });
  });

  describe('the recipient', () => {
    it('sees shared entries with sharedOnly, and the owner and strangers do not', async () => {
      const owner = await account('owner');
      const bob = await account('bob');
      const stranger = await account('stranger');
      const shared = await upload(owner.token, 'shared.txt', 'shared content');
      const privateFile = await upload(owner.token, 'private.txt', 'private content');
      await share(owner.token, shared.id, [bob.email], ['view']);

      const forBob = await sharedList(bob.token);
      expect(forBob.map((e) => e.id)).toEqual([shared.id]);
      expect(forBob.map((e) => e.id)).not.toContain(privateFile.id);
      expect(userIn(forBob[0]!.users, bob.id)?.entry_permissions).toEqual({ view: true, edit: false, download: false });

      expect(await sharedList(stranger.token)).toEqual([]);
      expect((await sharedList(owner.token)).map((e) => e.id)).not.toContain(shared.id);
    });

    it('gains and loses content access following the download permission', async () => {
      const owner = await account('owner');
      const bob = await account('bob');
      const file = await upload(owner.token, 'bytes.txt', 'the shared bytes');

      expect((await download(bob.token, file.url)).status).toBe(403);

      await share(owner.token, file.id, [bob.email], ['view']);
      const viewOnly = await download(bob.token, file.url);
      expect(viewOnly.status).toBe(403);
      expect(Value.Check(ErrorBody, viewOnly.body)).toBe(true);

      await server.call(owner.token, 'PUT', `/api/v1/file-entries/${file.id}/change-permissions`, {
        userId: bob.id,
        permissions: ['view', 'download'],
      });
      const granted = await download(bob.token, file.url);
      expect(granted.status).toBe(200);
      expect(granted.body).toBe('the shared bytes');

      await server.call(owner.token, 'PUT', `/api/v1/file-entries/${file.id}/change-permissions`, {
        userId: bob.id,
        permissions: { view: true, download: false },
      });
      expect((await download(bob.token, file.url)).status).toBe(403);

      await server.call(owner.token, 'PUT', `/api/v1/file-entries/${file.id}/change-permissions`, {
        userId: bob.id,
        permissions: { view: true, download: true },
      });
      expect((await download(bob.token, file.url)).status).toBe(200);

      await server.call(owner.token, 'DELETE', `/api/v1/file-entries/${file.id}/unshare`, { userId: bob.id });
      expect((await download(bob.token, file.url)).status).toBe(403);
    });

    it('reaches files inside a shared folder', async () => {
      const owner = await account('owner');
      const bob = await account('bob');
      const dir = await folder(owner.token, 'Shared folder');
      const inside = await upload(owner.token, 'inside.txt', 'inside the folder', dir.id);

      expect((await download(bob.token, inside.url)).status).toBe(403);
      await share(owner.token, dir.id, [bob.email], ['view', 'download']);
      const got = await download(bob.token, inside.url);
      expect(got.status).toBe(200);
      expect(got.body).toBe('inside the folder');

      const children = await server.call(bob.token, 'GET', `/api/v1/drive/file-entries?parentIds=${dir.id}`);
      expect(children.status).toBe(200);
      expect(children.body.data.map((e: { id: number }) => e.id)).toEqual([inside.id]);

      await server.call(owner.token, 'DELETE', `/api/v1/file-entries/${dir.id}/unshare`, { userId: bob.id });
      expect((await download(bob.token, inside.url)).status).toBe(403);
      expect((await server.call(bob.token, 'GET', `/api/v1/drive/file-entries?parentIds=${dir.id}`)).status).toBe(403);
    });
  });
});
