/**
 * The pure-Node host against the real reference server and real engines on temp folders: sign-in, status, browse,
 * sharing, links, settings, errors answered as Results, and the mass-delete question.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriveClient } from '../../main/api/client.js';
import { dispatch } from '../../main/app/host/dispatch.js';
import { loadConfig, saveConfig } from '../../main/state/config.js';
import { FolderLocked } from '../../main/state/errors.js';
import { lockFolder } from '../../main/state/lock.js';
import { rootOfAccount } from '../../main/state/roots.js';
import { readStatus } from '../../main/state/status-file.js';
import { eventually } from '../helpers/eventually.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { inSync, nextEvent, newHost, untilStatus, write, type TestHost } from './helpers.js';

let server: TestServer;
const hosts: TestHost[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const h of hosts) await h.host.dispose();
  await server.close();
});

async function signedInHost(email: string, files: Record<string, string> = {}): Promise<TestHost> {
  await server.register(email, 'pass-word-1');
  const h = newHost(email.split('@')[0]);
  hosts.push(h);
  for (const [path, content] of Object.entries(files)) write(h.folder, path, content);
  await h.host.init();
  const result = await dispatch(h.host, 'auth:sign-in', { server: server.url, email, password: 'pass-word-1' });
  expect(result).toEqual({ ok: true, value: { server: server.url, email } });
  await untilStatus(h.host, inSync);
  return h;
}

// Beside every other test file on two cores, syncing can take a while: the tests get room.
describe('the desktop host', { timeout: 90_000 }, () => {
  it('answers a bad sign-in with a clear failure, then signs in and syncs the default folder', async () => {
    await server.register('ann@example.com', 'right-password');
    const h = newHost('ann');
    hosts.push(h);
    write(h.folder, 'notes/todo.txt', 'buy milk');
    write(h.folder, 'notes/todo.txt.swp', 'an editor swap file');
    symlinkSync('/etc/hostname', join(h.folder, 'outside-link'));
    await h.host.init();
    expect((await dispatch(h.host, 'status:get', undefined)) as { value: { state: string } }).toMatchObject({ ok: true, value: { state: 'signed-out' } });

    const wrong = await dispatch(h.host, 'auth:sign-in', { server: server.url, email: 'ann@example.com', password: 'nope' });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) {
      expect(['invalid', 'unauthorized']).toContain(wrong.error.kind);
      expect(wrong.error.message).not.toMatch(/\n/);
    }
    const badServer = await dispatch(h.host, 'auth:sign-in', { server: 'ftp://x', email: 'ann@example.com', password: 'x' });
    expect(badServer).toMatchObject({ ok: false, error: { kind: 'invalid', fields: { server: expect.any(String) } } });
    // A web server that is not a drive (as python's http.server answers a POST) is named as such, not as a server
    // that failed and should be tried again later.
    const web = createServer((request, response) => {
      request.resume();
      response.writeHead(501, { 'content-type': 'text/html' }).end('<h1>Unsupported method</h1>');
    });
    await new Promise<void>((ready) => web.listen(0, '127.0.0.1', ready));
    const site = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
    try {
      for (const register of [false, true]) {
        const answer = await dispatch(h.host, 'auth:sign-in', { server: site, email: 'ann@example.com', password: 'x', register });
        const route = register ? 'register' : 'login';
        expect(answer).toMatchObject({ ok: false, error: { message: `${site} does not look like a drive service (it answered POST /auth/${route} with HTTP 501). Check the address.` } });
      }
    } finally {
      web.close();
    }
    const notSignedIn = await dispatch(h.host, 'sync:now', undefined);
    expect(notSignedIn).toMatchObject({ ok: false, error: { kind: 'not-signed-in' } });

    const ok = await dispatch(h.host, 'auth:sign-in', { server: server.url, email: 'ann@example.com', password: 'right-password' });
    expect(ok.ok).toBe(true);
    const status = await untilStatus(h.host, inSync);
    expect(status.account).toEqual({ server: server.url, email: 'ann@example.com' });
    expect(status.folders.map((f) => f.root)).toEqual([h.folder]);
    expect(status.folders[0]!.synced).toBe(2);
    // Left out by design, and still in sync: the swap file (ignored) and the link.
    expect(status.folders[0]!.skipped).toBe(2);
    expect(status.folders[0]!.inSync).toBe(true);
    // The command line's config now names the server, the account and the folder (and never a token).
    const config = loadConfig(h.paths);
    expect(config).toMatchObject({ server: server.url, email: 'ann@example.com', roots: [h.folder] });
    expect(readFileSync(h.paths.configFile, 'utf8')).not.toMatch(/token/i);

    const top = (await h.host.handle('entries:browse', { root: h.folder, path: '' })).entries;
    expect(top.map((e) => [e.name, e.type])).toEqual([['notes', 'folder']]);
    const inner = (await h.host.handle('entries:browse', { root: h.folder, path: 'notes' })).entries;
    expect(inner.map((e) => [e.path, e.type, e.size])).toEqual([['notes/todo.txt', 'file', 8]]);
    const activity = await h.host.handle('activity:list', undefined);
    expect(activity.map((a) => `${a.kind} ${a.path}`)).toEqual(expect.arrayContaining(['upload notes/todo.txt', 'create-remote-folder notes']));
  });

  it('lists what is left out by design, each with why, and counts all of it', async () => {
    await server.register('lena@example.com', 'pass-word-1');
    const h = newHost('lena');
    hosts.push(h);
    write(h.folder, 'kept.txt', 'kept');
    write(h.folder, 'x.tmp', 'a temp file');
    symlinkSync('/etc/hostname', join(h.folder, 'link'));
    await h.host.init();
    expect((await dispatch(h.host, 'auth:sign-in', { server: server.url, email: 'lena@example.com', password: 'pass-word-1' })).ok).toBe(true);
    const status = await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.lastSync !== null);
    const link = { path: 'link', reason: 'This is a symbolic link: drivesync does not follow links. Move the real file or folder into the synced folder instead.' };
    const ignored = 'Ignored: temporary and editor files, and names your ignore rules list (Settings), are not synced.';
    expect(status.folders[0]!.leftOut).toEqual([link, { path: 'x.tmp', reason: ignored }]);
    expect(status.folders[0]!.skipped).toBe(2);
    // As the window gets it, over the wire.
    expect(await dispatch(h.host, 'status:get', undefined)).toMatchObject({ ok: true, value: { folders: [{ skipped: 2, leftOut: [link, { path: 'x.tmp' }] }] } });

    // More than the list holds: the link and a folder the drive cannot hold come first, the count stays whole.
    for (let i = 0; i < 150; i++) write(h.folder, `n${i}.tmp`, 'temp');
    mkdirSync(join(h.folder, 'ab'));
    await h.host.handle('sync:now', undefined);
    const more = (await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.skipped === 153)).folders[0]!;
    expect(more.leftOut).toHaveLength(100);
    expect(more.leftOut.slice(0, 2)).toEqual([
      link,
      {
        path: 'ab',
        reason: 'The drive cannot hold an empty folder named “ab” (folder names need 3 to 200 characters), so it is left out in Drive. It syncs once it holds a file, or under a longer name.',
      },
    ]);
    expect(new Set(more.leftOut.slice(2).map((item) => item.reason))).toEqual(new Set([ignored]));
    expect(more.leftOut.slice(2).every((item) => /^(x|n\d+)\.tmp$/.test(item.path))).toBe(true);

    // Gone from the list once they are gone from the folder.
    rmSync(join(h.folder, 'link'));
    rmSync(join(h.folder, 'ab'), { recursive: true });
    for (let i = 0; i < 150; i++) rmSync(join(h.folder, `n${i}.tmp`));
    await h.host.handle('sync:now', undefined);
    const after = (await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.skipped === 1)).folders[0]!;
    expect(after.leftOut).toEqual([{ path: 'x.tmp', reason: ignored }]);
  });

  it('refuses calls it does not know and arguments that do not fit', async () => {
    const h = newHost('strict');
    hosts.push(h);
    await h.host.init();
    expect(await dispatch(h.host, 'fs:read', {})).toMatchObject({ ok: false, error: { kind: 'invalid-argument' } });
    expect(await dispatch(h.host, 'auth:sign-in', { server: 1 })).toMatchObject({ ok: false, error: { kind: 'invalid-argument' } });
    expect(await dispatch(h.host, 'settings:set', { folders: ['/tmp'], evil: true })).toMatchObject({ ok: false, error: { kind: 'invalid-argument' } });
    expect(await dispatch(h.host, 'share:add', { root: '/x', path: 'a', emails: ['a@b.c'], permissions: ['own'] })).toMatchObject({
      ok: false,
      error: { kind: 'invalid-argument' },
    });
  });

  it('shares with people and a mailing list, manages a link, and copies it', async () => {
    const h = await signedInHost('owen@example.com', { 'report.txt': 'quarterly numbers' });
    await server.register('pia@example.com');
    await server.register('quinn@example.com');
    const ref = { root: h.folder, path: 'report.txt' };

    expect(await h.host.handle('share:list', ref)).toEqual([]);
    const shared = await h.host.handle('share:add', { ...ref, emails: ['pia@example.com', 'ghost@example.com'], permissions: ['view', 'download'] });
    expect(shared.unknown).toEqual(['ghost@example.com']);
    expect(shared.people.map((p) => [p.email, p.permissions])).toEqual([['pia@example.com', ['view', 'download']]]);
    const pia = shared.people[0]!;
    expect((await h.host.handle('share:list', ref)).map((p) => p.email)).toEqual(['pia@example.com']);
    const changed = await h.host.handle('share:change', { ...ref, userId: pia.userId, permissions: ['view', 'edit'] });
    expect(changed[0]!.permissions).toEqual(['view', 'edit']);

    // A mailing list: created by the server's admin command, members added through the API.
    const { addList } = await import('../../server/lists.js');
    const listId = addList(server.context.db, 'Team', 'owen@example.com');
    const client = new DriveClient({ origin: server.url, token: await tokenOf('owen@example.com') });
    const quinnId = await client.lists.store(listId, { EMAIL: 'quinn@example.com' });
    await client.lists.subscribe(listId, quinnId);
    const gone = await client.lists.store(listId, { EMAIL: 'left@example.com' });
    await client.lists.unsubscribe(listId, gone);
    const byList = await h.host.handle('share:list-members', { ...ref, listId, permissions: ['view'] });
    expect(byList.subscribed).toBe(1);
    expect(byList.skipped).toBe(1);
    expect(byList.people.map((p) => p.email).sort()).toEqual(['pia@example.com', 'quinn@example.com']);
    // A list that cannot be added is said in words, not as the call's "not found on the drive: List not found".
    const theirs = addList(server.context.db, 'Theirs', 'pia@example.com');
    expect(await dispatch(h.host, 'lists:save', { id: theirs, name: 'Theirs' })).toMatchObject({
      ok: false,
      error: { kind: 'forbidden', message: `The mailing list ${theirs} belongs to another account: only your own lists can be shared with.` },
    });
    expect(await dispatch(h.host, 'lists:save', { id: '0000000000000', name: 'None' })).toMatchObject({
      ok: false,
      error: { kind: 'not-found', message: 'There is no mailing list with the ID 0000000000000. Check the ID where your lists are managed.' },
    });

    const removed = await h.host.handle('share:remove', { ...ref, userId: pia.userId });
    expect(removed.map((p) => p.email)).toEqual(['quinn@example.com']);

    expect(await h.host.handle('link:get', ref)).toBeNull();
    const expires = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const link = await h.host.handle('link:create', { ...ref, password: 'open-sesame', expiresAt: expires, allowDownload: true, allowEdit: false });
    expect(link).toMatchObject({ hasPassword: true, allowDownload: true, allowEdit: false });
    expect(Date.parse(link.expiresAt!)).toBeCloseTo(Date.parse(expires), -4);
    expect(link.url).toMatch(new RegExp(`^${server.url}/drive/s/`));
    const past = await dispatch(h.host, 'link:update', { ...ref, expiresAt: '2001-01-01T00:00:00Z' });
    expect(past).toMatchObject({ ok: false, error: { kind: 'invalid', fields: { expiresAt: expect.any(String) } } });
    const updated = await h.host.handle('link:update', { ...ref, password: null, allowDownload: false });
    expect(updated).toMatchObject({ hasPassword: false, allowDownload: false, expiresAt: null, url: link.url });
    expect(await h.host.handle('link:copy', ref)).toBe(link.url);
    expect(h.platform.copied).toEqual([link.url]);
    await h.host.handle('link:delete', ref);
    expect(await h.host.handle('link:get', ref)).toBeNull();
    // Copying an entry without a link makes a plain one.
    const fresh = await h.host.handle('link:copy', ref);
    expect(fresh).not.toBe(link.url);
    expect((await h.host.handle('link:get', ref))?.url).toBe(fresh);

    const unsynced = await dispatch(h.host, 'link:get', { root: h.folder, path: 'nope.txt' });
    expect(unsynced).toMatchObject({ ok: false, error: { kind: 'not-synced' } });
    const outside = await dispatch(h.host, 'share:list', { root: '/etc', path: 'passwd' });
    expect(outside).toMatchObject({ ok: false, error: { kind: 'not-synced' } });
    const escape = await dispatch(h.host, 'folder:open', { root: h.folder, path: '../../etc' });
    expect(escape).toMatchObject({ ok: false, error: { kind: 'invalid-argument' } });
    await h.host.handle('folder:open', { root: h.folder, path: '' });
    expect(h.platform.opened).toEqual([h.folder]);
  });

  it('browses a folder a page at a time from its mirror, and answers markers only for the entries that have one', async () => {
    const files: Record<string, string> = { 'pics/Zed/z.txt': 'z', 'pics/alpha/a.txt': 'a' };
    for (let i = 0; i < 12; i++) files[`pics/${i % 3 === 0 ? 'P' : 'p'}hoto-${String(i).padStart(2, '0')}.jpg`] = `${i}`;
    const h = await signedInHost('pam@example.com', files);
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= 17);
    const photos = Array.from({ length: 12 }, (_, i) => `${i % 3 === 0 ? 'P' : 'p'}hoto-${String(i).padStart(2, '0')}.jpg`);
    const order = ['alpha', 'Zed', ...photos];
    const browse = (from?: number, count?: number) =>
      dispatch(h.host, 'entries:browse', { root: h.folder, path: 'pics', ...(from === undefined ? {} : { from }), ...(count === undefined ? {} : { count }) });
    const names = (answer: Awaited<ReturnType<typeof browse>>) => (answer.ok ? (answer.value as { entries: Array<{ name: string }> }).entries.map((e) => e.name) : answer);

    // No page asked: the first (all of a folder this small), folders first, then by name, case aside.
    const whole = await browse();
    expect(whole).toMatchObject({ ok: true, value: { total: 14, from: 0 } });
    expect(names(whole)).toEqual(order);
    expect(names(await browse(1, 4))).toEqual(order.slice(1, 5));
    expect(names(await browse(12, 300))).toEqual(order.slice(12));
    // Past the end: no entries, and still how many there are.
    expect(await browse(14, 5)).toEqual({ ok: true, value: { total: 14, from: 14, entries: [] } });
    expect(await browse(10_000)).toEqual({ ok: true, value: { total: 14, from: 10_000, entries: [] } });
    expect(await browse(0, 0)).toEqual({ ok: true, value: { total: 14, from: 0, entries: [] } });
    const one = await browse(2, 1);
    expect(one).toEqual({ ok: true, value: { total: 14, from: 2, entries: [expect.objectContaining({ root: h.folder, path: 'pics/Photo-00.jpg', name: 'Photo-00.jpg', type: 'file', size: 1 })] } });
    // A page too big, or a place that is not one, is refused before the mirror is read.
    for (const bad of [{ count: 1001 }, { from: -1 }, { from: 1.5 }, { count: '10' }]) {
      expect(await dispatch(h.host, 'entries:browse', { root: h.folder, path: 'pics', ...bad }), JSON.stringify(bad)).toMatchObject({ ok: false, error: { kind: 'invalid-argument' } });
    }
    // A path that is not a synced folder has no entries.
    expect(await h.host.handle('entries:browse', { root: h.folder, path: 'pics/alpha/a.txt' })).toEqual({ total: 0, from: 0, entries: [] });

    // Markers: none set, none answered; then a star and a link, and only those two entries come.
    expect(await h.host.handle('entries:markers', { root: h.folder, path: 'pics' })).toEqual([]);
    await h.host.handle('entries:star', { root: h.folder, path: 'pics/photo-04.jpg', starred: true });
    await h.host.handle('link:create', { root: h.folder, path: 'pics/alpha' });
    const markers = await h.host.handle('entries:markers', { root: h.folder, path: 'pics' });
    expect(markers.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: 'pics/alpha', shared: false, starred: false, hasLink: true },
      { path: 'pics/photo-04.jpg', shared: false, starred: true, hasLink: false },
    ]);
    await h.host.handle('entries:star', { root: h.folder, path: 'pics/photo-04.jpg', starred: false });
    expect(await h.host.handle('entries:markers', { root: h.folder, path: 'pics' })).toEqual([{ path: 'pics/alpha', shared: false, starred: false, hasLink: true }]);
  });

  it('keeps settings: the shared config, its own file, .syncignore, start at login, pause and resume', async () => {
    const h = await signedInHost('sol@example.com', { 'a.txt': 'a' });
    const before = await h.host.handle('settings:get', undefined);
    expect(before).toMatchObject({ folders: [h.folder], pollIntervalSeconds: 15, concurrency: 4, bandwidthUpKBps: 0, bandwidthDownKBps: 0, ignoreRules: '', startAtLogin: false, paused: false });

    const after = await h.host.handle('settings:set', { pollIntervalSeconds: 30, concurrency: 2, bandwidthUpKBps: 512, bandwidthDownKBps: 2048, ignoreRules: '*.log\nbuild/', startAtLogin: true });
    expect(after).toMatchObject({ pollIntervalSeconds: 30, concurrency: 2, bandwidthUpKBps: 512, bandwidthDownKBps: 2048, ignoreRules: '*.log\nbuild/\n', startAtLogin: true });
    // The limits reach the account's client at once, each for its direction, and are kept in the config the
    // command line reads (sync --limit-up/--limit-down).
    const client = (h.host as unknown as { context: { client: { http: { bandwidth: { current: unknown } } } } }).context.client;
    expect(client.http.bandwidth.current).toEqual({ upBytesPerSecond: 512 * 1024, downBytesPerSecond: 2048 * 1024 });
    expect(loadConfig(h.paths).bandwidth).toEqual({ upBytesPerSecond: 512 * 1024, downBytesPerSecond: 2048 * 1024 });
    // Set from the command line meanwhile (the config changes under the window): taken up at once; and off again.
    saveConfig(h.paths, { ...loadConfig(h.paths), bandwidth: { upBytesPerSecond: 1024 } });
    await eventually(() => client.http.bandwidth.current, (c) => JSON.stringify(c) === JSON.stringify({ upBytesPerSecond: 1024, downBytesPerSecond: 0 }));
    expect((await h.host.handle('settings:get', undefined))).toMatchObject({ bandwidthUpKBps: 1, bandwidthDownKBps: 0 });
    const { bandwidth: _, ...unlimited } = loadConfig(h.paths);
    saveConfig(h.paths, unlimited);
    await eventually(() => client.http.bandwidth.current, (c) => JSON.stringify(c) === JSON.stringify({ upBytesPerSecond: 0, downBytesPerSecond: 0 }));
    expect(readFileSync(join(h.folder, '.syncignore'), 'utf8')).toBe('*.log\nbuild/\n');
    expect(h.platform.startAtLogin).toEqual([true]);
    expect(loadConfig(h.paths).pollIntervalSeconds).toBe(30);
    expect(JSON.parse(readFileSync(join(h.paths.configDir, 'desktop.json'), 'utf8'))).toMatchObject({ concurrency: 2, startAtLogin: true });
    await untilStatus(h.host, inSync);

    write(h.folder, 'debug.log', 'noise');
    write(h.folder, 'kept.txt', 'kept');
    await h.host.handle('sync:now', undefined);
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= 3);
    const names = (await h.host.handle('entries:browse', { root: h.folder, path: '' })).entries.map((e) => e.name);
    expect(names).toContain('kept.txt');
    expect(names).not.toContain('debug.log');

    const nested = await dispatch(h.host, 'settings:set', { folders: [h.folder, join(h.folder, 'inner')] });
    expect(nested).toMatchObject({ ok: false, error: { kind: 'invalid', fields: { folders: expect.any(String) } } });
    const relative = await dispatch(h.host, 'settings:set', { folders: ['relative/path'] });
    expect(relative).toMatchObject({ ok: false, error: { kind: 'invalid' } });

    await h.host.handle('sync:pause', undefined);
    let status = h.host.status();
    expect(status).toMatchObject({ state: 'paused', paused: true });
    write(h.folder, 'while-paused.txt', 'later');
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect((await h.host.handle('entries:browse', { root: h.folder, path: '' })).entries.map((e) => e.name)).not.toContain('while-paused.txt');
    await h.host.handle('sync:resume', undefined);
    status = await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced >= 4);
    expect(status.paused).toBe(false);
    expect((await h.host.handle('entries:browse', { root: h.folder, path: '' })).entries.map((e) => e.name)).toContain('while-paused.txt');

    // A second folder: its engine starts, both are synced.
    const second = join(h.home, 'Second');
    const both = await h.host.handle('settings:set', { folders: [h.folder, second] });
    expect(both.folders).toEqual([h.folder, second]);
    await untilStatus(h.host, (s) => inSync(s) && s.folders.length === 2);
    expect(existsSync(join(second, 'kept.txt'))).toBe(true);
  });

  it('opening the window or the tray menu looks at the drive at once: a file made elsewhere arrives without waiting for the poll', async () => {
    const h = await signedInHost('iris@example.com', { 'a.txt': 'a' });
    await h.host.handle('settings:set', { pollIntervalSeconds: 3600 });
    await untilStatus(h.host, inSync);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const client = new DriveClient({ origin: server.url, token: await tokenOf('iris@example.com') });
    const elsewhere = join(h.home, 'made-elsewhere.txt');
    writeFileSync(elsewhere, 'from another computer');
    await client.transfers.upload(elsewhere, { name: 'made-elsewhere.txt', parentId: null });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(existsSync(join(h.folder, 'made-elsewhere.txt'))).toBe(false);
    await h.host.handle('sync:look', undefined);
    for (let waited = 0; waited < 10_000 && !existsSync(join(h.folder, 'made-elsewhere.txt')); waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(readFileSync(join(h.folder, 'made-elsewhere.txt'), 'utf8')).toBe('from another computer');
  });

  it('asks before a mass delete, and deletes only once the user says yes', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`f${i}.txt`] = `file ${i}`;
    const h = await signedInHost('max@example.com', files);
    // Paused while the files go, so the watcher cannot pass the deletions on a few at a time as they happen.
    await h.host.handle('sync:pause', undefined);
    for (let i = 0; i < 12; i++) rmSync(join(h.folder, `f${i}.txt`));
    const asked = nextEvent(h.host, 'confirm-deletions');
    await h.host.handle('sync:resume', undefined);
    const question = await asked;
    expect(question).toMatchObject({ root: h.folder, count: 12, synced: 12, bytes: 74 });
    expect(question.groups).toEqual([
      {
        where: 'drive',
        why: 'deleted in this folder',
        count: 12,
        bytes: 74,
        items: Array.from({ length: 12 }, (_, i) => `f${i}.txt`).map((path) => ({ path, type: 'file', size: files[path]!.length })),
      },
    ]);
    expect(h.host.status().pendingDeletions).toEqual([question]);
    expect(h.host.status()).toMatchObject({ state: 'waiting-for-consent', stateText: 'Waiting for your answer', detail: 'Waiting for your answer to delete 12 items.' });
    const client = new DriveClient({ origin: server.url, token: await tokenOf('max@example.com') });
    const remoteCount = async () => {
      let n = 0;
      for await (const e of client.entries.tree()) if (!e.deleted_at) n++;
      return n;
    };
    expect(await remoteCount()).toBe(12);
    await h.host.handle('deletions:answer', { root: h.folder, answer: 'delete' });
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced === 0);
    expect(await remoteCount()).toBe(0);
    expect(h.host.status().pendingDeletions).toEqual([]);
    expect(await dispatch(h.host, 'deletions:answer', { root: h.folder, answer: 'delete' })).toMatchObject({ ok: false, error: { kind: 'not-found' } });
  });

  it('a mass delete refused ("keep them") brings the files back from the drive and syncing goes on; "later" holds the deletions and syncs on', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`k${i}.txt`] = `kept ${i}`;
    const h = await signedInHost('kim@example.com', files);
    await h.host.handle('sync:pause', undefined);
    for (let i = 0; i < 12; i++) rmSync(join(h.folder, `k${i}.txt`));
    const asked = nextEvent(h.host, 'confirm-deletions');
    await h.host.handle('sync:resume', undefined);
    await asked;
    // Later: nothing deleted; the question waits (not asked again by itself) and everything else syncs on.
    await h.host.handle('deletions:answer', { root: h.folder, answer: 'later' });
    expect(h.host.status().pendingDeletions).toMatchObject([{ root: h.folder, count: 12, later: true }]);
    writeFileSync(join(h.folder, 'while-waiting.txt'), 'made while the deletions wait');
    await h.host.handle('sync:now', undefined);
    const client = new DriveClient({ origin: server.url, token: await tokenOf('kim@example.com') });
    const names = async () => {
      const out: string[] = [];
      for await (const e of client.entries.tree()) if (!e.deleted_at) out.push(e.name);
      return out.sort();
    };
    await eventually(names, (n) => n.includes('while-waiting.txt'), { within: 30_000 });
    expect((await names()).filter((n) => n.startsWith('k'))).toHaveLength(12);
    await untilStatus(h.host, (s) => s.state === 'waiting-for-consent');
    expect(h.host.status().pendingDeletions).toMatchObject([{ count: 12, later: true }]);
    await h.host.handle('deletions:answer', { root: h.folder, answer: 'keep' });
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced === 13);
    expect(readdirSync(h.folder).filter((n) => n.endsWith('.txt')).sort()).toEqual([...Object.keys(files), 'while-waiting.txt'].sort());
    expect(readFileSync(join(h.folder, 'k3.txt'), 'utf8')).toBe('kept 3');
    expect(h.host.status().pendingDeletions).toEqual([]);
  });

  it('a folder deleted and made again is not read as everything deleted: it says so, and "sync afresh" merges it', async () => {
    const h = await signedInHost('fay@example.com', { 'a.txt': 'a', 'sub/b.txt': 'b' });
    rmSync(h.folder, { recursive: true });
    mkdirSync(h.folder);
    writeFileSync(join(h.folder, 'new.txt'), 'made after');
    await h.host.handle('sync:now', undefined);
    const stopped = await untilStatus(h.host, (s) => s.folders[0]!.folderProblem === 'replaced');
    expect(stopped.folders[0]).toMatchObject({
      state: 'error',
      detail: 'Another folder is at the place of Drive now (it was deleted and made again, replaced, or its disk is not mounted). Nothing is synced, and nothing is deleted on the drive. Sync it afresh to merge what is here with the drive.',
    });
    await h.host.handle('folders:afresh', { root: h.folder });
    await untilStatus(h.host, (s) => inSync(s) && s.folders[0]!.synced === 4 && !s.folders[0]!.folderProblem);
    expect(readFileSync(join(h.folder, 'sub', 'b.txt'), 'utf8')).toBe('b');
    expect(readFileSync(join(h.folder, 'new.txt'), 'utf8')).toBe('made after');
  });

  it('opens its folders as drivesync sync does: the same lock, and the status file drivesync status reads', async () => {
    const h = await signedInHost('lou@example.com', { 'l.txt': 'l' });
    const root = h.host.status().folders[0]!.root;
    const { key, mirror } = rootOfAccount(h.paths, root, server.url, 'lou@example.com');
    expect(readStatus(h.paths, key)).toMatchObject({ root, server: server.url, email: 'lou@example.com', pid: process.pid, inSync: true });
    // Another process (here: another pid) cannot take the folder while the window syncs it.
    expect(() => lockFolder(`${mirror}.lock`, root, process.pid + 100_000)).toThrow(FolderLocked);
    expect(() => lockFolder(`${mirror}.lock`, root, process.pid + 100_000)).toThrow(`${root} is already being synced by process ${process.pid}`);
    await h.host.handle('auth:sign-out', undefined);
    expect(readStatus(h.paths, key)).toMatchObject({ state: 'stopped', pid: process.pid });
    expect(existsSync(`${mirror}.lock`)).toBe(false);
  });

  it('signs out: engines stop, the token is forgotten, calls need a sign-in again', async () => {
    const h = await signedInHost('tess@example.com', { 'x.txt': 'x' });
    await h.host.handle('auth:sign-out', undefined);
    expect(h.host.status()).toMatchObject({ state: 'signed-out', account: null, folders: [] });
    expect(await dispatch(h.host, 'entries:browse', { root: h.folder, path: '' })).toMatchObject({ ok: false, error: { kind: 'not-signed-in' } });
    // A new host on the same state starts signed out (the token is gone), with the server and e-mail kept.
    const again = await (async () => {
      const { DesktopHost } = await import('../../main/app/host/host.js');
      const { memoryTokens } = await import('../../main/app/host/tokens.js');
      const fresh = new DesktopHost({ paths: h.paths, platform: h.platform, defaultFolder: h.folder, tokens: memoryTokens(), env: {} });
      await fresh.init();
      return fresh;
    })();
    expect(again.status().state).toBe('signed-out');
    expect(loadConfig(h.paths)).toMatchObject({ server: server.url, email: 'tess@example.com' });
    await again.dispose();
  });
});

/** A fresh token for an account (register answers one; login does too). */
async function tokenOf(email: string): Promise<string> {
  const answer = await server.call(null, 'POST', '/api/v1/auth/login', { email, password: 'pass-word-1', token_name: 'test' });
  if (answer.status !== 200) throw new Error(`login ${email}: ${answer.status}`);
  return answer.body.user.access_token as string;
}
