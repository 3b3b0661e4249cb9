import { readdirSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { beforeAll, describe, expect, it } from 'vitest';
import { addList } from '../../server/lists.js';
import { ErrorBody } from '../../main/api/schemas.js';
import { servedRoutes, uploadForm, useTestServer, type Account, type Answer } from '../helpers/server.js';

/**
 * The permission matrix of docs/server.md, one `it` per (operation, role) cell, each on fresh fixtures:
 *
 * | operation                                                    | owner | edit | download | view | stranger |
 * | list children (parentIds), get link                          |  ✓    |  ✓   |    ✓     |  ✓   |   403    |
 * | star, unstar                                                 |  ✓    |  ✓   |    ✓     |  ✓   |   403    |
 * | content (url), duplicate                                     |  ✓    | 403  |    ✓     | 403  |   403    |
 * | rename, describe, upload into, new folder in, move, trash,   |  ✓    |  ✓   |   403    | 403  |   403    |
 * |   restore                                                    |       |      |          |      |          |
 * | create/update/delete link                                    |  ✓    |  ✓   |   403    | 403  |   403    |
 * | share, change permissions, unshare, delete forever           |  ✓    | 403  |   403    | 403  |   403    |
 */

const ROLES = ['owner', 'editor', 'downloader', 'viewer', 'stranger'] as const;
type Role = (typeof ROLES)[number];

/** What each role is granted on the shared folder (null: nothing is shared with it). */
const GRANTS: Record<Role, Array<'view' | 'edit' | 'download'> | null> = {
  owner: null,
  editor: ['edit'],
  downloader: ['download'],
  viewer: ['view'],
  stranger: null,
};

type Row = 'read' | 'star' | 'download' | 'edit' | 'link' | 'owner';
const OK = true;
const NO = false;
/** Rows of the matrix: whether owner, editor, downloader, viewer, stranger may do it. */
const MATRIX: Record<Row, Record<Role, boolean>> = {
  read: { owner: OK, editor: OK, downloader: OK, viewer: OK, stranger: NO },
  star: { owner: OK, editor: OK, downloader: OK, viewer: OK, stranger: NO },
  download: { owner: OK, editor: NO, downloader: OK, viewer: NO, stranger: NO },
  edit: { owner: OK, editor: OK, downloader: NO, viewer: NO, stranger: NO },
  link: { owner: OK, editor: OK, downloader: NO, viewer: NO, stranger: NO },
  owner: { owner: OK, editor: NO, downloader: NO, viewer: NO, stranger: NO },
};

interface EntryRef {
  id: number;
  name: string;
  url?: string | null;
}

/** A fresh tree of the owner's per cell: folder F holding file X ("hello world") and sub-folder S. */
interface Fixture {
  actor: Account;
  folder: EntryRef;
  file: EntryRef;
  sub: EntryRef;
  /** A folder of the actor's own drive (the destination of a duplicate). */
  ownFolder: EntryRef;
  linkHash: string | null;
}

type Prep = 'link' | 'trashed' | 'starred';

interface Operation {
  name: string;
  row: Row;
  prep?: Prep[];
  okStatus?: number;
  run(fx: Fixture): Promise<Answer>;
  /** Checks the operation took effect (only for allowed cells). */
  effect(fx: Fixture, answer: Answer): void | Promise<void>;
}

const CONTENT = 'hello world';

describe('permission matrix (docs/server.md)', () => {
  const server = useTestServer();
  const accounts = {} as Record<Role | 'third', Account>;
  let cell = 0;

  const db = () => server.context.db;
  const row = <T>(sql: string, ...params: unknown[]) => db().prepare(sql).get(...params) as T | undefined;

  /** Everything a request could change: all rows of the data tables and the stored blobs. */
  const snapshot = () => ({
    entries: db().prepare('SELECT * FROM entries ORDER BY id').all(),
    shares: db().prepare('SELECT * FROM shares ORDER BY entry_id, user_id').all(),
    stars: db().prepare('SELECT * FROM stars ORDER BY user_id, entry_id').all(),
    links: db().prepare('SELECT * FROM links ORDER BY id').all(),
    blobs: readdirSync(server.context.blobDir).sort(),
  });

  const ok = async (answer: Promise<Answer>, status = 200): Promise<Answer> => {
    const a = await answer;
    if (a.status !== status) throw new Error(`fixture step answered ${a.status}: ${JSON.stringify(a.body)}`);
    return a;
  };

  async function fixture(role: Role, prep: Prep[] = []): Promise<Fixture> {
    const owner = accounts.owner;
    const actor = accounts[role];
    const n = ++cell;
    const folder = (await ok(server.call(owner.token, 'POST', '/api/v1/folders', { name: `cell-${n}` }))).body.folder;
    const file = (await ok(server.call(owner.token, 'POST', '/api/v1/uploads', uploadForm(`x-${n}.txt`, CONTENT, { parentId: folder.id })), 201))
      .body.fileEntry;
    const sub = (await ok(server.call(owner.token, 'POST', '/api/v1/folders', { name: `sub-${n}`, parentId: folder.id }))).body.folder;
    // A third account the folder is shared with, for change-permissions and unshare.
    await ok(server.call(owner.token, 'POST', `/api/v1/file-entries/${folder.id}/share`, { emails: [accounts.third.email], permissions: ['view'] }));
    const grant = GRANTS[role];
    if (grant) {
      await ok(server.call(owner.token, 'POST', `/api/v1/file-entries/${folder.id}/share`, { emails: [actor.email], permissions: grant }));
    }
    const ownFolder = (await ok(server.call(actor.token, 'POST', '/api/v1/folders', { name: `own-${n}` }))).body.folder;
    let linkHash: string | null = null;
    if (prep.includes('link')) {
      linkHash = (await ok(server.call(owner.token, 'POST', `/api/v1/file-entries/${file.id}/shareable-link`, {}))).body.link.hash;
    }
    if (prep.includes('starred')) {
      // The actor starred X while it could see it (a stranger: while X was briefly shared with it).
      if (role === 'stranger') {
        await ok(server.call(owner.token, 'POST', `/api/v1/file-entries/${file.id}/share`, { emails: [actor.email], permissions: ['view'] }));
      }
      await ok(server.call(actor.token, 'POST', '/api/v1/file-entries/star', { entryIds: [file.id] }));
      if (role === 'stranger') {
        await ok(server.call(owner.token, 'DELETE', `/api/v1/file-entries/${file.id}/unshare`, { userId: actor.id }));
      }
      expect(row('SELECT 1 AS x FROM stars WHERE user_id = ? AND entry_id = ?', actor.id, file.id)).toBeDefined();
    }
    if (prep.includes('trashed')) {
      await ok(server.call(owner.token, 'DELETE', '/api/v1/file-entries', { entryIds: [file.id] }));
    }
    return { actor, folder, file, sub, ownFolder, linkHash };
  }

  const entryRow = (id: number) =>
    row<{ id: number; name: string; parent_id: number | null; description: string | null; deleted_at: string | null }>(
      'SELECT * FROM entries WHERE id = ?',
      id,
    );
  const linkRow = (entryId: number) =>
    row<{ hash: string; allow_download: number; allow_edit: number }>('SELECT * FROM links WHERE entry_id = ?', entryId);
  const shareRow = (entryId: number, userId: number) =>
    row<{ can_view: number; can_edit: number; can_download: number }>(
      'SELECT * FROM shares WHERE entry_id = ? AND user_id = ?',
      entryId,
      userId,
    );

  const OPERATIONS: Operation[] = [
    {
      name: 'list children (parentIds)',
      row: 'read',
      run: (fx) => server.call(fx.actor.token, 'GET', `/api/v1/drive/file-entries?parentIds=${fx.folder.id}`),
      effect: (fx, a) => {
        expect(a.body.data.map((e: EntryRef) => e.id).sort()).toEqual([fx.file.id, fx.sub.id].sort());
      },
    },
    {
      name: 'get content at url',
      row: 'download',
      run: (fx) => server.call(fx.actor.token, 'GET', `/${fx.file.url}`),
      effect: (_fx, a) => {
        expect(a.body).toBe(CONTENT);
      },
    },
    {
      name: 'rename',
      row: 'edit',
      run: (fx) => server.call(fx.actor.token, 'PUT', `/api/v1/file-entries/${fx.file.id}`, { name: 'renamed.txt' }),
      effect: (fx) => {
        expect(entryRow(fx.file.id)?.name).toBe('renamed.txt');
      },
    },
    {
      name: 'describe',
      row: 'edit',
      run: (fx) => server.call(fx.actor.token, 'PUT', `/api/v1/file-entries/${fx.file.id}`, { description: 'a note' }),
      effect: (fx) => {
        expect(entryRow(fx.file.id)?.description).toBe('a note');
      },
    },
    {
      name: 'upload into folder',
      row: 'edit',
      okStatus: 201,
      run: (fx) => server.call(fx.actor.token, 'POST', '/api/v1/uploads', uploadForm('new.txt', 'new', { parentId: fx.folder.id })),
      effect: (fx, a) => {
        const created = entryRow(a.body.fileEntry.id);
        expect(created).toMatchObject({ name: 'new.txt', parent_id: fx.folder.id });
      },
    },
    {
      name: 'create folder in',
      row: 'edit',
      run: (fx) => server.call(fx.actor.token, 'POST', '/api/v1/folders', { name: 'made here', parentId: fx.folder.id }),
      effect: (fx, a) => {
        expect(entryRow(a.body.folder.id)).toMatchObject({ name: 'made here', parent_id: fx.folder.id });
      },
    },
    {
      name: 'move',
      row: 'edit',
      run: (fx) => server.call(fx.actor.token, 'POST', '/api/v1/file-entries/move', { entryIds: [fx.file.id], destinationId: fx.sub.id }),
      effect: (fx) => {
        expect(entryRow(fx.file.id)?.parent_id).toBe(fx.sub.id);
      },
    },
    {
      // The copy goes into a folder of the caller's own drive, so only the right on the source is in question.
      name: 'duplicate',
      row: 'download',
      run: (fx) =>
        server.call(fx.actor.token, 'POST', '/api/v1/file-entries/duplicate', { entryIds: [fx.file.id], destinationId: fx.ownFolder.id }),
      effect: (fx, a) => {
        expect(a.body.entries).toHaveLength(1);
        expect(entryRow(a.body.entries[0].id)).toMatchObject({ name: fx.file.name, parent_id: fx.ownFolder.id });
      },
    },
    {
      name: 'trash',
      row: 'edit',
      run: (fx) => server.call(fx.actor.token, 'DELETE', '/api/v1/file-entries', { entryIds: [fx.file.id] }),
      effect: (fx) => {
        expect(entryRow(fx.file.id)?.deleted_at).toEqual(expect.any(String));
      },
    },
    {
      name: 'restore',
      row: 'edit',
      prep: ['trashed'],
      run: (fx) => server.call(fx.actor.token, 'POST', '/api/v1/file-entries/restore', { entryIds: [fx.file.id] }),
      effect: (fx) => {
        expect(entryRow(fx.file.id)?.deleted_at).toBeNull();
      },
    },
    {
      name: 'delete forever',
      row: 'owner',
      run: (fx) => server.call(fx.actor.token, 'DELETE', '/api/v1/file-entries', { entryIds: [fx.file.id], deleteForever: 'true' }),
      effect: (fx) => {
        expect(entryRow(fx.file.id)).toBeUndefined();
      },
    },
    {
      name: 'star',
      row: 'star',
      run: (fx) => server.call(fx.actor.token, 'POST', '/api/v1/file-entries/star', { entryIds: [fx.file.id] }),
      effect: (fx, a) => {
        expect(a.body.tag).toMatchObject({ name: 'starred' });
        expect(row('SELECT 1 AS x FROM stars WHERE user_id = ? AND entry_id = ?', fx.actor.id, fx.file.id)).toBeDefined();
      },
    },
    {
      name: 'unstar',
      row: 'star',
      prep: ['starred'],
      run: (fx) => server.call(fx.actor.token, 'POST', '/api/v1/file-entries/unstar', { entryIds: [fx.file.id] }),
      effect: (fx) => {
        expect(row('SELECT 1 AS x FROM stars WHERE user_id = ? AND entry_id = ?', fx.actor.id, fx.file.id)).toBeUndefined();
      },
    },
    {
      name: 'share',
      row: 'owner',
      run: (fx) =>
        server.call(fx.actor.token, 'POST', `/api/v1/file-entries/${fx.file.id}/share`, { emails: [accounts.third.email], permissions: ['edit'] }),
      effect: (fx) => {
        expect(shareRow(fx.file.id, accounts.third.id)).toMatchObject({ can_view: 1, can_edit: 1 });
      },
    },
    {
      name: 'change permissions',
      row: 'owner',
      run: (fx) =>
        server.call(fx.actor.token, 'PUT', `/api/v1/file-entries/${fx.folder.id}/change-permissions`, {
          userId: accounts.third.id,
          permissions: ['view', 'download'],
        }),
      effect: (fx) => {
        expect(shareRow(fx.folder.id, accounts.third.id)).toMatchObject({ can_download: 1 });
      },
    },
    {
      name: 'unshare',
      row: 'owner',
      run: (fx) => server.call(fx.actor.token, 'DELETE', `/api/v1/file-entries/${fx.folder.id}/unshare`, { userId: accounts.third.id }),
      effect: (fx) => {
        expect(shareRow(fx.folder.id, accounts.third.id)).toBeUndefined();
      },
    },
    {
      name: 'get shareable link',
      row: 'read',
      prep: ['link'],
      run: (fx) => server.call(fx.actor.token, 'GET', `/api/v1/file-entries/${fx.file.id}/shareable-link`),
      effect: (fx, a) => {
        expect(a.body.link).toMatchObject({ hash: fx.linkHash, entry_id: fx.file.id });
      },
    },
    {
      name: 'create shareable link',
      row: 'link',
      run: (fx) => server.call(fx.actor.token, 'POST', `/api/v1/file-entries/${fx.file.id}/shareable-link`, { allow_edit: true }),
      effect: (fx, a) => {
        expect(linkRow(fx.file.id)).toMatchObject({ hash: a.body.link.hash, allow_edit: 1 });
      },
    },
    {
      name: 'update shareable link',
      row: 'link',
      prep: ['link'],
      run: (fx) => server.call(fx.actor.token, 'PUT', `/api/v1/file_entries/${fx.file.id}/shareable-link`, { allow_download: false }),
      effect: (fx) => {
        expect(linkRow(fx.file.id)).toMatchObject({ hash: fx.linkHash, allow_download: 0 });
      },
    },
    {
      name: 'delete shareable link',
      row: 'link',
      prep: ['link'],
      run: (fx) => server.call(fx.actor.token, 'DELETE', `/api/v1/file_entries/${fx.file.id}/shareable-link`),
      effect: (fx) => {
        expect(linkRow(fx.file.id)).toBeUndefined();
      },
    },
  ];

  beforeAll(async () => {
    for (const role of [...ROLES, 'third'] as const) {
      const email = `${role}@perm.example.com`;
      accounts[role] = { ...(await server.register(email)), email };
    }
  });

  const cells = OPERATIONS.flatMap((op) => ROLES.map((role) => ({ op, role, allowed: MATRIX[op.row][role] })));

  it('covers every operation of the brief for every role', () => {
    expect(cells).toHaveLength(20 * ROLES.length);
  });

  it.each(cells.map((c) => [`${c.op.name} by ${c.role} → ${c.allowed ? `${c.op.okStatus ?? 200}` : '403'}`, c] as const))(
    '%s',
    async (_label, { op, role, allowed }) => {
      const fx = await fixture(role, op.prep);
      const before = snapshot();
      const answer = await op.run(fx);
      if (allowed) {
        expect(answer.status, JSON.stringify(answer.body)).toBe(op.okStatus ?? 200);
        await op.effect(fx, answer);
      } else {
        expect(answer.status, JSON.stringify(answer.body)).toBe(403);
        expect(Value.Check(ErrorBody, answer.body)).toBe(true);
        expect(snapshot()).toEqual(before);
      }
    },
  );

  describe('shares on a folder cover its subtree', () => {
    it('grants each right on entries at any depth below the shared folder, and nothing above it', async () => {
      const owner = accounts.owner;
      const top = (await ok(server.call(owner.token, 'POST', '/api/v1/folders', { name: 'subtree-top' }))).body.folder;
      const mid = (await ok(server.call(owner.token, 'POST', '/api/v1/folders', { name: 'subtree-mid', parentId: top.id }))).body.folder;
      const deep = (await ok(server.call(owner.token, 'POST', '/api/v1/uploads', uploadForm('deep.txt', CONTENT, { relativePath: 'a/b/deep.txt', parentId: mid.id })), 201))
        .body.fileEntry;
      const b = deep.parent_id as number;
      for (const role of ['editor', 'downloader', 'viewer'] as const) {
        await ok(server.call(owner.token, 'POST', `/api/v1/file-entries/${mid.id}/share`, { emails: [accounts[role].email], permissions: GRANTS[role] }));
      }
      const t = (role: Role) => accounts[role].token;

      // Every recipient sees the deepest folder's children; nobody sees the unshared parent folder.
      for (const role of ['editor', 'downloader', 'viewer'] as const) {
        const list = await server.call(t(role), 'GET', `/api/v1/drive/file-entries?parentIds=${b}`);
        expect(list.status).toBe(200);
        expect(list.body.data.map((e: EntryRef) => e.id)).toEqual([deep.id]);
        expect((await server.call(t(role), 'GET', `/api/v1/drive/file-entries?parentIds=${top.id}`)).status).toBe(403);
      }
      expect((await server.call(t('stranger'), 'GET', `/api/v1/drive/file-entries?parentIds=${b}`)).status).toBe(403);

      // download right three levels down
      expect((await server.call(t('downloader'), 'GET', `/${deep.url}`)).body).toBe(CONTENT);
      expect((await server.call(t('viewer'), 'GET', `/${deep.url}`)).status).toBe(403);
      expect((await server.call(t('editor'), 'GET', `/${deep.url}`)).status).toBe(403);

      // edit right three levels down; the sibling of the shared folder stays out of reach
      expect((await server.call(t('editor'), 'PUT', `/api/v1/file-entries/${deep.id}`, { name: 'deep-renamed.txt' })).status).toBe(200);
      expect(entryRow(deep.id)?.name).toBe('deep-renamed.txt');
      expect((await server.call(t('downloader'), 'PUT', `/api/v1/file-entries/${deep.id}`, { name: 'nope.txt' })).status).toBe(403);
      expect((await server.call(t('editor'), 'PUT', `/api/v1/file-entries/${top.id}`, { name: 'nope-top' })).status).toBe(403);
      const made = await server.call(t('editor'), 'POST', '/api/v1/folders', { name: 'editor-made', parentId: b });
      expect(made.status).toBe(200);
      // Entries made by an editor inside someone's shared folder belong to that folder's drive.
      expect(row<{ owner_id: number }>('SELECT owner_id FROM entries WHERE id = ?', made.body.folder.id)?.owner_id).toBe(owner.id);

      // Unsharing the folder takes the whole subtree away again.
      await ok(server.call(owner.token, 'DELETE', `/api/v1/file-entries/${mid.id}/unshare`, { userId: accounts.downloader.id }));
      expect((await server.call(t('downloader'), 'GET', `/${deep.url}`)).status).toBe(403);
      expect((await server.call(t('downloader'), 'GET', `/api/v1/drive/file-entries?parentIds=${b}`)).status).toBe(403);
    });
  });

  describe('sharedOnly', () => {
    it('lists the shared entry for its recipient only, and stops once it is unshared', async () => {
      const owner = accounts.owner;
      const shared = (await ok(server.call(owner.token, 'POST', '/api/v1/folders', { name: 'shared-only-folder' }))).body.folder;
      const inside = (await ok(server.call(owner.token, 'POST', '/api/v1/uploads', uploadForm('inside.txt', CONTENT, { parentId: shared.id })), 201))
        .body.fileEntry;
      await ok(server.call(owner.token, 'POST', `/api/v1/file-entries/${shared.id}/share`, { emails: [accounts.viewer.email], permissions: ['view'] }));
      const sharedIds = async (role: Role) => {
        const answer = await server.call(accounts[role].token, 'GET', '/api/v1/drive/file-entries?sharedOnly=true&perPage=1000');
        expect(answer.status).toBe(200);
        return answer.body.data.map((e: EntryRef) => e.id) as number[];
      };
      const viewerSees = await sharedIds('viewer');
      expect(viewerSees).toContain(shared.id);
      expect(viewerSees).not.toContain(inside.id); // the entry itself is listed, not its subtree
      expect(await sharedIds('stranger')).not.toContain(shared.id);
      expect(await sharedIds('owner')).not.toContain(shared.id);
      // The recipient's own (default) listing is of its own drive: the shared folder is not in it.
      const own = await server.call(accounts.viewer.token, 'GET', '/api/v1/drive/file-entries?perPage=1000');
      expect(own.body.data.map((e: EntryRef) => e.id)).not.toContain(shared.id);

      await ok(server.call(owner.token, 'DELETE', `/api/v1/file-entries/${shared.id}/unshare`, { userId: accounts.viewer.id }));
      expect(await sharedIds('viewer')).not.toContain(shared.id);
    });
  });

  describe('authentication', () => {
    interface AuthCase {
      name: string;
      /** The route pattern the request reaches. */
      route: string;
      method: string;
      path: string;
      body?: unknown;
    }
    /** Every authenticated route, each with a request that would succeed for the owner. */
    const authCases = (fx: Fixture, listId: string): AuthCase[] => [
      { name: 'list entries', route: 'GET /api/v1/drive/file-entries', method: 'GET', path: `/api/v1/drive/file-entries?parentIds=${fx.folder.id}` },
      { name: 'trash', route: 'DELETE /api/v1/file-entries', method: 'DELETE', path: '/api/v1/file-entries', body: { entryIds: [fx.file.id] } },
      { name: 'delete forever', route: 'DELETE /api/v1/file-entries', method: 'DELETE', path: '/api/v1/file-entries', body: { entryIds: [fx.file.id], deleteForever: 'true' } },
      { name: 'rename', route: 'PUT /api/v1/file-entries/:entryId', method: 'PUT', path: `/api/v1/file-entries/${fx.file.id}`, body: { name: 'renamed.txt' } },
      { name: 'new folder', route: 'POST /api/v1/folders', method: 'POST', path: '/api/v1/folders', body: { name: 'unauth folder', parentId: fx.folder.id } },
      { name: 'move', route: 'POST /api/v1/file-entries/move', method: 'POST', path: '/api/v1/file-entries/move', body: { entryIds: [fx.file.id], destinationId: fx.sub.id } },
      { name: 'duplicate', route: 'POST /api/v1/file-entries/duplicate', method: 'POST', path: '/api/v1/file-entries/duplicate', body: { entryIds: [fx.file.id] } },
      { name: 'restore', route: 'POST /api/v1/file-entries/restore', method: 'POST', path: '/api/v1/file-entries/restore', body: { entryIds: [fx.file.id] } },
      { name: 'star', route: 'POST /api/v1/file-entries/star', method: 'POST', path: '/api/v1/file-entries/star', body: { entryIds: [fx.file.id] } },
      { name: 'unstar', route: 'POST /api/v1/file-entries/unstar', method: 'POST', path: '/api/v1/file-entries/unstar', body: { entryIds: [fx.file.id] } },
      { name: 'upload', route: 'POST /api/v1/uploads', method: 'POST', path: '/api/v1/uploads', body: uploadForm('u.txt', 'u', { parentId: fx.folder.id }) },
      { name: 'share', route: 'POST /api/v1/file-entries/:entryId/share', method: 'POST', path: `/api/v1/file-entries/${fx.file.id}/share`, body: { emails: [accounts.stranger.email], permissions: ['edit'] } },
      {
        name: 'change permissions',
        route: 'PUT /api/v1/file-entries/:entryId/change-permissions',
        method: 'PUT',
        path: `/api/v1/file-entries/${fx.folder.id}/change-permissions`,
        body: { userId: accounts.third.id, permissions: ['edit'] },
      },
      { name: 'unshare (DELETE)', route: 'DELETE /api/v1/file-entries/:entryId/unshare', method: 'DELETE', path: `/api/v1/file-entries/${fx.folder.id}/unshare`, body: { userId: accounts.third.id } },
      { name: 'unshare (POST)', route: 'POST /api/v1/file-entries/:entryId/unshare', method: 'POST', path: `/api/v1/file-entries/${fx.folder.id}/unshare`, body: { userId: accounts.third.id } },
      { name: 'get link', route: 'GET /api/v1/file-entries/:entryId/shareable-link', method: 'GET', path: `/api/v1/file-entries/${fx.file.id}/shareable-link` },
      { name: 'create link', route: 'POST /api/v1/file-entries/:entryId/shareable-link', method: 'POST', path: `/api/v1/file-entries/${fx.sub.id}/shareable-link`, body: {} },
      { name: 'update link', route: 'PUT /api/v1/file_entries/:entryId/shareable-link', method: 'PUT', path: `/api/v1/file_entries/${fx.file.id}/shareable-link`, body: { allow_download: false } },
      { name: 'delete link', route: 'DELETE /api/v1/file_entries/:entryId/shareable-link', method: 'DELETE', path: `/api/v1/file_entries/${fx.file.id}/shareable-link` },
      { name: 'content', route: 'GET /api/v1/file-entries/:entryId', method: 'GET', path: `/${fx.file.url}` },
      { name: 'subscribers index', route: 'GET /api/v1/lists/:list_id/subscribers', method: 'GET', path: `/api/v1/lists/${listId}/subscribers` },
      { name: 'subscribers store', route: 'GET /api/v1/lists/:list_id/subscribers/store', method: 'GET', path: `/api/v1/lists/${listId}/subscribers/store?EMAIL=new%40list.example.com` },
      { name: 'subscriber show', route: 'GET /api/v1/lists/:list_id/subscribers/:id', method: 'GET', path: `/api/v1/lists/${listId}/subscribers/sub%40list.example.com` },
      { name: 'subscriber subscribe', route: 'GET /api/v1/lists/:list_id/subscribers/:id/subscribe', method: 'GET', path: `/api/v1/lists/${listId}/subscribers/sub%40list.example.com/subscribe` },
      { name: 'subscriber unsubscribe', route: 'GET /api/v1/lists/:list_id/subscribers/:id/unsubscribe', method: 'GET', path: `/api/v1/lists/${listId}/subscribers/sub%40list.example.com/unsubscribe` },
      { name: 'subscriber delete', route: 'DELETE /api/v1/lists/:list_id/subscribers/:id/delete', method: 'DELETE', path: `/api/v1/lists/${listId}/subscribers/sub%40list.example.com/delete` },
    ];

    let fx: Fixture;
    let listId: string;
    let cases: AuthCase[];
    beforeAll(async () => {
      fx = await fixture('owner', ['link']);
      listId = addList(server.context.db, 'auth list', accounts.owner.email);
      await ok(server.call(accounts.owner.token, 'GET', `/api/v1/lists/${listId}/subscribers/store?EMAIL=sub%40list.example.com`));
      cases = authCases(fx, listId);
    });

    const CREDENTIALS: Array<[string, Record<string, string>]> = [
      ['no Authorization header', {}],
      ['an unknown bearer token', { authorization: 'Bearer not-a-real-token' }],
      ['an empty bearer token', { authorization: 'Bearer ' }],
      ['a non-bearer scheme', { authorization: 'Basic b3duZXJAcGVybS5leGFtcGxlLmNvbTpzZWNyZXQtcGFzc3dvcmQ=' }],
    ];

    it('the authentication cases cover every authenticated route the server has', () => {
      const served = servedRoutes(server);
      const authenticated = [...served].filter((r) => !r.includes(' /api/v1/auth/') && !r.includes(' /drive/s/'));
      expect(authenticated.length).toBeGreaterThanOrEqual(25);
      expect([...new Set(cases.map((c) => c.route))].sort()).toEqual(authenticated.sort());
    });

    it.each(CREDENTIALS)('every authenticated route answers 401 {message} with %s, and changes nothing', async (_label, headers) => {
      const before = snapshot();
      const subscribers = () => db().prepare('SELECT * FROM subscribers ORDER BY uid').all();
      const subscribersBefore = subscribers();
      for (const c of cases) {
        const body = c.body instanceof FormData ? uploadForm('u.txt', 'u', { parentId: fx.folder.id }) : c.body;
        const answer = await server.call(null, c.method, c.path, body, headers);
        expect(answer.status, `${c.name}: ${JSON.stringify(answer.body)}`).toBe(401);
        expect(answer.body, c.name).toEqual({ message: 'Unauthenticated.' });
      }
      expect(snapshot()).toEqual(before);
      expect(subscribers()).toEqual(subscribersBefore);
    });

    it('answers 401 before looking at a malformed body or path', async () => {
      const malformed: Array<[string, string, unknown, Record<string, string>?]> = [
        ['DELETE', '/api/v1/file-entries', '{not json'],
        ['POST', '/api/v1/folders', { name: 7, parentId: 'x' }],
        ['PUT', '/api/v1/file-entries/-3', { name: [] }],
        ['POST', '/api/v1/file-entries/move', 'garbage', { 'content-type': 'application/xml' }],
        ['GET', '/api/v1/drive/file-entries?perPage=-1&page=abc', undefined],
        ['GET', '/api/v1/file-entries/%ZZ', undefined],
        ['POST', '/api/v1/uploads', '--x\r\nContent-Disposition: form-data; name="file"', { 'content-type': 'multipart/form-data; boundary=x' }],
        ['GET', `/api/v1/lists/${'z'.repeat(100)}/subscribers?per_page=0`, undefined],
      ];
      for (const [method, path, body, headers] of malformed) {
        const answer = await server.call(null, method, path, body, headers);
        expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(401);
        expect(Value.Check(ErrorBody, answer.body)).toBe(true);
      }
    });

    it('the mailing-list routes take ?api_token= instead of the header, and a bad one is a 401', async () => {
      const good = await server.call(null, 'GET', `/api/v1/lists/${listId}/subscribers?api_token=${encodeURIComponent(accounts.owner.token)}`);
      expect(good.status).toBe(200);
      expect(good.body.map((s: { email: string }) => s.email)).toContain('sub@list.example.com');
      const bad = await server.call(null, 'GET', `/api/v1/lists/${listId}/subscribers?api_token=wrong`);
      expect(bad.status).toBe(401);
      // api_token is a mailing-list feature only.
      const files = await server.call(null, 'GET', `/api/v1/drive/file-entries?api_token=${encodeURIComponent(accounts.owner.token)}`);
      expect(files.status).toBe(401);
    });

    it('the public routes need no token', async () => {
      const login = await server.call(null, 'POST', '/api/v1/auth/login', { email: accounts.owner.email, password: 'secret-password', token_name: 'again' });
      expect(login.status).toBe(200);
      expect(typeof login.body.user.access_token).toBe('string');
      const link = await server.call(null, 'GET', `/drive/s/${fx.linkHash}`);
      expect(link.status).toBe(200);
      expect(link.body).toBe(CONTENT);
    });
  });
});
