/**
 * Selective sync end to end: the real engine against the real reference server, in both modes (once, and live with
 * the changes made while the engine runs) and both server profiles, then two computers running live at once. The
 * selection is the engine's `selection` option, as openFolder gives it from the config; a change of it reaches a
 * running engine through `selectionChanged()`.
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeletionQuestion } from '../../main/sync/engine/deletions.js';
import { nodeFileSystem, type FileSystem } from '../../main/sync/local/ports.js';
import { LEFT_OUT_PLACE, type Selection } from '../../main/sync/plan/selective.js';
import { PROFILES } from '../helpers/server.js';
import { localTree, newAccount, sorted, type Account, type Computer, SCENARIO_CASES } from '../helpers/sync.js';
import { tempDir } from '../helpers/temp.js';
import { eventually } from '../helpers/eventually.js';

/** A selection a test changes as it goes, and the engine options that follow it. */
function selectable(initial: number[] = [], newFolders: Selection['newFolders'] = 'sync') {
  const state: { current: Selection; added: number[] } = { current: { excluded: new Set(initial), newFolders }, added: [] };
  return {
    state,
    options: {
      selection: () => state.current,
      excludeNewFolders: (ids: number[]) => {
        state.added.push(...ids);
        state.current = { ...state.current, excluded: new Set([...state.current.excluded, ...ids]) };
      },
    },
    set(computer: Computer, excluded: number[]) {
      state.current = { ...state.current, excluded: new Set(excluded) };
      computer.engine.selectionChanged();
    },
  };
}

/** The paths of a tree below a folder, or at the top with none. */
const under = (tree: Map<string, string>, folder: string) => [...tree.keys()].filter((p) => p === folder || p.startsWith(`${folder}/`)).sort();

