/** The tray's menu and icon for every state, the recent files, and the committed icons themselves. */
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { describeState, TRAY_STATES, trayStateOf, type ActivityItem, type OverallState, type StatusSnapshot } from '../../main/contract/index.js';
import { recentFiles, sinceWords, TrayController, trayIconFile, trayMenuTemplate, trayTooltip, type TrayActions } from '../../main/app/tray.js';
import { REPO } from './fake-electron.js';

const ICONS = join(REPO, 'main', 'app', 'icons');

const status = (state: OverallState, extra: Partial<StatusSnapshot> = {}): StatusSnapshot => ({
  account: state === 'signed-out' ? null : { server: 'https://drive.example', email: 'me@example.com' },
  state,
  stateText: describeState(state),
  detail: null,
  paused: state === 'paused',
  folders:
    state === 'signed-out'
      ? []
      : [{ root: '/home/me/Drive', state, stateText: describeState(state), detail: null, lastSync: null, synced: 1, inSync: true, skipped: 0, leftOut: [] }],
  pendingDeletions: [],
  ...extra,
});

const actions = (): TrayActions & Record<string, ReturnType<typeof vi.fn>> =>
  ({
    openFolder: vi.fn(),
    syncNow: vi.fn(),
    looked: vi.fn(),
    pause: vi.fn(),
    resume: vi.fn(),
    copyLink: vi.fn(),
    showFile: vi.fn(),
    openWindow: vi.fn(),
    quit: vi.fn(),
  }) as never;

const activity = (path: string, kind: ActivityItem['kind'], id: number): ActivityItem => ({ id, at: '2026-01-01T00:00:00Z', root: '/home/me/Drive', path, kind, description: kind });
const byId = (items: MenuItemConstructorOptions[], id: string) => items.find((i) => i.id === id)!;

describe('the tray menu', () => {
  it('has the docs/design.md §6 entries, and each does what it says', () => {
    const a = actions();
    const recent = recentFiles([activity('a/report.pdf', 'upload', 1)]);
    const menu = trayMenuTemplate({ status: status('idle'), recent }, a);
    expect(menu.map((i) => i.label ?? i.type)).toEqual(['Up to date', 'separator', 'Open folder', 'Sync now', 'Pause syncing', 'separator', 'Recent files', 'separator', 'Open drivesync', 'Quit drivesync']);
    const click = (item: MenuItemConstructorOptions) => (item.click as () => void)();
    click(byId(menu, 'open-folder'));
    click(byId(menu, 'sync-now'));
    click(byId(menu, 'pause'));
    click(byId(menu, 'open-window'));
    click(byId(menu, 'quit'));
    const file = (byId(menu, 'recent').submenu as MenuItemConstructorOptions[])[0]!;
    expect(file.label).toBe('report.pdf');
    const [copy, show] = file.submenu as MenuItemConstructorOptions[];
    expect(copy!.label).toBe('Copy link');
    click(copy!);
    click(show!);
    for (const name of ['openFolder', 'syncNow', 'pause', 'openWindow', 'quit']) expect(a[name]).toHaveBeenCalledTimes(1);
    expect(a.copyLink).toHaveBeenCalledWith({ root: '/home/me/Drive', path: 'a/report.pdf', label: 'report.pdf' });
    expect(a.showFile).toHaveBeenCalledWith({ root: '/home/me/Drive', path: 'a/report.pdf', label: 'report.pdf' });
    expect(a.resume).not.toHaveBeenCalled();
  });

  it('offers resume when paused, sign-in when signed out, and disables what cannot be done', () => {
    const paused = trayMenuTemplate({ status: status('paused'), recent: [] }, actions());
    expect(byId(paused, 'resume').label).toBe('Resume syncing');
    expect(paused.find((i) => i.id === 'pause')).toBeUndefined();
    expect(byId(paused, 'sync-now').enabled).toBe(false);
    const out = trayMenuTemplate({ status: status('signed-out'), recent: [] }, actions());
    expect(byId(out, 'open-window').label).toBe('Sign in…');
    expect(byId(out, 'open-folder').enabled).toBe(false);
    expect(byId(out, 'sync-now').enabled).toBe(false);
    expect(byId(out, 'recent').enabled).toBe(false);
    const error = trayMenuTemplate({ status: status('error', { detail: 'R&D folder is missing' }), recent: [] }, actions());
    expect(byId(error, 'status').label).toBe('Needs attention: R&&D folder is missing');
  });

  it('says offline in short: since when, and how many changes made here wait to go up', () => {
    const now = new Date(2026, 2, 14, 16, 30);
    const since = new Date(2026, 2, 14, 14, 2).toISOString();
    const detail = 'Cannot reach the drive server at 127.0.0.1:8080 — is it running? drivesync tries again on its own.';
    const offline = (waitingUp: number | null) => status('offline', { detail, offline: { since, waitingUp } });
    const time = new Date(since).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
    expect(sinceWords(since, now)).toBe(time);
    expect(trayTooltip(offline(3), now)).toBe(`drivesync — Offline since ${time} · 3 changes wait to go up`);
    expect(trayTooltip(offline(1), now)).toBe(`drivesync — Offline since ${time} · 1 change waits to go up`);
    expect(trayTooltip(offline(0), now)).toBe(`drivesync — Offline since ${time}`);
    expect(trayTooltip(offline(null), now)).toBe(`drivesync — Offline since ${time}`);
    // Since another day: with its day.
    expect(sinceWords(since, new Date(2026, 2, 15, 9, 0))).toBe(`${new Date(since).toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${time}`);
    // Without the host's offline mark (an older host), the reason as before.
    expect(trayTooltip(status('offline', { detail }))).toBe(`drivesync — Offline: ${detail}`);
    const menu = trayMenuTemplate({ status: offline(3), recent: [] }, actions());
    expect(byId(menu, 'status').label).toMatch(/^Offline since \S.* · 3 changes wait to go up$/);
  });

  it('lists the latest distinct files, newest first, at most five', () => {
    const items = [
      activity('b.txt', 'download', 9),
      activity('docs', 'create-remote-folder', 8),
      activity('a.txt', 'upload', 7),
      activity('b.txt', 'upload', 6),
      activity('#12', 'trash-remote', 5),
      activity('c.txt', 'record', 4),
      ...['d', 'e', 'f', 'g'].map((n, i) => activity(`${n}.txt`, 'upload', 3 - i)),
    ];
    expect(recentFiles(items).map((f) => f.path)).toEqual(['b.txt', 'a.txt', 'd.txt', 'e.txt', 'f.txt']);
  });
});

