/**
 * What people do to a synced folder while the engine watches it, each run in both modes: once (a full pass over the
 * before and after trees) and live (the change made while the engine runs). Renames and moves stay renames —
 * the same entry ids, nothing uploaded again — and the outcome is the same in both modes.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localTree, SCENARIO_CASES, newAccount, sorted, type Account, type Computer } from '../helpers/sync.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../helpers/temp.js';

describe.each(SCENARIO_CASES)('what people do to a watched folder (%s, %s)', (mode, profile) => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode, profile });
  });
  afterEach(() => account.close());

  const ids = () => account.entryIds();
  /** Requests other than listings since `mark`. */
  const sent = (mark: number) => account.requests.slice(mark).filter((r) => !r.startsWith('GET /drive/file-entries'));
  const uploads = (mark: number) => sent(mark).filter((r) => r === 'POST /uploads');
  const write = (c: Computer, path: string, content: string) => {
    mkdirSync(join(c.root, ...path.split('/').slice(0, -1)), { recursive: true });
    writeFileSync(join(c.root, ...path.split('/')), content);
  };
  const mv = (c: Computer, from: string, to: string) => renameSync(join(c.root, ...from.split('/')), join(c.root, ...to.split('/')));

  /** The drive and the folder hold the same tree. */
  const expectConverged = async (c: Computer, ignored?: string) => {
    const local = [...localTree(c.root)].filter(([path]) => ignored === undefined || (path !== ignored && !path.startsWith(`${ignored}/`)));
    expect(sorted(await account.remoteTree())).toEqual(sorted(new Map(local)));
  };

  it('a file renamed and moved between folders keeps its entry, star and link; nothing is uploaded again', async () => {
    const a = account.computer('alpha');
    write(a, 'docs/a.txt', 'a file with a star, a share and a link');
    mkdirSync(join(a.root, 'archive'));
    await a.sync();
    const before = await ids();
    const id = before.get('docs/a.txt')!;
    await account.client.entries.star([id]);
    const link = await account.client.links.create(id, { password: 'secret-pw' });
    const mark = account.requests.length;
    mv(a, 'docs/a.txt', 'docs/b.txt');
    await a.sync();
    mv(a, 'docs/b.txt', 'archive/b.txt');
    await a.sync();
    expect(sent(mark)).toEqual([`PUT /file-entries/${id}`, 'POST /file-entries/move']);
    const after = await ids();
    expect(after.get('archive/b.txt')).toBe(id);
    expect((await account.client.links.get(id))?.link.hash).toBe(link.hash);
    expect((await account.client.entries.list({ starredOnly: true }).next()).value?.id).toBe(id);
    expect(a.trashed).toEqual([]);
    await expectConverged(a);
  });

  it('a folder of 1,000 files renamed, then moved into another folder: one request each, zero uploads', async () => {
    const a = account.computer('alpha');
    mkdirSync(join(a.root, 'big'));
    for (let i = 0; i < 1000; i++) writeFileSync(join(a.root, 'big', `f${i}.txt`), `${i}`);
    mkdirSync(join(a.root, 'shelf'));
    await a.sync();
    const before = await ids();
    const mark = account.requests.length;
    mv(a, 'big', 'huge');
    await a.sync();
    mv(a, 'huge', 'shelf/huge');
    await a.sync();
    expect(sent(mark)).toEqual([`PUT /file-entries/${before.get('big')}`, 'POST /file-entries/move']);
    const after = await ids();
    expect(after.get('shelf/huge/f999.txt')).toBe(before.get('big/f999.txt'));
    expect(after.size).toBe(before.size);
  });

  it('a rename chain (a→b, b→c) is one rename; a swap through a third name keeps both ids', async () => {
    const a = account.computer('alpha');
    write(a, 'a.txt', 'content of a');
    write(a, 'x.txt', 'content of x');
    write(a, 'y.txt', 'content of y, longer');
    await a.sync();
    const before = await ids();
    const mark = account.requests.length;
    mv(a, 'a.txt', 'b.txt');
    await sleep(50);
    mv(a, 'b.txt', 'c.txt');
    // x ↔ y, as a script does it.
    mv(a, 'x.txt', 'swap.dat');
    mv(a, 'y.txt', 'x.txt');
    mv(a, 'swap.dat', 'y.txt');
    await a.sync();
    await a.sync();
    const after = await ids();
    expect(after.get('c.txt')).toBe(before.get('a.txt'));
    expect(after.get('x.txt')).toBe(before.get('y.txt'));
    expect(after.get('y.txt')).toBe(before.get('x.txt'));
    expect(uploads(mark)).toEqual([]);
    expect(sent(mark).filter((r) => r.startsWith('DELETE /file-entries'))).toEqual([]);
    expect(a.file('x.txt')).toBe('content of y, longer');
    await expectConverged(a);
  });

  it('an atomic save (write a temp file, rename it over) is one edit of the file', async () => {
    const a = account.computer('alpha');
    write(a, 'notes/plan.md', 'version 1');
    await a.sync();
    const mark = account.requests.length;
    writeFileSync(join(a.root, 'notes', '.plan.md.swp'), 'editor swap');
    writeFileSync(join(a.root, 'notes', 'plan.md.tmp'), 'version 2, saved atomically');
    mv(a, 'notes/plan.md.tmp', 'notes/plan.md');
    rmSync(join(a.root, 'notes', '.plan.md.swp'));
    await a.sync();
    expect(uploads(mark)).toHaveLength(1);
    expect(sorted(await account.remoteTree())).toEqual({ notes: '/', 'notes/plan.md': 'version 2, saved atomically' });
    await expectConverged(a);
  });

  it('a git branch switch (hundreds of deletes, creates and edits at once) ends as a full pass would', async () => {
    const a = account.computer('alpha');
    const repo = join(a.root, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: repo, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    // The work tree is what this is about (git's object folders have two-character names, a case of their own).
    writeFileSync(join(a.root, '.syncignore'), 'repo/.git/\n');
    for (let i = 0; i < 100; i++) write(a, `repo/src/shared${i}.ts`, `export const v${i} = ${i};`);
    for (let i = 0; i < 100; i++) write(a, `repo/old/only-main${i}.ts`, `main ${i}`);
    git('add', '-A');
    git('commit', '-q', '-m', 'main');
    git('checkout', '-q', '-b', 'feature');
    rmSync(join(repo, 'old'), { recursive: true });
    for (let i = 0; i < 100; i++) write(a, `repo/new/only-feature${i}.ts`, `feature ${i}`);
    for (let i = 0; i < 20; i++) write(a, `repo/src/shared${i}.ts`, `export const v${i} = ${i * 100}; // changed on the branch`);
    git('add', '-A');
    git('commit', '-q', '-m', 'feature');
    git('checkout', '-q', 'main');
    await a.sync();
    const before = await ids();
        git('checkout', '-q', 'feature');
    await a.sync();
    await a.sync();
    await expectConverged(a, 'repo/.git');
    const after = await ids();
    // Files the switch left alone keep their entries.
    expect(after.get('repo/src/shared50.ts')).toBe(before.get('repo/src/shared50.ts'));
    expect(after.has('repo/old')).toBe(false);
    expect(after.has('repo/.git')).toBe(false);
    expect(after.get('repo/new/only-feature99.ts')).toBeDefined();
    expect(a.trashed).toEqual([]);
  });

  it('a folder deleted and restored from the trash before the engine acted keeps its entries; restored later, its content comes back', async () => {
    const a = account.computer('alpha');
    write(a, 'album/one.jpg', 'one');
    write(a, 'album/two.jpg', 'two');
    write(a, 'keep.txt', 'keep');
    await a.sync();
    const before = await ids();
    const trash = tempDir('os-trash');
    // Deleted to the OS trash (a move out of the folder), restored at once (a move back in): nothing happened.
    let mark = account.requests.length;
    renameSync(join(a.root, 'album'), join(trash, 'album'));
    renameSync(join(trash, 'album'), join(a.root, 'album'));
    await a.sync();
    expect(sent(mark)).toEqual([]);
    expect(await ids()).toEqual(before);
    // Deleted, synced as a deletion, and restored afterwards: the folder and its files are on the drive again.
    renameSync(join(a.root, 'album'), join(trash, 'album'));
    await a.sync();
    expect((await ids()).has('album')).toBe(false);
    mark = account.requests.length;
    renameSync(join(trash, 'album'), join(a.root, 'album'));
    await a.sync();
    expect(uploads(mark)).toHaveLength(2);
    await expectConverged(a);
    rmSync(trash, { recursive: true, force: true });
  });

  it('rm -rf of a folder trashes it remotely (restorable); a folder moved out is a deletion, one moved in is new', async () => {
    const a = account.computer('alpha');
    write(a, 'build/out.bin', 'artifact');
    write(a, 'leaving/l.txt', 'leaving');
    write(a, 'stay.txt', 'stay');
    write(a, 'pad1.txt', 'padding so the guard does not ask');
    write(a, 'pad2.txt', 'padding');
    write(a, 'pad3.txt', 'padding');
    await a.sync();
    const outside = tempDir('outside');
    mkdirSync(join(outside, 'arriving'));
    writeFileSync(join(outside, 'arriving', 'r.txt'), 'arriving');
    rmSync(join(a.root, 'build'), { recursive: true });
    renameSync(join(a.root, 'leaving'), join(outside, 'leaving'));
    renameSync(join(outside, 'arriving'), join(a.root, 'arriving'));
    await a.sync();
    const tree = sorted(await account.remoteTree());
    expect(tree).toEqual({ arriving: '/', 'arriving/r.txt': 'arriving', 'pad1.txt': 'padding so the guard does not ask', 'pad2.txt': 'padding', 'pad3.txt': 'padding', 'stay.txt': 'stay' });
    const trashed = [];
    for await (const e of account.client.entries.list({ deletedOnly: true })) trashed.push(e.name);
    expect(trashed.sort()).toEqual(expect.arrayContaining(['build', 'leaving']));
    await expectConverged(a);
    rmSync(outside, { recursive: true, force: true });
  });

  it('a remote rename and move picked up by polling move the local file: same inode, nothing downloaded', async () => {
    const a = account.computer('alpha');
    write(a, 'inbox/letter.txt', 'dear reader');
    mkdirSync(join(a.root, 'filed'));
    await a.sync();
    const inode = statSync(join(a.root, 'inbox', 'letter.txt')).ino;
    const before = await ids();
    await account.client.entries.rename(before.get('inbox/letter.txt')!, 'answered.txt');
    await account.client.entries.move([before.get('inbox/letter.txt')!], before.get('filed')!);
    const mark = account.requests.length;
    await a.sync();
    expect(sent(mark)).toEqual([]);
    expect(statSync(join(a.root, 'filed', 'answered.txt')).ino).toBe(inode);
    await expectConverged(a);
  });
});
