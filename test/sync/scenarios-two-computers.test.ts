/**
 * Two computers of one account, both running at once (live: watching and polling), both touching the same folder
 * within one poll of each other. Every race that matters is made to happen at a chosen moment through the engine's
 * ports (a file-system stat, an upload, a trash), so the outcome does not depend on timing:
 * - an edit never loses to a deletion, whichever comes first;
 * - two computers saving one file at once end with one file and one conflicted copy, named the same on both (and on
 *   a third that joins later);
 * - a poll between another computer's upload of a new version and its trash of the old one leaves no numbered name.
 * The same cases run once (`sync --once` on each computer in turn, the race made inside a pass) where they can arise.
 * Both server profiles.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DriveClient } from '../../main/api/client.js';
import { nodeFileSystem, type FileSystem } from '../../main/sync/local/ports.js';
import { PROFILES } from '../helpers/server.js';
import { localTree, newAccount, settleEngine, sorted, type Account, type Computer } from '../helpers/sync.js';
import { tempDir } from '../helpers/temp.js';
import { eventually } from '../helpers/eventually.js';

/** A poll of a fraction of a second: the computers see each other's changes at once, as two live clients do. */
const LIVE = { pollIntervalMs: 250, stabilityMs: 80, hold: { settleMs: 400, maxMs: 10_000 } } as const;

/** A client of the same account whose calls can be held at a chosen moment (another computer acts meanwhile). */
function hookedClient(
  client: DriveClient,
  hooks: { beforeTrash?: (ids: readonly number[]) => Promise<void>; beforeUpload?: () => Promise<void>; beforeRename?: () => Promise<void> },
): DriveClient {
  const entries = Object.create(client.entries) as DriveClient['entries'];
  entries.trash = async (ids) => {
    await hooks.beforeTrash?.(ids);
    return client.entries.trash(ids);
  };
  entries.rename = async (...args) => {
    await hooks.beforeRename?.();
    return client.entries.rename(...args);
  };
  const transfers = Object.create(client.transfers) as DriveClient['transfers'];
  transfers.upload = async (...args) => {
    await hooks.beforeUpload?.();
    return client.transfers.upload(...args);
  };
  return Object.assign(Object.create(client) as DriveClient, { entries, transfers });
}

