/**
 * A stand-in for the `electron` module (Electron never runs here): enough of app, BrowserWindow, Tray, Menu,
 * ipcMain, session, shell, clipboard, Notification, utilityProcess, contextBridge and ipcRenderer for the app's
 * main process and preload to run, recording what they were asked to do. Used through vi.mock('electron').
 */
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';

export const REPO = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

let nextContentsId = 1;

export class FakeWebContents extends EventEmitter {
  readonly id = nextContentsId++;
  readonly sent: Array<[string, unknown]> = [];
  windowOpenHandler: ((details: { url: string }) => { action: string }) | null = null;
  destroyed = false;
  send(channel: string, payload: unknown): void {
    this.sent.push([channel, payload]);
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

/** Emits a cancellable event as Electron does; answers whether it was prevented. */
export function emitCancellable(target: EventEmitter, name: string, ...args: unknown[]): boolean {
  let prevented = false;
  target.emit(name, { preventDefault: () => (prevented = true) }, ...args);
  return prevented;
}

export interface FakeState {
  singleInstance: boolean;
  windows: FakeBrowserWindow[];
  trays: FakeTray[];
  notifications: Array<{ title: string; body: string }>;
  handlers: Map<string, (event: unknown, arg: unknown) => unknown>;
  children: FakeUtilityProcess[];
  /** Called with each new utility process, to connect it to something that answers. */
  onFork: (child: FakeUtilityProcess, script: string) => void;
  headersListener: ((details: { responseHeaders?: Record<string, string[]> }, cb: (r: { responseHeaders: Record<string, string[]> }) => void) => void) | null;
  permissionHandler: ((contents: unknown, permission: string, cb: (granted: boolean) => void) => void) | null;
  exposed: Map<string, unknown>;
}

export const fake: FakeState = {
  singleInstance: true,
  windows: [],
  trays: [],
  notifications: [],
  handlers: new Map(),
  children: [],
  onFork: () => undefined,
  headersListener: null,
  permissionHandler: null,
  exposed: new Map(),
};

export class FakeBrowserWindow extends EventEmitter {
  readonly webContents = new FakeWebContents();
  readonly loaded: string[] = [];
  visible = false;
  destroyed = false;
  constructor(readonly options: { webPreferences?: Record<string, unknown> } & Record<string, unknown>) {
    super();
    fake.windows.push(this);
  }
  loadFile(file: string): Promise<void> {
    this.loaded.push(file);
    return Promise.resolve();
  }
  removeMenu(): void {}
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  focus(): void {}
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

export class FakeTray extends EventEmitter {
  images: string[] = [];
  tooltip = '';
  menu: { template: Array<Record<string, unknown>> } | null = null;
  destroyed = false;
  constructor(image: { path: string }) {
    super();
    this.images.push(image.path);
    fake.trays.push(this);
  }
  setImage(image: { path: string }): void {
    this.images.push(image.path);
  }
  setToolTip(text: string): void {
    this.tooltip = text;
  }
  setContextMenu(menu: { template: Array<Record<string, unknown>> }): void {
    this.menu = menu;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

export class FakeUtilityProcess extends EventEmitter {
  /** What the main process posted; `toChild` delivers it. */
  toChild: (message: unknown) => void = () => undefined;
  killed = false;
  constructor(
    readonly script: string,
    readonly options: { execArgv?: string[]; env?: Record<string, string | undefined> } = {},
  ) {
    super();
  }
  postMessage(message: unknown): void {
    this.toChild(structuredClone(message));
  }
  kill(): boolean {
    this.killed = true;
    this.emit('exit', 143);
    return true;
  }
}

class FakeNotification extends EventEmitter {
  static isSupported() {
    return true;
  }
  constructor(private readonly options: { title: string; body: string }) {
    super();
  }
  show(): void {
    fake.notifications.push({ title: this.options.title, body: this.options.body });
  }
}

export const app = Object.assign(new EventEmitter(), {
  requestSingleInstanceLock: vi.fn(() => fake.singleInstance),
  quit: vi.fn(),
  whenReady: vi.fn(() => Promise.resolve()),
  getAppPath: vi.fn(() => REPO),
  isPackaged: false,
  setLoginItemSettings: vi.fn(),
});

export const ipcMain = {
  handle: vi.fn((channel: string, handler: (event: unknown, arg: unknown) => unknown) => {
    fake.handlers.set(channel, handler);
  }),
  removeHandler: vi.fn((channel: string) => {
    fake.handlers.delete(channel);
  }),
};

export const session = {
  defaultSession: {
    webRequest: {
      onHeadersReceived: vi.fn((listener: FakeState['headersListener']) => {
        fake.headersListener = listener;
      }),
    },
    setPermissionRequestHandler: vi.fn((handler: FakeState['permissionHandler']) => {
      fake.permissionHandler = handler;
    }),
    setPermissionCheckHandler: vi.fn(),
  },
};

export const shell = { openExternal: vi.fn(() => Promise.resolve()), openPath: vi.fn(() => Promise.resolve('')), showItemInFolder: vi.fn() };
export const dialog = {
  showOpenDialog: vi.fn((..._args: unknown[]) => Promise.resolve({ canceled: false, filePaths: ['/home/me/Work'] as string[] })),
};
export const clipboard = { writeText: vi.fn() };
export const Menu = { buildFromTemplate: vi.fn((template: Array<Record<string, unknown>>) => Object.assign(new EventEmitter(), { template })) };
export const nativeImage = { createFromPath: vi.fn((path: string) => ({ path })) };
export const utilityProcess = {
  fork: vi.fn((script: string, _args?: string[], options?: { execArgv?: string[]; env?: Record<string, string | undefined> }) => {
    const child = new FakeUtilityProcess(script, options);
    fake.children.push(child);
    fake.onFork(child, script);
    return child;
  }),
};
export const contextBridge = {
  exposeInMainWorld: vi.fn((name: string, api: unknown) => {
    fake.exposed.set(name, api);
  }),
};
export const ipcRenderer = Object.assign(new EventEmitter(), { invoke: vi.fn(() => Promise.resolve({ ok: true, value: null })) });

export function fakeElectron() {
  return {
    app,
    BrowserWindow: FakeBrowserWindow,
    Tray: FakeTray,
    Menu,
    nativeImage,
    Notification: FakeNotification,
    ipcMain,
    session,
    shell,
    dialog,
    clipboard,
    utilityProcess,
    contextBridge,
    ipcRenderer,
    __fake: fake,
  };
}
