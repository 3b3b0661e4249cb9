/**
 * The rows of "Shared with me" (docs/sync-rules.md), one describe per row: the table plans as for any folder, and
 * `rowsOfAccess` turns what the account may not do on the drive into what keeps both versions. Trees built by hand:
 * Bob's own Notes/, and Alice's Pictures/ shared with him under the shared folder and her owner folder.
 */
import { describe, expect, it } from 'vitest';
import { planChanges } from '../../main/sync/plan/plan.js';
import { SHARED_FOLDER_ID, type SharedArea, type SharedTop } from '../../main/sync/model/shared-area.js';
import { rowsOfAccess } from '../../main/sync/plan/access.js';
import { sharingNews } from '../../main/sync/remote/shared.js';
import { BaseTree, LocalTree, RemoteTree } from '../../main/sync/trees/trees.js';
import type { ItemType, Operation, RemoteId, Trees } from '../../main/sync/model/types.js';

const ALICE_FOLDER = -8; // Alice's user id 7
const PICTURES = 100;
const CAT = 101;
const TRIP = 102;
const NOTES = 200;
const TASKS = 201;
const T = '2026-11-01T00:00:00.000000Z';
const PLACE = { folder: 'Shared with me', me: 'bob@example.com' };

function trees(): Trees & { base: BaseTree; local: LocalTree; remote: RemoteTree } {
  const base = new BaseTree();
  const local = new LocalTree();
  const remote = new RemoteTree();
  let inode = 1000;
  const synced = (id: RemoteId, parentId: RemoteId | null, path: string, type: ItemType, size = 0) => {
    const name = path.split('/').pop()!;
    inode++;
    base.set(id, { remoteId: id, parentId, remoteName: name, path, type, inode, size, mtimeMs: 1, hash: type === 'file' ? `h${id}` : null, remoteSize: size, remoteUpdatedAt: T });
    local.set(path, { path, type, inode, size, mtimeMs: 1 });
    remote.set(id, { id, parentId, name, type, size, updatedAt: T });
  };
  synced(SHARED_FOLDER_ID, null, 'Shared with me', 'folder');
  synced(ALICE_FOLDER, SHARED_FOLDER_ID, 'Shared with me/alice@example.com', 'folder');
  synced(PICTURES, ALICE_FOLDER, 'Shared with me/alice@example.com/Pictures', 'folder');
  synced(CAT, PICTURES, 'Shared with me/alice@example.com/Pictures/cat.jpg', 'file', 3);
  synced(TRIP, PICTURES, 'Shared with me/alice@example.com/Pictures/trip', 'folder');
  synced(NOTES, null, 'Notes', 'folder');
  synced(TASKS, NOTES, 'Notes/tasks.txt', 'file', 4);
  return { base, local, remote };
}

const area = (editable: boolean, downloadable = true): SharedArea => {
  const top: SharedTop = { id: PICTURES, name: 'Pictures', file: false, folderId: null, owner: 'alice@example.com', editable, downloadable };
  return { items: [], tops: new Map([[PICTURES, top]]), key: 'k' };
};
const planned = (t: Trees, a: SharedArea) => rowsOfAccess(planChanges(t), t, a, PLACE);
const kinds = (ops: readonly Operation[]) => ops.map((op) => `${op.kind}[${op.rule}]`).sort();
const P = 'Shared with me/alice@example.com/Pictures';

describe('S1: a new local item where the account may not add → left out here, not uploaded', () => {
  it('in a folder shared to view only', () => {
    const t = trees();
    t.local.set(`${P}/new.txt`, { path: `${P}/new.txt`, type: 'file', inode: 5000, size: 2, mtimeMs: 1 });
    const plan = planned(t, area(false));
    expect(plan.operations).toEqual([]);
    expect(plan.skipped).toEqual([{ path: `${P}/new.txt`, reason: 'Pictures is shared with you to view only: kept here, not uploaded', fails: false }]);
  });

  it('directly in the shared folder or an owner folder (drivesync\'s own)', () => {
    const t = trees();
    t.local.set('Shared with me/mine.txt', { path: 'Shared with me/mine.txt', type: 'file', inode: 5001, size: 2, mtimeMs: 1 });
    const plan = planned(t, area(true));
    expect(plan.operations).toEqual([]);
    expect(plan.skipped[0]!.reason).toBe('Shared with me holds only what others share with you: kept here, not uploaded');
  });

  it('with edit it is uploaded into the owner\'s folder', () => {
    const t = trees();
    t.local.set(`${P}/new.txt`, { path: `${P}/new.txt`, type: 'file', inode: 5000, size: 2, mtimeMs: 1 });
    expect(planned(t, area(true)).operations).toEqual([{ kind: 'upload', rule: 'N2', path: `${P}/new.txt`, parentId: PICTURES, name: 'new.txt' }]);
  });
});