describe.each(PROFILES)('two computers live at once (%s)', (profile) => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode: 'live', profile });
  });
  afterEach(() => account.close());

  /** Both folders and the drive hold the same tree (the drive's read last, once the folders agree). */
  const trees = async (...computers: Computer[]) =>
    JSON.stringify({
      ...Object.fromEntries(computers.map((c) => [c.root, sorted(localTree(c.root))])),
      drive: sorted(await account.remoteTree()),
      quiet: computers.map((c) => c.engine.isQuiet()),
    });
  const converged = async (a: Computer, b: Computer): Promise<boolean> => {
    const here = JSON.stringify(sorted(localTree(a.root)));
    if (here !== JSON.stringify(sorted(localTree(b.root)))) return false;
    if (!a.engine.isQuiet() || !b.engine.isQuiet()) return false;
    return here === JSON.stringify(sorted(await account.remoteTree()));
  };
  const bothRunning = async (a: Computer, b: Computer) => {
    await Promise.all([a.engine.start(), b.engine.start()]);
  };

  it('an edit made while the other computer deletes the file wins: it comes back on the computer that deleted it', async () => {
    let armed = false;
    let edited = false;
    // B's executor looks at notes.txt right before moving it to the OS trash; the edit lands just before that look.
    const fs: FileSystem = {
      ...nodeFileSystem,
      stat: async (path, ...rest) => {
        if (armed && path.endsWith('notes.txt')) {
          armed = false;
          writeFileSync(path, 'edited on beta at the last moment');
          edited = true;
        }
        return nodeFileSystem.stat(path, ...rest);
      },
    };
    const a = account.computer('alpha', LIVE);
    const b = account.computer('beta', { ...LIVE, fs });
    writeFileSync(join(a.root, 'notes.txt'), 'first');
    writeFileSync(join(a.root, 'other.txt'), 'keeps the guard quiet');
    await bothRunning(a, b);
    await eventually(() => converged(a, b), { what: 'the first sync' });
    armed = true;
    rmSync(join(a.root, 'notes.txt'));
    await eventually(() => edited, { what: "beta's plan to trash notes.txt" });
    await eventually(() => converged(a, b), { what: () => trees(a, b) });
    expect(localTree(a.root).get('notes.txt')).toBe('edited on beta at the last moment');
    expect(localTree(b.root).get('notes.txt')).toBe('edited on beta at the last moment');
    expect(b.trashed).toEqual([]);
  });

  it('a file saved in a folder the other computer deleted, at the very moment it is trashed here, keeps the folder and the file', async () => {
    let armed = false;
    let saved = false;
    // B moves the folder aside to trash it; the save lands just before that move (after every look of the plan).
    const fs: FileSystem = {
      ...nodeFileSystem,
      rename: async (from, to) => {
        if (armed && to.includes(`${sep}.drivesync${sep}trashing${sep}`) && from.endsWith(`${sep}docs`)) {
          armed = false;
          writeFileSync(join(from, 'saved-just-now.txt'), 'saved on beta as docs went');
          saved = true;
        }
        return nodeFileSystem.rename(from, to);
      },
    };
    const a = account.computer('alpha', LIVE);
    const b = account.computer('beta', { ...LIVE, fs });
    mkdirSync(join(a.root, 'docs'));
    writeFileSync(join(a.root, 'docs', 'plan.txt'), 'the plan');
    writeFileSync(join(a.root, 'other.txt'), 'keeps the guard quiet');
    await bothRunning(a, b);
    await eventually(() => converged(a, b), { what: 'the first sync' });
    armed = true;
    rmSync(join(a.root, 'docs'), { recursive: true });
    await eventually(() => saved, { what: "beta's trash of docs" });
    await eventually(() => converged(a, b), { what: () => trees(a, b) });
    expect(localTree(a.root).get('docs/saved-just-now.txt')).toBe('saved on beta as docs went');
    // What alpha deleted and beta had not touched goes; the folder stays for the file saved in it.
    expect(localTree(a.root).has('docs/plan.txt')).toBe(false);
    expect(b.trashed).toEqual([join(b.root, 'docs', 'plan.txt')]);
  });

  it('an edit made before the deletion reaches this computer wins too, and nothing goes to its OS trash', async () => {
    const a = account.computer('alpha', LIVE);
    const b = account.computer('beta', LIVE);
    writeFileSync(join(a.root, 'notes.txt'), 'first');
    writeFileSync(join(a.root, 'other.txt'), 'keeps the guard quiet');
    await bothRunning(a, b);
    await eventually(() => converged(a, b), { what: 'the first sync' });
    // B is paused: A's deletion reaches the drive, B's edit is made before B looks again.
    b.engine.pause();
    rmSync(join(a.root, 'notes.txt'));
    await eventually(async () => !(await account.remoteTree()).has('notes.txt'), { what: "alpha's trash" });
    writeFileSync(join(b.root, 'notes.txt'), 'edited on beta');
    await b.engine.resume();
    await eventually(() => converged(a, b), { what: () => trees(a, b) });
    expect(localTree(a.root).get('notes.txt')).toBe('edited on beta');
    expect(b.trashed).toEqual([]);
  });

  it('two computers save one file at once: one file and one conflicted copy, named the same on both and on a third', async () => {
    // Each uploads its save only once both have planned theirs: neither listing shows the other's save.
    let barrier: { waiting: number; open: () => void; opened: Promise<void> } | null = null;
    const meet = async () => {
      if (!barrier) return;
      const current = barrier;
      if (++current.waiting === 2) {
        barrier = null;
        current.open();
      }
      await current.opened;
    };
    const a = account.computer('alpha', { ...LIVE, client: hookedClient(account.client, { beforeUpload: meet }) });
    const b = account.computer('beta', { ...LIVE, client: hookedClient(account.client, { beforeUpload: meet }) });
    const told: Record<string, string[]> = { alpha: [], beta: [] };
    a.engine.on('conflict', (copy) => told.alpha!.push(copy));
    b.engine.on('conflict', (copy) => told.beta!.push(copy));
    writeFileSync(join(a.root, 'plan.txt'), 'v0');
    await bothRunning(a, b);
    await eventually(() => converged(a, b), { what: 'the first sync' });
    // Each saves from a listing that does not show the other's save yet: two new entries of one name on the drive.
    let open!: () => void;
    barrier = { waiting: 0, open: () => open(), opened: new Promise<void>((resolve) => (open = resolve)) };
    a.engine.pause();
    b.engine.pause();
    writeFileSync(join(a.root, 'plan.txt'), 'saved on alpha');
    writeFileSync(join(b.root, 'plan.txt'), 'saved on beta');
    // The watchers report the saves meanwhile (paused engines keep what they report for the resume).
    await sleep(600);
    await Promise.all([a.engine.resume(), b.engine.resume()]);
    await eventually(() => converged(a, b), { what: () => trees(a, b) });
    expect(barrier).toBeNull();
    const tree = localTree(a.root);
    const copies = [...tree.keys()].filter((path) => path.startsWith('plan (conflicted copy '));
    expect(copies, JSON.stringify(sorted(tree))).toHaveLength(1);
    expect([...tree.keys()].sort()).toEqual([copies[0], 'plan.txt'].sort());
    expect(new Set([tree.get('plan.txt'), tree.get(copies[0]!)])).toEqual(new Set(['saved on alpha', 'saved on beta']));
    // The copy names the computer that made the later entry, and it is so named on the drive too.
    const maker = tree.get(copies[0]!) === 'saved on alpha' ? 'alpha' : 'beta';
    expect(copies[0]).toMatch(new RegExp(`^plan \\(conflicted copy \\d{4}-\\d\\d-\\d\\d \\d{6} ${maker}\\)\\.txt$`));
    // Both computers tell it as a conflict (the window's Conflicts list), not as a rename.
    expect(told).toEqual({ alpha: [copies[0]], beta: [copies[0]] });
    // A third computer joining later sees the same tree, without numbered copies.
    const c = account.computer('gamma', LIVE);
    await c.engine.start();
    await settleEngine(c.engine);
    expect(sorted(localTree(c.root))).toEqual(sorted(tree));
  });

  it.each([
    ['the rename reaches the drive first', 'rename'],
    ['the new version reaches the drive first', 'edit'],
  ])('one computer renames a file while the other saves it, %s: both hold on both', async (_, first) => {
    let armed = false;
    const original = async () => (await account.entryIds()).get('f5.txt');
    let originalId: number | undefined;
    // Each computer's call waits, once armed, until the other's change is on the drive.
    const a = account.computer('alpha', {
      ...LIVE,
      client: hookedClient(account.client, {
        beforeRename: async () => {
          if (armed && first === 'edit') await eventually(async () => (await original()) !== originalId, { what: "beta's new version on the drive" });
        },
      }),
    });
    const b = account.computer('beta', {
      ...LIVE,
      client: hookedClient(account.client, {
        beforeUpload: async () => {
          if (armed && first === 'rename') await eventually(async () => (await account.entryIds()).has('fifth.txt'), { what: "alpha's rename on the drive" });
        },
      }),
    });
    writeFileSync(join(a.root, 'f5.txt'), 'v0');
    await bothRunning(a, b);
    await eventually(() => converged(a, b), { what: 'the first sync' });
    originalId = await original();
    armed = true;
    renameSync(join(a.root, 'f5.txt'), join(a.root, 'fifth.txt'));
    writeFileSync(join(b.root, 'f5.txt'), 'edited on beta');
    await eventually(async () => (await converged(a, b)) && localTree(a.root).get('fifth.txt') === 'edited on beta', { what: () => trees(a, b) });
    expect(sorted(localTree(a.root))).toEqual({ 'fifth.txt': 'edited on beta' });
    // Alpha may have polled between beta's upload and its trash of the old entry (two entries of one name for a
    // moment): then the old version, v0, goes to alpha's OS trash when the old entry leaves the drive. Nothing else.
    expect(a.trashed.every((path) => path.endsWith(`${sep}fifth.txt`))).toBe(true);
    expect(b.trashed).toEqual([]);
  });

  it.each([
    ['renames', 'fifth.txt'],
    ['moves into another folder', 'docs/f5.txt'],
  ])("one computer %s a file between the other's upload of its new version and its trash of the old one: the new version goes there on both", async (_, to) => {
    let armed = false;
    const a = account.computer('alpha', LIVE);
    const b = account.computer('beta', {
      ...LIVE,
      client: hookedClient(account.client, {
        // Beta's new version is on the drive under the old name; alpha's change to the old entry lands before its trash.
        beforeTrash: async () => {
          if (!armed) return;
          armed = false;
          renameSync(join(a.root, 'f5.txt'), join(a.root, ...to.split('/')));
          await eventually(async () => (await account.entryIds()).has(to), { what: "alpha's change on the drive" });
        },
      }),
    });
    mkdirSync(join(a.root, 'docs'));
    writeFileSync(join(a.root, 'docs', 'keep.txt'), 'k');
    writeFileSync(join(a.root, 'f5.txt'), 'v0');
    await bothRunning(a, b);
    await eventually(() => converged(a, b), { what: 'the first sync' });
    armed = true;
    writeFileSync(join(b.root, 'f5.txt'), 'edited on beta');
    const expected = { docs: '/', 'docs/keep.txt': 'k', [to]: 'edited on beta' };
    await eventually(async () => (await converged(a, b)) && localTree(a.root).get(to) === 'edited on beta', { what: () => trees(a, b) });
    expect(sorted(localTree(a.root))).toEqual(sorted(new Map(Object.entries(expected))));
    expect(sorted(localTree(b.root))).toEqual(sorted(new Map(Object.entries(expected))));
    expect(b.trashed).toEqual([]);
  });

  it('a computer restarted while the other runs starts from what it synced: what changed on either side meanwhile arrives, renames as renames', async () => {
    const a = account.computer('alpha', LIVE);
    const b = account.computer('beta', LIVE);
    mkdirSync(join(a.root, 'docs'));
    writeFileSync(join(a.root, 'docs', 'd1.txt'), 'one');
    writeFileSync(join(a.root, 'notes.txt'), 'notes');
    writeFileSync(join(a.root, 'old.txt'), 'old');
    await bothRunning(a, b);
    await eventually(() => converged(a, b), { what: 'the first sync' });
    await a.restart();
    // What alpha kept while in sync: its next start trusts it instead of listing the drive first.
    expect((a.engine as unknown as { pacing: { kept: unknown } }).pacing.kept).not.toBeNull();
    const folderInode = statSync(join(a.root, 'docs')).ino;
    const fileInode = statSync(join(a.root, 'notes.txt')).ino;
    renameSync(join(b.root, 'docs'), join(b.root, 'documents'));
    renameSync(join(b.root, 'notes.txt'), join(b.root, 'notes-renamed.txt'));
    rmSync(join(b.root, 'old.txt'));
    writeFileSync(join(b.root, 'from-beta.txt'), 'beta');
    writeFileSync(join(a.root, 'from-alpha.txt'), 'alpha, while stopped');
    await eventually(async () => (await account.entryIds()).has('documents') && (await account.entryIds()).has('from-beta.txt') && !(await account.entryIds()).has('old.txt'), { what: "beta's changes on the drive" });
    await a.engine.start();
    const expected = { documents: '/', 'documents/d1.txt': 'one', 'notes-renamed.txt': 'notes', 'from-beta.txt': 'beta', 'from-alpha.txt': 'alpha, while stopped' };
    await eventually(async () => (await converged(a, b)) && localTree(b.root).has('from-alpha.txt'), { what: () => trees(a, b) });
    expect(sorted(localTree(a.root))).toEqual(sorted(new Map(Object.entries(expected))));
    expect(statSync(join(a.root, 'documents')).ino).toBe(folderInode);
    expect(statSync(join(a.root, 'notes-renamed.txt')).ino).toBe(fileInode);
    expect(a.trashed.map((path) => path.endsWith('old.txt'))).toEqual([true]);
  });

  it('a poll between the upload of a new version and the trash of the old one leaves no numbered name behind', async () => {
    const a = account.computer('alpha', LIVE);
    let holdTrash = false;
    let seen = false;
    const b = account.computer('beta', {
      ...LIVE,
      client: hookedClient(account.client, {
        // B's new version is on the drive, its old one not yet trashed: A looks at the drive now.
        beforeTrash: async () => {
          if (!holdTrash) return;
          holdTrash = false;
          await eventually(() => readdirSync(a.root).includes('report (2).txt'), { what: "alpha's download of the new version beside the old" });
          seen = true;
        },
      }),
    });
    writeFileSync(join(a.root, 'report.txt'), 'v0');
    await bothRunning(a, b);
    await eventually(() => converged(a, b), { what: 'the first sync' });
    holdTrash = true;
    writeFileSync(join(b.root, 'report.txt'), 'v1, edited on beta only');
    await eventually(() => seen, { what: 'the poll in between' });
    await eventually(() => converged(a, b), { what: () => trees(a, b) });
    expect(sorted(localTree(a.root))).toEqual({ 'report.txt': 'v1, edited on beta only' });
  });
});

