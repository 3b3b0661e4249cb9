import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeletionQuestion } from '../../main/sync/engine/deletions.js';
import { localTree, newAccount, sorted, type Account, SCENARIO_CASES } from '../helpers/sync.js';

describe.each(SCENARIO_CASES)('sync scenarios: deletes, ignores and guards (%s, %s)', (mode, profile) => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode, profile });
  });
  afterEach(() => account.close());

  it('2. first sync with identical files on both sides uploads nothing; different content at one path is a conflict', async () => {
    const a = account.computer('alpha');
    writeFileSync(join(a.root, 'same.txt'), 'same content');
    writeFileSync(join(a.root, 'differs.txt'), 'remote version');
    await a.sync();
    const b = account.computer('beta');
    writeFileSync(join(b.root, 'same.txt'), 'same content');
    writeFileSync(join(b.root, 'differs.txt'), 'local version!');
    const mark = account.requests.length;
    expect((await b.sync()).inSync).toBe(true);
    const sent = account.requests.slice(mark);
    // One upload: the conflicted copy. same.txt is matched, not uploaded.
    expect(sent.filter((r) => r === 'POST /uploads')).toHaveLength(1);
    const tree = localTree(b.root);
    expect(tree.get('same.txt')).toBe('same content');
    expect(tree.get('differs.txt')).toBe('remote version');
    const copy = [...tree.keys()].find((p) => p.startsWith('differs (conflicted copy'));
    expect(copy && tree.get(copy)).toBe('local version!');
    expect(sorted(await account.remoteTree())).toEqual(sorted(tree));
  });

  it('4. edit beats delete in both directions; delete/delete converges', async () => {
    const a = account.computer('alpha');
    const b = account.computer('beta');
    for (const name of ['edited-here.txt', 'edited-there.txt', 'both-gone.txt']) writeFileSync(join(a.root, name), name);
    await a.sync();
    await b.sync();
    writeFileSync(join(a.root, 'edited-here.txt'), 'edited on alpha');
    rmSync(join(b.root, 'edited-here.txt'));
    rmSync(join(a.root, 'edited-there.txt'));
    writeFileSync(join(b.root, 'edited-there.txt'), 'edited on beta');
    rmSync(join(a.root, 'both-gone.txt'));
    rmSync(join(b.root, 'both-gone.txt'));
    await a.sync();
    await b.sync();
    await a.sync();
    const expected = { 'edited-here.txt': 'edited on alpha', 'edited-there.txt': 'edited on beta' };
    expect(sorted(localTree(a.root))).toEqual(expected);
    expect(sorted(localTree(b.root))).toEqual(expected);
    expect(sorted(await account.remoteTree())).toEqual(expected);
    expect((await a.sync()).done).toBe(0);
    expect((await b.sync()).done).toBe(0);
  });

  it('5. a remote folder deleted while a new local file was added inside: folder and file survive', async () => {
    const a = account.computer('alpha');
    const b = account.computer('beta');
    mkdirSync(join(a.root, 'project'));
    writeFileSync(join(a.root, 'project', 'old.txt'), 'old');
    await a.sync();
    await b.sync();
    rmSync(join(a.root, 'project'), { recursive: true });
    await a.sync();
    writeFileSync(join(b.root, 'project', 'new.txt'), 'new work');
    await b.sync();
    await a.sync();
    const expected = { project: '/', 'project/new.txt': 'new work' };
    expect(sorted(localTree(b.root))).toEqual(expected);
    expect(sorted(localTree(a.root))).toEqual(expected);
    expect(sorted(await account.remoteTree())).toEqual(expected);
  });

  it('13. temp files and .syncignore are never uploaded; a symlink is reported and skipped', async () => {
    const a = account.computer('alpha');
    writeFileSync(join(a.root, '.syncignore'), 'build/\n*.log\n');
    for (const name of ['~$report.docx', '.~lock.sheet.ods#', 'edit.swp', 'x.tmp', 'movie.part', 'get.crdownload', '.DS_Store', 'Thumbs.db', 'desktop.ini', 'debug.log']) {
      writeFileSync(join(a.root, name), 'temp');
    }
    mkdirSync(join(a.root, 'build'));
    writeFileSync(join(a.root, 'build', 'out.bin'), 'binary');
    writeFileSync(join(a.root, 'keep.txt'), 'keep');
    symlinkSync('/etc/hostname', join(a.root, 'link-to-outside'));
    const errors: string[] = [];
    a.engine.on('item-error', (e) => errors.push(`${e.path}: ${e.message}${e.leftOut ? ' (left out)' : ''}`));
    const summary = await a.sync();
    expect(sorted(await account.remoteTree())).toEqual({ '.syncignore': 'build/\n*.log\n', 'keep.txt': 'keep' });
    // Told once as it is found, marked as left out by design: a front end does not list it as an error.
    expect(errors).toEqual(['link-to-outside: symbolic links are not synced (left out)']);
    // Left out by design: listed as skipped, and the folder is in sync all the same (as Nextcloud and Maestral do).
    expect(summary).toMatchObject({ inSync: true, failed: [], ignored: 11 });
    expect(summary.skipped.map((s) => s.path).sort()).toEqual(
      ['link-to-outside', '~$report.docx', '.~lock.sheet.ods#', 'edit.swp', 'x.tmp', 'movie.part', 'get.crdownload', '.DS_Store', 'Thumbs.db', 'desktop.ini', 'debug.log', 'build'].sort(),
    );
  });

  it('a name that is not valid UTF-8 is reported readably as not synced (a failure), and nothing is deleted on either side', async () => {
    const a = account.computer('alpha');
    writeFileSync(join(a.root, 'fine.txt'), 'fine');
    await a.sync();
    // Legacy-encoded names: Latin-1 bytes in a file name and in a folder name.
    const latin1 = (name: string) => Buffer.concat([Buffer.from(join(a.root, '/')), Buffer.from(name, 'latin1')]);
    writeFileSync(latin1('caf\xe9.txt'), 'coffee');
    mkdirSync(latin1('r\xe9sum\xe9s'));
    const summary = await a.sync();
    expect(summary.inSync).toBe(false);
    expect(summary.failed.map((f) => f.path).sort()).toEqual(['caf\\xe9.txt', 'r\\xe9sum\\xe9s']);
    expect(summary.failed[0]?.message).toMatch(/not valid UTF-8.*rename it/);
    expect(sorted(await account.remoteTree())).toEqual({ 'fine.txt': 'fine' });
    expect(readdirSync(a.root, { encoding: 'buffer' })).toHaveLength(4); // fine.txt, the two, and .drivesync
    expect(a.trashed).toEqual([]);
  });

  it('a synced file or folder renamed to a name that is not valid UTF-8 stays on the drive as it was (a failure, not a deletion); renamed back to a good name it is a rename', async () => {
    const a = account.computer('alpha');
    mkdirSync(join(a.root, 'docs'));
    writeFileSync(join(a.root, 'docs', 'readme.md'), 'read me');
    writeFileSync(join(a.root, 'docs', 'other.md'), 'other');
    mkdirSync(join(a.root, 'photos'));
    writeFileSync(join(a.root, 'photos', 'cat.jpg'), 'cat');
    await a.sync();
    const before = await account.entryIds();
    const latin1 = (...parts: string[]) => Buffer.concat([Buffer.from(join(a.root, ...parts.slice(0, -1), '/')), Buffer.from(parts.at(-1)!, 'latin1')]);
    renameSync(join(a.root, 'docs', 'readme.md'), latin1('docs', 'l\xe9ame.md'));
    renameSync(join(a.root, 'photos'), latin1('f\xf6tos'));
    const summary = await a.sync();
    expect(summary.inSync).toBe(false);
    expect(summary.failed.map((f) => f.path).sort()).toEqual(['docs/l\\xe9ame.md', 'f\\xf6tos']);
    // Nothing was trashed or changed on the drive, and nothing here.
    expect(await account.entryIds()).toEqual(before);
    expect(a.trashed).toEqual([]);
    // Renamed to names the drive can take: renames of the same entries.
    renameSync(latin1('docs', 'l\xe9ame.md'), join(a.root, 'docs', 'leame.md'));
    renameSync(latin1('f\xf6tos'), join(a.root, 'fotos'));
    expect(await a.sync()).toMatchObject({ inSync: true, failed: [] });
    const after = await account.entryIds();
    expect(after.get('docs/leame.md')).toBe(before.get('docs/readme.md'));
    expect(after.get('fotos')).toBe(before.get('photos'));
    expect(after.get('fotos/cat.jpg')).toBe(before.get('photos/cat.jpg'));
    expect(a.trashed).toEqual([]);
  });

  it('synced items moved into a new folder whose name the drive refuses fail the pass and stay on the drive as they were; under a longer name they are moved', async () => {
    const a = account.computer('alpha');
    mkdirSync(join(a.root, 'lib', 'unzipper'), { recursive: true });
    writeFileSync(join(a.root, 'lib', 'unzipper', 'index.js'), 'index');
    writeFileSync(join(a.root, 'deep.txt'), 'deep');
    await a.sync();
    const before = await account.entryIds();
    mkdirSync(join(a.root, 'ab'));
    renameSync(join(a.root, 'lib', 'unzipper'), join(a.root, 'ab', 'unzipper'));
    renameSync(join(a.root, 'deep.txt'), join(a.root, 'ab', 'deep.txt'));
    const summary = await a.sync();
    expect(summary.inSync).toBe(false);
    expect(summary.failed).toEqual([{ path: 'ab', message: expect.stringMatching(/"ab" cannot be made there, and what was moved into it stays where it was on the drive; rename the folder/) }]);
    expect(summary.skipped.map((s) => s.path)).not.toContain('ab');
    expect(await account.entryIds()).toEqual(before);
    expect(a.trashed).toEqual([]);
    renameSync(join(a.root, 'ab'), join(a.root, 'abc'));
    expect(await a.sync()).toMatchObject({ inSync: true, failed: [] });
    const after = await account.entryIds();
    expect(after.get('abc/unzipper')).toBe(before.get('lib/unzipper'));
    expect(after.get('abc/unzipper/index.js')).toBe(before.get('lib/unzipper/index.js'));
    expect(after.get('abc/deep.txt')).toBe(before.get('deep.txt'));
  });

  it('13. a file with a temp name another client uploaded is downloaded and stays synced, not trashed', async () => {
    const a = account.computer('alpha');
    writeFileSync(join(a.root, '.syncignore'), 'build/\n');
    await a.sync();
    const source = join(a.root, '..', 'notes.tmp'); // outside the synced folder
    writeFileSync(source, 'kept by another client');
    await account.client.transfers.upload(source, { name: 'notes.tmp', parentId: null });
    const folder = await account.client.entries.createFolder('build', null);
    writeFileSync(source, 'built elsewhere');
    await account.client.transfers.upload(source, { name: 'out.bin', parentId: folder.id });
    await a.sync();
    expect(a.file('notes.tmp')).toBe('kept by another client');
    expect(a.file('build/out.bin')).toBe('built elsewhere');
    for (let pass = 0; pass < 2; pass++) {
      const summary = await a.sync();
      expect(summary).toMatchObject({ done: 0, inSync: true });
    }
    expect(sorted(await account.remoteTree())).toEqual({
      '.syncignore': 'build/\n',
      build: '/',
      'build/out.bin': 'built elsewhere',
      'notes.tmp': 'kept by another client',
    });
    // Edited here, it is an edit like any other: synced items keep syncing whatever their name.
    writeFileSync(join(a.root, 'notes.tmp'), 'edited here');
    await a.sync();
    expect((await account.remoteTree()).get('notes.tmp')).toBe('edited here');
  });

  it('folders with names under 3 characters, at every depth, reach the drive and the other computer; an empty one is left out, not failed', async () => {
    const a = account.computer('alpha');
    const b = account.computer('beta');
    const files = { 'js/app.js': 'app', 'js/ui/menu.js': 'menu', 'docs/en/readme.md': 'readme', 'a/b/c/deep.txt': 'deep', 'top.txt': 'top' };
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(a.root, ...path.split('/').slice(0, -1)), { recursive: true });
      writeFileSync(join(a.root, ...path.split('/')), content);
    }
    mkdirSync(join(a.root, 'db'));
    const first = await a.sync();
    expect(first).toMatchObject({ inSync: true, failed: [] });
    expect(first.skipped).toEqual([{ path: 'db', message: expect.stringContaining('empty folder named "db"') }]);
    const expected = Object.fromEntries(Object.entries(sorted(localTree(a.root))).filter(([path]) => path !== 'db'));
    expect(sorted(await account.remoteTree())).toEqual(expected);
    expect(await b.sync()).toMatchObject({ inSync: true, failed: [] });
    expect(sorted(localTree(b.root))).toEqual(expected);
    // Once it holds a file, the empty one follows.
    writeFileSync(join(a.root, 'db', 'rows.sql'), 'rows');
    await a.sync();
    expect((await account.remoteTree()).get('db/rows.sql')).toBe('rows');
  });

  it('a rename to a name under 3 characters keeps the entry under its old name on the drive; a rename back to a longer one renames it', async () => {
    const a = account.computer('alpha');
    mkdirSync(join(a.root, 'data'));
    writeFileSync(join(a.root, 'data', 'rows.sql'), 'rows');
    writeFileSync(join(a.root, 'abc.txt'), 'abc');
    await a.sync();
    const ids = async () => {
      const out = new Map<string, number>();
      for await (const e of account.client.entries.tree()) out.set(e.name, e.id);
      return out;
    };
    const before = await ids();
    const notices: string[] = [];
    a.engine.on('notice', (message) => notices.push(message));
    renameSync(join(a.root, 'data'), join(a.root, 'db'));
    renameSync(join(a.root, 'abc.txt'), join(a.root, 'ab'));
    expect(await a.sync()).toMatchObject({ inSync: true, failed: [] });
    expect(await ids()).toEqual(before);
    expect(sorted(await account.remoteTree())).toEqual({ 'abc.txt': 'abc', data: '/', 'data/rows.sql': 'rows' });
    expect(notices).toEqual(expect.arrayContaining([expect.stringMatching(/^db: .*kept there as "data"/), expect.stringMatching(/^ab: .*kept there as "abc.txt"/)]));
    renameSync(join(a.root, 'db'), join(a.root, 'database'));
    expect(await a.sync()).toMatchObject({ inSync: true, failed: [] });
    expect((await ids()).get('database')).toBe(before.get('data'));
    expect(sorted(await account.remoteTree())).toEqual({ 'abc.txt': 'abc', database: '/', 'database/rows.sql': 'rows' });
  });

  it('16. a pass that would delete more than half of the files stops and asks; with consent it proceeds', async () => {
    const a = account.computer('alpha');
    const b = account.computer('beta');
    for (let i = 0; i < 20; i++) writeFileSync(join(a.root, `f${i}.txt`), `${i}`);
    await a.sync();
    await b.sync();
    for (let i = 0; i < 15; i++) rmSync(join(a.root, `f${i}.txt`));
    const asked: number[] = [];
    a.engine.on('confirm-deletions', (q) => asked.push(q.count));
    const first = await a.sync();
    expect(first.needsConfirmation).toBe(true);
    expect(asked).toEqual([15]);
    expect((await account.remoteTree()).size).toBe(20);
    a.engine.confirmDeletions();
    expect((await a.sync()).inSync).toBe(true);
    expect((await account.remoteTree()).size).toBe(5);
    await b.sync(); // 15 of 20 from beta's side too: it asks as well
    expect(localTree(b.root).size).toBe(20);
    b.engine.confirmDeletions();
    await b.sync();
    expect(sorted(localTree(b.root))).toEqual(sorted(localTree(a.root)));
  });

  it('16. a question never stops a sync: the deletions wait for the answer, and everything else goes on both ways', async () => {
    const a = account.computer('alpha');
    const b = account.computer('beta');
    mkdirSync(join(a.root, 'Project'));
    for (let i = 0; i < 20; i++) writeFileSync(join(a.root, 'Project', `f${i}.txt`), `${i}`);
    writeFileSync(join(a.root, 'notes.txt'), 'notes');
    await a.sync();
    await b.sync();
    rmSync(join(a.root, 'Project'), { recursive: true });
    writeFileSync(join(a.root, 'new-here.txt'), 'made on alpha while asked');
    writeFileSync(join(b.root, 'notes.txt'), 'edited on beta');
    await b.sync();
    const asked: DeletionQuestion[] = [];
    a.engine.on('confirm-deletions', (q) => asked.push(q));
    const first = await a.sync();
    expect(first).toMatchObject({ needsConfirmation: true, inSync: false });
    expect(asked.map((q) => q.count)).toEqual([21]);
    // Held, not made: the drive keeps the folder; the new file went up and beta's edit came down.
    const remote = await account.remoteTree();
    expect(remote.get('Project/f0.txt')).toBe('0');
    expect(remote.get('new-here.txt')).toBe('made on alpha while asked');
    expect(localTree(a.root).get('notes.txt')).toBe('edited on beta');
    // Not forgotten: a later pass, and a new change, still wait for the same answer.
    writeFileSync(join(a.root, 'later.txt'), 'later');
    expect((await a.sync()).needsConfirmation).toBe(true);
    // (A paused computer resumed is asked again: the same question.)
    expect(asked.every((q) => q.count === 21 && q.groups[0]?.items[0]?.path === 'Project')).toBe(true);
    expect((await account.remoteTree()).get('later.txt')).toBe('later');
    a.engine.confirmDeletions();
    expect((await a.sync()).inSync).toBe(true);
    expect([...(await account.remoteTree()).keys()].filter((p) => p.startsWith('Project'))).toEqual([]);
  });

  it('16. a folder emptied and filled anew while its deletions wait: what is new goes up; kept, both are there', async () => {
    const a = account.computer('alpha');
    mkdirSync(join(a.root, 'Project'));
    for (let i = 0; i < 12; i++) writeFileSync(join(a.root, 'Project', `f${i}.txt`), `${i}`);
    await a.sync();
    rmSync(join(a.root, 'Project'), { recursive: true });
    mkdirSync(join(a.root, 'Project'));
    writeFileSync(join(a.root, 'Project', 'fresh.txt'), 'fresh');
    writeFileSync(join(a.root, 'elsewhere.txt'), 'elsewhere');
    expect((await a.sync()).needsConfirmation).toBe(true);
    const remote = await account.remoteTree();
    expect(remote.get('elsewhere.txt')).toBe('elsewhere');
    expect(remote.get('Project/f0.txt')).toBe('0');
    expect(remote.get('Project/fresh.txt')).toBe('fresh');
    a.engine.keepDeletions();
    expect((await a.sync()).inSync).toBe(true);
    const kept = localTree(a.root);
    expect(kept.get('Project/f0.txt')).toBe('0');
    expect(kept.get('Project/fresh.txt')).toBe('fresh');
    expect(sorted(await account.remoteTree())).toEqual(sorted(kept));
  });

  it('16. deletions arriving in small pieces still meet the guard', async () => {
    const a = account.computer('alpha');
    for (let i = 0; i < 20; i++) writeFileSync(join(a.root, `f${i}.txt`), `${i}`);
    await a.sync();
    for (let i = 0; i < 6; i++) rmSync(join(a.root, `f${i}.txt`));
    expect((await a.sync()).needsConfirmation).toBe(false);
    for (let i = 6; i < 12; i++) rmSync(join(a.root, `f${i}.txt`));
    const asked: number[] = [];
    a.engine.on('confirm-deletions', (q) => asked.push(q.count));
    expect((await a.sync()).needsConfirmation).toBe(true);
    expect(asked).toEqual([12]);
    expect((await account.remoteTree()).size).toBe(14);
  });

  it('a sync asked for while one runs is done by one follow-up pass with everything it asked for', async () => {
    const a = account.computer('alpha');
    writeFileSync(join(a.root, 'first.txt'), 'first');
    const running = a.engine.syncOnce({ fullScan: true });
    writeFileSync(join(a.root, 'second.txt'), 'second');
    const followUp = a.engine.syncOnce({ fullScan: true });
    const again = a.engine.syncOnce({ listRemote: false });
    expect(again).toBe(followUp);
    await running;
    expect((await followUp).inSync).toBe(true);
    expect(sorted(await account.remoteTree())).toEqual({ 'first.txt': 'first', 'second.txt': 'second' });
  });

  it('17. the sync root removed while running: error state, nothing deleted remotely', async () => {
    const a = account.computer('alpha');
    writeFileSync(join(a.root, 'precious.txt'), 'precious');
    await a.sync();
    rmSync(a.root, { recursive: true });
    const states: string[] = [];
    a.engine.on('state', (s) => states.push(s));
    const summary = await a.sync();
    expect(summary.inSync).toBe(false);
    expect(a.engine.state).toBe('error');
    expect(summary.failed[0]?.message).toMatch(/is gone \(deleted, moved, or on a disk that is not mounted\); nothing is synced, and nothing is deleted on the drive/);
    expect(summary.folder).toBe('gone');
    expect(await account.remoteTree()).toEqual(new Map([['precious.txt', 'precious']]));
    expect(existsSync(a.root)).toBe(false);
  });

  const dozen = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`doc-${i}.txt`, `document ${i}`]));

  it('21. deletions on another computer refused here ("keep them"): restored on the drive with their ids; both computers agree; nobody is asked again', async () => {
    const a = account.computer('alpha');
    const b = account.computer('beta');
    for (const [name, content] of Object.entries(dozen)) writeFileSync(join(a.root, name), content);
    await a.sync();
    await b.sync();
    const ids = await account.entryIds();
    for (const name of Object.keys(dozen)) rmSync(join(b.root, name));
    expect((await b.sync()).needsConfirmation).toBe(true);
    b.engine.confirmDeletions();
    await b.sync();
    expect((await account.remoteTree()).size).toBe(0);
    const asked: DeletionQuestion[] = [];
    a.engine.on('confirm-deletions', (q) => asked.push(q));
    expect((await a.sync()).needsConfirmation).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ count: 12, synced: 12 });
    expect(asked[0]!.groups).toEqual([
      expect.objectContaining({ where: 'here', why: 'deleted on the drive (on another computer or on the web)', count: 12, bytes: Object.values(dozen).join('').length }),
    ]);
    a.engine.keepDeletions();
    const kept = await a.sync();
    expect(kept.inSync).toBe(true);
    expect(await account.entryIds()).toEqual(ids);
    await b.sync();
    expect(sorted(localTree(b.root))).toEqual(dozen);
    expect(sorted(localTree(a.root))).toEqual(dozen);
    expect(a.trashed).toEqual([]);
    expect((await a.sync()).done).toBe(0);
    expect((await b.sync()).done).toBe(0);
    expect(asked).toHaveLength(1);
  });

  it('22. deletions made here while nothing ran, refused ("keep them"): the files come back from the drive', async () => {
    const a = account.computer('alpha');
    for (const [name, content] of Object.entries(dozen)) writeFileSync(join(a.root, name), content);
    await a.sync();
    const ids = await account.entryIds();
    await a.restart();
    for (const name of Object.keys(dozen)) rmSync(join(a.root, name));
    const asked: DeletionQuestion[] = [];
    a.engine.on('confirm-deletions', (q) => asked.push(q));
    expect((await a.sync()).needsConfirmation).toBe(true);
    expect(asked[0]!.groups).toEqual([
      expect.objectContaining({ where: 'drive', why: 'deleted in this folder while drivesync was not running', count: 12 }),
    ]);
    // Named as a person orders them.
    expect(asked[0]!.groups[0]!.items.map((i) => i.path)).toEqual(Array.from({ length: 12 }, (_, i) => `doc-${i}.txt`));
    a.engine.keepDeletions();
    expect((await a.sync()).inSync).toBe(true);
    expect(sorted(localTree(a.root))).toEqual(dozen);
    expect(await account.entryIds()).toEqual(ids);
    expect((await a.sync()).done).toBe(0);
  });

  /** A synced folder of three items, then `replace` done to it; the next sync must stop and delete nothing. */
  const replacedFolder = async (replace: (root: string) => void) => {
    const a = account.computer('alpha');
    writeFileSync(join(a.root, 'one.txt'), 'one');
    mkdirSync(join(a.root, 'sub'));
    writeFileSync(join(a.root, 'sub', 'two.txt'), 'two');
    await a.sync();
    const before = await account.remoteTree();
    replace(a.root);
    const summary = await a.sync();
    expect(summary.inSync).toBe(false);
    expect(a.engine.state).toBe('error');
    expect(summary.folder).toBe('replaced');
    expect(await account.remoteTree()).toEqual(before);
    return { a, summary, before };
  };

  it('18. the folder deleted and made again empty (rm -rf; mkdir): it stops and says so; nothing is deleted on the drive', async () => {
    const { a, summary } = await replacedFolder((root) => {
      rmSync(root, { recursive: true });
      mkdirSync(root);
    });
    expect(summary.failed[0]?.message).toMatch(/is not the folder that was synced here \(it was emptied and made again, or its disk is not mounted\): nothing is synced, and nothing is deleted on the drive/);
    // The two ways on: synced afresh (what that does), or the original folder put back.
    expect(summary.failed[0]?.message).toMatch(/run drivesync sync .* --afresh: everything on the drive is downloaded into it, and nothing on the drive is deleted\. Or put the original folder back at .* \(or mount its disk\) and sync again\.$/);
    expect(localTree(a.root).size).toBe(0);
  });

  it('19. the folder replaced by another folder at the same path (a restore from a backup): it stops; nothing is uploaded or deleted', async () => {
    const { a, summary } = await replacedFolder((root) => {
      const other = `${root}-other`;
      mkdirSync(other);
      writeFileSync(join(other, 'one.txt'), 'an older one');
      writeFileSync(join(other, 'new here.txt'), 'new');
      rmSync(root, { recursive: true });
      renameSync(other, root);
    });
    expect(summary.failed[0]?.message).toMatch(/deleted and made again, or replaced by another folder/);
    expect(sorted(localTree(a.root))).toEqual({ 'new here.txt': 'new', 'one.txt': 'an older one' });
  });

  it('20. a disk not mounted (its empty mount point at the path): it stops; mounted again, it syncs on as before', async () => {
    const { a, before } = await replacedFolder((root) => {
      renameSync(root, `${root}-unmounted`);
      mkdirSync(root);
    });
    // Mounted again: the same folder (its marker and inode), nothing to do.
    rmSync(a.root, { recursive: true });
    renameSync(`${a.root}-unmounted`, a.root);
    const again = await a.sync();
    expect(again.inSync).toBe(true);
    expect(again.done).toBe(0);
    expect(await account.remoteTree()).toEqual(before);
  });
});
