/**
 * The Electron main process with a stand-in `electron` module: one instance, locked-down windows, the tray and its
 * menu following the state, IPC refused to foreign senders and answered (by a real host behind a fake utility
 * process) for the app's page, events sent on, the CSP header, navigation guards, notifications, start at login
 * and a clean quit.
 */
import { ENGINE_ENV, ENGINE_V8_FLAGS } from '../../main/sync/engine/process-flags.js';
import type { EventEmitter } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('electron', async () => (await import('./fake-electron.js')).fakeElectron());

import { INVOKE_CHANNELS, ipcEventChannel, ipcInvokeChannel, type StatusSnapshot } from '../../main/contract/index.js';
import { CSP } from '../../main/app/csp.js';
import { remotePlatform, serveHost, type Port } from '../../main/app/host/rpc.js';
import { app, dialog, emitCancellable, fake, FakeWebContents, shell, type FakeUtilityProcess } from './fake-electron.js';
import { newHost, type TestHost } from './helpers.js';
import { tempDir } from '../helpers/temp.js';
import { eventually } from '../helpers/eventually.js';

let h: TestHost;
let running: Awaited<ReturnType<typeof import('../../main/app/app.js').runApp>>;
const xdgConfig = tempDir('xdg-config');
const savedXdg = process.env.XDG_CONFIG_HOME;