describe.each(PROFILES)('two computers in turn, the race inside a pass (once, %s)', (profile) => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode: 'once', profile });
  });
  afterEach(() => account.close());

  /**
   * Alpha and beta in sync on plan.txt, then each saves it (`onAlpha`, `onBeta`); beta syncs first, and once it has
   * planned its upload, alpha's sync brings alpha's save to the drive first: two new entries of one name.
   */
  const savedOnBoth = async (onAlpha: string, onBeta: string) => {
    const a = account.computer('alpha');
    let otherSave: (() => Promise<void>) | null = null;
    const b = account.computer('beta', {
      client: hookedClient(account.client, {
        beforeUpload: async () => {
          const save = otherSave;
          otherSave = null;
          await save?.();
        },
      }),
    });
    writeFileSync(join(a.root, 'plan.txt'), 'v0');
    await a.sync();
    await b.sync();
    writeFileSync(join(a.root, 'plan.txt'), onAlpha);
    writeFileSync(join(b.root, 'plan.txt'), onBeta);
    otherSave = async () => {
      await a.sync();
    };
    await b.sync();
    return { a, b };
  };

  it("two saves of one file: the later entry's computer resolves the duplicate; every computer names it the same", async () => {
    const { a, b } = await savedOnBoth('saved on alpha', 'saved on beta');
    // The drive holds two entries named plan.txt; A names B's "plan (2).txt" until B resolves it.
    await a.sync();
    expect(localTree(a.root).get('plan (2).txt')).toBe('saved on beta');
    await b.sync();
    await a.sync();
    const tree = localTree(a.root);
    const copy = [...tree.keys()].find((path) => path.startsWith('plan (conflicted copy '));
    expect(copy).toMatch(/ beta\)\.txt$/);
    expect(sorted(tree)).toEqual(sorted(new Map([['plan.txt', 'saved on alpha'], [copy!, 'saved on beta']])));
    expect(sorted(localTree(b.root))).toEqual(sorted(tree));
    expect(sorted(await account.remoteTree())).toEqual(sorted(tree));
    expect((await a.sync()).done).toBe(0);
    expect((await b.sync()).done).toBe(0);
  });

  it('the same bytes saved on two computers at once: one file, no conflicted copy', async () => {
    const { a, b } = await savedOnBoth('the same new text', 'the same new text');
    await b.sync();
    await a.sync();
    const expected = { 'plan.txt': 'the same new text' };
    expect(sorted(localTree(a.root))).toEqual(expected);
    expect(sorted(localTree(b.root))).toEqual(expected);
    expect(sorted(await account.remoteTree())).toEqual(expected);
  });

  /** Alpha and beta in sync on `from` (and an empty `docs` folder); alpha renames or moves it here to `to`. */
  const syncedThenMoved = async (from: string, to: string) => {
    const a = account.computer('alpha');
    const b = account.computer('beta');
    mkdirSync(join(a.root, 'docs'));
    writeFileSync(join(a.root, from), 'v0');
    await a.sync();
    await b.sync();
    renameSync(join(a.root, from), join(a.root, to));
    return { a, b };
  };
  /** Both computers and the drive hold `expected`; nothing went to an OS trash; a further sync does nothing. */
  const bothHold = async (a: Computer, b: Computer, expected: Record<string, string>) => {
    expect(sorted(localTree(a.root))).toEqual(expected);
    expect(sorted(localTree(b.root))).toEqual(expected);
    expect(sorted(await account.remoteTree())).toEqual(expected);
    expect(a.trashed).toEqual([]);
    expect(b.trashed).toEqual([]);
    expect((await a.sync()).done).toBe(0);
    expect((await b.sync()).done).toBe(0);
  };

  it.each([
    ['renamed', 'f5.txt', 'fifth.txt'],
    ['moved into another folder and renamed', 'f5.txt', 'docs/fifth.txt'],
    ['moved out of its folder', 'docs/f5.txt', 'f5.txt'],
  ])('an edit here while another computer %s the file: the edit goes to the new place, and the file follows here', async (_, from, to) => {
    const { a, b } = await syncedThenMoved(from, to);
    // Alpha tells the drive; beta saves the file before it hears of the move (a pass over what it found changed, with
    // no listing between).
    await a.sync();
    writeFileSync(join(b.root, from), 'edited on beta');
    await b.engine.syncOnce({ fullScan: true, listRemote: false });
    const expected = { docs: '/', [to]: 'edited on beta' };
    expect(sorted(localTree(b.root))).toEqual(expected);
    await a.sync();
    await bothHold(a, b, expected);
  });

  it.each([
    ['renames', 'fifth.txt'],
    ['moves into another folder', 'docs/f5.txt'],
  ])("a computer %s a file between another's upload of its new version and its trash of the old one: both changes hold", async (_, to) => {
    const a = account.computer('alpha');
    let between: (() => Promise<void>) | null = null;
    const b = account.computer('beta', {
      client: hookedClient(account.client, {
        beforeTrash: async () => {
          const change = between;
          between = null;
          await change?.();
        },
      }),
    });
    mkdirSync(join(a.root, 'docs'));
    writeFileSync(join(a.root, 'f5.txt'), 'v0');
    await a.sync();
    await b.sync();
    writeFileSync(join(b.root, 'f5.txt'), 'edited on beta');
    // Beta's new version is on the drive under the old name when alpha's change reaches the old entry.
    between = async () => {
      renameSync(join(a.root, 'f5.txt'), join(a.root, ...to.split('/')));
      await a.sync();
    };
    await b.sync();
    const expected = { docs: '/', [to]: 'edited on beta' };
    expect(sorted(await account.remoteTree())).toEqual(expected);
    await a.sync();
    await b.sync();
    expect(sorted(localTree(a.root))).toEqual(expected);
    expect(sorted(localTree(b.root))).toEqual(expected);
    // Alpha's old version (v0) leaves with the old entry, to its OS trash; nothing else.
    expect(a.trashed.map((path) => path.endsWith(to.split('/').at(-1)!))).toEqual([true]);
    expect(b.trashed).toEqual([]);
  });

  it.each([
    ['renames', 'f5.txt', 'fifth.txt'],
    ['moves and renames', 'f5.txt', 'docs/fifth.txt'],
  ])('a computer %s a file another computer just saved (its rename reaches the old, trashed entry): both changes hold', async (_, from, to) => {
    const { a, b } = await syncedThenMoved(from, to);
    // Beta's new version reaches the drive first (the old entry is trashed); alpha renames from a listing before it.
    writeFileSync(join(b.root, from), 'edited on beta');
    await b.sync();
    await a.engine.syncOnce({ fullScan: true, listRemote: false });
    const expected = { docs: '/', [to]: 'edited on beta' };
    expect(sorted(await account.remoteTree())).toEqual(expected);
    await a.sync();
    await b.sync();
    await bothHold(a, b, expected);
  });

  it('duplicate names another client made are named by entry id on every computer, and the number goes when the clash does', async () => {
    const a = account.computer('alpha');
    const b = account.computer('beta');
    const scratch = tempDir('web');
    const upload = async (content: string) => {
      writeFileSync(join(scratch, 'f'), content);
      return (await account.client.transfers.upload(join(scratch, 'f'), { name: 'a.txt', parentId: null })).id;
    };
    try {
      // B has the second one first: a computer's own order never decides the names.
      const older = await upload('older');
      await b.sync();
      const newer = await upload('newer');
      await account.client.entries.rename(older, 'renamed-away.txt');
      await b.sync();
      await account.client.entries.rename(older, 'a.txt');
      await a.sync();
      await b.sync();
      const expected = { 'a.txt': 'older', 'a (2).txt': 'newer' };
      expect(sorted(localTree(a.root))).toEqual(expected);
      expect(sorted(localTree(b.root))).toEqual(expected);
      // Nothing was renamed on the drive: another client made them.
      expect([...(await account.entryIds()).keys()].sort()).toEqual(['a.txt']);
      // The older is trashed elsewhere: the numbered one takes the name on both.
      await account.client.entries.trash([older]);
      await a.sync();
      await b.sync();
      expect(sorted(localTree(a.root))).toEqual({ 'a.txt': 'newer' });
      expect(sorted(localTree(b.root))).toEqual({ 'a.txt': 'newer' });
      expect((await account.entryIds()).get('a.txt')).toBe(newer);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
