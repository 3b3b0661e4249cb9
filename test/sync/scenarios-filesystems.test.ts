/**
 * The engine on volumes other than ext4, simulated through its FileSystem port over real temp folders (so the
 * watcher still sees them): macOS (case- and normalisation-insensitive), Windows (case-insensitive, its name rules,
 * MAX_PATH, files locked while open). A Linux computer beside it makes what those volumes cannot hold twice.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EngineOptions } from '../../main/sync/engine/engine.js';
import { refreshPaths, scanLocal, type ScanOptions } from '../../main/sync/local/scan.js';
import { nodeFileSystem, probeVolume } from '../../main/sync/local/ports.js';
import type { LocalItem } from '../../main/sync/model/types.js';
import { HFS_PLUS, MACOS, SimulatedVolume, WINDOWS, type VolumeRules } from '../helpers/simulated-fs.js';
import { localTree, newAccount, sorted, type Account, SCENARIO_CASES } from '../helpers/sync.js';
import { tempDir } from '../helpers/temp.js';

const NFC = 'caf\u00e9.txt';
const NFD = 'cafe\u0301.txt';

/** Names Linux and the drive take that Win32's rules refuse: a backslash, `:` and `?`, a newline. */
const LINUX_ONLY = ['back\\slash.txt', 'a:b?.txt', 'new\nline.txt'];

/** Names Windows refuses or changes, each a valid name on Linux and on the drive. */
const WINDOWS_HOSTILE = ['CON.txt', 'aux', 'a:b.txt', 'why?.txt', 'pipe|star*.txt', 'quote".txt', 'angle<>.txt', 'dot.', 'space '];

const files = (tree: Map<string, string>) => [...tree.values()].filter((v) => v !== '/').sort();

