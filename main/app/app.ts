/**
 * The Electron main process, kept thin: one instance, the host in a utility process, IPC with the sender checked,
 * the tray, notifications, start at login and the window. Everything that is not Electron lives in the host
 * (main/app/host), which the tests run without Electron.
 */
import { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, nativeImage, Notification, session, shell, Tray, utilityProcess } from 'electron';
import type { IpcMainInvokeEvent, UtilityProcess } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ENGINE_ENV, ENGINE_V8_FLAGS } from '../state/engine-process.js';
import { autostartDir, startedAtLogin, writeAutostart } from './autostart.js';
import { describeState, ipcEventChannel, type ActivityItem, type StatusSnapshot } from '../contract/index.js';
import type { HostPlatform } from './host/host.js';
import { HostProxy, type Port } from './host/rpc.js';
import { forwardEvents, registerIpc } from './ipc.js';
import { Notifier } from './notifications.js';
import { guardContents, installSessionSecurity, isSafeExternalUrl, isTrustedSender } from './security.js';
import { recentFiles, TrayController, type RecentFile, type TrayActions } from './tray.js';
import { createMainWindow } from './window.js';

export interface AppLayout {
  preload: string;
  indexHtml: string;
  /** The page's URL: the only document IPC is answered for and windows may show. */
  appUrl: string;
  icons: string;
  appIcon: string;
  hostScript: string;
}

/** Where the built pieces are, from the app's folder (the project folder, or the asar of a package). */
export function appLayout(appRoot: string): AppLayout {
  const indexHtml = join(appRoot, 'dist', 'renderer', 'index.html');
  const icons = join(appRoot, 'main', 'app', 'icons');
  return {
    preload: join(appRoot, 'dist', 'preload', 'index.cjs'),
    indexHtml,
    appUrl: pathToFileURL(indexHtml).href,
    icons,
    appIcon: join(icons, 'app.png'),
    hostScript: join(appRoot, 'dist', 'main', 'app', 'host-process.js'),
  };
}

const SIGNED_OUT: StatusSnapshot = {
  account: null,
  state: 'signed-out',
  stateText: describeState('signed-out'),
  detail: null,
  paused: false,
  folders: [],
  pendingDeletions: [],
};

export function portOf(child: UtilityProcess): Port {
  return {
    postMessage: (message) => child.postMessage(message),
    onMessage: (listener) => {
      child.on('message', listener);
      return () => child.off('message', listener);
    },
  };
}

export interface RunningApp {
  host: HostProxy;
  tray: TrayController;
  showWindow(): BrowserWindow;
  layout: AppLayout;
}

/** The app's one window: made when first shown, and only hidden when closed (the tray keeps the app) until Quit. */
class MainWindow {
  private window: BrowserWindow | null = null;
  /** Set once Quit began: closing the window closes it then, and the host's end is expected. */
  quitting = false;
  /** The user is looking (the window focused, the tray menu opened): each folder checks the drive now. */
  looked: () => void = () => undefined;

  constructor(private readonly layout: AppLayout) {}

  /** The window, while it exists. */
  current(): BrowserWindow | null {
    return this.window && !this.window.isDestroyed() ? this.window : null;
  }

  all(): BrowserWindow[] {
    const window = this.current();
    return window ? [window] : [];
  }

  show(): BrowserWindow {
    const window = this.current();
    if (window) {
      window.show();
      window.focus();
      return window;
    }
    const { layout } = this;
    const created = createMainWindow(BrowserWindow, layout.preload, layout.indexHtml, layout.appIcon);
    created.on('focus', () => this.looked());
    created.once('ready-to-show', () => created.show());
    // Closing the window keeps the app in the tray; Quit ends it.
    created.on('close', (event) => {
      if (!this.quitting) {
        event.preventDefault();
        created.hide();
      }
    });
    this.window = created;
    return created;
  }
}

export async function runApp(argv: readonly string[] = process.argv): Promise<RunningApp | null> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }
  const layout = appLayout(app.getAppPath());
  const mainWindow = new MainWindow(layout);
  const showWindow = () => mainWindow.show();

  const openExternal = (url: string) => (isSafeExternalUrl(url) ? shell.openExternal(url) : undefined);
  // Every web contents the app ever makes gets the same guards, whichever window it is in.
  app.on('web-contents-created', (_event, contents) => guardContents(contents, layout.appUrl, openExternal));
  app.on('second-instance', () => void showWindow());
  app.on('window-all-closed', () => {
    // The tray keeps the app running.
  });

  await app.whenReady();
  installSessionSecurity(session.defaultSession);

  const child = forkHost(layout);
  const host = new HostProxy(portOf(child), desktopPlatform(mainWindow));
  connectWindows(host, mainWindow, layout);
  const notifier = notifierFor(host, mainWindow, layout);
  mainWindow.looked = () => void host.call('sync:look', undefined);
  const tray = new TrayController(
    { createTray: (image) => new Tray(image), image: (path) => nativeImage.createFromPath(path), buildMenu: (template) => Menu.buildFromTemplate(template) },
    layout.icons,
    trayActions(host, notifier, mainWindow),
  );
  const trayView = trayFollowsHost(tray, host, child, mainWindow);
  quitCleanly(host, child, tray, mainWindow);

  trayView.refresh();
  await host.ready;
  const status = await trayView.catchUp();
  const atLogin = startedAtLogin(argv, process.platform, () => app.getLoginItemSettings().wasOpenedAtLogin);
  if (!atLogin || status.account === null) showWindow();
  return { host, tray, showWindow, layout };
}

