/**
 * "Choose folders…" in the host, against the real reference server and real engines on temp folders: the drive's
 * folder tree with sizes, a preview that writes nothing, an exclusion written to the config (and followed by the
 * folder's engine), including a folder inside an excluded one as `withIncluded` does, the new-folders setting, bad
 * arguments refused in one line, downloads that do not fit on the disk, and what the window is told of a drive trash
 * that would take excluded content along.
 */
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DriveClient } from '../../main/api/client.js';
import { HostContext } from '../../main/app/host/context.js';
import { dispatch } from '../../main/app/host/dispatch.js';
import { Feed, type FolderRun } from '../../main/app/host/feed.js';
import type { DeletionQuestion, DriveFolderTree } from '../../main/contract/index.js';
import { loadConfig } from '../../main/state/config.js';
import type { SyncedFolder } from '../../main/state/folder.js';
import { loadDriveTree, withIncluded } from '../../main/state/selection.js';
import { uploadForm, useTestServer } from '../helpers/server.js';
import { inSync, newHost, untilStatus, write, type TestHost } from './helpers.js';
import { eventually } from '../helpers/eventually.js';

const server = useTestServer();
const hosts: TestHost[] = [];
// Registered after the server's: run before it closes.
afterAll(async () => {
  for (const h of hosts) await h.host.dispose();
});

const FILES = {
  'notes.txt': 'top level',
  'docs/a.txt': 'hello',
  'photos/cover.jpg': 'c'.repeat(10),
  'photos/2019/one.jpg': 'x'.repeat(100),
  'photos/2019/two.jpg': 'y'.repeat(50),
  'photos/2020/three.jpg': 'z'.repeat(30),
};

interface Signed extends TestHost {
  token: string;
  email: string;
}

async function signedInHost(name: string, files: Record<string, string> = FILES): Promise<Signed> {
  const email = `${name}@example.com`;
  const { token } = await server.register(email, 'pass-word-1');
  const h = newHost(name);
  hosts.push(h);
  for (const [path, content] of Object.entries(files)) write(h.folder, path, content);
  await h.host.init();
  expect((await dispatch(h.host, 'auth:sign-in', { server: server.url, email, password: 'pass-word-1' })).ok).toBe(true);
  await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= Object.keys(files).length);
  return { ...h, token, email };
}

const idOf = (tree: DriveFolderTree, path: string) => {
  const folder = tree.folders.find((f) => f.path === path);
  if (!folder) throw new Error(`no folder ${path} in ${tree.folders.map((f) => f.path).join(', ')}`);
  return folder.id;
};
const selective = (h: TestHost) => loadConfig(h.paths).selective?.[h.folder];

