/**
 * What the engine moves to the OS trash, in a real freedesktop trash: each item under its own name, its record
 * naming the place it had in the synced folder (not `.drivesync/trashing/`, where it waited on its way out), so that
 * a file manager's "Restore" puts it back there.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { localTree, newAccount, sorted, type Account } from '../helpers/sync.js';
import { tempDir } from '../helpers/temp.js';

/** A trash record: the name of its item in `files/`, and its `Path=` as written and decoded. */
interface TrashRecord {
  name: string;
  raw: string;
  path: string;
}

function records(trash: string): TrashRecord[] {
  return readdirSync(join(trash, 'info'))
    .filter((file) => file.endsWith('.trashinfo'))
    .map((file) => {
      const raw = /^Path=(.*)$/m.exec(readFileSync(join(trash, 'info', file), 'utf8'))?.[1] ?? '';
      return { name: file.slice(0, -'.trashinfo'.length), raw, path: decodeURIComponent(raw) };
    });
}

async function findRemote(account: Account, path: string): Promise<number> {
  const id = (await account.entryIds()).get(path);
  if (id === undefined) throw new Error(`${path} is not on the drive`);
  return id;
}

describe.skipIf(process.platform !== 'linux')('the OS trash (freedesktop)', () => {
  let trash: string;
  beforeAll(() => {
    // The package reads HOME and XDG_DATA_HOME when it is first loaded (on the first trash). HOME on the file system of
    // the synced folders (temp dirs too) makes it choose the home trash, under XDG_DATA_HOME, not a volume's.
    const home = tempDir('trash-home');
    process.env.HOME = home;
    process.env.XDG_DATA_HOME = join(home, '.local', 'share');
    trash = join(home, '.local', 'share', 'Trash');
  });

  let account: Account;
  beforeEach(async () => {
    account = await newAccount();
  });
  afterEach(() => account.close());

  it('a file and a folder deleted on the drive go to the trash under their own names, recorded where they were here', async () => {
    const a = account.computer('alpha');
    mkdirSync(join(a.root, 'Docs', 'sub'), { recursive: true });
    writeFileSync(join(a.root, 'Docs', 'plan.txt'), 'the plan');
    writeFileSync(join(a.root, 'Docs', 'sub', 'deep.txt'), 'deep');
    writeFileSync(join(a.root, 'notes 100% #1.txt'), 'notes');
    for (const folder of ['one', 'two']) {
      mkdirSync(join(a.root, folder));
      writeFileSync(join(a.root, folder, 'report.txt'), `report in ${folder}`);
    }
    writeFileSync(join(a.root, 'kept.txt'), 'kept');
    expect((await a.sync()).inSync).toBe(true);

    const gone = ['Docs', 'notes 100% #1.txt', 'one/report.txt', 'two/report.txt'];
    await account.client.entries.trash(await Promise.all(gone.map((path) => findRemote(account, path))));
    expect(await a.sync()).toMatchObject({ inSync: true, failed: [] });
    expect(sorted(localTree(a.root))).toEqual({ 'kept.txt': 'kept', one: '/', two: '/' });

    const original = (path: string) => join(a.root, ...path.split('/'));
    expect([...a.trashed].sort()).toEqual(gone.map(original).sort());
    const found = records(trash);
    expect(found.map((r) => r.path).sort()).toEqual(gone.map(original).sort());
    // Every item in files/ has its record, and no other is there (no made-up ids).
    expect(readdirSync(join(trash, 'files')).sort()).toEqual(found.map((r) => r.name).sort());

    const at = (path: string) => found.find((r) => r.path === original(path))!;
    expect(at('Docs').name).toBe('Docs');
    expect(statSync(join(trash, 'files', 'Docs')).isDirectory()).toBe(true);
    expect(readFileSync(join(trash, 'files', 'Docs', 'sub', 'deep.txt'), 'utf8')).toBe('deep');
    expect(at('notes 100% #1.txt').name).toBe('notes 100% #1.txt');
    expect(at('notes 100% #1.txt').raw.endsWith('/notes%20100%25%20%231.txt')).toBe(true);
    // Two items of one name: the second takes the name numbered.
    expect([at('one/report.txt').name, at('two/report.txt').name].sort()).toEqual(['report (2).txt', 'report.txt']);
    for (const folder of ['one', 'two']) {
      expect(readFileSync(join(trash, 'files', at(`${folder}/report.txt`).name), 'utf8')).toBe(`report in ${folder}`);
    }
    expect(readdirSync(join(a.root, '.drivesync', 'trashing'))).toEqual([]);
  });
});
