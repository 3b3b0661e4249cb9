/**
 * What an offline computer says waits to go up: the changes made here, counted from the local tree against base
 * alone. A move is one change; an edit, a deletion and a new item one each; a folder in sync adds nothing.
 */
import { describe, expect, it } from 'vitest';
import { changesHere } from '../../main/sync/trees/changes-here.js';
import type { BaseItem, LocalItem } from '../../main/sync/model/types.js';

const row = (remoteId: number, path: string, inode: number, type: 'file' | 'folder' = 'file'): BaseItem => ({
  remoteId,
  parentId: null,
  remoteName: path.split('/').at(-1)!,
  path,
  type,
  inode,
  size: type === 'file' ? 5 : 0,
  mtimeMs: 1000,
  hash: null,
  remoteSize: 5,
  remoteUpdatedAt: 't',
});
const item = (b: BaseItem, changes: Partial<LocalItem> = {}): LocalItem => ({ path: b.path, type: b.type, inode: b.inode, size: b.size, mtimeMs: b.mtimeMs, ...changes });

describe('changes made here that wait for the drive', () => {
  const docs = row(1, 'docs', 10, 'folder');
  const a = row(2, 'docs/a.txt', 11);
  const b = row(3, 'b.txt', 12);
  const c = row(4, 'c.txt', 13);
  const base = new Map([docs, a, b, c].map((r) => [r.remoteId, r]));

  it('none when the folder is as synced', () => {
    expect(changesHere(base, new Map([docs, a, b, c].map((r) => [r.path, item(r)])))).toBe(0);
  });

  it('an edit, a deletion, a new file and a move: four changes, the move counted once', () => {
    const local = new Map<string, LocalItem>([
      ['docs', item(docs)],
      ['docs/a.txt', item(a, { size: 9, mtimeMs: 2000 })],
      ['new.txt', { path: 'new.txt', type: 'file', inode: 99, size: 1, mtimeMs: 3000 }],
      ['docs/c-moved.txt', item(c, { path: 'docs/c-moved.txt' })],
    ]);
    expect(changesHere(base, local)).toBe(4);
  });

  it('a folder moved with what it holds: one change', () => {
    const inDocs = { ...a, parentId: 1 };
    const withParent = new Map([docs, inDocs, b, c].map((r) => [r.remoteId, r]));
    const local = new Map<string, LocalItem>([
      ['papers', item(docs, { path: 'papers' })],
      ['papers/a.txt', item(inDocs, { path: 'papers/a.txt' })],
      ['b.txt', item(b)],
      ['c.txt', item(c)],
    ]);
    expect(changesHere(withParent, local)).toBe(1);
  });
});