describe.each(SCENARIO_CASES)('selective sync (%s, %s)', (mode, profile) => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode, profile });
  });
  afterEach(() => account.close());

  /** Another client of the account puts a file on the drive. */
  async function uploadElsewhere(name: string, parentId: number, content: string): Promise<void> {
    const dir = tempDir('elsewhere');
    try {
      writeFileSync(join(dir, name), content);
      await account.client.transfers.upload(join(dir, name), { name, parentId });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Alpha's folder with Photos (two files, a subfolder) and Docs, synced to the drive. */
  async function photosAndDocs(options: Parameters<Account['computer']>[1] = {}): Promise<{ a: Computer; ids: Map<string, number> }> {
    const a = account.computer('alpha', options);
    mkdirSync(join(a.root, 'Photos', '2019'), { recursive: true });
    writeFileSync(join(a.root, 'Photos', 'a.jpg'), 'aaaa');
    writeFileSync(join(a.root, 'Photos', '2019', 'b.jpg'), 'bbbbbb');
    mkdirSync(join(a.root, 'Docs'));
    writeFileSync(join(a.root, 'Docs', 'note.txt'), 'note');
    expect((await a.sync()).inSync).toBe(true);
    return { a, ids: await account.entryIds() };
  }

  it('excluding a synced folder removes its copy here (not to the OS trash) and keeps the drive; including brings it back with the same ids', async () => {
    const { ids } = await photosAndDocs();
    const pick = selectable();
    const b = account.computer('beta', pick.options);
    await b.sync();
    const notices: string[] = [];
    b.engine.on('notice', (m) => notices.push(m));
    pick.set(b, [ids.get('Photos')!]);
    const summary = await b.sync();
    expect(summary.inSync).toBe(true);
    expect(sorted(localTree(b.root))).toEqual({ Docs: '/', 'Docs/note.txt': 'note' });
    expect(b.trashed).toEqual([]);
    expect(notices.some((m) => m.startsWith('Photos is excluded: its copy here is removed (it stays on the drive), 10 B freed'))).toBe(true);
    expect(under(await account.remoteTree(), 'Photos')).toEqual(['Photos', 'Photos/2019', 'Photos/2019/b.jpg', 'Photos/a.jpg']);
    // Something new inside on the drive is not downloaded; nothing is planned.
    await uploadElsewhere('new.jpg', ids.get('Photos')!, 'new');
    expect((await b.sync()).done).toBe(0);
    expect(existsSync(join(b.root, 'Photos'))).toBe(false);
    // Included: everything arrives, under the entries it had.
    pick.set(b, []);
    expect((await b.sync()).inSync).toBe(true);
    expect(sorted(localTree(b.root))).toEqual(sorted(await account.remoteTree()));
    const after = await account.entryIds();
    for (const path of ['Photos', 'Photos/a.jpg', 'Photos/2019', 'Photos/2019/b.jpg']) expect(after.get(path)).toBe(ids.get(path));
  });

  it('a file whose bytes are not the synced ones, though its size and time are, goes to the OS trash, not deleted', async () => {
    const { ids } = await photosAndDocs();
    const pick = selectable();
    const b = account.computer('beta', pick.options);
    await b.sync();
    // Rewritten in place with the same size, its time set back: only its bytes tell it from the synced copy.
    const file = join(b.root, 'Photos', 'a.jpg');
    const { mtime } = statSync(file);
    writeFileSync(file, 'zzzz');
    utimesSync(file, mtime, mtime);
    pick.set(b, [ids.get('Photos')!]);
    expect((await b.sync()).inSync).toBe(true);
    expect(existsSync(join(b.root, 'Photos'))).toBe(false);
    expect(b.trashed).toEqual([file]);
  });

  it('changes made here inside a folder being excluded go to the drive first; then the copy goes', async () => {
    const pick = selectable();
    const { a, ids } = await photosAndDocs(pick.options);
    writeFileSync(join(a.root, 'Photos', 'a.jpg'), 'edited here, not synced yet');
    writeFileSync(join(a.root, 'Photos', '2019', 'new.jpg'), 'made here');
    renameSync(join(a.root, 'Photos', '2019', 'b.jpg'), join(a.root, 'Photos', '2019', 'b2.jpg'));
    // Something new on the drive inside meanwhile is not downloaded.
    await uploadElsewhere('theirs.jpg', ids.get('Photos')!, 'theirs');
    pick.set(a, [ids.get('Photos')!]);
    const mark = account.requests.length;
    expect((await a.sync()).inSync).toBe(true);
    // Nothing was downloaded (a download is GET /file-entries/ID).
    expect(account.requests.slice(mark).filter((r) => /^GET \/file-entries\/\d+$/.test(r))).toEqual([]);
    expect(sorted(localTree(a.root))).toEqual({ Docs: '/', 'Docs/note.txt': 'note' });
    const drive = await account.remoteTree();
    expect(drive.get('Photos/a.jpg')).toBe('edited here, not synced yet');
    expect(drive.get('Photos/2019/new.jpg')).toBe('made here');
    expect(drive.get('Photos/2019/b2.jpg')).toBe('bbbbbb');
    expect(drive.get('Photos/theirs.jpg')).toBe('theirs');
    expect(a.trashed).toEqual([]);
  });

  it('a local folder at the place of an excluded folder is never merged, uploaded or deleted, and is told', async () => {
    const { ids } = await photosAndDocs();
    const b = account.computer('beta', selectable([ids.get('Photos')!]).options);
    await b.sync();
    expect(existsSync(join(b.root, 'Photos'))).toBe(false);
    mkdirSync(join(b.root, 'Photos'));
    writeFileSync(join(b.root, 'Photos', 'mine.jpg'), 'mine only');
    const summary = await b.sync();
    expect(summary.skipped).toContainEqual({ path: 'Photos', message: LEFT_OUT_PLACE('Photos') });
    expect(localTree(b.root).get('Photos/mine.jpg')).toBe('mine only');
    expect(under(await account.remoteTree(), 'Photos')).toEqual(['Photos', 'Photos/2019', 'Photos/2019/b.jpg', 'Photos/a.jpg']);
    // Renamed, it is a folder of its own: uploaded.
    renameSync(join(b.root, 'Photos'), join(b.root, 'Mine'));
    expect((await b.sync()).inSync).toBe(true);
    expect((await account.remoteTree()).get('Mine/mine.jpg')).toBe('mine only');
  });

  it('a folder excluded while it holds an ignored file keeps it, with no clash; included, it fills that same folder again', async () => {
    const pick = selectable();
    const a = account.computer('alpha', pick.options);
    mkdirSync(join(a.root, 'Project'));
    writeFileSync(join(a.root, 'Project', 'a.txt'), 'x');
    writeFileSync(join(a.root, 'Project', 'scratch.tmp'), 'y');
    expect((await a.sync()).inSync).toBe(true);
    const ids = await account.entryIds();
    const folder = statSync(join(a.root, 'Project')).ino;
    const notices: string[] = [];
    const told: string[] = [];
    a.engine.on('notice', (m) => notices.push(m));
    a.engine.on('item-error', (e) => told.push(`${e.path}: ${e.message}`));
    pick.set(a, [ids.get('Project')!]);
    const excluded = await a.sync();
    expect(excluded.inSync).toBe(true);
    expect(excluded.skipped.filter((s) => s.message === LEFT_OUT_PLACE('Project'))).toEqual([]);
    expect(told.filter((m) => m.includes(LEFT_OUT_PLACE('Project')))).toEqual([]);
    expect(notices.filter((m) => m.startsWith('Project is excluded'))).toEqual([
      'Project is excluded: its copy here is removed (it stays on the drive), 1 B freed; 1 ignored file stayed on this computer (scratch.tmp), so the folder stays too',
    ]);
    expect(sorted(localTree(a.root))).toEqual({ Project: '/', 'Project/scratch.tmp': 'y' });
    // Settled: a later pass has nothing to do and tells nothing more.
    expect((await a.sync()).done).toBe(0);
    expect(told.filter((m) => m.includes(LEFT_OUT_PLACE('Project')))).toEqual([]);
    pick.set(a, []);
    expect((await a.sync()).inSync).toBe(true);
    expect(sorted(localTree(a.root))).toEqual({ Project: '/', 'Project/a.txt': 'x', 'Project/scratch.tmp': 'y' });
    expect(statSync(join(a.root, 'Project')).ino).toBe(folder);
    expect(sorted(await account.remoteTree())).toEqual({ Project: '/', 'Project/a.txt': 'x' });
    const after = await account.entryIds();
    for (const path of ['Project', 'Project/a.txt']) expect(after.get(path)).toBe(ids.get(path));
    expect(a.trashed).toEqual([]);
  });

  it('an excluded folder renamed and moved on the drive stays excluded; included, it arrives where it is now', async () => {
    const { a, ids } = await photosAndDocs();
    const pick = selectable([ids.get('Photos')!]);
    const b = account.computer('beta', pick.options);
    await b.sync();
    renameSync(join(a.root, 'Photos'), join(a.root, 'Docs', 'Pictures'));
    await a.sync();
    expect((await b.sync()).done).toBe(0);
    expect(sorted(localTree(b.root))).toEqual({ Docs: '/', 'Docs/note.txt': 'note' });
    pick.set(b, []);
    await b.sync();
    expect(localTree(b.root).get('Docs/Pictures/2019/b.jpg')).toBe('bbbbbb');
    expect((await account.entryIds()).get('Docs/Pictures')).toBe(ids.get('Photos'));
  });

  it('a file moved on the drive into an excluded folder leaves this computer; one moved out of it arrives', async () => {
    const { a, ids } = await photosAndDocs();
    const b = account.computer('beta', selectable([ids.get('Photos')!]).options);
    await b.sync();
    renameSync(join(a.root, 'Docs', 'note.txt'), join(a.root, 'Photos', 'note.txt'));
    renameSync(join(a.root, 'Photos', 'a.jpg'), join(a.root, 'Docs', 'a.jpg'));
    await a.sync();
    expect((await b.sync()).inSync).toBe(true);
    expect(sorted(localTree(b.root))).toEqual({ Docs: '/', 'Docs/a.jpg': 'aaaa' });
    expect(b.trashed).toEqual([]);
    expect((await account.remoteTree()).get('Photos/note.txt')).toBe('note');
  });

  it('deleting here a folder that holds an excluded folder asks first, naming what the drive would lose; consented, it goes', async () => {
    const a = account.computer('alpha');
    mkdirSync(join(a.root, 'Work', 'Archive'), { recursive: true });
    writeFileSync(join(a.root, 'Work', 'plan.txt'), 'plan');
    writeFileSync(join(a.root, 'Work', 'Archive', 'big.bin'), '0123456789');
    await a.sync();
    const ids = await account.entryIds();
    const b = account.computer('beta', selectable([ids.get('Work/Archive')!]).options);
    await b.sync();
    expect(sorted(localTree(b.root))).toEqual({ Work: '/', 'Work/plan.txt': 'plan' });
    const questions: DeletionQuestion[] = [];
    b.engine.on('confirm-deletions', (q) => questions.push(q));
    rmSync(join(b.root, 'Work'), { recursive: true });
    const asked = await b.sync();
    expect(asked.needsConfirmation).toBe(true);
    expect(questions.at(-1)?.excluded).toEqual({ items: 1, bytes: 10 });
    // What this computer holds is counted apart from what it leaves out.
    expect(questions.at(-1)?.bytes).toBe(4);
    expect((await account.remoteTree()).get('Work/Archive/big.bin')).toBe('0123456789');
    b.engine.confirmDeletions();
    await b.sync();
    expect([...(await account.remoteTree()).keys()]).toEqual([]);
  });

  it('downloads that do not fit on the disk are not started: the folder says how much is needed and how much is free', async () => {
    await photosAndDocs();
    const fs: FileSystem = { ...nodeFileSystem, freeBytes: async () => 1024 };
    const b = account.computer('beta', { fs });
    writeFileSync(join(b.root, 'mine.txt'), 'goes up anyway');
    const states: Array<string | undefined> = [];
    b.engine.on('state', (state, detail) => states.push(`${state}: ${detail}`));
    const summary = await b.sync();
    expect(summary.inSync).toBe(false);
    expect(summary.failed.map((f) => f.message)).toContain('not enough free space: 14 B to download, 1.0 KB free on this disk; free some space, or leave folders out (drivesync exclude)');
    expect(states.some((s) => s?.startsWith('error: not enough free space'))).toBe(true);
    expect([...localTree(b.root).keys()].filter((p) => !p.startsWith('Photos') && !p.startsWith('Docs'))).toEqual(['mine.txt']);
    expect(existsSync(join(b.root, 'Photos', 'a.jpg'))).toBe(false);
    expect((await account.remoteTree()).get('mine.txt')).toBe('goes up anyway');
  });

  it('with new folders left out, a top-level folder made elsewhere after the first sync is excluded and said so', async () => {
    const { a } = await photosAndDocs();
    const pick = selectable([], 'exclude');
    const b = account.computer('beta', pick.options);
    await b.sync();
    expect(pick.state.added).toEqual([]);
    const notices: string[] = [];
    b.engine.on('notice', (m) => notices.push(m));
    mkdirSync(join(a.root, 'Music'));
    writeFileSync(join(a.root, 'Music', 'song.mp3'), 'la la');
    mkdirSync(join(a.root, 'Docs', 'Inner'));
    await a.sync();
    await b.sync();
    const ids = await account.entryIds();
    expect(pick.state.added).toEqual([ids.get('Music')]);
    expect(existsSync(join(b.root, 'Music'))).toBe(false);
    expect(existsSync(join(b.root, 'Docs', 'Inner'))).toBe(true);
    expect(notices.some((m) => m.startsWith('Music is a new folder on the drive'))).toBe(true);
  });
});

