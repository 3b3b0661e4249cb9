import { describe, expect, it } from 'vitest';
import { withoutHeldDeletions } from '../../main/sync/engine/pass/pass.js';
import type { BaseItem, Operation } from '../../main/sync/model/types.js';

const base = new Map<number, BaseItem>([[7, { remoteId: 7, path: 'Project', type: 'folder' } as BaseItem]]);

describe('what goes on while deletions wait for an answer (withoutHeldDeletions)', () => {
  it('holds the deletions on both sides and what acts at or inside their paths; the rest goes on', () => {
    const ops: Operation[] = [
      { kind: 'trash-remote', rule: 'D2', remoteId: 7, count: 12 },
      { kind: 'trash-local', rule: 'D1', path: 'Old', remoteId: 8, count: 3 },
      { kind: 'create-remote-folder', rule: 'N2', path: 'Project', parentId: null, name: 'Project' },
      { kind: 'download', rule: 'N3', remoteId: 9, path: 'Old/new.txt' },
      { kind: 'upload', rule: 'N1', path: 'Projects.txt', parentId: null, name: 'Projects.txt' },
      { kind: 'move-local', rule: 'M3', remoteId: 10, from: 'Old/keep.txt', to: 'keep.txt' },
    ];
    expect(withoutHeldDeletions(ops, base).map((op) => op.kind)).toEqual(['upload', 'move-local']);
  });

  it('gives back every operation when nothing is deleted', () => {
    const ops: Operation[] = [{ kind: 'upload', rule: 'N1', path: 'a.txt', parentId: null, name: 'a.txt' }];
    expect(withoutHeldDeletions(ops, base)).toEqual(ops);
  });
});
