/**
 * Idle polling: a running engine asks three one-page listings whether the drive changed, and lists the whole drive
 * only when they show a change (or when the full listing is due). Against the real server, in both profiles.
 */
import { existsSync, mkdirSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DriveClient } from '../../main/api/client.js';
import { FOLDERS_SHARE, FULL_LISTING_SHARE, fullListingInterval, IDLE_BYTES_PER_MINUTE, listingBudget, RemoteChangeCheck, syncedIdsOf, type RemoteSignals } from '../../main/sync/remote/changes.js';
import type { RemoteItem } from '../../main/sync/model/types.js';
import { Mirror, WARM_START } from '../../main/sync/trees/mirror.js';
import type { PassSummary } from '../../main/sync/engine/pass/summary.js';
import { PROFILES } from '../helpers/server.js';
import { newAccount, settleEngine, type Account } from '../helpers/sync.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../helpers/temp.js';
import type { Pacing } from '../../main/sync/engine/pacing.js';

describe.each(PROFILES)('idle polling (%s)', (profile) => {
  let account: Account;
  afterEach(() => account.close());

  /** Every listing request the engine's client sends, with its query. */
  const listings = (account: Account): { all: string[]; full: () => number; cheap: () => number; fullQueries: () => string } => {
    const all: string[] = [];
    const http = account.client.http as unknown as { api: typeof account.client.http.api };
    http.api = account.client.http.api.extend({
      hooks: {
        beforeRequest: [
          (options: { url?: URL | string }) => {
            const url = new URL(String(options.url));
            if (url.pathname.endsWith('/drive/file-entries')) all.push(url.search);
          },
        ],
      },
    });
    // The cheap checks, and the listings of the folders' level and of the folders a change names: not full listings.
    const isCheap = (search: string) => /recentOnly|deletedOnly|type=folder|parentIds|perPage=1(&|$)/.test(search) || /perPage=5(&|$)/.test(search);
    return {
      all,
      full: () => all.filter((s) => !isCheap(s)).length,
      cheap: () => all.filter(isCheap).length,
      /** The full listings' queries, to name in a failure what was listed in full. */
      fullQueries: () => all.filter((s) => !isCheap(s)).join(' '),
    };
  };

  /** Every listing request, and how many were full listings: the plain listing of every entry (the drive, or its root as deployed), no filter. */
  const fullListings = (account: Account) => {
    const searches = listings(account).all;
    return { searches, full: () => searches.filter((s) => /perPage=1000/.test(s) && !/parentIds|type=|recentOnly|deletedOnly|query/.test(s)).length };
  };
  /** The id of the entry of this name on the drive, not trashed. */
  const entryIdOf = async (client: DriveClient, name: string) => {
    for await (const e of client.entries.tree()) if (e.name === name && !e.deleted_at) return e.id;
    throw new Error(`no ${name}`);
  };
  /** Writes a file into the folder, with the folders on its way. */
  const writer = (root: string) => (path: string, content: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  };

  it('an idle engine sends only the cheap check until something changes; a file uploaded or trashed elsewhere is synced without a full listing, a new folder with one', async () => {
    account = await newAccount(undefined, { profile });
    const seen = listings(account);
    // A long full-listing interval: what is measured is the cheap check alone.
    const a = account.computer('alpha', { pollIntervalMs: 150 });
    for (let i = 0; i < 30; i++) writeFileSync(join(a.root, `file-${i}.txt`), `content ${i}`);
    await a.engine.start();
    // The first pass uploaded all 30: the check it makes at once, and the ticks after it, find nothing new.
    const fullAfterFirst = seen.full();
    await sleep(1000);
    expect(seen.full()).toBe(fullAfterFirst);
    await settleEngine(a.engine);
    (a.engine as unknown as { pacing: Pacing }).pacing.passed({ fullListingDue: Date.now() + 3_600_000 });
    const fullBefore = seen.full();
    const cheapBefore = seen.cheap();
    await sleep(1500);
    expect(seen.full()).toBe(fullBefore);
    expect(seen.cheap() - cheapBefore).toBeGreaterThanOrEqual(6); // about ten ticks of up to three requests each

    // Another client uploads a file: the next tick sees it, and a pass brings it here with what the tick saw.
    const other = new DriveClient({ origin: account.server.url, token: account.token });
    const dir = join(a.root, '..');
    writeFileSync(join(dir, 'elsewhere.txt'), 'made on another computer');
    await other.transfers.upload(join(dir, 'elsewhere.txt'), { name: 'elsewhere.txt', parentId: null });
    for (let waited = 0; waited < 10_000 && !a.engine.isQuiet(); waited += 50) await sleep(50);
    await sleep(1000);
    await settleEngine(a.engine);
    expect(a.file('elsewhere.txt')).toBe('made on another computer');
    expect(seen.full()).toBe(fullBefore);

    // Trashed elsewhere: seen the same way (deletedOnly), and moved to the OS trash here.
    const fullAfterUpload = seen.full();
    let id = 0;
    for await (const e of other.entries.list({ query: 'file-7.txt' })) id = e.id;
    await other.entries.trash([id]);
    for (let waited = 0; waited < 10_000 && !a.trashed.some((p) => p.endsWith('file-7.txt')); waited += 50) await sleep(50);
    expect(a.trashed.some((p) => p.endsWith('file-7.txt'))).toBe(true);
    await settleEngine(a.engine);
    expect(seen.full(), seen.fullQueries()).toBe(fullAfterUpload);

    // A new folder with a file in it: the folder's children are listed, not the drive.
    const folder = await other.entries.createFolder('made-elsewhere', null);
    await other.transfers.upload(join(dir, 'elsewhere.txt'), { name: 'inside.txt', parentId: folder.id });
    for (let waited = 0; waited < 10_000 && !existsSync(join(a.root, 'made-elsewhere', 'inside.txt')); waited += 50) await sleep(50);
    await settleEngine(a.engine);
    expect(a.file('made-elsewhere/inside.txt')).toBe('made on another computer');
    expect(seen.full()).toBe(fullAfterUpload);
  });

  it('the check counts the entries from an empty page: no entry is sent for the total, even where pages hold 50 whatever is asked', async () => {
    account = await newAccount(undefined, { profile });
    for (let i = 0; i < 60; i++) await account.client.entries.createFolder(`folder ${i}`, null);
    const check = new RemoteChangeCheck(account.client, null);
    const signals = await check.read();
    expect(signals.total).toBe(60);
    // Folders are not among the recent files and nothing is trashed: four answers of no entries (the first check
    // reads the trash's page too), about 600 B each.
    expect(signals.recent).toEqual([]);
    expect(signals.trashed).toEqual([]);
    expect(check.bytesPerCheck).toBeLessThan(3_000);
  });

  it('the trash\'s page is read only when how many entries it holds moved: a file trashed elsewhere is seen, and checks in between send no entry of it', async () => {
    account = await newAccount(undefined, { profile });
    const ids: number[] = [];
    const scratch = join(tempDir('trash'), 'f.txt');
    writeFileSync(scratch, 'x');
    for (let i = 0; i < 60; i++) ids.push((await account.client.transfers.upload(scratch, { name: `f${i}.txt`, parentId: null })).id);
    await account.client.entries.trash(ids.slice(0, 55));
    const searches = listings(account).all;
    const trashPages = () => searches.filter((s) => /deletedOnly/.test(s) && !/page=1000000/.test(s)).length;
    const check = new RemoteChangeCheck(account.client, null);
    expect((await check.read()).trashed).toHaveLength(profile === 'deployed' ? 50 : 5);
    expect(trashPages()).toBe(1);
    // Nothing moved: the page is not read again, and what it said holds.
    expect((await check.read()).trashed).toHaveLength(profile === 'deployed' ? 50 : 5);
    expect(trashPages()).toBe(1);
    await account.client.entries.trash([ids[59]!]);
    const after = await check.read();
    expect(trashPages()).toBe(2);
    expect(after.trashed![0]!.id).toBe(ids[59]);
  });

  it('a file made elsewhere inside an excluded folder costs no full listing, and no pass on the polls after', async () => {
    account = await newAccount(undefined, { profile });
    const seen = listings(account);
    const other = new DriveClient({ origin: account.server.url, token: account.token });
    const work = await other.entries.createFolder('Work', null);
    const inner = await other.entries.createFolder('Archive', work.id);
    const top = await other.entries.createFolder('Photos', null);
    let passes = 0;
    const a = account.computer('alpha', { pollIntervalMs: 150, selection: () => ({ excluded: new Set([inner.id, top.id]) }) });
    a.engine.on('pass', () => passes++);
    await a.engine.start();
    await settleEngine(a.engine);
    (a.engine as unknown as { pacing: Pacing }).pacing.passed({ fullListingDue: Date.now() + 3_600_000 });
    const dir = join(a.root, '..');
    writeFileSync(join(dir, 'elsewhere.txt'), 'made on another computer');
    const fullBefore = seen.full();
    await other.transfers.upload(join(dir, 'elsewhere.txt'), { name: 'inside.txt', parentId: inner.id });
    await other.transfers.upload(join(dir, 'elsewhere.txt'), { name: 'photo.jpg', parentId: top.id });
    await sleep(1500);
    await settleEngine(a.engine);
    const passesAfter = passes;
    await sleep(1500);
    expect(passes, "passes on the polls after the change").toBe(passesAfter);
    expect(seen.full(), seen.fullQueries()).toBe(fullBefore);
    expect(existsSync(join(a.root, 'Work', 'Archive'))).toBe(false);
    expect(existsSync(join(a.root, 'Photos'))).toBe(false);
  });

  it('every kind of change made elsewhere arrives without a full listing; a rename or move is a local move (same inode)', async () => {
    account = await newAccount(undefined, { profile });
    const { searches, full } = fullListings(account);
    const a = account.computer('alpha', { pollIntervalMs: 150 });
    const put = writer(a.root);
    put('docs/a.txt', 'a');
    put('b.txt', 'b');
    put('archive/c.txt', 'c');
    put('moveme/d.txt', 'd');
    // Untouched by what changes elsewhere: a pass that applies those changes plans without them.
    for (let i = 0; i < 40; i++) put(`untouched/f${i}.txt`, `${i}`);
    const passes: PassSummary[] = [];
    a.engine.on('pass', (summary) => passes.push(summary));
    await a.engine.start();
    await settleEngine(a.engine);
    (a.engine as unknown as { pacing: Pacing }).pacing.passed({ fullListingDue: Date.now() + 3_600_000 });
    const other = new DriveClient({ origin: account.server.url, token: account.token });
    const idOf = (name: string) => entryIdOf(other, name);
    const inode = (path: string) => statSync(join(a.root, path)).ino;
    const arrives = async (what: string, check: () => boolean) => {
      for (let waited = 0; waited < 15_000 && !check(); waited += 50) await sleep(50);
      expect(check(), what).toBe(true);
      await settleEngine(a.engine);
    };
    const before = full();
    passes.length = 0;
    const fileInode = inode('b.txt');
    await other.entries.rename(await idOf('b.txt'), 'b-renamed.txt');
    await arrives('a file renamed', () => existsSync(join(a.root, 'b-renamed.txt')));
    expect(inode('b-renamed.txt')).toBe(fileInode);

    const aInode = inode('docs/a.txt');
    await other.entries.move([await idOf('a.txt')], await idOf('archive'));
    await arrives('a file moved', () => existsSync(join(a.root, 'archive', 'a.txt')));
    expect(inode('archive/a.txt')).toBe(aInode);

    const folderInode = inode('archive');
    await other.entries.rename(await idOf('archive'), 'archive-2025');
    await arrives('a folder renamed', () => existsSync(join(a.root, 'archive-2025', 'c.txt')));
    expect(inode('archive-2025')).toBe(folderInode);

    const movedInode = inode('moveme');
    await other.entries.move([await idOf('moveme')], await idOf('docs'));
    await arrives('a folder moved', () => existsSync(join(a.root, 'docs', 'moveme', 'd.txt')));
    expect(inode('docs/moveme')).toBe(movedInode);

    const made = await other.entries.createFolder('made-elsewhere', await idOf('docs'));
    const scratch = join(a.root, '..', 'upload.txt');
    writeFileSync(scratch, 'inside a new folder');
    await other.transfers.upload(scratch, { name: 'inside.txt', parentId: made.id });
    await arrives('a new folder with a file', () => existsSync(join(a.root, 'docs', 'made-elsewhere', 'inside.txt')));

    const rootFolder = await other.entries.createFolder('new-at-root', null);
    await arrives('a new folder at the root', () => existsSync(join(a.root, 'new-at-root')));
    void rootFolder;

    const docs = await idOf('docs');
    await other.entries.trash([docs]);
    await arrives('a folder trashed', () => !existsSync(join(a.root, 'docs')));
    await other.entries.restore([docs]);
    await arrives('a folder restored', () => existsSync(join(a.root, 'docs', 'moveme', 'd.txt')) && existsSync(join(a.root, 'docs', 'made-elsewhere', 'inside.txt')));

    await other.entries.trash([await idOf('b-renamed.txt')]);
    await arrives('a file trashed', () => !existsSync(join(a.root, 'b-renamed.txt')));
    expect(full(), searches.join('\n')).toBe(before);
    // Each change was planned in its scope: the 40 files untouched were not looked at.
    const applying = passes.filter((p) => p.done > 0);
    expect(applying.length).toBeGreaterThanOrEqual(9);
    for (const p of applying) expect(p.scoped, JSON.stringify(passes)).toBeLessThan(30);
  });

  it('a restart of a folder left in sync trusts base: what changed elsewhere while it was stopped arrives without a full listing; the full listing comes when due, and first after a stop mid-operation', async () => {
    account = await newAccount(undefined, { profile });
    const { searches, full } = fullListings(account);
    const a = account.computer('alpha', { pollIntervalMs: 150 });
    const put = writer(a.root);
    put('docs/a.txt', 'a');
    put('b.txt', 'b');
    put('archive/c.txt', 'c');
    put('trashme.txt', 't');
    for (let i = 0; i < 20; i++) put(`untouched/f${i}.txt`, `${i}`);
    const engine = () => a.engine as unknown as { pacing: Pacing; options: { mirrorPath: string } };
    /** Stops the engine after a pass that left everything in sync, with the full listing due `dueInMs` from now. */
    const stopInSync = async (dueInMs: number) => {
      await settleEngine(a.engine);
      engine().pacing.passed({ fullListingDue: Date.now() + dueInMs });
      expect((await a.engine.syncOnce({ listRemote: false })).inSync).toBe(true);
      await a.restart();
    };
    await a.engine.start();
    await stopInSync(3_600_000);

    // Changed elsewhere while this computer was off, and here too.
    const other = new DriveClient({ origin: account.server.url, token: account.token });
    const idOf = (name: string) => entryIdOf(other, name);
    const inode = (path: string) => statSync(join(a.root, path)).ino;
    const fileInode = inode('b.txt');
    const folderInode = inode('archive');
    await other.entries.rename(await idOf('b.txt'), 'b-renamed.txt');
    await other.entries.rename(await idOf('archive'), 'archive-2025');
    await other.entries.trash([await idOf('trashme.txt')]);
    const scratch = join(a.root, '..', 'upload.txt');
    writeFileSync(scratch, 'made elsewhere');
    await other.transfers.upload(scratch, { name: 'elsewhere.txt', parentId: null });
    put('docs/made-here.txt', 'made here');

    const before = full();
    const first = await a.engine.start();
    expect(first.inSync).toBe(true);
    expect(full(), searches.join('\n')).toBe(before);
    expect(inode('b-renamed.txt')).toBe(fileInode);
    expect(inode('archive-2025')).toBe(folderInode);
    expect(a.file('archive-2025/c.txt')).toBe('c');
    expect(a.file('elsewhere.txt')).toBe('made elsewhere');
    expect(existsSync(join(a.root, 'trashme.txt'))).toBe(false);
    expect(a.trashed.some((p) => p.endsWith('trashme.txt'))).toBe(true);
    expect((await account.remoteTree()).get('docs/made-here.txt')).toBe('made here');

    // `sync --once` in between (it lists the drive, and records a time changed here): the next start is warm still.
    await stopInSync(3_600_000);
    utimesSync(join(a.root, 'b-renamed.txt'), new Date(), new Date(Date.now() - 60_000));
    const beforeOnce = full();
    expect((await a.engine.syncOnce({ fullScan: true })).inSync).toBe(true);
    expect(full()).toBe(beforeOnce + 1);
    await a.restart();
    expect((await a.engine.start()).inSync).toBe(true);
    expect(full()).toBe(beforeOnce + 1);

    // Stopped past the full listing's time: the first pass still trusts base, and the first poll lists the drive.
    await stopInSync(-1);
    const beforeDue = full();
    await a.engine.start();
    expect(full()).toBe(beforeDue);
    for (let waited = 0; waited < 5_000 && full() === beforeDue; waited += 50) await sleep(50);
    expect(full()).toBe(beforeDue + 1);

    // Stopped with an operation's outcome unknown (its intent journalled, no result): the first pass lists first.
    await stopInSync(3_600_000);
    const mirror = new Mirror(engine().options.mirrorPath);
    expect(mirror.getMeta(WARM_START)).toBeDefined();
    mirror.beginIntent('rename', { remoteId: 1 }, new Date().toISOString());
    expect(mirror.getMeta(WARM_START)).toBeUndefined();
    mirror.close();
    const beforeCold = full();
    expect((await a.engine.start()).inSync).toBe(true);
    expect(full()).toBe(beforeCold + 1);
  });

  it('an engine left alone lets base go and reads it back: polls still see changes, and a rename is still a rename', async () => {
    account = await newAccount(undefined, { profile });
    const a = account.computer('alpha', { pollIntervalMs: 150, releaseBaseAfterMs: 200 });
    // What base held is collected when it is let go, in two full collections (a global gc, where there is one, is
    // the one used).
    const collections = vi.fn();
    (globalThis as { gc?: () => void }).gc = collections;
    for (let i = 0; i < 5; i++) writeFileSync(join(a.root, `file-${i}.txt`), `content ${i}`);
    await a.engine.start();
    await settleEngine(a.engine);
    const passes = (a.engine as unknown as { folder: { baseReleased: boolean; trees: { base: Map<number, unknown> } } }).folder;
    for (let waited = 0; waited < 5_000 && !passes.baseReleased; waited += 50) await sleep(50);
    expect(passes.baseReleased).toBe(true);
    expect(passes.trees.base.size).toBe(0);
    expect(collections).toHaveBeenCalledTimes(2);
    delete (globalThis as { gc?: () => void }).gc;
    expect(a.engine.syncedCount).toBe(5);

    // Another client uploads: the cheap check, answered from the mirror, sees it.
    const other = new DriveClient({ origin: account.server.url, token: account.token });
    const dir = join(a.root, '..');
    writeFileSync(join(dir, 'elsewhere.txt'), 'made on another computer');
    await other.transfers.upload(join(dir, 'elsewhere.txt'), { name: 'elsewhere.txt', parentId: null });
    for (let waited = 0; waited < 10_000 && !existsSync(join(a.root, 'elsewhere.txt')); waited += 50) await sleep(50);
    await settleEngine(a.engine);
    expect(a.file('elsewhere.txt')).toBe('made on another computer');
    expect(a.engine.syncedCount).toBe(6);

    // Let go again, then renamed here: base comes back before the pass plans, so it is one rename of the same entry.
    for (let waited = 0; waited < 5_000 && !passes.baseReleased; waited += 50) await sleep(50);
    expect(passes.baseReleased).toBe(true);
    const before = account.requests.length;
    renameSync(join(a.root, 'file-1.txt'), join(a.root, 'renamed.txt'));
    for (let waited = 0; waited < 10_000 && !account.requests.slice(before).some((r) => r.startsWith('PUT')); waited += 50) await sleep(50);
    await settleEngine(a.engine);
    const sent = account.requests.slice(before).filter((r) => !r.startsWith('GET'));
    expect(sent).toEqual([expect.stringMatching(/^PUT \/file-entries\/\d+$/)]);
  });
});