describe.each(PROFILES)('selective sync, two computers live at once (%s)', (profile) => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode: 'live', profile });
  });
  afterEach(() => account.close());

  const LIVE = { pollIntervalMs: 250, stabilityMs: 80, hold: { settleMs: 400, maxMs: 10_000 } } as const;

  it('one computer excludes a folder while the other keeps working in it: nothing is lost, and including it brings the other\'s work', async () => {
    const pick = selectable();
    const laptop = account.computer('laptop', { ...LIVE, ...pick.options });
    const desktop = account.computer('desktop', LIVE);
    mkdirSync(join(desktop.root, 'Photos'));
    writeFileSync(join(desktop.root, 'Photos', 'a.jpg'), 'aaaa');
    writeFileSync(join(desktop.root, 'top.txt'), 'top');
    await Promise.all([laptop.engine.start(), desktop.engine.start()]);
    const same = async () =>
      laptop.engine.isQuiet() &&
      desktop.engine.isQuiet() &&
      JSON.stringify(sorted(localTree(laptop.root))) === JSON.stringify(sorted(localTree(desktop.root)));
    const show = async () => JSON.stringify({ laptop: sorted(localTree(laptop.root)), desktop: sorted(localTree(desktop.root)), drive: sorted(await account.remoteTree()) });
    await eventually(same, { what: show });
    const photos = (await account.entryIds()).get('Photos')!;
    // The laptop edits a photo and excludes the folder at once; the desktop adds and renames in it meanwhile.
    writeFileSync(join(laptop.root, 'Photos', 'a.jpg'), 'edited on the laptop');
    pick.set(laptop, [photos]);
    writeFileSync(join(desktop.root, 'Photos', 'b.jpg'), 'bbbb');
    renameSync(join(desktop.root, 'top.txt'), join(desktop.root, 'top-renamed.txt'));
    const driveHas = async () => {
      const drive = await account.remoteTree();
      return drive.get('Photos/a.jpg') === 'edited on the laptop' && drive.get('Photos/b.jpg') === 'bbbb' && drive.has('top-renamed.txt');
    };
    await eventually(async () => !existsSync(join(laptop.root, 'Photos')) && laptop.engine.isQuiet() && desktop.engine.isQuiet() && (await driveHas()), { what: show });
    await eventually(async () => localTree(desktop.root).get('Photos/a.jpg') === 'edited on the laptop', { what: show });
    expect(sorted(localTree(laptop.root))).toEqual({ 'top-renamed.txt': 'top' });
    expect(laptop.trashed).toEqual([]);
    // Included again: the laptop holds what the desktop holds.
    pick.set(laptop, []);
    await eventually(same, { what: show });
    expect(sorted(localTree(laptop.root))).toEqual(sorted(await account.remoteTree()));
  });
});
