/**
 * What the file manager's emblems say (main/sync/engine/path-states.ts): marks on paths, a folder saying the most
 * urgent state inside it, and what is left out by design.
 */
import { describe, expect, it } from 'vitest';
import { ancestors, Marks, PathStates } from '../../main/sync/engine/path-states.js';

const states = (facts: Partial<ConstructorParameters<typeof PathStates>[0]> = {}) =>
  new PathStates({ symlink: () => false, ignored: () => false, ...facts });

describe('path states', () => {
  it('counts marks under every folder, and forgets them when unmarked', () => {
    const marks = new Marks();
    expect(ancestors('a/b/c.txt')).toEqual(['a/b', 'a', '']);
    marks.add('a/b/c.txt');
    marks.add('a/d.txt');
    expect(marks.add('a/d.txt')).toBe(false);
    expect([marks.holds('a/b'), marks.holds('a'), marks.holds(''), marks.holds('a/b/c.txt'), marks.holds('x')]).toEqual([true, true, true, false, false]);
    marks.delete('a/b/c.txt');
    expect([marks.holds('a/b'), marks.holds('a')]).toEqual([false, true]);
    expect(marks.set(['x/y.txt', 'a/d.txt']).sort()).toEqual(['x/y.txt']);
    expect(marks.set([]).sort()).toEqual(['a/d.txt', 'x/y.txt']);
    expect(marks.holds('')).toBe(false);
  });

  it('says synced by default, and of a folder the most urgent state inside it: error, conflict, syncing', () => {
    const s = states();
    expect(s.stateOf('a/b.txt')).toBe('synced');
    s.syncing.add('a/new.txt');
    expect([s.stateOf('a/new.txt'), s.stateOf('a'), s.stateOf(''), s.stateOf('a/b.txt')]).toEqual(['syncing', 'syncing', 'syncing', 'synced']);
    s.conflicts.add('a/b (conflicted copy 2026-01-01 120000 x).txt');
    expect(s.stateOf('a')).toBe('conflict');
    s.failed.add('z/bad.txt');
    expect([s.stateOf(''), s.stateOf('a'), s.stateOf('z')]).toEqual(['error', 'conflict', 'error']);
  });

  it('says ignored for drivesync\'s own folder, symbolic links, ignore rules and what was left out; excluded inside excluded places', () => {
    const s = states({ symlink: (p) => p === 'link', ignored: (p) => p.endsWith('.tmp') });
    s.leftOut.add('docs/ab');
    expect(['.drivesync', '.drivesync/mirror.sqlite', 'link', 'x.tmp', 'docs/ab'].map((p) => s.stateOf(p))).toEqual(['ignored', 'ignored', 'ignored', 'ignored', 'ignored']);
    expect(s.exclude(['photos'])).toEqual(['photos']);
    expect([s.stateOf('photos'), s.stateOf('photos/2019/a.jpg'), s.stateOf('photos2')]).toEqual(['excluded', 'excluded', 'synced']);
    expect(s.exclude([])).toEqual(['photos']);
    expect(s.stateOf('photos')).toBe('synced');
  });

  it('tells listeners a changed path with the folders holding it', () => {
    const s = states();
    const told: string[][] = [];
    const stop = s.onChange((paths) => told.push([...paths]));
    s.changed(['a/b/c.txt']);
    stop();
    s.changed(['x']);
    expect(told).toEqual([['a/b/c.txt', 'a/b', 'a', '']]);
  });
});
