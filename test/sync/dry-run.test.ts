/**
 * A dry run says what the pass that follows it does, and changes nothing: not the folder, not the drive, not the mirror.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dryRun, type DryRunKind } from '../../main/sync/engine/dry-run.js';
import type { Activity } from '../../main/sync/engine/pass/summary.js';
import { conflictOriginal } from '../../main/sync/model/names.js';
import { localTree, newAccount, sorted, type Account } from '../helpers/sync.js';

/** The engine's activity each item of a dry run stands for. */
const ACTIVITY: Record<DryRunKind, Activity['kind']> = {
  upload: 'upload',
  'upload-new-version': 'replace-remote',
  'create-folder-on-drive': 'create-remote-folder',
  download: 'download',
  'create-folder-here': 'create-local-folder',
  'rename-on-drive': 'rename-remote',
  'move-on-drive': 'move-remote',
  'move-here': 'move-local',
  'delete-on-drive': 'trash-remote',
  'delete-here': 'trash-local',
  conflict: 'conflict',
  compare: 'merge',
};

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe.each(['documents', 'deployed'] as const)('a dry run (%s)', (profile) => {
  let account: Account;
  beforeEach(async () => {
    account = await newAccount(undefined, { profile });
  });
  afterEach(() => account.close());

  it('lists each upload, download, rename, move, deletion and conflict of the pass that follows, and changes nothing before it', async () => {
    const a = account.computer('alpha');
    const b = account.computer('beta');
    const start: Record<string, string> = {
      'edit-here.txt': 'e1',
      'edit-there.txt': 'e2',
      'rename-here.txt': 'r1',
      'rename-there.txt': 'r2',
      'del-here.txt': 'd1',
      'del-there.txt': 'd2',
      'both.txt': 'same start',
      'Old/x.txt': 'x',
      'Box/keep.txt': 'k',
    };
    for (const [path, content] of Object.entries(start)) {
      mkdirSync(dirname(join(a.root, path)), { recursive: true });
      writeFileSync(join(a.root, path), content);
    }
    await a.sync();
    await b.sync();
    // Changed here…
    writeFileSync(join(a.root, 'new-here.txt'), 'new here');
    mkdirSync(join(a.root, 'NewHere', 'deep'), { recursive: true });
    writeFileSync(join(a.root, 'NewHere', 'deep', 'inner.txt'), 'inner');
    writeFileSync(join(a.root, 'edit-here.txt'), 'edited here');
    renameSync(join(a.root, 'rename-here.txt'), join(a.root, 'renamed-here.txt'));
    renameSync(join(a.root, 'Old'), join(a.root, 'Box', 'Old'));
    rmSync(join(a.root, 'del-here.txt'));
    writeFileSync(join(a.root, 'both.txt'), 'alpha says');
    // …and on the drive, by another computer.
    writeFileSync(join(b.root, 'new-there.txt'), 'new there');
    mkdirSync(join(b.root, 'NewThere', 'deep'), { recursive: true });
    writeFileSync(join(b.root, 'NewThere', 'deep', 'f.txt'), 'far');
    writeFileSync(join(b.root, 'edit-there.txt'), 'edited there');
    renameSync(join(b.root, 'rename-there.txt'), join(b.root, 'renamed-there.txt'));
    rmSync(join(b.root, 'del-there.txt'));
    writeFileSync(join(b.root, 'both.txt'), 'beta says!');
    await b.sync();

    const mirrorPath = join(dirname(a.root), 'state', 'mirror.sqlite');
    const before = { local: sorted(localTree(a.root)), remote: sorted(await account.remoteTree()), mirror: sha(mirrorPath) };
    const mark = account.requests.length;
    const report = await dryRun({ root: a.root, client: account.client, mirrorPath });
    // Nothing changed: the folder, the drive (only reads went out), the mirror.
    expect(sorted(localTree(a.root))).toEqual(before.local);
    expect(sorted(await account.remoteTree())).toEqual(before.remote);
    expect(sha(mirrorPath)).toBe(before.mirror);
    expect(account.requests.slice(mark).every((r) => r.startsWith('GET '))).toBe(true);

    const said = report.items.map((item) => `${ACTIVITY[item.kind]} ${item.to ?? item.path}`).sort();
    expect(said).toEqual(
      [
        'upload new-here.txt',
        'create-remote-folder NewHere',
        'create-remote-folder NewHere/deep',
        'upload NewHere/deep/inner.txt',
        'replace-remote edit-here.txt',
        'rename-remote renamed-here.txt',
        'move-remote Box/Old',
        'trash-remote del-here.txt',
        'download new-there.txt',
        'create-local-folder NewThere',
        'create-local-folder NewThere/deep',
        'download NewThere/deep/f.txt',
        'download edit-there.txt',
        'move-local renamed-there.txt',
        'trash-local del-there.txt',
        'conflict both.txt',
      ].sort(),
    );
    expect(report.totals).toMatchObject({ upload: { count: 2, bytes: 13 }, download: { count: 3, bytes: 24 }, 'delete-on-drive': { count: 1, bytes: 2 } });
    expect(report.deletionsAsked).toBeNull();

    const done: string[] = [];
    a.engine.on('activity', (activity) => {
      if (activity.kind === 'record' || activity.kind === 'notice') return;
      // A conflict keeps this computer's version as a copy and sends it up: the dry run's one conflict.
      const original = conflictOriginal(activity.path);
      if (original !== activity.path) done.push(`conflict ${original}`);
      else done.push(`${activity.kind} ${activity.path}`);
    });
    expect((await a.sync()).inSync).toBe(true);
    expect([...new Set(done)].sort()).toEqual(said);
  });

  it('a first sync into a folder that is not empty: what goes up, what comes down, what is compared; deletions that would be asked about say so', async () => {
    const a = account.computer('alpha');
    for (let i = 0; i < 12; i++) writeFileSync(join(a.root, `f${i}.txt`), `file ${i}`);
    await a.sync();
    const b = account.computer('beta');
    writeFileSync(join(b.root, 'f0.txt'), 'file 0');
    writeFileSync(join(b.root, 'mine.txt'), 'only here');
    const first = await dryRun({ root: b.root, client: account.client, mirrorPath: join(dirname(b.root), 'state', 'mirror.sqlite') });
    expect(first.synced).toBe(0);
    expect(first.totals).toMatchObject({ upload: { count: 1 }, download: { count: 11 }, compare: { count: 1 } });
    expect(first.items.filter((i) => i.kind === 'delete-here' || i.kind === 'delete-on-drive')).toEqual([]);

    for (let i = 0; i < 12; i++) rmSync(join(a.root, `f${i}.txt`));
    const asked = await dryRun({ root: a.root, client: account.client, mirrorPath: join(dirname(a.root), 'state', 'mirror.sqlite') });
    expect(asked.deletionsAsked).toBe(12);
    expect(asked.totals['delete-on-drive']).toEqual({ count: 12, bytes: 74 });
  });
});