describe('the cheap check against the tree a full listing returned', () => {
  const entry = (id: number, extra: object = {}) => ({ id, name: `e${id}`, type: 'text', parent_id: null, file_size: 1, updated_at: 'x', ...extra }) as never;
  const remote = (...ids: number[]) => new Map<number, RemoteItem>(ids.map((id) => [id, { id, parentId: null, name: `e${id}`, type: 'file', size: 1, updatedAt: 'x' }]));
  const base = (...ids: number[]) =>
    new Map(ids.map((id) => [id, { remoteId: id, parentId: null, remoteName: `e${id}`, path: `e${id}`, type: 'file' as const, inode: id, size: 1, mtimeMs: 1, hash: null, remoteSize: 1, remoteUpdatedAt: 'x' }]));
  const check = () => new RemoteChangeCheck(new DriveClient({ origin: 'http://127.0.0.1:9', token: 't' }), null);
  /** A full listing of `remote`, with `signals` read just before it, then a pass that left base as `synced`. */
  const listed = (c: RemoteChangeCheck, signals: RemoteSignals, remote: Map<number, RemoteItem>, synced: ReturnType<typeof base>) => {
    c.calibrate(signals, remote);
    c.settle(remote, syncedIdsOf(synced));
  };

  /** Entries 1 (a folder), 2 and 3 listed and synced at the drive's root. */
  const listedWithFolder = () => {
    const c = check();
    const tree = remote(1, 2, 3);
    tree.set(1, { ...tree.get(1)!, type: 'folder' });
    const synced = base(1, 2, 3);
    synced.set(1, { ...synced.get(1)!, type: 'folder' } as never);
    listed(c, { recent: [], trashed: [], total: 3 }, tree, synced);
    return { c, synced };
  };

  it('sees a new file and a trashed synced file as a delta a pass applies, when the total agrees; nothing when all agree', () => {
    const c = check();
    listed(c, { recent: [entry(3)], trashed: [], total: 3 }, remote(1, 2, 3), base(1, 2, 3));
    expect(c.news({ recent: [entry(3)], trashed: [], total: 3 }, syncedIdsOf(base(1, 2, 3)))).toEqual({ kind: 'none' });
    expect(c.news({ recent: [entry(4), entry(3)], trashed: [], total: 4 }, syncedIdsOf(base(1, 2, 3)))).toEqual({ kind: 'delta', delta: { changed: [entry(4)], trashed: [], fetch: [] } });
    expect(c.news({ recent: [entry(3)], trashed: [entry(2)], total: 2 }, syncedIdsOf(base(1, 2, 3)))).toEqual({ kind: 'delta', delta: { changed: [], trashed: [2], fetch: [] } });
    // An edit made elsewhere: a new entry, and the old one trashed.
    expect(c.news({ recent: [entry(4), entry(3)], trashed: [entry(2)], total: 3 }, syncedIdsOf(base(1, 2, 3)))).toEqual({ kind: 'delta', delta: { changed: [entry(4)], trashed: [2], fetch: [] } });
  });

  it('asks for the full listing when the delta cannot tell the whole change', () => {
    const c = check();
    const tree = remote(1, 2, 3);
    tree.set(1, { ...tree.get(1)!, type: 'folder' });
    listed(c, { recent: [], trashed: [], total: 3 }, tree, base(1, 2, 3));
    const news = (signals: RemoteSignals) => c.news(signals, syncedIdsOf(base(1, 2, 3)));
    // A total the new file does not explain (something else was added or restored).
    expect(news({ recent: [entry(4)], trashed: [], total: 5 })).toEqual({ kind: 'listing', reasons: ['new file 4', '5 entries where 4 were expected'] });
    // A restore: the total alone moved.
    expect(news({ recent: [], trashed: [], total: 4 })).toEqual({ kind: 'listing', reasons: ['4 entries where 3 were expected'] });
    // A file in a folder that is not synced, at the drive's root (listing it is listing the drive on some servers).
    expect(news({ recent: [entry(5, { parent_id: 40, path: '40/5' })], trashed: [], total: 5 })).toMatchObject({ kind: 'listing', reasons: expect.arrayContaining(['new file 5 in a folder not synced']) });
    // A folder new at the root comes with what it holds: its children are listed.
    expect(news({ recent: [entry(40, { type: 'folder' })], trashed: [], total: 4 })).toEqual({ kind: 'delta', delta: { changed: [entry(40, { type: 'folder' })], trashed: [], fetch: [40] } });
    // A page of nothing but changes may hide more.
    const page = [10, 11, 12, 13, 14].map((id) => entry(id));
    expect(news({ recent: page, trashed: [], total: 8 })).toMatchObject({ kind: 'listing', reasons: expect.arrayContaining(['5 changed files or more']) });
  });

  it('sees renames, moves, a trashed folder and a file in a folder new inside a synced one as a delta: no full listing', () => {
    const { c, synced } = listedWithFolder();
    const news = (signals: RemoteSignals) => c.news(signals, syncedIdsOf(synced));
    // Renamed, and moved into the synced folder 1: the entries as the drive has them now.
    const renamed = entry(2, { name: 'renamed', updated_at: 'y' });
    const moved = entry(3, { parent_id: 1, updated_at: 'z' });
    expect(news({ recent: [moved, renamed], trashed: [], total: 3 })).toEqual({ kind: 'delta', delta: { changed: [moved, renamed], trashed: [], fetch: [] } });
    // A trashed folder: taken out with what it holds (the total is not counted then).
    expect(news({ recent: [], trashed: [entry(1, { type: 'folder' })], total: 1 })).toEqual({ kind: 'delta', delta: { changed: [], trashed: [1], fetch: [] } });
    // A file in folder 40, new inside the synced folder 1: folder 1 is listed, and 40 with all it holds.
    expect(news({ recent: [entry(41, { parent_id: 40, path: '1/40/41' })], trashed: [], total: 5 })).toEqual({ kind: 'delta', delta: { changed: [], trashed: [], fetch: [1] } });
    // As synced: no news (the size and time stamp agree).
    expect(news({ recent: [entry(3), entry(2)], trashed: [], total: 3 })).toEqual({ kind: 'none' });
  });

  it('a restore seen once is still seen when the engine asks again of the same check with the folders read', () => {
    const { c, synced } = listedWithFolder();
    // File 4 in folder 1 was trashed elsewhere before this computer synced it; then it is restored.
    expect(c.news({ recent: [], trashed: [entry(4, { parent_id: 1 })], total: 3 }, syncedIdsOf(synced))).toEqual({ kind: 'none' });
    const restored: RemoteSignals = { recent: [], trashed: [], total: 4 };
    const restore = { kind: 'delta', delta: { changed: [], trashed: [], fetch: [1] } };
    expect(c.news(restored, syncedIdsOf(synced))).toEqual(restore);
    expect(c.news(restored, syncedIdsOf(synced), [entry(1, { type: 'folder' })])).toEqual(restore);
    // The next check has moved on: the restore is not told twice (the total, until a pass brings file 4, asks for more).
    expect(c.news({ recent: [], trashed: [], total: 4 }, syncedIdsOf(synced))).not.toEqual(restore);
  });

  it('counts a delta against a total of the root children (deployed versions): a file new in a synced folder leaves it as it was', () => {
    const c = check();
    const tree = remote(1, 2, 3);
    tree.set(1, { ...tree.get(1)!, type: 'folder' });
    tree.set(3, { ...tree.get(3)!, parentId: 1 });
    const synced = base(1, 2, 3);
    synced.set(3, { ...synced.get(3)!, parentId: 1 } as never);
    listed(c, { recent: [], trashed: [], total: 2 }, tree, synced);
    expect(c.news({ recent: [entry(7, { parent_id: 1 })], trashed: [], total: 2 }, syncedIdsOf(synced))).toEqual({
      kind: 'delta',
      delta: { changed: [entry(7, { parent_id: 1 })], trashed: [], fetch: [] },
    });
    expect(c.news({ recent: [entry(8)], trashed: [], total: 3 }, syncedIdsOf(synced))).toMatchObject({ kind: 'delta' });
    expect(c.news({ recent: [entry(8)], trashed: [], total: 2 }, syncedIdsOf(synced))).toMatchObject({ kind: 'listing' });
  });

  it('entries listed but never synced (a download that keeps failing) do not count as a change on every poll', () => {
    const c = check();
    listed(c, { recent: [entry(9)], trashed: [], total: 4 }, remote(1, 2, 3, 9), base(1, 2, 3));
    expect(c.news({ recent: [entry(9)], trashed: [], total: 4 }, syncedIdsOf(base(1, 2, 3)))).toEqual({ kind: 'none' });
  });

  it('a first pass that uploads everything leaves no change behind: the signals were read when the drive was empty', () => {
    const c = check();
    // Read before the listing of an empty drive; the pass then uploaded three files, which the trees now hold.
    c.calibrate({ recent: [], trashed: [], total: 0 }, remote());
    c.settle(remote(1, 2, 3), syncedIdsOf(base(1, 2, 3)));
    expect(c.news({ recent: [entry(3), entry(2), entry(1)], trashed: [], total: 3 }, syncedIdsOf(base(1, 2, 3)))).toEqual({ kind: 'none' });
    expect(c.news({ recent: [entry(4), entry(3)], trashed: [], total: 4 }, syncedIdsOf(base(1, 2, 3)))).toEqual({ kind: 'delta', delta: { changed: [entry(4)], trashed: [], fetch: [] } });
  });

  it('an empty drive does not tell what the total counts: after an initial upload into folders, a root-only total is no change', () => {
    const c = check();
    c.calibrate({ recent: [], trashed: [], total: 0 }, remote());
    const filled = remote(1, 2, 3);
    filled.set(2, { ...filled.get(2)!, parentId: 1 });
    filled.set(3, { ...filled.get(3)!, parentId: 1 });
    const synced = base(1, 2, 3);
    synced.set(2, { ...synced.get(2)!, parentId: 1 } as never);
    synced.set(3, { ...synced.get(3)!, parentId: 1 } as never);
    c.settle(filled, syncedIdsOf(synced));
    // A deployed server's total counts the root's children (1); one that counts every entry says 3. Neither is news.
    expect(c.news({ recent: [], trashed: [], total: 1 }, syncedIdsOf(synced))).toEqual({ kind: 'none' });
  });

  it('a total that counts the root children only (deployed versions) is learnt from the listing', () => {
    const c = check();
    const tree = remote(1, 2, 3);
    tree.set(3, { ...tree.get(3)!, parentId: 1 });
    listed(c, { recent: [], trashed: [], total: 2 }, tree, base(1, 2, 3));
    expect(c.news({ recent: [], trashed: [], total: 2 }, syncedIdsOf(base(1, 2, 3)))).toEqual({ kind: 'none' });
  });

  it('a signal that disagrees with two full listings in a row is not used again; one disagreement may be a change made meanwhile', () => {
    const c = check();
    const trusted = () => [...(c as unknown as { trusted: Set<string> }).trusted].sort();
    // A server that ignores recentOnly and answers other people's files, and whose total counts something else.
    listed(c, { recent: [entry(50)], trashed: [], total: 999 }, remote(1, 2), base(1, 2));
    expect(trusted()).toEqual(['recent', 'total', 'trashed']);
    listed(c, { recent: [entry(50)], trashed: [], total: 999 }, remote(1, 2), base(1, 2));
    expect(trusted()).toEqual(['trashed']);
    expect(c.usable).toBe(true);
    listed(c, { recent: null, trashed: [entry(1)], total: null }, remote(1, 2), base(1, 2));
    listed(c, { recent: null, trashed: [entry(1)], total: null }, remote(1, 2), base(1, 2));
    expect(c.usable).toBe(false);
  });

  it('gives the full listings what the cheap checks leave of the idle budget', () => {
    expect(listingBudget(5_000, 15_000)).toBe(IDLE_BYTES_PER_MINUTE - 20_000);
    // A server that answers 50 entries a signal: the checks take most of the budget, the listings come further apart.
    const heavy = listingBudget(60_000, 15_000);
    expect(heavy).toBe(32 * 1024);
    const spacing = (bytesPerMinute: number) => fullListingInterval({ pollMs: 15_000, lastListingMs: 100, entries: 10_000, bytesPerMinute });
    expect(spacing(heavy)).toBeGreaterThan(spacing(listingBudget(5_000, 15_000)));
    // Whatever the checks cost, checks and listings together stay within the budget (down to the floor): the full
    // listing at its share, the folders' level (1,000 folders) at the rest.
    expect(FOLDERS_SHARE + FULL_LISTING_SHARE).toBe(1);
    for (const bytesPerCheck of [1_000, 20_000, 40_000]) {
      const left = listingBudget(bytesPerCheck, 15_000);
      const folders = 1_000 * 700;
      const perMinute =
        (bytesPerCheck * 60_000) / 15_000 +
        (10_000 * 700 * 60_000) / spacing(left * FULL_LISTING_SHARE) +
        (folders * 60_000) / Math.max(15_000, (folders / (left * FOLDERS_SHARE)) * 60_000);
      expect(perMinute).toBeLessThanOrEqual(IDLE_BYTES_PER_MINUTE + 1);
    }
  });

  it('waits between full listings for at least the poll interval, 100 times a listing, and 200 KiB a minute of listing bytes', () => {
    expect(fullListingInterval({ pollMs: 15_000, lastListingMs: 50, entries: 10 })).toBe(15_000);
    expect(fullListingInterval({ pollMs: 15_000, lastListingMs: 2_000, entries: 10 })).toBe(200_000);
    const big = fullListingInterval({ pollMs: 15_000, lastListingMs: 5_000, entries: 100_000 });
    expect(big / 60_000).toBeGreaterThan(300); // hours: what a full listing of 100,000 entries costs in bytes
  });
});
