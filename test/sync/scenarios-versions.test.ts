/**
 * Versions on a drive that has none: every saved edit is a new entry and the old one goes to the trash. Two computers
 * running live at once, both profiles of the reference server:
 * - versions saved on either computer are listed the same from both;
 * - a version restored on one computer is the file's content on both, with its star and description, no numbered name;
 * - a folder deleted and restored comes back with the latest version of each file, no numbered copies;
 * - the trash sorted into deletions and earlier versions;
 * - retention deletes for good only earlier versions past their days, never a file's newest version.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileEntry } from '../../main/api/schemas.js';
import { listTrash, pruneVersions, restoreEntries, restoreVersion, sortTrash, versionsOf } from '../../main/api/versions.js';
import { PROFILES } from '../helpers/server.js';
import { localTree, newAccount, sorted, type Account, type Computer } from '../helpers/sync.js';
import { tempDir } from '../helpers/temp.js';
import { eventually } from '../helpers/eventually.js';

const LIVE = { pollIntervalMs: 250, stabilityMs: 80, hold: { settleMs: 400, maxMs: 10_000 } } as const;

// Two engines live at once, and a version restored or pruned on each: on two busy cores a case takes more than 30 s.
describe.each(PROFILES)('versions with two computers live (%s)', { timeout: 90_000 }, (profile) => {
  let account: Account;
  let a: Computer;
  let b: Computer;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode: 'live', profile });
    a = account.computer('laptop', LIVE);
    b = account.computer('desktop', LIVE);
    await Promise.all([a.engine.start(), b.engine.start()]);
  });
  afterEach(() => account.close());

  const write = (c: Computer, path: string, text: string) => {
    const file = join(c.root, ...path.split('/'));
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
  };
  /** Both folders and the drive hold `expected` (path → content, '/' for a folder), and both engines are quiet. */
  const everywhere = async (expected: Record<string, string>) => {
    const want = JSON.stringify(sorted(new Map(Object.entries(expected))));
    await eventually(
      async () =>
        JSON.stringify(sorted(localTree(a.root))) === want &&
        JSON.stringify(sorted(localTree(b.root))) === want &&
        a.engine.isQuiet() &&
        b.engine.isQuiet() &&
        JSON.stringify(sorted(await account.remoteTree())) === want,
      { what: `both computers and the drive to hold ${want}` },
    );
  };
  /** The entry at a path of the drive, as listed now. */
  const entryAt = async (path: string): Promise<FileEntry> => {
    const id = (await account.entryIds()).get(path);
    expect(id, path).toBeDefined();
    for await (const e of account.client.entries.tree()) if (e.id === id) return e;
    throw new Error(`${path} not listed`);
  };
  const contentOf = async (entry: FileEntry): Promise<string> => {
    const dir = tempDir('version-test');
    try {
      await account.client.transfers.download(entry, join(dir, 'f'));
      return readFileSync(join(dir, 'f'), 'utf8');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const versionTexts = async (path: string) => {
    const current = await entryAt(path);
    const versions = await versionsOf(account.client, { id: current.id, parentId: current.parent_id ?? null, name: current.name });
    return Promise.all(versions.map(contentOf));
  };

  it('versions saved on both computers are listed alike; one restored on one computer is the content on both, with its star and description', async () => {
    write(a, 'Docs/todo.txt', 'one');
    await everywhere({ Docs: '/', 'Docs/todo.txt': 'one' });
    write(b, 'Docs/todo.txt', 'two by the desktop');
    await everywhere({ Docs: '/', 'Docs/todo.txt': 'two by the desktop' });
    write(a, 'Docs/todo.txt', 'three by the laptop');
    await everywhere({ Docs: '/', 'Docs/todo.txt': 'three by the laptop' });
    // The drive alone says what the versions are: either computer's view of the file finds the same list, newest first.
    expect(await versionTexts('Docs/todo.txt')).toEqual(['two by the desktop', 'one']);

    const current = await entryAt('Docs/todo.txt');
    await account.client.entries.star([current.id]);
    await account.client.entries.update(current.id, { description: 'the list' });
    const described = await entryAt('Docs/todo.txt');
    const [, first] = await versionsOf(account.client, { id: current.id, parentId: current.parent_id ?? null, name: current.name });
    const restored = await restoreVersion(account.client, described, first!);

    await everywhere({ Docs: '/', 'Docs/todo.txt': 'one' });
    expect((await entryAt('Docs/todo.txt')).id).toBe(restored.id);
    expect((await entryAt('Docs/todo.txt')).description).toBe('the list');
    const starred: number[] = [];
    for await (const e of account.client.entries.list({ starredOnly: true })) starred.push(e.id);
    expect(starred).toContain(restored.id);
    // What the file held is now its newest earlier version; nothing in the trash reads as a deletion.
    expect(await versionTexts('Docs/todo.txt')).toEqual(['three by the laptop', 'two by the desktop', 'one']);
    expect((await sortTrash(account.client)).deletions).toEqual([]);
    expect(a.trashed.concat(b.trashed).filter((p) => /\(\d+\)/.test(p))).toEqual([]);
  });

  it('a folder deleted after an edit and restored comes back with the latest version of each file, no numbered copies', async () => {
    write(a, 'Archive/todo.txt', 'old text');
    write(a, 'Archive/keep.txt', 'unchanged');
    await everywhere({ Archive: '/', 'Archive/todo.txt': 'old text', 'Archive/keep.txt': 'unchanged' });
    write(b, 'Archive/todo.txt', 'the edit');
    await everywhere({ Archive: '/', 'Archive/todo.txt': 'the edit', 'Archive/keep.txt': 'unchanged' });
    rmSync(join(a.root, 'Archive'), { recursive: true });
    await everywhere({});

    const { deletions, versions } = await sortTrash(account.client);
    expect(deletions.map((e) => e.name)).toEqual(['Archive']);
    expect(versions).toEqual([]);
    const { retrashed } = await restoreEntries(account.client, deletions);
    // The reference server brings back everything trashed inside the folder, the earlier version too: it goes back.
    expect(retrashed.map((e) => e.name)).toEqual(['todo.txt']);

    await everywhere({ Archive: '/', 'Archive/todo.txt': 'the edit', 'Archive/keep.txt': 'unchanged' });
    expect(await versionTexts('Archive/todo.txt')).toEqual(['old text']);
  });

  it('the trash sorted: a deleted file is one deletion whatever its versions; an earlier version of a file that is there is not a deletion', async () => {
    write(a, 'notes.txt', 'first');
    write(a, 'kept.txt', 'kept 1');
    await everywhere({ 'notes.txt': 'first', 'kept.txt': 'kept 1' });
    write(b, 'notes.txt', 'second');
    write(b, 'kept.txt', 'kept 2');
    await everywhere({ 'notes.txt': 'second', 'kept.txt': 'kept 2' });
    rmSync(join(a.root, 'notes.txt'));
    await everywhere({ 'kept.txt': 'kept 2' });

    const { deletions, versions } = await sortTrash(account.client);
    expect(deletions.map((e) => e.name)).toEqual(['notes.txt']);
    expect(await contentOf(deletions[0]!)).toBe('second');
    const described = await Promise.all(versions.map(async (v) => [v.entry.name, await contentOf(v.entry), v.current, await contentOf(v.of)]));
    expect(described.sort()).toEqual([
      ['kept.txt', 'kept 1', true, 'kept 2'],
      ['notes.txt', 'first', false, 'second'],
    ]);
  });

  it('versions past their days are deleted for good by the engine that finds them; a newest version never is', async () => {
    write(a, 'report.txt', 'draft');
    write(a, 'gone.txt', 'gone 1');
    await everywhere({ 'report.txt': 'draft', 'gone.txt': 'gone 1' });
    write(a, 'report.txt', 'final');
    write(a, 'gone.txt', 'gone 2');
    await everywhere({ 'report.txt': 'final', 'gone.txt': 'gone 2' });
    rmSync(join(b.root, 'gone.txt'));
    await everywhere({ 'report.txt': 'final' });
    expect((await listTrash(account.client)).length).toBe(3);

    // Kept for 30 days, seen 31 days on: only the two earlier versions go.
    const pruned = await pruneVersions(account.client, 30, new Date(Date.now() + 31 * 86_400_000));
    expect(pruned.map((e) => e.name).sort()).toEqual(['gone.txt', 'report.txt']);
    const left = await listTrash(account.client);
    expect(left.map((e) => [e.name, e.id])).toEqual([['gone.txt', expect.any(Number)]]);
    expect(await contentOf(left[0]!)).toBe('gone 2');

    // An engine that keeps versions no time at all deletes a fresh one at its first look at the drive, in its folder.
    await a.engine.stop();
    const c = account.computer('third', { ...LIVE, keepVersionsDays: () => 0, versionsCheckMs: 200 });
    await c.engine.start();
    write(b, 'report.txt', 'final, again');
    // The earlier version is in the trash only between the upload and the third engine's next look (200 ms), too short
    // to wait for: what shows it was made is the drive holding the new content, and what shows it was deleted for good
    // is a trash that holds nothing of report.txt afterwards.
    // The new entry is made before the old one is trashed: the second computer's pass has ended when it is quiet.
    await eventually(async () => (await contentOf(await entryAt('report.txt'))) === 'final, again' && b.engine.isQuiet(), { what: 'the edit on the drive' });
    await eventually(async () => (await listTrash(account.client)).every((e) => e.name !== 'report.txt'), { what: 'the engine to delete it for good' });
    expect((await sortTrash(account.client)).versions).toEqual([]);
    expect((await listTrash(account.client)).map((e) => e.name)).toEqual(['gone.txt']);
    // The third computer has the file as it is now; the version deleted for good was only ever an earlier one.
    await eventually(() => c.file('report.txt') === 'final, again', { what: 'the third computer to have the newest version' });
  });
});