describe.each(SCENARIO_CASES)('file systems other than ext4 (%s, %s)', (mode, profile) => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode, profile });
  });
  afterEach(() => account.close());

  const onVolume = (name: string, rules: VolumeRules, options: Partial<EngineOptions> = {}) => {
    const volume = new SimulatedVolume(rules);
    const trashed: string[] = [];
    const computer = account.computer(name, {
      fs: volume.fs,
      trash: async (path, trashOptions) => {
        trashed.push(trashOptions.originalPath);
        await volume.trash(path, trashOptions);
      },
      ...options,
    });
    volume.mount(computer.root);
    return { volume, computer, trashed };
  };
  const nonListing = (from: number) => account.requests.slice(from).filter((r) => !r.startsWith('GET /drive/file-entries'));
  const idOf = async (name: string): Promise<number> => {
    for await (const e of account.client.entries.list({ query: name })) if (e.name === name) return e.id;
    throw new Error(`no remote entry named ${name}`);
  };

  it('case-insensitive: remote names that differ only by case get distinct local names and never overwrite each other', async () => {
    const linux = account.computer('linux');
    writeFileSync(join(linux.root, 'Report.txt'), 'capital R');
    writeFileSync(join(linux.root, 'report.txt'), 'small r');
    mkdirSync(join(linux.root, 'Docs'));
    mkdirSync(join(linux.root, 'docs'));
    writeFileSync(join(linux.root, 'Docs', 'a.txt'), 'in Docs');
    writeFileSync(join(linux.root, 'docs', 'a.txt'), 'in docs');
    expect(await linux.sync()).toMatchObject({ inSync: true });
    const drive = sorted(await account.remoteTree());

    const { computer: mac, volume } = onVolume('mac', MACOS);
    expect(await mac.sync()).toMatchObject({ inSync: true, failed: [] });
    const tree = localTree(mac.root);
    expect(files(tree)).toEqual(['capital R', 'in Docs', 'in docs', 'small r']);
    const keys = [...tree.keys()].map((path) => path.toLowerCase());
    expect(new Set(keys).size).toBe(keys.length);
    expect(sorted(await account.remoteTree())).toEqual(drive);
    expect(await mac.sync()).toMatchObject({ inSync: true, done: 0 });

    // Each local twin is its own entry: an edit on the Mac reaches the one it came from.
    const small = [...tree].find(([, content]) => content === 'small r')![0];
    volume.write(small, 'small r, edited on the Mac');
    expect(await mac.sync()).toMatchObject({ inSync: true, failed: [] });
    await linux.sync();
    expect(linux.file('report.txt')).toBe('small r, edited on the Mac');
    expect(linux.file('Report.txt')).toBe('capital R');
    expect(sorted(localTree(linux.root))).toEqual(sorted(await account.remoteTree()));
  });

  it('case-insensitive: a case twin that arrives later, or a remote rename onto a case twin, takes a name of its own', async () => {
    const linux = account.computer('linux');
    writeFileSync(join(linux.root, 'Report.txt'), 'capital R');
    writeFileSync(join(linux.root, 'other.txt'), 'other');
    await linux.sync();
    const { computer: mac } = onVolume('mac', MACOS);
    expect(await mac.sync()).toMatchObject({ inSync: true });

    writeFileSync(join(linux.root, 'report.txt'), 'small r');
    renameSync(join(linux.root, 'other.txt'), join(linux.root, 'REPORT.TXT'));
    await linux.sync();
    const drive = sorted(await account.remoteTree());
    expect(await mac.sync()).toMatchObject({ inSync: true, failed: [] });
    const tree = localTree(mac.root);
    // The entry with the lowest id keeps its name, as on every computer (the uploads of a live pass go in any order).
    const ids = await account.entryIds();
    const first = ['Report.txt', 'REPORT.TXT', 'report.txt'].sort((x, y) => ids.get(x)! - ids.get(y)!)[0]!;
    expect(tree.get(first)).toBe(drive[first]);
    expect(files(tree)).toEqual(['capital R', 'other', 'small r']);
    const keys = [...tree.keys()].map((path) => path.toLowerCase());
    expect(new Set(keys).size).toBe(keys.length);
    expect(sorted(await account.remoteTree())).toEqual(drive);
    expect(await mac.sync()).toMatchObject({ inSync: true, done: 0 });
  });

  it('case-insensitive: a local rename that changes only case is one rename request, same entry', async () => {
    const { computer: mac, volume } = onVolume('mac', MACOS);
    volume.write('notes.txt', 'notes');
    volume.mkdirUser('photos');
    volume.write('photos/cat.jpg', 'cat');
    expect(await mac.sync()).toMatchObject({ inSync: true });
    const before = await account.entryIds();

    const mark = account.requests.length;
    volume.rename('notes.txt', 'Notes.txt');
    volume.rename('photos', 'Photos');
    expect(await mac.sync()).toMatchObject({ inSync: true, failed: [] });
    const sent = nonListing(mark);
    expect(sent).toHaveLength(2);
    for (const request of sent) expect(request).toMatch(/^PUT \/file-entries\/\d+$/);
    const after = await account.entryIds();
    expect(after.get('Notes.txt')).toBe(before.get('notes.txt'));
    expect(after.get('Photos')).toBe(before.get('photos'));
    expect(after.get('Photos/cat.jpg')).toBe(before.get('photos/cat.jpg'));
    expect(sorted(localTree(mac.root))).toEqual({ 'Notes.txt': 'notes', Photos: '/', 'Photos/cat.jpg': 'cat' });
  });

  it('case-insensitive: a remote rename that changes only case renames the local file; nothing is downloaded', async () => {
    const { computer: mac, volume } = onVolume('mac', MACOS);
    volume.write('memo.txt', 'memo');
    volume.mkdirUser('Docs');
    volume.write('Docs/a.txt', 'a');
    expect(await mac.sync()).toMatchObject({ inSync: true });
    await account.client.entries.rename(await idOf('memo.txt'), 'MEMO.txt');
    await account.client.entries.rename(await idOf('Docs'), 'docs');
    const mark = account.requests.length;
    expect(await mac.sync()).toMatchObject({ inSync: true, failed: [] });
    expect(nonListing(mark)).toEqual([]);
    expect(sorted(localTree(mac.root))).toEqual({ 'MEMO.txt': 'memo', docs: '/', 'docs/a.txt': 'a' });
    expect(await mac.sync()).toMatchObject({ inSync: true, done: 0 });
  });

  it('case-insensitive: both sides create one name in different cases; both versions are kept, folders merge', async () => {
    const linux = account.computer('linux');
    const { computer: win, volume } = onVolume('win', WINDOWS);
    writeFileSync(join(linux.root, 'plan.txt'), 'plan from linux');
    mkdirSync(join(linux.root, 'music'));
    writeFileSync(join(linux.root, 'music', 'a.mp3'), 'a from linux');
    volume.write('Plan.txt', 'Plan from windows, longer');
    volume.mkdirUser('Music');
    volume.write('Music/b.mp3', 'b from windows');
    await linux.sync();
    expect(await win.sync()).toMatchObject({ failed: [] });
    await linux.sync();
    expect(await win.sync()).toMatchObject({ inSync: true, failed: [] });
    const onWin = localTree(win.root);
    expect(files(onWin)).toEqual(['Plan from windows, longer', 'a from linux', 'b from windows', 'plan from linux']);
    const keys = [...onWin.keys()].map((path) => path.toLowerCase());
    expect(new Set(keys).size).toBe(keys.length);
    expect(onWin.get('Music')).toBe('/');
    expect(files(localTree(linux.root))).toEqual(files(onWin));
    expect(await linux.sync()).toMatchObject({ inSync: true, done: 0 });
  });

  it('Windows names on Linux: a file whose name Windows refuses, on both sides at a first sync, is matched, not uploaded again', async () => {
    const a = account.computer('alpha');
    writeFileSync(join(a.root, 'Notes: 2024?.txt'), 'same');
    writeFileSync(join(a.root, 'ends with a dot.'), 'dot');
    await a.sync();
    const b = account.computer('beta');
    writeFileSync(join(b.root, 'Notes: 2024?.txt'), 'same');
    writeFileSync(join(b.root, 'ends with a dot.'), 'dot');
    expect(await b.sync()).toMatchObject({ inSync: true, failed: [] });
    const both = { 'Notes: 2024?.txt': 'same', 'ends with a dot.': 'dot' };
    expect(sorted(await account.remoteTree())).toEqual(both);
    expect(sorted(localTree(b.root))).toEqual(both);
    expect(await a.sync()).toMatchObject({ inSync: true, done: 0 });
  });

  it("Linux names on Linux: a backslash, ':', '?' and a newline keep their names on another Linux computer, both ways", async () => {
    const a = account.computer('alpha');
    for (const name of LINUX_ONLY) writeFileSync(join(a.root, name), `content of ${name}`);
    expect(await a.sync()).toMatchObject({ inSync: true, failed: [] });
    const made = Object.fromEntries(LINUX_ONLY.map((name) => [name, `content of ${name}`]));
    expect(sorted(await account.remoteTree())).toEqual(sorted(new Map(Object.entries(made))));
    const ids = await account.entryIds();

    const b = account.computer('beta');
    expect(await b.sync()).toMatchObject({ inSync: true, failed: [] });
    expect(sorted(localTree(b.root))).toEqual(sorted(new Map(Object.entries(made))));
    const mark = account.requests.length;
    expect(await b.sync()).toMatchObject({ inSync: true, done: 0 });
    expect(nonListing(mark)).toEqual([]);

    // B renames one to another name only Linux takes, and makes one more: A follows, the entry is the same.
    renameSync(join(b.root, 'a:b?.txt'), join(b.root, 'tab\there|now*.txt'));
    writeFileSync(join(b.root, 'made\non\nbeta.txt'), 'from beta');
    expect(await b.sync()).toMatchObject({ inSync: true, failed: [] });
    expect((await account.entryIds()).get('tab\there|now*.txt')).toBe(ids.get('a:b?.txt'));
    expect(await a.sync()).toMatchObject({ inSync: true, failed: [] });
    const after = sorted(localTree(a.root));
    expect(after).toEqual(sorted(localTree(b.root)));
    expect(after).toEqual(sorted(await account.remoteTree()));
    expect(after['tab\there|now*.txt']).toBe('content of a:b?.txt');
    expect(after['made\non\nbeta.txt']).toBe('from beta');
    expect(await a.sync()).toMatchObject({ inSync: true, done: 0 });
    expect(await b.sync()).toMatchObject({ inSync: true, done: 0 });
  });

  it("Linux names on a Windows volume: the same files get names Windows takes, and nothing is renamed on the drive", async () => {
    const linux = account.computer('linux');
    for (const name of LINUX_ONLY) writeFileSync(join(linux.root, name), `content of ${name}`);
    expect(await linux.sync()).toMatchObject({ inSync: true, failed: [] });
    const drive = sorted(await account.remoteTree());
    const ids = await account.entryIds();

    const { computer: win, trashed } = onVolume('win', WINDOWS);
    expect(await win.sync()).toMatchObject({ inSync: true, failed: [] });
    expect(sorted(localTree(win.root))).toEqual({
      'a_b_.txt': 'content of a:b?.txt',
      'back_slash.txt': 'content of back\\slash.txt',
      'new_line.txt': 'content of new\nline.txt',
    });
    const mark = account.requests.length;
    expect(await win.sync()).toMatchObject({ inSync: true, done: 0 });
    expect(nonListing(mark)).toEqual([]);
    expect(sorted(await account.remoteTree())).toEqual(drive);
    expect(await account.entryIds()).toEqual(ids);
    expect(trashed).toEqual([]);
    expect(await linux.sync()).toMatchObject({ inSync: true, done: 0 });
    expect(sorted(localTree(linux.root))).toEqual(drive);
  });

  it('Windows names: a remote rename to a name Windows refuses renames the local file to a name it takes; nothing goes back', async () => {
    const { computer: win, volume } = onVolume('win', WINDOWS);
    volume.write('notes.txt', 'notes');
    expect(await win.sync()).toMatchObject({ inSync: true });
    const id = await idOf('notes.txt');
    await account.client.entries.rename(id, 'notes: final?.txt');
    const mark = account.requests.length;
    expect(await win.sync()).toMatchObject({ inSync: true, failed: [] });
    expect(nonListing(mark)).toEqual([]);
    expect(sorted(localTree(win.root))).toEqual({ 'notes_ final_.txt': 'notes' });
    expect(await win.sync()).toMatchObject({ inSync: true, done: 0 });
    expect((await account.entryIds()).get('notes: final?.txt')).toBe(id);
  });

  it('Windows paths: a folder whose path would pass 260 characters fails alone; what is inside waits, nothing is lost', async () => {
    const linux = account.computer('linux');
    const outer = 'o'.repeat(150);
    const inner = `${outer}/${'i'.repeat(100)}`;
    mkdirSync(join(linux.root, ...inner.split('/')), { recursive: true });
    writeFileSync(join(linux.root, ...inner.split('/'), 'x.txt'), 'deep inside');
    writeFileSync(join(linux.root, outer, 'near.txt'), 'near the top');
    expect(await linux.sync()).toMatchObject({ inSync: true });
    const drive = sorted(await account.remoteTree());
    const { computer: win } = onVolume('win', WINDOWS);
    const summary = await win.sync();
    expect(summary.failed).toEqual([{ path: inner, message: expect.stringMatching(/path of its length/) }]);
    expect(sorted(localTree(win.root))).toEqual({ [outer]: '/', [`${outer}/near.txt`]: 'near the top' });
    expect(sorted(await account.remoteTree())).toEqual(drive);
    expect(await linux.sync()).toMatchObject({ inSync: true, done: 0 });
  });

  it('normalisation-insensitive: café in NFC and in NFD are one local name', async () => {
    const linux = account.computer('linux');
    writeFileSync(join(linux.root, NFC), 'composed');
    writeFileSync(join(linux.root, NFD), 'decomposed');
    expect(await linux.sync()).toMatchObject({ inSync: true });
    const { computer: mac, volume } = onVolume('mac', MACOS);
    expect(await mac.sync()).toMatchObject({ inSync: true, failed: [] });
    const tree = localTree(mac.root);
    expect(files(tree)).toEqual(['composed', 'decomposed']);
    expect(new Set([...tree.keys()].map((path) => path.normalize('NFC'))).size).toBe(2);

    // A program on the Mac saving under the other spelling edits the file that has the name.
    const holder = tree.get(NFC)!;
    volume.write(NFD, 'saved through the NFD spelling');
    expect(await mac.sync()).toMatchObject({ inSync: true, failed: [] });
    expect(files(localTree(mac.root))).toHaveLength(2);
    await linux.sync();
    const onLinux = localTree(linux.root);
    expect(onLinux.get(holder === 'composed' ? NFC : NFD)).toBe('saved through the NFD spelling');
    expect(onLinux.get(holder === 'composed' ? NFD : NFC)).toBe(holder === 'composed' ? 'decomposed' : 'composed');
    expect(files(onLinux)).toHaveLength(2);
  });

  it('normalisation-insensitive: a folder and file the user names in NFD are uploaded in NFC and stay synced', async () => {
    const { computer: mac, volume } = onVolume('mac', MACOS);
    volume.mkdirUser('re\u0301sume\u0301s');
    volume.write(`re\u0301sume\u0301s/${NFD}`, 'typed decomposed');
    expect(await mac.sync()).toMatchObject({ inSync: true, failed: [] });
    const ids = await account.entryIds();
    expect([...ids.keys()].sort()).toEqual(['r\u00e9sum\u00e9s', `r\u00e9sum\u00e9s/${NFC}`]);
    volume.write(`re\u0301sume\u0301s/${NFD}`, 'typed decomposed, then edited');
    expect(await mac.sync()).toMatchObject({ inSync: true, failed: [] });
    // An edit is a new entry under the same name (the service cannot replace content); the folder is the same one.
    expect((await account.entryIds()).get('r\u00e9sum\u00e9s')).toBe(ids.get('r\u00e9sum\u00e9s'));
    expect(sorted(await account.remoteTree())).toEqual({ 'r\u00e9sum\u00e9s': '/', [`r\u00e9sum\u00e9s/${NFC}`]: 'typed decomposed, then edited' });
    expect(sorted(localTree(mac.root))).toEqual({ 're\u0301sume\u0301s': '/', [`re\u0301sume\u0301s/${NFD}`]: 'typed decomposed, then edited' });
  });

  it('a volume that stores names decomposed (HFS+): what is downloaded is not renamed on the drive, and edits reach it', async () => {
    const linux = account.computer('linux');
    mkdirSync(join(linux.root, 'r\u00e9sum\u00e9s'));
    writeFileSync(join(linux.root, 'r\u00e9sum\u00e9s', NFC), 'composed');
    expect(await linux.sync()).toMatchObject({ inSync: true });
    const ids = await account.entryIds();
    const { computer: mac, volume } = onVolume('mac', HFS_PLUS);
    expect(await mac.sync()).toMatchObject({ inSync: true, failed: [] });
    // Listed decomposed, as HFS+ lists every name.
    expect(sorted(localTree(mac.root))).toEqual({ ['re\u0301sume\u0301s']: '/', [`re\u0301sume\u0301s/${NFD}`]: 'composed' });
    const mark = account.requests.length;
    expect(await mac.sync()).toMatchObject({ inSync: true, done: 0 });
    expect(nonListing(mark)).toEqual([]);
    expect(await account.entryIds()).toEqual(ids);

    volume.write(`r\u00e9sum\u00e9s/${NFC}`, 'edited on the Mac');
    expect(await mac.sync()).toMatchObject({ inSync: true, failed: [] });
    await linux.sync();
    expect(sorted(localTree(linux.root))).toEqual({ ['r\u00e9sum\u00e9s']: '/', [`r\u00e9sum\u00e9s/${NFC}`]: 'edited on the Mac' });
    expect([...(await account.entryIds()).keys()].sort()).toEqual([...ids.keys()].sort());
  });

  it('Windows names: reserved, refused characters and trailing dots get names Windows takes; a path over 260 characters fails alone, plainly', async () => {
    const linux = account.computer('linux');
    for (const name of WINDOWS_HOSTILE) writeFileSync(join(linux.root, name), `content of ${name}`);
    const deep = 'f'.repeat(120);
    const long = `${deep}/${'g'.repeat(140)}.txt`;
    mkdirSync(join(linux.root, deep));
    writeFileSync(join(linux.root, ...long.split('/')), 'far down');
    expect(await linux.sync()).toMatchObject({ inSync: true });
    const drive = sorted(await account.remoteTree());

    const { computer: win, volume, trashed } = onVolume('win', WINDOWS);
    for (let round = 0; round < 2; round++) {
      const summary = await win.sync();
      expect(summary.inSync).toBe(false);
      expect(summary.failed).toEqual([{ path: long, message: expect.stringMatching(/path of its length/) }]);
      expect(summary.failed[0]!.message.split('\n')).toHaveLength(1);
      const tree = localTree(win.root);
      expect(files(tree)).toEqual(WINDOWS_HOSTILE.map((name) => `content of ${name}`).sort());
      expect(tree.get(deep)).toBe('/');
      for (const path of tree.keys()) {
        const name = path.split('/').at(-1)!;
        expect(name).not.toMatch(/[<>:"|?*]|[. ]$|^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\.|$)/i);
        expect(volume.windowsLength(join(win.root, ...path.split('/')))).toBeLessThanOrEqual(260);
      }
      // Nothing was taken as deleted or changed on the drive.
      expect(sorted(await account.remoteTree())).toEqual(drive);
      expect(trashed).toEqual([]);
    }
    expect(await linux.sync()).toMatchObject({ inSync: true, done: 0 });
  });

  it('files locked while open: a rename or delete the disk refuses is reported plainly, tried again, and nothing is lost', async () => {
    const linux = account.computer('linux');
    writeFileSync(join(linux.root, 'report.docx'), 'v1');
    writeFileSync(join(linux.root, 'old.txt'), 'old');
    writeFileSync(join(linux.root, 'draft.txt'), 'draft');
    mkdirSync(join(linux.root, 'project'));
    writeFileSync(join(linux.root, 'project', 'open.doc'), 'open');
    await linux.sync();
    const { computer: win, volume, trashed } = onVolume('win', WINDOWS);
    expect(await win.sync()).toMatchObject({ inSync: true });
    // A folder holding an open file cannot be renamed either.
    const locked = ['report.docx', 'old.txt', 'draft.txt', 'project/open.doc'];
    for (const name of locked) volume.lock(name);

    writeFileSync(join(linux.root, 'report.docx'), 'v2 from linux');
    rmSync(join(linux.root, 'old.txt'));
    renameSync(join(linux.root, 'draft.txt'), join(linux.root, 'final.txt'));
    renameSync(join(linux.root, 'project'), join(linux.root, 'project 2024'));
    expect(await linux.sync()).toMatchObject({ inSync: true });
    const drive = sorted(await account.remoteTree());

    for (let round = 0; round < 2; round++) {
      const summary = await win.sync();
      expect(summary.inSync).toBe(false);
      // A local move is named by where it goes.
      expect(summary.failed.map((f) => f.path).sort()).toEqual(['final.txt', 'old.txt', 'project 2024', 'report.docx']);
      for (const failure of summary.failed) expect(failure.message).toBe('another program has it open, so the disk will not move or delete it; it is tried again later');
      expect(sorted(localTree(win.root))).toEqual({ 'draft.txt': 'draft', 'old.txt': 'old', project: '/', 'project/open.doc': 'open', 'report.docx': 'v1' });
      expect(sorted(await account.remoteTree())).toEqual(drive);
    }

    for (const name of locked) volume.unlock(name);
    expect(await win.sync()).toMatchObject({ inSync: true, failed: [] });
    expect(sorted(localTree(win.root))).toEqual(drive);
    expect(trashed).toEqual([join(win.root, 'old.txt')]);
    expect(await linux.sync()).toMatchObject({ inSync: true, done: 0 });
    expect(sorted(await account.remoteTree())).toEqual(drive);
  });
});

