/** Bytes, rate and ETA from transfer events, on a virtual clock; notifications and the autostart entry. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autostartEntry, writeAutostart } from '../../main/app/autostart.js';
import { conflictOriginal } from '../../main/app/host/host.js';
import { ProgressTracker } from '../../main/app/host/progress.js';
import { Notifier, type Notification } from '../../main/app/notifications.js';
import { tempDir } from '../helpers/temp.js';

describe('progress', () => {
  it('adds up a round of transfers, with a smoothed rate and an ETA', () => {
    let now = 0;
    const p = new ProgressTracker(() => now);
    p.setBusy(true);
    p.record({ root: '/r', path: 'a', direction: 'up', transferred: 0, total: 1000 });
    p.record({ root: '/r', path: 'b', direction: 'down', transferred: 0, total: 3000 });
    now = 1000;
    p.record({ root: '/r', path: 'a', direction: 'up', transferred: 500, total: 1000 });
    p.record({ root: '/r', path: 'b', direction: 'down', transferred: 500, total: 3000 });
    let s = p.snapshot();
    expect(s).toMatchObject({ active: true, bytesDone: 1000, bytesTotal: 4000, bytesPerSecond: 1000, etaSeconds: 3, filesDone: 0 });
    expect(s.transfers.map((t) => [t.path, t.direction, t.transferred, t.total])).toEqual([
      ['a', 'up', 500, 1000],
      ['b', 'down', 500, 3000],
    ]);
    now = 2000;
    expect(p.record({ root: '/r', path: 'a', direction: 'up', transferred: 1000, total: 1000 })).toBe(true);
    s = p.snapshot();
    expect(s).toMatchObject({ bytesDone: 1500, bytesTotal: 4000, filesDone: 1 });
    expect(s.transfers.map((t) => t.path)).toEqual(['b']);
    p.setBusy(false);
    s = p.snapshot();
    expect(s).toMatchObject({ active: false, transfers: [], etaSeconds: 0, filesDone: 1 });
    // A new round starts from zero.
    p.setBusy(true);
    p.record({ root: '/r', path: 'c', direction: 'up', transferred: 10, total: 20 });
    expect(p.snapshot()).toMatchObject({ bytesDone: 10, bytesTotal: 20, filesDone: 0, etaSeconds: null });
  });
});

describe('conflicted copies', () => {
  it('name the path they were made for', () => {
    expect(conflictOriginal('docs/plan (conflicted copy 2026-01-31 235959 my-laptop).txt')).toBe('docs/plan.txt');
    expect(conflictOriginal('Makefile (conflicted copy 2026-01-31 235959 host)')).toBe('Makefile');
    expect(conflictOriginal('a.tar (conflicted copy 2026-01-31 235959 h).gz')).toBe('a.tar.gz');
    expect(conflictOriginal('plain.txt')).toBe('plain.txt');
  });
});

describe('notifications', () => {
  it('tells of conflicts and the delete question each time, and of errors at most once a minute', () => {
    let now = 0;
    const shown: Notification[] = [];
    const n = new Notifier((x) => shown.push(x), () => now);
    n.conflict({ id: 1, at: '', root: '/r', path: 'a/b.txt', copyPath: 'a/b (conflicted copy 2026-01-01 120000 beta).txt' });
    n.deletions({ root: '/r', count: 600, synced: 700, bytes: 0, groups: [{ where: 'drive', why: 'deleted in this folder', count: 600, bytes: 0, items: [] }] });
    n.error({ id: 2, at: '', root: '/r', path: 'x', message: 'denied' });
    n.error({ id: 3, at: '', root: '/r', path: 'y', message: 'denied' });
    n.error({ id: 4, at: '', root: '/r', path: 'z', message: 'denied' });
    now = 61_000;
    n.error({ id: 5, at: '', root: '/r', path: '', message: 'the folder is missing' });
    expect(shown.map((s) => s.title)).toEqual(['Conflict: b.txt', 'Delete many files?', 'Could not sync x', 'Syncing stopped']);
    expect(shown[3]!.body).toBe('the folder is missing (and 2 more since the last notice)');
  });
});

describe('start at login on Linux', () => {
  it('writes and removes an XDG autostart entry that starts the app hidden', () => {
    const dir = join(tempDir('autostart'), 'autostart');
    writeAutostart(dir, ['/opt/drive sync/drivesync'], true);
    const text = readFileSync(join(dir, 'drivesync.desktop'), 'utf8');
    expect(text).toBe(autostartEntry(['/opt/drive sync/drivesync']));
    expect(text).toContain('Exec="/opt/drive sync/drivesync" --hidden');
    writeAutostart(dir, ['/opt/drive sync/drivesync'], false);
    expect(existsSync(join(dir, 'drivesync.desktop'))).toBe(false);
  });
});
