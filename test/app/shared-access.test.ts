/**
 * Who has access, and what others share, through the host: two accounts on one real server, one sharing with the
 * other by the real API. The owner's side answers the people, the link and the mailing lists this computer shared
 * with; the other's side marks what arrived in its shared folder with who shared it and what it may do, and refuses
 * to share it in plain words. The shared folder's name is set, checked and turned off per synced folder.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../main/app/host/dispatch.js';
import { loadConfig } from '../../main/state/config.js';
import { addList } from '../../server/lists.js';
import { DriveClient } from '../../main/api/client.js';
import { PROFILES, startTestServer, type TestServer } from '../helpers/server.js';
import { inSync, newHost, untilStatus, write, type TestHost } from './helpers.js';
import { eventually } from '../helpers/eventually.js';

const PASSWORD = 'pass-word-1';

describe.each(PROFILES)('who has access and what others share (%s profile)', { timeout: 90_000 }, (profile) => {
  let server: TestServer;
  let olga: TestHost;
  let rita: TestHost;
  const OLGA = `olga-${profile}@example.com`;
  const RITA = `rita-${profile}@example.com`;
  const pictures = () => ({ root: olga.folder, path: 'Pictures' });

  async function signedIn(email: string, files: Record<string, string>): Promise<TestHost> {
    const h = newHost(`${email.split('@')[0]}`);
    for (const [path, content] of Object.entries(files)) write(h.folder, path, content);
    await h.host.init();
    expect(await dispatch(h.host, 'auth:sign-in', { server: server.url, email, password: PASSWORD })).toMatchObject({ ok: true });
    await untilStatus(h.host, inSync);
    return h;
  }

  beforeAll(async () => {
    server = await startTestServer({ profile });
    await server.register(OLGA, PASSWORD);
    await server.register(RITA, PASSWORD);
    olga = await signedIn(OLGA, { 'Pictures/beach.jpg': 'sand and sea', 'notes.txt': 'mine alone' });
    rita = await signedIn(RITA, { 'own.txt': 'rita’s own' });
  });
  afterAll(async () => {
    await olga?.host.dispose();
    await rita?.host.dispose();
    await server?.close();
  });

  it('answers who has access to an entry of the account: nobody, then a person, a link and a mailing list', async () => {
    expect(await dispatch(olga.host, 'share:access', pictures())).toEqual({
      ok: true,
      value: { name: 'Pictures', type: 'folder', sharedWithMe: false, owner: OLGA, myPermissions: null, canShare: true, people: [], link: null, lists: [] },
    });
    // Shared by the real API, as another computer of the account (or the drive's website) would.
    const login = await server.call(null, 'POST', '/api/v1/auth/login', { email: OLGA, password: PASSWORD, token_name: 'elsewhere' });
    const elsewhere = new DriveClient({ origin: server.url, token: (login.body.user ?? login.body.bootstrapData.user).access_token });
    const folder = (await collect(elsewhere.entries.list({ query: 'Pictures' }))).find((e) => e.name === 'Pictures')!;
    await elsewhere.sharing.share(folder.id, [RITA], ['view', 'download']);

    await olga.host.handle('link:create', { ...pictures(), password: 'open-sesame', allowDownload: false, allowEdit: false });
    const listId = addList(server.context.db, 'Family', OLGA);
    const sub = await elsewhere.lists.store(listId, { EMAIL: RITA });
    await elsewhere.lists.subscribe(listId, sub);
    await olga.host.handle('lists:save', { id: listId, name: 'Family' });
    await olga.host.handle('share:list-members', { ...pictures(), listId, permissions: ['view', 'download'] });

    const access = await olga.host.handle('share:access', pictures());
    expect(access).toMatchObject({ sharedWithMe: false, owner: OLGA, canShare: true, lists: [{ id: listId, name: 'Family' }] });
    expect(access.people).toEqual([{ userId: expect.any(Number), email: RITA, name: null, permissions: ['view', 'download'] }]);
    expect(access.link).toMatchObject({ hasPassword: true, expiresAt: null, allowDownload: false, allowEdit: false, url: expect.stringContaining('/drive/s/') });
    // Only the entry shared with the list names it.
    expect((await olga.host.handle('share:access', { root: olga.folder, path: 'notes.txt' })).lists).toEqual([]);
  });

  it('marks what arrived in the shared folder with who shared it and what the account may do', async () => {
    const shared = await rita.host.handle('shared:refresh', undefined);
    expect(shared).toEqual([{ entryId: expect.any(Number), name: 'Pictures', type: 'folder', owner: profile === 'deployed' ? OLGA : null, permissions: ['view', 'download'] }]);
    // The deployed versions name the owner: what the owner shares is grouped under their address.
    const place = profile === 'deployed' ? `Shared with me/${OLGA}/Pictures` : 'Shared with me/Pictures';
    await rita.host.handle('sync:now', undefined);
    await eventually(async () => (await rita.host.handle('entries:browse', { root: rita.folder, path: place })).total === 1);
    expect(existsSync(join(rita.folder, ...place.split('/'), 'beach.jpg'))).toBe(true);

    const top = await rita.host.handle('entries:markers', { root: rita.folder, path: '' });
    expect(top).toEqual(
      expect.arrayContaining([
        { path: 'Shared with me', shared: false, starred: false, hasLink: false, sharedFolder: true, ...(profile === 'deployed' ? { sharedWithMe: { owner: OLGA, permissions: null } } : {}) },
      ]),
    );
    // Only what has a marker is answered: the account's own file, neither shared, starred nor linked, is left out.
    expect(top.map((m) => m.path)).not.toContain('own.txt');
    expect((await rita.host.handle('entries:browse', { root: rita.folder, path: '' })).entries.map((e) => e.name)).toContain('own.txt');
    const by = { owner: profile === 'deployed' ? OLGA : null, permissions: ['view', 'download'] };
    const parent = place.slice(0, place.lastIndexOf('/'));
    expect(await rita.host.handle('entries:markers', { root: rita.folder, path: parent })).toEqual([{ path: place, shared: false, starred: false, hasLink: false, sharedWithMe: by }]);
    expect(await rita.host.handle('entries:markers', { root: rita.folder, path: place })).toEqual([
      { path: `${place}/beach.jpg`, shared: false, starred: false, hasLink: false, sharedWithMe: by },
    ]);

    const access = await rita.host.handle('share:access', { root: rita.folder, path: place });
    expect(access).toMatchObject({ name: 'Pictures', sharedWithMe: true, owner: by.owner, myPermissions: ['view', 'download'], canShare: false, lists: [] });
    expect(access.people).toContainEqual(expect.objectContaining({ email: RITA, you: true }));
    const inside = await rita.host.handle('share:access', { root: rita.folder, path: `${place}/beach.jpg` });
    expect(inside).toMatchObject({ name: 'beach.jpg', sharedWithMe: true, owner: by.owner, myPermissions: ['view', 'download'], canShare: false });
  });

  it('says in plain words that only the owner can share an entry shared with the account', async () => {
    const place = profile === 'deployed' ? `Shared with me/${OLGA}/Pictures` : 'Shared with me/Pictures';
    const refused = await dispatch(rita.host, 'share:add', { root: rita.folder, path: place, emails: [OLGA], permissions: ['view'] });
    const owner = profile === 'deployed' ? `: ask ${OLGA}.` : '.';
    expect(refused).toEqual({ ok: false, error: { kind: 'forbidden', message: `Only the owner of “Pictures” can share it${owner}` } });
    const link = await dispatch(rita.host, 'link:create', { root: rita.folder, path: place, allowDownload: true });
    expect(link).toMatchObject({ ok: false, error: { kind: 'forbidden', message: `Only the owner of “Pictures” can share it${owner}` } });
  });

  it('names the shared folder per synced folder, refuses a name it cannot have or one taken, and turns it off', async () => {
    const root = rita.folder;
    expect((await rita.host.handle('settings:get', undefined)).sharedFolders).toEqual([{ root, name: 'Shared with me' }]);
    const bad = await dispatch(rita.host, 'settings:shared-folder', { root, name: 'a/b' });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'invalid', fields: { name: expect.stringContaining('cannot be empty') } } });
    // A name an entry of the account's own drive has at the top is not merged with it.
    const taken = await dispatch(rita.host, 'settings:shared-folder', { root, name: 'own.txt' });
    expect(taken).toMatchObject({ ok: false, error: { kind: 'invalid', fields: { name: 'Drive already holds “own.txt” of your drive: choose another name.' } } });
    const elsewhere = await dispatch(rita.host, 'settings:shared-folder', { root: join(root, 'nope'), name: 'X' });
    expect(elsewhere).toMatchObject({ ok: false, error: { kind: 'not-synced' } });

    const renamed = await rita.host.handle('settings:shared-folder', { root, name: ' From others ' });
    expect(renamed.sharedFolders).toEqual([{ root, name: 'From others' }]);
    expect(loadConfig(rita.paths).sharedWithMe).toEqual({ [root]: 'From others' });
    const off = await rita.host.handle('settings:shared-folder', { root, name: null });
    expect(off.sharedFolders).toEqual([{ root, name: null }]);
    expect(loadConfig(rita.paths).sharedWithMe).toEqual({ [root]: null });
    // Back to the default: the config no longer names it.
    expect((await rita.host.handle('settings:shared-folder', { root, name: 'Shared with me' })).sharedFolders).toEqual([{ root, name: 'Shared with me' }]);
    expect(loadConfig(rita.paths).sharedWithMe).toBeUndefined();
  });
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