function connect(child: FakeUtilityProcess): void {
  const listeners = new Set<(m: unknown) => void>();
  // Messages cross the process boundary asynchronously, as structured clones.
  const port: Port = {
    postMessage: (m) => setImmediate(() => child.emit('message', structuredClone(m))),
    onMessage: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
  child.toChild = (m) => setImmediate(() => listeners.forEach((l) => l(m)));
  // The real host, with its desktop requests going back through the port to the main process.
  h = newHost('electron', remotePlatform(port));
  serveHost(h.host, port, () => void h.host.dispose().then(() => child.emit('exit', 0)));
  void h.host.init();
}

const trusted = () => {
  const window = fake.windows[0]!;
  return { sender: window.webContents, senderFrame: { url: running!.layout.appUrl, parent: null } };
};
const invoke = (channel: string, event: unknown, arg?: unknown) => fake.handlers.get(ipcInvokeChannel(channel as never))!(event, arg) as Promise<unknown>;

beforeAll(async () => {
  process.env.XDG_CONFIG_HOME = xdgConfig;
  fake.onFork = connect;
  const { runApp } = await import('../../main/app/app.js');
  running = await runApp(['electron', '.']);
});
afterAll(async () => {
  if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedXdg;
  await h?.host.dispose();
});

describe('the main process', () => {
  it('starts the host in a utility process and opens one locked-down window on the built renderer', () => {
    expect(running).not.toBeNull();
    expect(fake.children).toHaveLength(1);
    expect(fake.children[0]!.script).toBe(join(running!.layout.hostScript));
    expect(running!.layout.hostScript).toMatch(/dist[\\/]main[\\/]app[\\/]host-process\.js$/);
    expect(fake.children[0]!.options.execArgv).toEqual([...ENGINE_V8_FLAGS]);
    expect(fake.children[0]!.options.env).toMatchObject(ENGINE_ENV);
    expect(fake.windows).toHaveLength(1);
    const window = fake.windows[0]!;
    expect(window.loaded).toEqual([running!.layout.indexHtml]);
    expect(running!.layout.indexHtml).toMatch(/dist[\\/]renderer[\\/]index\.html$/);
    expect(running!.layout.preload).toMatch(/dist[\\/]preload[\\/]index\.cjs$/);
  });

  it('gives every window it opens the same secure webPreferences', () => {
    expect(running!.showWindow()).toBe(fake.windows[0]); // shown again, not made twice
    fake.windows[0]!.destroyed = true;
    running!.showWindow(); // a new window once the first is gone
    expect(fake.windows.length).toBe(2);
    for (const window of fake.windows) {
      expect(window.options.webPreferences).toMatchObject({
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        preload: running!.layout.preload,
      });
    }
    // The app's window is the new one from here on.
    fake.windows.splice(0, 1);
  });

  it('registers a handler for every call, refuses foreign senders and answers the app page', async () => {
    for (const channel of INVOKE_CHANNELS) expect(fake.handlers.has(ipcInvokeChannel(channel))).toBe(true);
    const window = fake.windows[0]!;
    const foreignUrl = { sender: window.webContents, senderFrame: { url: 'https://evil.example/index.html', parent: null } };
    const foreignContents = { sender: new FakeWebContents(), senderFrame: { url: running!.layout.appUrl, parent: null } };
    const subFrame = { sender: window.webContents, senderFrame: { url: running!.layout.appUrl, parent: {} } };
    const noFrame = { sender: window.webContents, senderFrame: null };
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    for (const event of [foreignUrl, foreignContents, subFrame, noFrame]) {
      expect(await invoke('status:get', event)).toEqual({ ok: false, error: { kind: 'forbidden', message: expect.any(String) } });
    }
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
    const answer = (await invoke('status:get', trusted())) as { ok: true; value: StatusSnapshot };
    expect(answer).toMatchObject({ ok: true, value: { state: 'signed-out', account: null } });
    const bad = await invoke('share:add', trusted(), { root: 1 });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'invalid-argument' } });
  });

  it('the window focused or the tray menu opened asks the host to look at the drive', async () => {
    const handle = vi.spyOn(h.host, 'handle');
    const looks = () => handle.mock.calls.filter(([channel]) => channel === 'sync:look').length;
    fake.windows[0]!.emit('focus');
    await eventually(() => looks() === 1);
    (fake.trays[0]!.menu as unknown as EventEmitter).emit('menu-will-show');
    await eventually(() => looks() === 2);
    handle.mockRestore();
  });

  it('shows the state in the tray: icon, tooltip and the docs/design.md §6 menu, rebuilt on change', async () => {
    expect(fake.trays).toHaveLength(1);
    const tray = fake.trays[0]!;
    expect(tray.images.at(-1)).toBe(join(running!.layout.icons, 'tray-offline.png'));
    expect(existsSync(tray.images.at(-1)!)).toBe(true);
    const labels = () => tray.menu!.template.map((i) => i.label ?? i.type);
    expect(labels()).toEqual(['Signed out', 'separator', 'Open folder', 'Sync now', 'Pause syncing', 'separator', 'Recent files', 'separator', 'Sign in…', 'Quit drivesync']);

    const idle: StatusSnapshot = {
      account: { server: 'http://127.0.0.1:1', email: 'a@example.com' },
      state: 'idle',
      stateText: 'Up to date',
      detail: null,
      paused: false,
      folders: [{ root: '/tmp/Drive', state: 'idle', stateText: 'Up to date', detail: null, lastSync: null, synced: 3, inSync: true, skipped: 0, leftOut: [] }],
      pendingDeletions: [],
    };
    h.host.emit('state', idle);
    h.host.emit('activity', { id: 1, at: new Date().toISOString(), root: '/tmp/Drive', path: 'docs/plan.txt', kind: 'upload', description: 'Uploaded' });
    await eventually(() => tray.images.at(-1)!.endsWith('tray-idle.png') && JSON.stringify(tray.menu).includes('plan.txt'));
    expect(tray.tooltip).toBe('drivesync — Up to date');
    expect(labels()).toEqual(['Up to date', 'separator', 'Open folder', 'Sync now', 'Pause syncing', 'separator', 'Recent files', 'separator', 'Open drivesync', 'Quit drivesync']);
    const recent = tray.menu!.template.find((i) => i.id === 'recent') as { submenu: Array<{ label: string; submenu: Array<{ label: string; click: () => void }> }> };
    expect(recent.submenu.map((f) => f.label)).toEqual(['plan.txt']);
    expect(recent.submenu[0]!.submenu.map((i) => i.label)).toEqual(['Copy link', 'Show in folder']);
    // Copy link goes to the host; its answer (here: that folder is not synced, nobody is signed in) is told.
    recent.submenu[0]!.submenu[0]!.click();
    await eventually(() => fake.notifications.some((n) => n.title === 'No link for plan.txt'));
    expect(fake.notifications.at(-1)!.body).toBe('Not signed in.');

    h.host.emit('state', { ...idle, state: 'paused', paused: true });
    await eventually(() => tray.images.at(-1)!.endsWith('tray-paused.png'));
    expect(labels()).toContain('Resume syncing');
    h.host.emit('state', { ...idle, state: 'error', detail: 'disk full' });
    await eventually(() => tray.images.at(-1)!.endsWith('tray-error.png'));
    expect(tray.tooltip).toBe('drivesync — Needs attention: disk full');
  });

  it('sends the host events to the window', async () => {
    const window = fake.windows[0]!;
    const before = window.webContents.sent.length;
    h.host.emit('notice', { at: new Date().toISOString(), root: null, message: 'hello' });
    await eventually(() => window.webContents.sent.length > before);
    expect(window.webContents.sent.at(-1)).toEqual([ipcEventChannel('notice'), expect.objectContaining({ message: 'hello' })]);
  });

  it('notifies of conflicts, errors and the mass-delete question', async () => {
    h.host.emit('conflict', { id: 1, at: new Date().toISOString(), root: '/tmp/Drive', path: 'docs/plan.txt', copyPath: 'docs/plan (conflicted copy 2026-01-01 120000 beta).txt' });
    h.host.emit('confirm-deletions', { root: '/tmp/Drive', count: 40, synced: 50, bytes: 4096, groups: [{ where: 'here', why: 'deleted on the drive', count: 40, bytes: 4096, items: [] }] });
    h.host.emit('item-error', { id: 2, at: new Date().toISOString(), root: '/tmp/Drive', path: 'x.bin', message: 'permission denied' });
    const before = fake.notifications.length;
    await eventually(() => fake.notifications.length >= before + 3);
    const shown = fake.notifications.slice(-3);
    expect(shown.map((n) => n.title)).toEqual(['Conflict: plan.txt', 'Delete many files?', 'Could not sync x.bin']);
    expect(shown[0]!.body).toContain('plan (conflicted copy 2026-01-01 120000 beta).txt');
    expect(shown[1]!.body).toContain('40 of 50');
  });

  it('puts the CSP on every response, refuses permissions, and guards every web contents', () => {
    const headers: Record<string, string[]> = {};
    fake.headersListener!({ responseHeaders: { 'content-security-policy': ["default-src *"], 'X-Other': ['1'] } }, (r) => Object.assign(headers, r.responseHeaders));
    expect(headers).toEqual({ 'X-Other': ['1'], 'Content-Security-Policy': [CSP] });
    let granted: boolean | null = null;
    fake.permissionHandler!({}, 'notifications', (g) => (granted = g));
    expect(granted).toBe(false);

    const contents = new FakeWebContents();
    app.emit('web-contents-created', {}, contents);
    expect(emitCancellable(contents, 'will-navigate', 'https://evil.example/')).toBe(true);
    expect(emitCancellable(contents, 'will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(emitCancellable(contents, 'will-navigate', `${running!.layout.appUrl}#status`)).toBe(false);
    expect(emitCancellable(contents, 'will-redirect', 'https://evil.example/')).toBe(true);
    expect(emitCancellable(contents, 'will-attach-webview')).toBe(true);
    shell.openExternal.mockClear();
    expect(contents.windowOpenHandler!({ url: 'https://example.com/help' })).toEqual({ action: 'deny' });
    expect(shell.openExternal).toHaveBeenCalledWith('https://example.com/help');
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'not a url']) {
      expect(contents.windowOpenHandler!({ url })).toEqual({ action: 'deny' });
    }
    expect(shell.openExternal).toHaveBeenCalledTimes(1);
  });

  it('keeps a second instance out by showing the first one, and stays in the tray when the window closes', () => {
    const window = fake.windows[0]!;
    window.visible = false;
    app.emit('second-instance');
    expect(window.visible).toBe(true);
    expect(emitCancellable(window, 'close')).toBe(true);
    expect(window.visible).toBe(false);
  });

  it('turns start at login on and off (an XDG autostart entry on Linux)', async () => {
    const file = join(xdgConfig, 'autostart', 'drivesync.desktop');
    const on = await invoke('settings:set', trusted(), { startAtLogin: true });
    expect(on).toMatchObject({ ok: true, value: { startAtLogin: true } });
    if (process.platform === 'linux') {
      expect(readFileSync(file, 'utf8')).toMatch(/^Exec=".+" ".+" --hidden$/m);
      await invoke('settings:set', trusted(), { startAtLogin: false });
      expect(existsSync(file)).toBe(false);
    } else {
      expect(app.setLoginItemSettings).toHaveBeenCalledWith({ openAtLogin: true, args: ['--hidden'] });
    }
  });

  it('picks a folder with the desktop dialog and shows a file in the file manager, for the host in its process', async () => {
    const picked = await invoke('folder:pick', trusted());
    expect(picked).toEqual({ ok: true, value: '/home/me/Work' });
    // The dialog belongs to the app's window, and picks one folder (which it may create).
    expect(dialog.showOpenDialog).toHaveBeenCalledWith(fake.windows[0], expect.objectContaining({ properties: ['openDirectory', 'createDirectory'] }));
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: true, filePaths: [] });
    expect(await invoke('folder:pick', trusted())).toEqual({ ok: true, value: null });
    const platform = h.desktop as { showItemInFolder(path: string): Promise<void> };
    await platform.showItemInFolder('/home/me/Drive/report.txt');
    expect(shell.showItemInFolder).toHaveBeenCalledWith('/home/me/Drive/report.txt');
  });

  it("shows the window on the file manager's Share… or Version history…, and tells a window made for it once it has loaded", async () => {
    const entry = { root: '/home/me/Drive', path: 'docs/plan.txt', name: 'plan.txt', type: 'file' as const, remoteId: 7, size: 4, modifiedAt: null };
    const window = fake.windows[0]!;
    window.hide();
    h.host.emit('open', { view: 'share', entry });
    await eventually(() => window.visible && window.webContents.sent.some(([c]) => c === ipcEventChannel('open')));
    // No window (it was destroyed): one is made, and hears of it once its page has loaded.
    window.destroyed = true;
    const windows = fake.windows.length;
    h.host.emit('open', { view: 'versions', entry });
    await eventually(() => fake.windows.length === windows + 1);
    const made = fake.windows.at(-1)!;
    expect(made.webContents.sent.filter(([c]) => c === ipcEventChannel('open'))).toEqual([]);
    made.webContents.emit('did-finish-load');
    expect(made.webContents.sent.filter(([c]) => c === ipcEventChannel('open'))).toEqual([[ipcEventChannel('open'), { view: 'versions', entry }]]);
    window.destroyed = false;
  });

  it('quits cleanly: the host stops its engines and ends before the app does', async () => {
    const child = fake.children[0]!;
    app.quit.mockClear();
    const prevented = emitCancellable(app, 'before-quit');
    expect(prevented).toBe(true);
    await eventually(() => app.quit.mock.calls.length > 0);
    expect(child.killed).toBe(false);
    expect(fake.trays[0]!.destroyed).toBe(true);
    // The second before-quit (from that app.quit()) goes through.
    expect(emitCancellable(app, 'before-quit')).toBe(false);
  });
});

describe('a second instance', () => {
  it('quits at once without a window or a host', async () => {
    const windows = fake.windows.length;
    const children = fake.children.length;
    fake.singleInstance = false;
    app.quit.mockClear();
    const { runApp } = await import('../../main/app/app.js');
    expect(await runApp()).toBeNull();
    expect(app.quit).toHaveBeenCalledTimes(1);
    expect(fake.windows.length).toBe(windows);
    expect(fake.children.length).toBe(children);
    fake.singleInstance = true;
  });
});
