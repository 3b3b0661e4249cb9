import { mkdirSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localTree, newAccount, sorted, type Account, SCENARIO_CASES } from '../helpers/sync.js';
import { eventually } from '../helpers/eventually.js';

async function findRemote(account: Account, name: string): Promise<number | undefined> {
  for await (const entry of account.client.entries.tree()) if (entry.name === name) return entry.id;
  return undefined;
}

describe.each(SCENARIO_CASES)('sync scenarios: basics (%s, %s)', (mode, profile) => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { mode, profile });
  });
  afterEach(() => account.close());

  it('once in sync, polls and watched changes work from the trees kept as base: nothing is taken as deleted', async () => {
    const a = account.computer('alpha', { pollIntervalMs: 60_000 });
    mkdirSync(join(a.root, 'docs'));
    writeFileSync(join(a.root, 'docs', 'a.txt'), 'a');
    writeFileSync(join(a.root, 'b.txt'), 'b');
    await a.engine.start(); // a full pass: in sync, so only base is kept
    const expected = { 'b.txt': 'b', docs: '/', 'docs/a.txt': 'a' };
    for (const pass of [() => a.engine.syncOnce(), () => a.engine.syncOnce({ listRemote: false }), () => a.engine.syncNow()]) {
      expect(await pass()).toMatchObject({ done: 0, inSync: true, failed: [] });
      expect(sorted(await account.remoteTree())).toEqual(expected);
    }
    expect(a.trashed).toEqual([]);
    // A change the watcher reports is synced on its own, with the rest still known.
    writeFileSync(join(a.root, 'docs', 'c.txt'), 'c');
    const tree = await eventually(async () => {
      const remote = sorted(await account.remoteTree());
      return remote['docs/c.txt'] === 'c' ? remote : undefined;
    });
    expect(tree).toEqual({ ...expected, 'docs/c.txt': 'c' });
    await account.client.entries.trash([(await findRemote(account, 'b.txt'))!]);
    expect(await a.engine.syncNow()).toMatchObject({ done: 1, inSync: true });
    expect(sorted(localTree(a.root))).toEqual({ docs: '/', 'docs/a.txt': 'a', 'docs/c.txt': 'c' });
  });

  it('1. new, modified and deleted files in each direction, empty folders, a 10-level tree', async () => {
    const a = account.computer('alpha');
    const b = account.computer('beta');
    writeFileSync(join(a.root, 'note.txt'), 'v1');
    mkdirSync(join(a.root, 'empty-folder'));
    const deep = join(a.root, ...Array.from({ length: 10 }, (_, i) => `level${i}`));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'deep.txt'), 'deep');
    expect((await a.sync()).inSync).toBe(true);
    expect(sorted(await account.remoteTree())).toEqual(sorted(localTree(a.root)));
    expect((await b.sync()).inSync).toBe(true);
    expect(sorted(localTree(b.root))).toEqual(sorted(localTree(a.root)));

    writeFileSync(join(b.root, 'note.txt'), 'v2 from beta');
    writeFileSync(join(b.root, 'new.txt'), 'new');
    await b.sync();
    await a.sync();
    expect(a.file('note.txt')).toBe('v2 from beta');
    expect(a.file('new.txt')).toBe('new');

    rmSync(join(a.root, 'new.txt'));
    await a.sync();
    await b.sync();
    expect(localTree(b.root).has('new.txt')).toBe(false);
    expect(b.trashed.map((p) => p.slice(b.root.length + 1))).toEqual(['new.txt']);

    const before = account.requests.length;
    expect((await a.sync()).done).toBe(0);
    expect((await b.sync()).done).toBe(0);
    expect(account.requests.slice(before).filter((r) => !r.startsWith('GET /drive/file-entries'))).toEqual([]);
    expect(sorted(await account.remoteTree())).toEqual(sorted(localTree(a.root)));
    expect(sorted(localTree(b.root))).toEqual(sorted(localTree(a.root)));
  });

  // A thousand files uploaded, then a folder of them moved: on two busy cores this takes more than the default 30 s.
  it('7. a local rename is one rename request, a move one move request, and a folder of 1,000 children one request', async () => {
    const a = account.computer('alpha');
    mkdirSync(join(a.root, 'docs'));
    mkdirSync(join(a.root, 'archive'));
    writeFileSync(join(a.root, 'docs', 'report.txt'), 'report');
    mkdirSync(join(a.root, 'big'));
    for (let i = 0; i < 1000; i++) writeFileSync(join(a.root, 'big', `f${i}.txt`), `${i}`);
    await a.sync();
    const uploads = () => account.requests.filter((r) => r === 'POST /uploads').length;
    const uploadsBefore = uploads();

    let mark = account.requests.length;
    renameSync(join(a.root, 'docs', 'report.txt'), join(a.root, 'docs', 'summary.txt'));
    await a.sync();
    expect(account.requests.slice(mark).filter((r) => !r.startsWith('GET'))).toEqual([expect.stringMatching(/^PUT \/file-entries\/\d+$/)]);

    mark = account.requests.length;
    renameSync(join(a.root, 'docs', 'summary.txt'), join(a.root, 'archive', 'summary.txt'));
    await a.sync();
    expect(account.requests.slice(mark).filter((r) => !r.startsWith('GET'))).toEqual(['POST /file-entries/move']);

    mark = account.requests.length;
    renameSync(join(a.root, 'big'), join(a.root, 'huge'));
    await a.sync();
    expect(account.requests.slice(mark).filter((r) => !r.startsWith('GET'))).toHaveLength(1);
    expect(uploads()).toBe(uploadsBefore);
    const remote = await account.remoteTree();
    expect(remote.get('archive/summary.txt')).toBe('report');
    expect(remote.get('huge/f999.txt')).toBe('999');
    expect(remote.has('big')).toBe(false);
    expect((await a.sync()).done).toBe(0);
  }, 90_000);

  it('3. edit/edit with different content makes a conflicted copy; identical edits are no conflict', async () => {
    const a = account.computer('alpha');
    const b = account.computer('beta');
    writeFileSync(join(a.root, 'plan.txt'), 'base');
    writeFileSync(join(a.root, 'same.txt'), 'base');
    await a.sync();
    await b.sync();
    writeFileSync(join(a.root, 'plan.txt'), 'alpha edit');
    writeFileSync(join(b.root, 'plan.txt'), 'beta edit!');
    writeFileSync(join(a.root, 'same.txt'), 'identical');
    writeFileSync(join(b.root, 'same.txt'), 'identical');
    await a.sync();
    await b.sync();
    await a.sync();
    const treeB = localTree(b.root);
    expect(treeB.get('plan.txt')).toBe('alpha edit');
    const copies = [...treeB.keys()].filter((p) => p.includes('conflicted copy'));
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatch(/^plan \(conflicted copy \d{4}-\d\d-\d\d \d{6} beta\)\.txt$/);
    expect(treeB.get(copies[0]!)).toBe('beta edit!');
    expect(treeB.get('same.txt')).toBe('identical');
    expect(sorted(localTree(a.root))).toEqual(sorted(treeB));
    expect(sorted(await account.remoteTree())).toEqual(sorted(treeB));
    expect(readFileSync(join(a.root, copies[0]!), 'utf8')).toBe('beta edit!');
  });
});
