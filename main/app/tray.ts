/**
 * The tray: an icon per state and the menu of docs/design.md §6 (open folder, sync now, pause/resume, recent files each
 * with "Copy link", open window, quit), rebuilt whenever what it shows changes. The menu is built as a plain
 * template, so it is tested without Electron.
 */
import type { Menu, MenuItemConstructorOptions, NativeImage, Tray } from 'electron';
import { join } from 'node:path';
import { describeState, trayStateOf, type ActivityItem, type EntryRef, type StatusSnapshot, type TrayState } from '../contract/index.js';

export interface RecentFile extends EntryRef {
  label: string;
}

export interface TrayView {
  status: StatusSnapshot;
  recent: RecentFile[];
}

export interface TrayActions {
  openFolder(): void;
  syncNow(): void;
  /** The user opened the menu or the window: look at the drive now. */
  looked(): void;
  pause(): void;
  resume(): void;
  copyLink(file: RecentFile): void;
  showFile(file: RecentFile): void;
  openWindow(): void;
  quit(): void;
}

const FILE_KINDS = new Set<ActivityItem['kind']>(['upload', 'download', 'replace-remote', 'conflict', 'move-local', 'move-remote', 'rename-remote']);

/** The latest distinct files the activity names (newest first), for the tray's "Recent files". */
export function recentFiles(activity: readonly ActivityItem[], limit = 5): RecentFile[] {
  const out: RecentFile[] = [];
  const seen = new Set<string>();
  for (const item of activity) {
    if (!FILE_KINDS.has(item.kind) || item.path === '' || item.path.startsWith('#')) continue;
    const key = `${item.root}\u0000${item.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ root: item.root, path: item.path, label: item.path.slice(item.path.lastIndexOf('/') + 1) });
    if (out.length === limit) break;
  }
  return out;
}

export const trayIconFile = (iconsDir: string, state: TrayState): string => join(iconsDir, `tray-${state}.png`);

export function trayTooltip(status: StatusSnapshot, now = new Date()): string {
  const words = describeState(status.state);
  // Offline is said in short: since when and what waits here (the window says why).
  if (status.state === 'offline' && status.offline) return `drivesync — ${words} since ${sinceWords(status.offline.since, now)}${waitingWords(status.offline.waitingUp)}`;
  return status.detail ? `drivesync — ${words}: ${status.detail}` : `drivesync — ${words}`;
}

/** A time today by the clock (14:02), an earlier one with its day. */
export function sinceWords(iso: string, now = new Date()): string {
  const at = new Date(iso);
  const time = at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return at.toDateString() === now.toDateString() ? time : `${at.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${time}`;
}

function waitingWords(n: number | null): string {
  if (n === null || n === 0) return '';
  return ` · ${n} change${n === 1 ? '' : 's'} wait${n === 1 ? 's' : ''} to go up`;
}

/** Menu labels escape `&`, which Electron would read as an accelerator marker on some platforms. */
const label = (text: string) => text.replace(/&/g, '&&');

export function trayMenuTemplate(view: TrayView, actions: TrayActions): MenuItemConstructorOptions[] {
  const { status } = view;
  const signedIn = status.account !== null;
  const hasFolder = status.folders.length > 0;
  // Paused by the user, or a folder stopped at the mass-delete question: resuming is what can be done.
  const paused = status.paused || status.state === 'paused' || status.state === 'waiting-for-consent';
  const items: MenuItemConstructorOptions[] = [
    { id: 'status', label: label(trayTooltip(status).replace(/^drivesync — /, '')), enabled: false },
    { type: 'separator' },
    { id: 'open-folder', label: 'Open folder', enabled: signedIn && hasFolder, click: () => actions.openFolder() },
    { id: 'sync-now', label: 'Sync now', enabled: signedIn && hasFolder && !paused, click: () => actions.syncNow() },
    paused
      ? { id: 'resume', label: 'Resume syncing', enabled: signedIn, click: () => actions.resume() }
      : { id: 'pause', label: 'Pause syncing', enabled: signedIn, click: () => actions.pause() },
    { type: 'separator' },
  ];
  if (view.recent.length === 0) {
    items.push({ id: 'recent', label: 'Recent files', enabled: false, submenu: [{ label: 'Nothing synced yet', enabled: false }] });
  } else {
    items.push({
      id: 'recent',
      label: 'Recent files',
      submenu: view.recent.map((file, index) => ({
        id: `recent-${index}`,
        label: label(file.label),
        toolTip: file.path,
        submenu: [
          { id: `recent-${index}-copy-link`, label: 'Copy link', click: () => actions.copyLink(file) },
          { id: `recent-${index}-show`, label: 'Show in folder', click: () => actions.showFile(file) },
        ],
      })),
    });
  }
  items.push(
    { type: 'separator' },
    { id: 'open-window', label: signedIn ? 'Open drivesync' : 'Sign in…', click: () => actions.openWindow() },
    { id: 'quit', label: 'Quit drivesync', click: () => actions.quit() },
  );
  return items;
}

export interface TrayDeps {
  createTray(image: NativeImage): Tray;
  image(path: string): NativeImage;
  buildMenu(template: MenuItemConstructorOptions[]): Menu;
}

/** Keeps one tray icon in step with the app: icon, tooltip and menu change only when what they show changes. */
export class TrayController {
  private tray: Tray | null = null;
  private shownKey = '';
  private shownState: TrayState | null = null;

  constructor(
    private readonly deps: TrayDeps,
    private readonly iconsDir: string,
    private readonly actions: TrayActions,
  ) {}

  update(view: TrayView): void {
    const state = trayStateOf(view.status.state);
    const path = trayIconFile(this.iconsDir, state);
    if (!this.tray) {
      this.tray = this.deps.createTray(this.deps.image(path));
      this.tray.on('click', () => this.actions.openWindow());
    } else if (state !== this.shownState) {
      this.tray.setImage(this.deps.image(path));
    }
    this.shownState = state;
    const { status } = view;
    const key = JSON.stringify({ s: status.state, d: status.detail, o: status.offline, p: status.paused, a: status.account, f: status.folders.length, r: view.recent });
    if (key === this.shownKey) return;
    this.shownKey = key;
    this.tray.setToolTip(trayTooltip(view.status));
    const menu = this.deps.buildMenu(trayMenuTemplate(view, this.actions));
    // Opening the menu is the user looking: what changed on the drive should be there now (macOS and Windows tell;
    // on Linux the menu's owner does not, and the window's focus is what tells).
    menu.on('menu-will-show', () => this.actions.looked());
    this.tray.setContextMenu(menu);
  }

  get currentState(): TrayState | null {
    return this.shownState;
  }

  destroy(): void {
    this.tray?.destroy();
    this.tray = null;
  }
}
