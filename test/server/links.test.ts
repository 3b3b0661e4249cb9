import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { ErrorBody, LinkResponse, Status, ValidationErrorBody } from '../../main/api/schemas.js';
import { folderAs, freshAccount, uploadAs, useTestServer, type Answer } from '../helpers/server.js';

interface Link {
  id: number;
  hash: string;
  password: string | null;
  user_id: number;
  entry_id: number;
  expires_at: string | null;
  allow_edit: boolean;
  allow_download: boolean;
}

interface Entry {
  id: number;
  hash: string;
  url: string | null;
  name: string;
}

const FUTURE = '2099-06-01T12:00:00.000Z';

describe('shareable links', () => {
  const server = useTestServer({ tempDataDir: 'links-test' });

  const account = (name: string) => freshAccount(server, name);

  const upload = (token: string, name: string, content: string, parentId?: number) => uploadAs(server, token, name, content, parentId);

  const folder = (token: string, name: string, parentId: number | null = null) => folderAs(server, token, name, parentId);

  // The document's exact paths: hyphen for GET/POST, underscore for PUT/DELETE.
  const getLink = (token: string, id: number | string) => server.call(token, 'GET', `/api/v1/file-entries/${id}/shareable-link`);
  const postLink = (token: string, id: number | string, body: unknown = {}) =>
    server.call(token, 'POST', `/api/v1/file-entries/${id}/shareable-link`, body);
  const putLink = (token: string, id: number | string, body: unknown = {}) =>
    server.call(token, 'PUT', `/api/v1/file_entries/${id}/shareable-link`, body);
  const deleteLink = (token: string, id: number | string) =>
    server.call(token, 'DELETE', `/api/v1/file_entries/${id}/shareable-link`);

  const publicGet = (hash: string, query = '', headers: Record<string, string> = {}) =>
    server.call(null, 'GET', `/drive/s/${hash}${query}`, undefined, headers);

  const linkOf = (answer: Answer): Link => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(Value.Check(LinkResponse, answer.body)).toBe(true);
    expect(answer.body.status).toBeTypeOf('string');
    return answer.body.link as Link;
  };

  const linkRows = (entryId: number) =>
    server.context.db
      .prepare<[number], { id: number; hash: string; password_hash: string | null; expires_at: string | null }>(
        'SELECT id, hash, password_hash, expires_at FROM links WHERE entry_id = ?',
      )
      .all(entryId);

  const expireInDb = (linkId: number) =>
    server.context.db
      .prepare('UPDATE links SET expires_at = ? WHERE id = ?')
      .run(new Date(Date.now() - 60_000).toISOString().replace('Z', '000Z'), linkId);

  describe('paths', () => {
    it('GET/POST use file-entries, PUT/DELETE use file_entries; the hyphen path for PUT/DELETE is 404', async () => {
      const { token } = await account('paths');
      const file = await upload(token, 'paths.txt', 'path content');

      const created = linkOf(await postLink(token, file.id));
      expect(created.entry_id).toBe(file.id);
      expect(linkOf(await getLink(token, file.id)).id).toBe(created.id);

      const hyphenPut = await server.call(token, 'PUT', `/api/v1/file-entries/${file.id}/shareable-link`, { allow_edit: true });
      expect(hyphenPut.status).toBe(404);
      expect(linkOf(await getLink(token, file.id)).allow_edit).toBe(false);

      const hyphenDelete = await server.call(token, 'DELETE', `/api/v1/file-entries/${file.id}/shareable-link`);
      expect(hyphenDelete.status).toBe(404);
      expect(linkRows(file.id)).toHaveLength(1);

      const underscorePut = linkOf(await putLink(token, file.id, { allow_edit: true }));
      expect(underscorePut.allow_edit).toBe(true);
      expect(underscorePut.id).toBe(created.id);

      const underscoreDelete = await deleteLink(token, file.id);
      expect(underscoreDelete.status).toBe(200);
      expect(Value.Check(Status, underscoreDelete.body)).toBe(true);
      expect(linkRows(file.id)).toHaveLength(0);
    });

    it('does not route GET/POST on the underscore path', async () => {
      const { token } = await account('paths2');
      const file = await upload(token, 'routes.txt', 'route content');
      expect((await server.call(token, 'POST', `/api/v1/file_entries/${file.id}/shareable-link`, {})).status).toBe(404);
      expect(linkRows(file.id)).toHaveLength(0);
      await postLink(token, file.id);
      expect((await server.call(token, 'GET', `/api/v1/file_entries/${file.id}/shareable-link`)).status).toBe(404);
    });
  });

  describe('entryId', () => {
    it('is taken as the entry id or as the entry hash', async () => {
      const { token } = await account('hash');
      const file = await upload(token, 'hashed.txt', 'hash content');
      expect(file.hash).toMatch(/^[A-Za-z0-9]+$/);

      const created = linkOf(await postLink(token, file.hash, { allow_edit: true }));
      expect(created.entry_id).toBe(file.id);
      expect(created.allow_edit).toBe(true);
      expect(linkOf(await getLink(token, file.id)).hash).toBe(created.hash);
      expect(linkOf(await getLink(token, file.hash)).hash).toBe(created.hash);

      const updated = linkOf(await putLink(token, file.hash, { allow_download: false }));
      expect(updated.id).toBe(created.id);
      expect(updated.allow_download).toBe(false);

      expect((await deleteLink(token, file.hash)).status).toBe(200);
      expect((await getLink(token, file.id)).status).toBe(404);
    });
  });

  describe('404s', () => {
    it('answers 404 when the entry does not exist', async () => {
      const { token } = await account('missing');
      for (const id of ['99999999', 'AAAAAAAAAAAA', 'OTk5OTk5OTl8cGFk']) {
        for (const answer of [await getLink(token, id), await putLink(token, id), await deleteLink(token, id)]) {
          expect(answer.status, id).toBe(404);
          expect(Value.Check(ErrorBody, answer.body)).toBe(true);
        }
      }
      expect((await postLink(token, 99_999_999)).status).toBe(404);
    });

    it('answers 404 for GET, PUT and DELETE when the entry has no link', async () => {
      const { token } = await account('nolink');
      const file = await upload(token, 'nolink.txt', 'no link here');
      for (const answer of [await getLink(token, file.id), await putLink(token, file.id, { allow_edit: true }), await deleteLink(token, file.id)]) {
        expect(answer.status).toBe(404);
        expect(Value.Check(ErrorBody, answer.body)).toBe(true);
      }
      // PUT did not create one.
      expect(linkRows(file.id)).toHaveLength(0);
      // After a DELETE, the link is gone for good.
      linkOf(await postLink(token, file.id));
      expect((await deleteLink(token, file.id)).status).toBe(200);
      expect((await deleteLink(token, file.id)).status).toBe(404);
      expect((await getLink(token, file.id)).status).toBe(404);
    });
  });

  describe('create and update', () => {
    it('POST creates with defaults and answers the existing link, unchanged, when one exists', async () => {
      const { id: userId, token } = await account('post');
      const file = await upload(token, 'post.txt', 'post content');

      const first = linkOf(await postLink(token, file.id));
      expect(first).toMatchObject({
        user_id: userId,
        entry_id: file.id,
        password: null,
        expires_at: null,
        allow_edit: false,
        allow_download: true,
      });
      expect(first.hash.length).toBeGreaterThan(0);
      expect((await postLink(token, file.id)).body.link).toBeDefined();

      const again = linkOf(await postLink(token, file.id, { password: 'other-pass', allow_edit: true, allow_download: false }));
      expect(again.id).toBe(first.id);
      expect(again.hash).toBe(first.hash);
      expect(again.password).toBeNull();
      expect(again.allow_edit).toBe(false);
      expect(again.allow_download).toBe(true);
      expect(linkRows(file.id)).toHaveLength(1);
    });

    it('POST without a body creates a link too', async () => {
      const { token } = await account('nobody');
      const file = await upload(token, 'bare.txt', 'bare post');
      const answer = await server.call(token, 'POST', `/api/v1/file-entries/${file.id}/shareable-link`);
      expect(linkOf(answer).entry_id).toBe(file.id);
    });

    it('PUT replaces the settings: omitted fields go back to their defaults', async () => {
      const { token } = await account('put');
      const file = await upload(token, 'put.txt', 'put content');
      const created = linkOf(
        await postLink(token, file.id, { password: 'pass-1', expires_at: FUTURE, allow_edit: true, allow_download: false }),
      );
      expect(created.password).toBeTypeOf('string');
      expect(Date.parse(created.expires_at!)).toBe(Date.parse(FUTURE));
      expect(created.allow_edit).toBe(true);
      expect(created.allow_download).toBe(false);

      const put = linkOf(await putLink(token, file.id, { allow_edit: true }));
      expect(put.id).toBe(created.id);
      expect(put.hash).toBe(created.hash);
      expect(put).toMatchObject({ password: null, expires_at: null, allow_edit: true, allow_download: true });

      const empty = linkOf(await putLink(token, file.id, {}));
      expect(empty).toMatchObject({ password: null, expires_at: null, allow_edit: false, allow_download: true });
      expect(linkOf(await getLink(token, file.id))).toMatchObject({ allow_edit: false, allow_download: true });
    });

    it('takes camelCase fields', async () => {
      const { token } = await account('camel');
      const file = await upload(token, 'camel.txt', 'camel content');
      const created = linkOf(await postLink(token, file.id, { expiresAt: FUTURE, allowEdit: true, allowDownload: false }));
      expect(created.allow_edit).toBe(true);
      expect(created.allow_download).toBe(false);
      expect(Date.parse(created.expires_at!)).toBe(Date.parse(FUTURE));

      const updated = linkOf(await putLink(token, file.id, { allowDownload: false }));
      expect(updated).toMatchObject({ allow_edit: false, allow_download: false, expires_at: null });
      const back = linkOf(await putLink(token, file.id, { allowEdit: true, allowDownload: true, expiresAt: '2098-01-02T03:04:05Z' }));
      expect(back).toMatchObject({ allow_edit: true, allow_download: true });
      expect(Date.parse(back.expires_at!)).toBe(Date.parse('2098-01-02T03:04:05Z'));
    });

    it('stores the password hashed: link.password never equals the plain text', async () => {
      const { token } = await account('pw');
      const file = await upload(token, 'pw.txt', 'password content');
      const plain = 'open-sesame-42';
      const created = linkOf(await postLink(token, file.id, { password: plain }));
      expect(created.password).toBeTypeOf('string');
      expect(created.password).not.toBe(plain);
      expect(created.password).not.toContain(plain);
      expect(linkOf(await getLink(token, file.id)).password).not.toBe(plain);

      const updated = linkOf(await putLink(token, file.id, { password: 'second-secret' }));
      expect(updated.password).not.toBe('second-secret');
      expect(updated.password).not.toBe(created.password);

      const stored = JSON.stringify(server.context.db.prepare('SELECT * FROM links WHERE entry_id = ?').all(file.id));
      expect(stored).not.toContain(plain);
      expect(stored).not.toContain('second-secret');
    });
  });

  describe('expiry', () => {
    it('refuses an invalid date with 422 and leaves the link as it was', async () => {
      const { token } = await account('baddate');
      const file = await upload(token, 'date.txt', 'date content');
      const bad = await postLink(token, file.id, { expires_at: 'not a date' });
      expect(bad.status).toBe(422);
      expect(Value.Check(ValidationErrorBody, bad.body)).toBe(true);
      expect(linkRows(file.id)).toHaveLength(0);

      const badCamel = await postLink(token, file.id, { expiresAt: '2024-13-45' });
      expect(badCamel.status).toBe(422);
      expect(linkRows(file.id)).toHaveLength(0);

      linkOf(await postLink(token, file.id, { allow_edit: true }));
      const badPut = await putLink(token, file.id, { expires_at: 'tomorrow' });
      expect(badPut.status).toBe(422);
      expect(Value.Check(ValidationErrorBody, badPut.body)).toBe(true);
      expect(linkOf(await getLink(token, file.id)).allow_edit).toBe(true);
    });

    it('an expired link is gone: GET, PUT and DELETE answer 404', async () => {
      const { token } = await account('expired');
      const file = await upload(token, 'expired.txt', 'expired content');
      const link = linkOf(await postLink(token, file.id, { expires_at: FUTURE }));
      expireInDb(link.id);
      expect((await getLink(token, file.id)).status).toBe(404);
      expect((await putLink(token, file.id, {})).status).toBe(404);
      expect((await deleteLink(token, file.id)).status).toBe(404);
      // POST then makes a new one.
      const fresh = linkOf(await postLink(token, file.id));
      expect(fresh.hash).not.toBe(link.hash);
      expect(fresh.expires_at).toBeNull();
    });

    it('an expiry given in the past through PUT leaves no reachable link', async () => {
      const { token } = await account('pastput');
      const file = await upload(token, 'past.txt', 'past content');
      const link = linkOf(await postLink(token, file.id));
      const put = await putLink(token, file.id, { expires_at: new Date(Date.now() - 3_600_000).toISOString() });
      expect([200, 422]).toContain(put.status);
      if (put.status === 200) {
        expect((await publicGet(link.hash)).status).toBe(410);
        expect((await getLink(token, file.id)).status).toBe(404);
      } else {
        expect(linkOf(await getLink(token, file.id)).expires_at).toBeNull();
      }
    });
  });

  describe('folder links', () => {
    it('GET answers folderChildren: the folder\'s immediate children', async () => {
      const { token } = await account('folder');
      const dir = await folder(token, 'Linked folder');
      const child = await upload(token, 'child.txt', 'child content', dir.id);
      const sub = await folder(token, 'Sub folder', dir.id);
      const grandchild = await upload(token, 'grandchild.txt', 'deeper', sub.id);
      const other = await upload(token, 'outside.txt', 'not in the folder');

      linkOf(await postLink(token, dir.id));
      const answer = await getLink(token, dir.id);
      linkOf(answer);
      const children = answer.body.folderChildren as Entry[];
      expect(Array.isArray(children)).toBe(true);
      const ids = children.map((c) => c.id).sort((a, b) => a - b);
      expect(ids).toEqual([child.id, sub.id].sort((a, b) => a - b));
      expect(ids).not.toContain(grandchild.id);
      expect(ids).not.toContain(other.id);

      const fileLink = await (async () => {
        linkOf(await postLink(token, child.id));
        return getLink(token, child.id);
      })();
      expect(fileLink.body.folderChildren).toBeUndefined();
    });
  });

  describe('permissions', () => {
    it('a viewer can read the link but not create, change or delete it; a stranger gets 403', async () => {
      const owner = await account('owner');
      const viewer = await account('viewer');
      const stranger = await account('stranger');
      const file = await upload(owner.token, 'perm.txt', 'perm content');
      const share = await server.call(owner.token, 'POST', `/api/v1/file-entries/${file.id}/share`, {
        emails: [viewer.email],
        permissions: ['view'],
      });
      expect(share.status).toBe(200);

      expect((await postLink(viewer.token, file.id)).status).toBe(403);
      expect(linkRows(file.id)).toHaveLength(0);
      const link = linkOf(await postLink(owner.token, file.id));
      expect(linkOf(await getLink(viewer.token, file.id)).hash).toBe(link.hash);
      expect((await putLink(viewer.token, file.id, { allow_edit: true })).status).toBe(403);
      expect((await deleteLink(viewer.token, file.id)).status).toBe(403);
      expect((await getLink(stranger.token, file.id)).status).toBe(403);
      expect(linkRows(file.id)).toHaveLength(1);
    });
  });

  describe('GET /drive/s/{hash}', () => {
    it('serves the bytes without a token, and honours Range', async () => {
      const { token } = await account('public');
      const file = await upload(token, 'public.txt', 'hello public link');
      const link = linkOf(await postLink(token, file.id));

      const whole = await publicGet(link.hash);
      expect(whole.status).toBe(200);
      expect(whole.body).toBe('hello public link');
      expect(whole.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(whole.headers.get('accept-ranges')).toBe('bytes');

      const part = await publicGet(link.hash, '', { range: 'bytes=6-11' });
      expect(part.status).toBe(206);
      expect(part.body).toBe('public');
      expect(part.headers.get('content-range')).toBe('bytes 6-11/17');

      const tail = await publicGet(link.hash, '', { range: 'bytes=-4' });
      expect(tail.status).toBe(206);
      expect(tail.body).toBe('link');
    });

    it('answers 416 {message} for an unsatisfiable Range', async () => {
      const { token } = await account('range');
      const file = await upload(token, 'range.txt', 'short text');
      const link = linkOf(await postLink(token, file.id));
      const answer = await publicGet(link.hash, '', { range: 'bytes=100-200' });
      expect(answer.status).toBe(416);
      expect(answer.headers.get('content-range')).toBe('bytes */10');
      expect(Value.Check(ErrorBody, answer.body)).toBe(true);
    });

    it('needs the password: 401 HTML form without, 401 with a wrong one, the bytes with the right one', async () => {
      const { token } = await account('locked');
      const file = await upload(token, 'locked.txt', 'locked content');
      const password = 'p@ss word&more';
      const link = linkOf(await postLink(token, file.id, { password }));

      const without = await publicGet(link.hash);
      expect(without.status).toBe(401);
      expect(without.headers.get('content-type')).toMatch(/^text\/html/);
      expect(String(without.body)).toMatch(/<form/i);
      expect(String(without.body)).not.toContain('locked content');

      const wrong = await publicGet(link.hash, `?password=${encodeURIComponent('not-it')}`);
      expect(wrong.status).toBe(401);
      expect(String(wrong.body)).not.toContain('locked content');

      const right = await publicGet(link.hash, `?password=${encodeURIComponent(password)}`);
      expect(right.status).toBe(200);
      expect(right.body).toBe('locked content');

      const header = await publicGet(link.hash, '', { 'x-link-password': password });
      expect(header.status).toBe(200);
      expect(header.body).toBe('locked content');

      // PUT without a password removes it.
      linkOf(await putLink(token, file.id, {}));
      expect((await publicGet(link.hash)).status).toBe(200);
    });

    it('answers 410 for an expired link', async () => {
      const { token } = await account('gone');
      const file = await upload(token, 'gone.txt', 'gone content');
      const link = linkOf(await postLink(token, file.id, { expires_at: FUTURE }));
      expect((await publicGet(link.hash)).status).toBe(200);
      expireInDb(link.id);
      const answer = await publicGet(link.hash);
      expect(answer.status).toBe(410);
      expect(Value.Check(ErrorBody, answer.body)).toBe(true);
      expect(String(answer.body)).not.toContain('gone content');
    });

    it('answers 403 when the link does not allow downloads', async () => {
      const { token } = await account('nodl');
      const file = await upload(token, 'nodl.txt', 'no download content');
      const link = linkOf(await postLink(token, file.id, { allow_download: false }));
      const answer = await publicGet(link.hash);
      expect(answer.status).toBe(403);
      expect(Value.Check(ErrorBody, answer.body)).toBe(true);
      linkOf(await putLink(token, file.id, { allow_download: true }));
      expect((await publicGet(link.hash)).status).toBe(200);
    });

    it('answers 404 for an unknown hash and for a deleted link', async () => {
      const unknown = await publicGet('no-such-link-hash');
      expect(unknown.status).toBe(404);
      expect(Value.Check(ErrorBody, unknown.body)).toBe(true);

      const { token } = await account('deleted');
      const file = await upload(token, 'deleted.txt', 'deleted content');
      const link = linkOf(await postLink(token, file.id));
      expect((await publicGet(link.hash)).status).toBe(200);
      expect((await deleteLink(token, file.id)).status).toBe(200);
      expect((await publicGet(link.hash)).status).toBe(404);
    });

    it('answers a folder link with its children as JSON', async () => {
      const { token } = await account('pubfolder');
      const dir = await folder(token, 'Public folder');
      const child = await upload(token, 'pubchild.txt', 'child bytes', dir.id);
      const link = linkOf(await postLink(token, dir.id));
      const answer = await publicGet(link.hash);
      expect(answer.status).toBe(200);
      expect(answer.body.folderChildren.map((c: { id: number }) => c.id)).toEqual([child.id]);
    });
  });
});
