/**
 * The app's one window. Every window the app opens is made here, with the same locked-down webPreferences: a
 * sandboxed renderer in an isolated context with no Node, and only the preload's API.
 */
import type { BrowserWindow, BrowserWindowConstructorOptions, WebPreferences } from 'electron';

export function secureWebPreferences(preload: string): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    experimentalFeatures: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
  };
}

export function mainWindowOptions(preload: string, icon?: string): BrowserWindowConstructorOptions {
  return {
    width: 980,
    height: 700,
    minWidth: 640,
    minHeight: 480,
    show: false,
    title: 'drivesync',
    backgroundColor: '#f7f7f8',
    autoHideMenuBar: true,
    ...(icon ? { icon } : {}),
    webPreferences: secureWebPreferences(preload),
  };
}

export type WindowFactory = new (options: BrowserWindowConstructorOptions) => BrowserWindow;

export function createMainWindow(Window: WindowFactory, preload: string, indexHtml: string, icon?: string): BrowserWindow {
  const window = new Window(mainWindowOptions(preload, icon));
  window.removeMenu();
  void window.loadFile(indexHtml);
  return window;
}