describe('S2: a local edit of a file shared to view only → its row is forgotten (the table then keeps both)', () => {
  it('is never uploaded, and is told', () => {
    const t = trees();
    t.local.set(`${P}/cat.jpg`, { ...t.local.get(`${P}/cat.jpg`)!, size: 9, mtimeMs: 2, hash: 'other' });
    const plan = planned(t, area(false));
    expect(kinds(plan.operations)).toEqual(['forget[S2]']);
    expect(plan.notes[0]!.message).toMatch(/view only: your change is kept as a copy beside it/);
    // With edit, it is sent.
    expect(kinds(planned(t, area(true)).operations)).toEqual(['replace-remote[C1]']);
  });
});

describe('S3: a local deletion the drive must not see → forgotten, it comes back', () => {
  it('of a file shared to view only', () => {
    const t = trees();
    t.local.delete(`${P}/cat.jpg`);
    const plan = planned(t, area(false));
    expect(kinds(plan.operations)).toEqual(['forget[S3]']);
    expect(plan.deletions).toBe(0);
  });

  it('of the shared entry itself, even with edit (deleting it here does not delete it for its owner)', () => {
    const t = trees();
    for (const path of [P, `${P}/cat.jpg`, `${P}/trip`]) t.local.delete(path);
    const plan = planned(t, area(true));
    expect(kinds(plan.operations)).toEqual(['forget[S3]', 'forget[S3]', 'forget[S3]']);
    expect(plan.notes[0]!.message).toMatch(/Pictures is shared with you by alice@example.com: deleting it here does not delete it on the drive/);
    expect(plan.deletions).toBe(0);
  });

  it('of the shared folder (drivesync\'s own): nothing is sent for it', () => {
    const t = trees();
    for (const path of [...t.local.keys()]) if (path.startsWith('Shared with me')) t.local.delete(path);
    const plan = planned(t, area(true));
    expect(plan.operations.every((op) => op.kind === 'forget' && op.rule === 'S3')).toBe(true);
    expect(plan.operations).toHaveLength(5);
  });

  it('in a folder shared with edit it is a deletion on the drive like any other (D2)', () => {
    const t = trees();
    t.local.delete(`${P}/cat.jpg`);
    expect(kinds(planned(t, area(true)).operations)).toEqual(['trash-remote[D2]']);
  });
});

describe('S4: a local rename the drive must not see → forgotten; the drive\'s name comes back, the renamed copy stays', () => {
  it('in a folder shared to view only', () => {
    const t = trees();
    const cat = t.local.get(`${P}/cat.jpg`)!;
    t.local.delete(`${P}/cat.jpg`);
    t.local.set(`${P}/kitty.jpg`, { ...cat, path: `${P}/kitty.jpg` });
    expect(kinds(planned(t, area(false)).operations)).toEqual(['forget[S4]']);
    expect(kinds(planned(t, area(true)).operations)).toEqual(['rename-remote[M1]']);
  });
});

