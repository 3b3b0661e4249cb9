/** The window's "Recent files": the latest distinct files, each with its state now. */
import { describe, expect, it } from 'vitest';
import type { ActivityItem, ConflictItem, ErrorItem } from '../../main/contract/index.js';
import { recentFiles } from '../../main/app/host/recent-files.js';

const root = '/home/me/Drive';
const act = (id: number, at: string, path: string, kind: ActivityItem['kind'] = 'upload'): ActivityItem => ({ id, at, root, path, kind, description: kind === 'upload' ? 'Uploaded' : 'Downloaded' });

describe('recent files', () => {
  it('lists each file once, newest first, leaving out folders and bookkeeping', () => {
    const activity = [
      act(4, '2026-01-01T10:04:00Z', 'a.txt', 'download'),
      act(3, '2026-01-01T10:03:00Z', 'docs', 'create-remote-folder'),
      act(2, '2026-01-01T10:02:00Z', 'b.txt', 'record'),
      act(1, '2026-01-01T10:01:00Z', 'a.txt'),
    ];
    expect(recentFiles(activity, [], []).map((f) => [f.path, f.description, f.state])).toEqual([['a.txt', 'Downloaded', 'synced']]);
  });

  it('marks a file with a newer error as not synced, and one with a conflict as such', () => {
    const activity = [act(2, '2026-01-01T10:02:00Z', 'c.txt'), act(1, '2026-01-01T10:01:00Z', 'e.txt')];
    const errors: ErrorItem[] = [
      { id: 9, at: '2026-01-01T10:05:00Z', root, path: 'e.txt', message: 'The disk is full.' },
      { id: 8, at: '2026-01-01T10:00:00Z', root, path: 'c.txt', message: 'overcome since' },
      { id: 7, at: '2026-01-01T10:06:00Z', root, path: 'never/uploaded.bin', message: 'Another program is using this file.' },
    ];
    const conflicts: ConflictItem[] = [{ id: 5, at: '2026-01-01T10:02:00Z', root, path: 'c.txt', copyPath: 'c (conflicted copy 2026-01-01 100200 beta).txt' }];
    const files = recentFiles(activity, conflicts, errors);
    expect(files.map((f) => [f.path, f.state])).toEqual([
      ['never/uploaded.bin', 'error'],
      ['e.txt', 'error'],
      ['c.txt', 'conflict'],
    ]);
    expect(files[1]!.problem).toBe('The disk is full.');
    expect(files[2]!.problem).toContain('c (conflicted copy 2026-01-01 100200 beta).txt');
  });

  it("says what the emblems say of a file when its engine runs here, and the problem's state over it", () => {
    const activity = [act(2, '2026-01-01T10:02:00Z', 'again.txt'), act(1, '2026-01-01T10:01:00Z', 'bad.txt')];
    const errors: ErrorItem[] = [{ id: 9, at: '2026-01-01T10:05:00Z', root, path: 'bad.txt', message: 'The disk is full.' }];
    const files = recentFiles(activity, [], errors, (r, path) => (r === root ? (path === 'again.txt' ? 'syncing' : 'synced') : undefined));
    expect(files.map((f) => [f.path, f.state])).toEqual([
      ['bad.txt', 'error'],
      ['again.txt', 'syncing'],
    ]);
  });

  it('leaves out a file moved to the trash since', () => {
    const activity = [act(3, '2026-01-01T10:03:00Z', 'gone.txt', 'trash-local'), act(2, '2026-01-01T10:02:00Z', 'kept.txt'), act(1, '2026-01-01T10:01:00Z', 'gone.txt')];
    expect(recentFiles(activity, [], []).map((f) => f.path)).toEqual(['kept.txt']);
    const folder = [act(3, '2026-01-01T10:03:00Z', 'bulk', 'trash-remote'), act(2, '2026-01-01T10:02:00Z', 'bulk/a.txt'), act(1, '2026-01-01T10:01:00Z', 'bulky.txt')];
    expect(recentFiles(folder, [], []).map((f) => f.path)).toEqual(['bulky.txt']);
  });

  it('leaves out the files of a folder this computer left out since (its copy here was removed)', () => {
    const activity = [act(3, '2026-01-01T10:03:00Z', 'photos/2019', 'drop-local'), act(2, '2026-01-01T10:02:00Z', 'photos/2019/one.jpg'), act(1, '2026-01-01T10:01:00Z', 'photos/cover.jpg')];
    expect(recentFiles(activity, [], []).map((f) => f.path)).toEqual(['photos/cover.jpg']);
  });

  it('keeps to the limit', () => {
    const activity = Array.from({ length: 50 }, (_, i) => act(i, new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(), `f${i}.txt`));
    expect(recentFiles(activity, [], [], undefined, 10)).toHaveLength(10);
  });
});