describe('file systems other than ext4, live only', () => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode: 'live' });
  });
  afterEach(() => account.close());

  it('a locked file is tried again on its own once the other program lets go (closing a file is no change to watch)', async () => {
    const volume = new SimulatedVolume(WINDOWS);
    const win = account.computer('win', { fs: volume.fs, trash: (path, options) => volume.trash(path, options), busyRetryMs: 300 });
    volume.mount(win.root);
    volume.write('draft.txt', 'draft');
    expect(await win.sync()).toMatchObject({ inSync: true });
    let id = 0;
    for await (const e of account.client.entries.list({ query: 'draft.txt' })) id = e.id;
    volume.lock('draft.txt');
    await account.client.entries.rename(id, 'final.txt');
    const summary = await win.sync();
    expect(summary.failed).toEqual([{ path: 'final.txt', message: expect.stringMatching(/another program has it open/) }]);

    volume.unlock('draft.txt');
    const deadline = Date.now() + 20_000;
    while (!localTree(win.root).has('final.txt') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sorted(localTree(win.root))).toEqual({ 'final.txt': 'draft' });
  });
});

describe('the scan on a volume that folds names', () => {
  it("node's port asks the real volume: this Linux folder tells case and NFC/NFD apart, takes Win32's refused names, and the probe leaves nothing", async () => {
    const root = tempDir('probe');
    try {
      expect(nodeFileSystem.volume).toBe(probeVolume);
      expect(await probeVolume(root)).toEqual({ caseInsensitive: false, normalisesUnicode: false, windowsNames: false });
      expect(readdirSync(root)).toEqual([]);
      // A folder it cannot write in is taken as Linux's are.
      expect(await probeVolume(join(root, 'missing'))).toEqual({ caseInsensitive: false, normalisesUnicode: false, windowsNames: false });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a path the watcher names in another spelling than its folder lists is not an item (a case-only rename is not two files)', async () => {
    const root = tempDir('folding');
    try {
      const volume = new SimulatedVolume(MACOS).mount(root);
      volume.write('notes.txt', 'notes');
      volume.write(NFC, 'composed');
      const options: ScanOptions = {
        isIgnored: () => false,
        needsHash: () => false,
        isSynced: () => true,
        readDir: volume.fs.readDir,
        lstat: volume.fs.lstat!,
        foldsNames: true,
      };
      const items = (await scanLocal(root, options)).items as Map<string, LocalItem>;
      volume.rename('notes.txt', 'Notes.txt');
      // The watcher names both ends of the rename, and a spelling of the other file the volume finds too.
      await refreshPaths(root, items, ['notes.txt', 'Notes.txt', NFD], options);
      expect([...items.keys()].sort()).toEqual(['Notes.txt', NFC].sort());
      // Without knowing that the volume folds names, the old spelling still finds the file.
      await refreshPaths(root, items, ['notes.txt'], { ...options, foldsNames: false });
      expect([...items.keys()].sort()).toEqual(['Notes.txt', 'notes.txt', NFC].sort());
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