/** The host, in a utility process with the engine's V8 flags and environment. */
function forkHost(layout: AppLayout): UtilityProcess {
  return utilityProcess.fork(layout.hostScript, [], {
    serviceName: 'drivesync host',
    stdio: 'inherit',
    execArgv: [...ENGINE_V8_FLAGS],
    env: { ...process.env, ...ENGINE_ENV },
  });
}

function setStartAtLogin(enabled: boolean): void {
  if (process.platform === 'linux') {
    const command = app.isPackaged ? [process.env.APPIMAGE ?? process.execPath] : [process.execPath, app.getAppPath()];
    writeAutostart(autostartDir(), command, enabled);
  } else {
    app.setLoginItemSettings({ openAtLogin: enabled, args: ['--hidden'] });
  }
}

/** What the host asks of the desktop: the clipboard, the file manager, start at login, the folder picker. */
function desktopPlatform(mainWindow: MainWindow): HostPlatform {
  return {
    copyText: (text) => clipboard.writeText(text),
    openPath: async (path) => {
      const problem = await shell.openPath(path);
      if (problem) throw new Error(problem);
    },
    setStartAtLogin,
    showItemInFolder: (path) => shell.showItemInFolder(path),
    pickFolder: async () => {
      const options = { title: 'Choose a folder to sync', buttonLabel: 'Sync this folder', properties: ['openDirectory', 'createDirectory'] as Array<'openDirectory' | 'createDirectory'> };
      const open = mainWindow.current();
      const answer = open ? await dialog.showOpenDialog(open, options) : await dialog.showOpenDialog(options);
      return answer.canceled ? null : (answer.filePaths[0] ?? null);
    },
  };
}

/** The window's calls go to the host (from the app's page only), and the host's events to the window. */
function connectWindows(host: HostProxy, mainWindow: MainWindow, layout: AppLayout): void {
  const isTrusted = (event: IpcMainInvokeEvent) => isTrustedSender(event, mainWindow.all().map((w) => w.webContents.id), layout.appUrl);
  registerIpc(ipcMain, host, isTrusted, (event, channel) => {
    console.warn(`drivesync: refused ${channel} from ${event.senderFrame?.url ?? 'an unknown frame'}`);
  });
  forwardEvents(host, () => mainWindow.all().map((w) => w.webContents));
  // The file manager's "Share…" or "Version history…": the window comes up on it. A window made for it hears of it
  // once its page has loaded (the forwarding above reaches only the windows open now).
  host.on('open', (request) => {
    const had = mainWindow.all().length > 0;
    const window = mainWindow.show();
    if (!had) window.webContents.once('did-finish-load', () => window.webContents.send(ipcEventChannel('open'), request));
  });
}

/** The desktop's notifications of what the host tells; a click opens the window. */
function notifierFor(host: HostProxy, mainWindow: MainWindow, layout: AppLayout): Notifier {
  const notifier = new Notifier((n) => {
    if (!Notification.isSupported()) return;
    const note = new Notification({ title: n.title, body: n.body, icon: layout.appIcon });
    note.on('click', () => void mainWindow.show());
    note.show();
  });
  notifier.attach(host);
  return notifier;
}

function trayActions(host: HostProxy, notifier: Notifier, mainWindow: MainWindow): TrayActions {
  const call = (channel: Parameters<HostProxy['call']>[0], arg?: unknown) => host.call(channel, arg);
  return {
    openFolder: () => void call('folder:open', {}),
    syncNow: () => void call('sync:now'),
    looked: () => mainWindow.looked(),
    pause: () => void call('sync:pause'),
    resume: () => void call('sync:resume'),
    copyLink: (file: RecentFile) =>
      void call('link:copy', { root: file.root, path: file.path }).then((result) =>
        notifier.show(
          result.ok
            ? { title: 'Link copied', body: `${file.label}: ${String(result.value)}`, action: 'open-window' }
            : { title: `No link for ${file.label}`, body: result.error.message, action: 'open-window' },
        ),
      ),
    showFile: (file: RecentFile) => void call('file:show', { root: file.root, path: file.path }),
    openWindow: () => void mainWindow.show(),
    quit: () => app.quit(),
  };
}

/** The tray shows the host's state and its recent files, and says so when the host ends before Quit. */
function trayFollowsHost(tray: TrayController, host: HostProxy, child: UtilityProcess, mainWindow: MainWindow) {
  let status = SIGNED_OUT;
  let activity: ActivityItem[] = [];
  const refresh = () => tray.update({ status, recent: recentFiles(activity) });
  host.on('state', (next) => {
    status = next;
    refresh();
  });
  host.on('activity', (item) => {
    activity = [item, ...activity].slice(0, 50);
    refresh();
  });
  child.on('exit', (code) => {
    if (mainWindow.quitting) return;
    status = { ...status, state: 'error', detail: `the sync process ended (code ${code}); restart drivesync` };
    refresh();
  });
  return {
    refresh,
    /** The state and recent activity the host has when it is ready (the events only tell what changes later). */
    catchUp: async (): Promise<StatusSnapshot> => {
      const [first, recent] = await Promise.all([host.call('status:get', null), host.call('activity:list', null)]);
      if (first.ok) status = first.value as StatusSnapshot;
      if (recent.ok) activity = recent.value as ActivityItem[];
      refresh();
      return status;
    },
  };
}

function quitCleanly(host: HostProxy, child: UtilityProcess, tray: TrayController, mainWindow: MainWindow): void {
  app.on('before-quit', (event) => {
    if (mainWindow.quitting) return;
    mainWindow.quitting = true;
    // The engines stop cleanly (their mirrors closed) before the app ends; a host that hangs is ended after 5 s.
    event.preventDefault();
    const timer = setTimeout(() => child.kill(), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      tray.destroy();
      app.quit();
    });
    host.shutdown();
  });
}