describe('S5: a local move across drives (own ↔ shared), or of the shared entry → forgotten: a copy lands, the original stays', () => {
  it('a file of my own moved into a folder shared with edit', () => {
    const t = trees();
    const tasks = t.local.get('Notes/tasks.txt')!;
    t.local.delete('Notes/tasks.txt');
    t.local.set(`${P}/tasks.txt`, { ...tasks, path: `${P}/tasks.txt` });
    const plan = planned(t, area(true));
    expect(kinds(plan.operations)).toEqual(['forget[S5]']);
    expect(plan.notes[0]!.message).toMatch(/the drive moves an entry only within its owner's drive/);
  });

  it('the shared entry moved into my own folder', () => {
    const t = trees();
    for (const [path, item] of [...t.local]) {
      if (!path.startsWith(P)) continue;
      t.local.delete(path);
      const to = `Notes/${path.slice('Shared with me/alice@example.com/'.length)}`;
      t.local.set(to, { ...item, path: to });
    }
    const ops = planned(t, area(true)).operations;
    expect(ops.filter((op) => op.kind !== 'forget')).toEqual([]);
    expect(ops.map((op) => (op.kind === 'forget' ? op.remoteId : 0)).sort()).toEqual([CAT, PICTURES, TRIP].sort());
  });
});

describe('S6: what is left of an entry no longer shared with the account → the OS trash', () => {
  it('the shared entry gone from the drive: unchanged copies by D1, a changed one not made again on the drive', () => {
    const t = trees();
    for (const id of [PICTURES, CAT, TRIP, ALICE_FOLDER, SHARED_FOLDER_ID]) t.remote.delete(id);
    t.local.set(`${P}/cat.jpg`, { ...t.local.get(`${P}/cat.jpg`)!, size: 9, mtimeMs: 2, hash: 'changed' });
    const none: SharedArea = { items: [], tops: new Map(), key: '' };
    let plan = planned(t, none);
    // Nothing goes to the drive, ever; what goes, goes to the OS trash.
    const toDrive = (ops: readonly Operation[]) => ops.filter((op) => ['upload', 'create-remote-folder', 'replace-remote', 'trash-remote', 'move-remote', 'rename-remote'].includes(op.kind));
    expect(toDrive(plan.operations)).toEqual([]);
    // The table keeps the changed file (D4 forget, D5 for its folders); the rows trash them locally instead.
    expect(plan.operations.filter((op) => op.kind === 'trash-local').length).toBeGreaterThan(0);
    // Once the forgotten rows are gone, the next plan still sends nothing and trashes the rest.
    for (const op of plan.operations) if (op.kind === 'forget') t.base.delete(op.remoteId);
    plan = planned(t, none);
    expect(toDrive(plan.operations)).toEqual([]);
  });
});

describe('without download: the files are left out, the folders come', () => {
  it('a new file on the drive in a folder shared without download is not downloaded', () => {
    const t = trees();
    t.remote.set(300, { id: 300, parentId: PICTURES, name: 'plan.pdf', type: 'file', size: 5, updatedAt: T });
    const plan = planned(t, area(false, false));
    expect(plan.operations).toEqual([]);
    expect(plan.skipped[0]!.reason).toBe('Pictures is shared with you without download: its files are not on this computer');
  });
});

describe('own items are untouched', () => {
  it('an edit, a rename and a deletion of my own go as the table says', () => {
    const t = trees();
    t.local.set('Notes/tasks.txt', { ...t.local.get('Notes/tasks.txt')!, size: 9, mtimeMs: 2, hash: 'x' });
    expect(kinds(planned(t, area(false)).operations)).toEqual(['replace-remote[C1]']);
  });
});

describe('what a person is told when what is shared with them changes', () => {
  it('a new share (once: not when a restart lists it again), a permission changed, a share ended', () => {
    const none: SharedArea = { items: [], tops: new Map(), key: '' };
    expect(sharingNews(none, area(false), () => false).news).toEqual(['Pictures was shared with you by alice@example.com (to view only)']);
    expect(sharingNews(none, area(false), () => true).news).toEqual([]);
    expect(sharingNews(area(false), area(true), () => true).news).toEqual(['Pictures is now shared with you by alice@example.com: you may edit it']);
    expect(sharingNews(area(true), none, () => true).news).toEqual(['Pictures is no longer shared with you by alice@example.com']);
  });

  it('a shared file saved anew (a new entry of its name, folder and owner) is an update; its end waits a poll for that new entry', () => {
    const file = (id: number): SharedTop => ({ id, name: 'notes.txt', file: true, folderId: 7, owner: 'alice@example.com', editable: false, downloadable: true });
    const holding = (...tops: SharedTop[]): SharedArea => ({ items: [], tops: new Map(tops.map((t) => [t.id, t])), key: tops.map((t) => t.id).join() });
    const none = holding();
    // In one listing: the old entry gone, the new one there.
    expect(sharingNews(holding(file(10)), holding(file(11)), () => false)).toEqual({ news: ['notes.txt was updated by alice@example.com'], waiting: [] });
    // Apart: the end waits, and the new entry's share a listing later is the update.
    const ended = sharingNews(holding(file(10)), none, () => true);
    expect(ended).toEqual({ news: [], waiting: [file(10)] });
    expect(sharingNews(none, holding(file(11)), () => false, ended.waiting, () => false).news).toEqual(['notes.txt was updated by alice@example.com']);
    // No new version: told once it has waited a poll, not before.
    expect(sharingNews(none, none, () => true, ended.waiting, () => false)).toEqual({ news: [], waiting: [file(10)] });
    expect(sharingNews(none, none, () => true, ended.waiting, () => true)).toEqual({ news: ['notes.txt is no longer shared with you by alice@example.com'], waiting: [] });
    // Another file of that name elsewhere in her drive is another share.
    expect(sharingNews(none, holding({ ...file(11), folderId: 8 }), () => false, ended.waiting, () => true).news).toEqual([
      'notes.txt was shared with you by alice@example.com (to view only)',
      'notes.txt is no longer shared with you by alice@example.com',
    ]);
  });
});