describe('choosing folders in the host', { timeout: 90_000 }, () => {
  it('answers the drive’s folders with their sizes, and a preview that writes nothing', async () => {
    const h = await signedInHost('tree');
    const tree = await h.host.handle('selection:tree', { root: h.folder });
    expect(tree.root).toBe(h.folder);
    expect(tree.folders.map((f) => [f.path, f.name, f.bytes, f.files, f.excluded, f.excludedHere])).toEqual([
      ['docs', 'docs', 5, 1, false, false],
      ['photos', 'photos', 190, 4, false, false],
      ['photos/2019', '2019', 150, 2, false, false],
      ['photos/2020', '2020', 30, 1, false, false],
    ]);
    expect(tree.folders.find((f) => f.path === 'photos/2019')!.parentId).toBe(idOf(tree, 'photos'));
    expect(tree).toMatchObject({ excluded: [], newFolders: 'sync' });

    const id2019 = idOf(tree, 'photos/2019');
    const preview = await h.host.handle('selection:preview', { root: h.folder, changes: [{ id: id2019, include: false }] });
    expect(preview).toEqual({
      root: h.folder,
      excluded: [id2019],
      newFolders: 'sync',
      download: { folders: [], bytes: 0, files: 0 },
      remove: { folders: [{ id: id2019, path: 'photos/2019', bytes: 150, files: 2 }], bytes: 150, files: 2 },
      changed: true,
    });
    // A preview only says: nothing is written, nothing leaves.
    expect(selective(h)).toBeUndefined();
    expect(existsSync(join(h.folder, 'photos', '2019', 'one.jpg'))).toBe(true);
    // Leaving out `photos` whole counts what it holds itself and what is inside it, listed once.
    const whole = await h.host.handle('selection:preview', { root: h.folder, changes: [{ id: id2019, include: false }, { id: idOf(tree, 'photos'), include: false }] });
    expect(whole.excluded).toEqual([idOf(tree, 'photos')]);
    expect(whole.remove).toEqual({ folders: [{ id: idOf(tree, 'photos'), path: 'photos', bytes: 190, files: 4 }], bytes: 190, files: 4 });
    expect((await h.host.handle('selection:preview', { root: h.folder, changes: [] })).changed).toBe(false);
  });

  it('writes an exclusion to the config; the folder’s engine removes the copy here and the drive keeps it', async () => {
    const h = await signedInHost('exclude');
    const tree = await h.host.handle('selection:tree', { root: h.folder });
    const id2019 = idOf(tree, 'photos/2019');
    const applied = await dispatch(h.host, 'selection:apply', { root: h.folder, changes: [{ id: id2019, include: false }] });
    expect(applied).toMatchObject({ ok: true, value: { excluded: [id2019], changed: true, remove: { bytes: 150, files: 2 } } });
    expect(selective(h)).toEqual({ excluded: [id2019] });

    await eventually(() => !existsSync(join(h.folder, 'photos', '2019')), { what: 'the copy of photos/2019 leaving' });
    expect(existsSync(join(h.folder, 'photos', '2020', 'three.jpg'))).toBe(true);
    await expect.poll(async () => (await h.host.handle('activity:list', undefined)).map((a) => `${a.kind} ${a.path}`), { timeout: 20_000 }).toContain('drop-local photos/2019');
    const item = (await h.host.handle('activity:list', undefined)).find((a) => a.kind === 'drop-local')!;
    expect(item.description).toBe('Excluded: removed from this computer (still on the drive)');
    // Not a recent file any more: the files under it are not here.
    expect((await h.host.handle('recent:list', undefined)).map((r) => r.path)).not.toContain('photos/2019/one.jpg');

    const after = await h.host.handle('selection:tree', { root: h.folder });
    expect(after.excluded).toEqual([id2019]);
    expect(after.folders.map((f) => [f.path, f.bytes, f.excluded, f.excludedHere])).toEqual([
      ['docs', 5, false, false],
      ['photos', 190, false, false],
      ['photos/2019', 150, true, true],
      ['photos/2020', 30, false, false],
    ]);
    await untilStatus(h.host, inSync);
  });

  it('includes a folder inside an excluded one as withIncluded does: the way down comes, the other folders stay out', async () => {
    const h = await signedInHost('include');
    const tree = await h.host.handle('selection:tree', { root: h.folder });
    const [photos, id2019, id2020] = ['photos', 'photos/2019', 'photos/2020'].map((p) => idOf(tree, p)) as [number, number, number];
    // Out with photos/2019 first, then photos whole: the inner exclusion is covered, and goes.
    await h.host.handle('selection:apply', { root: h.folder, changes: [{ id: id2019, include: false }] });
    const out = await h.host.handle('selection:apply', { root: h.folder, changes: [{ id: photos, include: false }] });
    expect(out.excluded).toEqual([photos]);
    expect(out.remove).toEqual({ folders: [{ id: photos, path: 'photos', bytes: 40, files: 2 }], bytes: 40, files: 2 });
    expect(selective(h)).toEqual({ excluded: [photos] });
    await eventually(() => !existsSync(join(h.folder, 'photos')), { what: 'the copy of photos leaving' });

    const client = new DriveClient({ origin: server.url, token: h.token });
    const expected = withIncluded(await loadDriveTree(client, new Set([photos])), new Set([photos]), id2019);
    const back = await h.host.handle('selection:apply', { root: h.folder, changes: [{ id: id2019, include: true }] });
    expect(back.excluded).toEqual([...expected].sort((a, b) => a - b));
    expect(back.excluded).toEqual([id2020]);
    expect(selective(h)).toEqual({ excluded: [id2020] });
    // What comes down: photos itself (its cover) and 2019, said as one part; 2020 stays on the drive only.
    expect(back.download).toEqual({ folders: [{ id: photos, path: 'photos', bytes: 160, files: 3 }], bytes: 160, files: 3 });
    expect(back.remove).toEqual({ folders: [], bytes: 0, files: 0 });
    await eventually(() => existsSync(join(h.folder, 'photos', '2019', 'two.jpg')) && existsSync(join(h.folder, 'photos', 'cover.jpg')), { what: 'photos/2019 coming back' });
    await untilStatus(h.host, inSync);
    expect(existsSync(join(h.folder, 'photos', '2020'))).toBe(false);
    const now = await h.host.handle('selection:tree', { root: h.folder });
    expect(now.folders.filter((f) => f.excluded).map((f) => f.path)).toEqual(['photos/2020']);
  });

  it('keeps the new-folders setting, and a new folder made on the drive then stays out', async () => {
    const h = await signedInHost('new-folders', { 'docs/a.txt': 'hello' });
    const synced = h.host.status().folders[0]!.lastSync;
    const plan = await h.host.handle('selection:apply', { root: h.folder, changes: [], newFolders: 'exclude' });
    expect(plan).toMatchObject({ newFolders: 'exclude', changed: true, excluded: [] });
    expect(selective(h)).toEqual({ excluded: [], newFolders: 'exclude' });
    expect((await h.host.handle('selection:tree', { root: h.folder })).newFolders).toBe('exclude');
    // The folder's engine follows the config with a pass of its own: after it, the setting holds.
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.lastSync !== synced);

    const client = new DriveClient({ origin: server.url, token: h.token });
    const made = await client.entries.createFolder('shared-later', null);
    expect((await server.call(h.token, 'POST', '/api/v1/uploads', uploadForm('inside.txt', 'made elsewhere', { parentId: made.id }))).status).toBe(201);
    await h.host.handle('sync:now', undefined);
    await eventually(() => selective(h)?.excluded.includes(made.id) === true, { what: 'the new folder kept out in the config' });
    await untilStatus(h.host, inSync);
    expect(existsSync(join(h.folder, 'shared-later'))).toBe(false);

    // Back to syncing new folders; including the one left out brings it.
    const again = await h.host.handle('selection:apply', { root: h.folder, changes: [{ id: made.id, include: true }], newFolders: 'sync' });
    expect(again).toMatchObject({ newFolders: 'sync', excluded: [], download: { bytes: 14, files: 1 } });
    expect(selective(h)).toBeUndefined();
    await eventually(() => existsSync(join(h.folder, 'shared-later', 'inside.txt')), { what: 'the new folder coming down' });
  });

  it('refuses bad arguments in one line, and changes nothing', async () => {
    const h = await signedInHost('refusals', { 'docs/a.txt': 'hello' });
    const docs = idOf(await h.host.handle('selection:tree', { root: h.folder }), 'docs');
    const refused = [
      await dispatch(h.host, 'selection:apply', { root: h.folder, changes: [{ id: 0, include: false }] }),
      await dispatch(h.host, 'selection:apply', { root: h.folder, changes: [{ id: docs, include: 'no' }] }),
      await dispatch(h.host, 'selection:apply', { root: h.folder, changes: [{ id: docs, include: false, path: 'docs' }] }),
      await dispatch(h.host, 'selection:apply', { root: h.folder, changes: 'docs' }),
      await dispatch(h.host, 'selection:apply', { root: h.folder, changes: [], newFolders: 'sometimes' }),
      await dispatch(h.host, 'selection:preview', { root: '', changes: [] }),
      await dispatch(h.host, 'selection:tree', { root: h.folder, path: 'docs' }),
      await dispatch(h.host, 'selection:apply', { root: h.folder, changes: Array.from({ length: 1001 }, () => ({ id: docs, include: false })) }),
    ];
    for (const answer of refused) {
      expect(answer).toMatchObject({ ok: false, error: { kind: 'invalid-argument' } });
      if (!answer.ok) {
        expect(answer.error.message).toMatch(/^selection:(apply|preview|tree): /);
        expect(answer.error.message).not.toMatch(/\n/);
      }
    }
    const elsewhere = await dispatch(h.host, 'selection:tree', { root: join(h.home, 'Elsewhere') });
    expect(elsewhere).toEqual({ ok: false, error: { kind: 'not-synced', message: `${join(h.home, 'Elsewhere')} is not a synced folder.` } });
    const gone = await dispatch(h.host, 'selection:apply', { root: h.folder, changes: [{ id: 987_654_321, include: false }] });
    expect(gone).toEqual({
      ok: false,
      error: { kind: 'not-found', message: 'A folder you chose is no longer on the drive (deleted or moved away): open Choose folders… again.' },
    });
    expect(selective(h)).toBeUndefined();
    expect(existsSync(join(h.folder, 'docs', 'a.txt'))).toBe(true);
  });

  it('says when the downloads do not fit on the disk, and leaving that folder out lets the rest sync', async () => {
    const h = await signedInHost('space', { 'docs/a.txt': 'hello' });
    const client = new DriveClient({ origin: server.url, token: h.token });
    // Paused while the drive gets a file larger than any disk (its size as the drive lists it), so the engine first
    // sees it with that size.
    await h.host.handle('sync:pause', undefined);
    const big = await client.entries.createFolder('videos', null);
    expect((await server.call(h.token, 'POST', '/api/v1/uploads', uploadForm('huge.mkv', 'not that big really', { parentId: big.id }))).status).toBe(201);
    server.context.db.prepare('UPDATE entries SET file_size = ? WHERE name = ?').run(2 ** 50, 'huge.mkv');
    await h.host.handle('sync:resume', undefined);

    const status = await untilStatus(h.host, (s) => s.folders[0]?.needsSpace === true);
    expect(status.folders[0]).toMatchObject({ state: 'error', needsSpace: true });
    expect(status.folders[0]!.detail).toMatch(
      /^Not enough free space: 1024 TB to download, [\d.]+ [KMGT]?B free on this disk, so nothing more is downloaded\. Free some space and sync again, or leave folders out \(Choose folders…\)\.$/,
    );
    expect(existsSync(join(h.folder, 'videos', 'huge.mkv'))).toBe(false);

    const tree = await h.host.handle('selection:tree', { root: h.folder });
    expect(tree.folders.find((f) => f.path === 'videos')).toMatchObject({ bytes: 2 ** 50, files: 1 });
    await h.host.handle('selection:apply', { root: h.folder, changes: [{ id: big.id, include: false }] });
    const fine = await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.needsSpace === undefined);
    expect(fine.folders[0]!.detail).toBeNull();
  });

  it('passes on what a drive trash would take from excluded folders, and marks a folder whose downloads do not fit', () => {
    // The feed as it hears a folder's engine: what the engine decides is the engine's tests'; what the window gets of
    // it is this.
    const events = new EventEmitter();
    const h = newHost('feed');
    const context = new HostContext({ paths: h.paths, platform: h.platform, defaultFolder: h.folder }, events as never);
    context.account = { server: 'http://127.0.0.1:8080', email: 'feed@example.com' };
    const run: FolderRun = { root: h.folder, mirror: '', folder: null, status: { root: h.folder, state: 'idle', detail: null, lastSync: null, synced: 0, inSync: true, skipped: 0, leftOut: [] } };
    const feed = new Feed(context, () => [run]);
    const folder = Object.assign(new EventEmitter(), { syncedCount: 3 });
    feed.follow(run, folder as unknown as SyncedFolder, () => true);
    const asked: DeletionQuestion[] = [];
    events.on('confirm-deletions', (q: DeletionQuestion) => asked.push(q));

    const group = { where: 'drive' as const, why: 'deleted in this folder', count: 2, bytes: 9, items: [{ path: 'archive', type: 'folder' as const, size: 0 }] };
    folder.emit('confirm-deletions', { root: h.folder, count: 2, synced: 3, bytes: 9, groups: [group], excluded: { items: 3, bytes: 42 } });
    expect(asked).toEqual([{ root: h.folder, count: 2, synced: 3, bytes: 9, groups: [group], excluded: { items: 3, bytes: 42 } }]);
    expect(feed.status().pendingDeletions[0]!.excluded).toEqual({ items: 3, bytes: 42 });
    // Nothing taken from excluded folders: not said at all.
    folder.emit('confirm-deletions', { root: h.folder, count: 2, synced: 3, bytes: 9, groups: [group] });
    expect(asked[1]).not.toHaveProperty('excluded');

    folder.emit('state', 'error', 'not enough free space: 1024 TB to download, 3.0 GB free on this disk; free some space, or leave folders out (drivesync exclude)');
    expect(feed.status().folders[0]).toMatchObject({ state: 'error', needsSpace: true, detail: expect.stringMatching(/^Not enough free space: 1024 TB to download, 3\.0 GB free on this disk/) });
    folder.emit('state', 'error', 'cannot read the folder');
    expect(feed.status().folders[0]).not.toHaveProperty('needsSpace');
    folder.emit('state', 'error', 'not enough free space: 2.0 GB to download, 1.0 GB free on this disk; free some space, or leave folders out (drivesync exclude)');
    folder.emit('state', 'idle');
    expect(feed.status().folders[0]).toMatchObject({ state: 'idle', detail: null });
    expect(feed.status().folders[0]).not.toHaveProperty('needsSpace');
  });
});