describe('the tray icon', () => {
  it('has a committed 16 px and 32 px PNG for every state, and the app icon', () => {
    const size = (file: string) => {
      const png = readFileSync(file);
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
      return [png.readUInt32BE(16), png.readUInt32BE(20)];
    };
    for (const state of TRAY_STATES) {
      expect(size(trayIconFile(ICONS, state))).toEqual([16, 16]);
      expect(size(trayIconFile(ICONS, state).replace('.png', '@2x.png'))).toEqual([32, 32]);
    }
    expect(size(join(ICONS, 'app.png'))).toEqual([512, 512]);
  });

  it('follows the state: one icon per state, the menu rebuilt only when what it shows changes', () => {
    const images: string[] = [];
    const tray = { setImage: vi.fn((i: { path: string }) => images.push(i.path)), setToolTip: vi.fn(), setContextMenu: vi.fn(), on: vi.fn(), destroy: vi.fn() };
    const buildMenu = vi.fn((template: MenuItemConstructorOptions[]) => Object.assign(new EventEmitter(), { template }));
    const controller = new TrayController(
      {
        createTray: (image) => {
          images.push((image as unknown as { path: string }).path);
          return tray as never;
        },
        image: (path) => ({ path }) as never,
        buildMenu: buildMenu as never,
      },
      ICONS,
      actions(),
    );
    const expected: Record<OverallState, string> = {
      'signed-out': 'offline',
      starting: 'syncing',
      idle: 'idle',
      scanning: 'syncing',
      syncing: 'syncing',
      paused: 'paused',
      'waiting-for-consent': 'paused',
      stopped: 'paused',
      offline: 'offline',
      error: 'error',
    };
    for (const [state, icon] of Object.entries(expected) as Array<[OverallState, string]>) {
      expect(trayStateOf(state)).toBe(icon);
      controller.update({ status: status(state), recent: [] });
      expect(images.at(-1)).toBe(join(ICONS, `tray-${icon}.png`));
      expect(controller.currentState).toBe(icon);
    }
    // Opening the menu is the user looking.
    const looking = (controller as unknown as { actions: Record<string, ReturnType<typeof vi.fn>> }).actions;
    buildMenu.mock.results.at(-1)!.value.emit('menu-will-show');
    expect(looking.looked).toHaveBeenCalledTimes(1);
    const builds = buildMenu.mock.calls.length;
    controller.update({ status: status('error'), recent: [] });
    expect(buildMenu.mock.calls.length).toBe(builds);
    controller.update({ status: status('error', { detail: 'now with a reason' }), recent: [] });
    expect(buildMenu.mock.calls.length).toBe(builds + 1);
    expect(tray.setToolTip).toHaveBeenLastCalledWith('drivesync — Needs attention: now with a reason');
    // Offline: the menu follows what waits to go up.
    const since = new Date().toISOString();
    controller.update({ status: status('offline', { offline: { since, waitingUp: 1 } }), recent: [] });
    expect(tray.setToolTip).toHaveBeenLastCalledWith(`drivesync — Offline since ${sinceWords(since)} · 1 change waits to go up`);
    const offlineBuilds = buildMenu.mock.calls.length;
    controller.update({ status: status('offline', { offline: { since, waitingUp: 2 } }), recent: [] });
    expect(buildMenu.mock.calls.length).toBe(offlineBuilds + 1);
    expect(tray.setToolTip).toHaveBeenLastCalledWith(`drivesync — Offline since ${sinceWords(since)} · 2 changes wait to go up`);
  });
});
