/**
 * The desktop host: the contract (main/contract) implemented on the shared state layer (main/state's openFolder) and
 * the API client, in plain Node. It never imports electron: what only the desktop shell can do (clipboard, opening a
 * folder, start at login) comes in through `HostPlatform`. The Electron app runs it in a utility process (see
 * docs/desktop.md); the tests run it in-process against the real reference server.
 *
 * It is made of one job per area, each answering its own calls: account.ts (sign-in and out), folders.ts (the synced
 * folders and their engines), sharing.ts (people, mailing lists, links), versions.ts (earlier versions of files),
 * selection.ts (the folders of the drive each synced folder leaves out), settings.ts, check.ts (a synced folder's files
 * compared with the drive's), feed.ts (status, progress, activity, conflicts and errors) and file-manager.ts (the file
 * manager's socket). This class only puts them together.
 */
import { EventEmitter } from 'node:events';
import type { ActivityItem, InvokeArg, InvokeChannel, InvokeResult, StatusSnapshot } from '../../contract/index.js';
import { AccountJob } from './account.js';
import { CheckJob } from './check.js';
import { HostContext, type Handlers, type HostOptions } from './context.js';
import { loadDesktopSettings } from './desktop-settings.js';
import type { HostEvents } from './events.js';
import { Feed } from './feed.js';
import { FileManagerJob } from './file-manager.js';
import { Folders } from './folders.js';
import { SelectionJob } from './selection.js';
import { SettingsJob } from './settings.js';
import { SharingJob } from './sharing.js';
import { VersionsJob } from './versions.js';

export type { HostOptions, HostPlatform } from './context.js';
export { conflictOriginal } from './feed.js';

export class DesktopHost extends EventEmitter<HostEvents> {
  private readonly context: HostContext;
  private readonly folders: Folders;
  private readonly feed: Feed;
  private readonly account: AccountJob;
  private readonly check: CheckJob;
  private readonly fileManager: FileManagerJob;
  private readonly handlers: Handlers;

  constructor(options: HostOptions) {
    super();
    this.context = new HostContext(options, this);
    this.folders = new Folders(this.context);
    this.feed = new Feed(this.context, () => this.folders.runs.values());
    this.folders.reportTo(this.feed);
    const settings = new SettingsJob(this.context, this.folders, this.feed);
    this.account = new AccountJob(this.context, this.folders, this.feed, () => this.emit('settings', settings.current()));
    const sharing = new SharingJob(this.context, this.folders);
    const versions = new VersionsJob(this.context, this.folders);
    const selection = new SelectionJob(this.context, this.folders);
    this.check = new CheckJob(this.context, this.folders);
    this.fileManager = new FileManagerJob(this.context, this.folders, this);
    // Every call of the contract is answered by exactly one job (a missing one does not compile).
    this.handlers = {
      ...this.account.handlers,
      ...this.folders.handlers,
      ...sharing.handlers,
      ...versions.handlers,
      ...selection.handlers,
      ...settings.handlers,
      ...this.feed.handlers,
      ...this.check.handlers,
    };
  }

  /** Reads the settings and, when an account is signed in already, starts syncing its folders. */
  init(): Promise<void> {
    return this.context.exclusive(async () => {
      this.context.desktop = loadDesktopSettings(this.context.paths);
      this.context.config = this.context.readConfig();
      await this.account.resume();
      await this.fileManager.start(this.context.options.socketDir);
      this.feed.emitState();
    });
  }

  /** The file manager's socket this host serves (null: none). */
  get socketPath(): string | null {
    return this.fileManager.path;
  }

  /** Stops every engine and releases the folders. */
  dispose(): Promise<void> {
    return this.context.exclusive(async () => {
      this.context.disposed = true;
      this.check.stopAll();
      await this.fileManager.stop();
      await this.folders.stop();
      this.feed.dispose();
    });
  }

  /** Runs one call of the contract. Arguments are assumed checked (see dispatch.ts). */
  handle<C extends InvokeChannel>(channel: C, arg: InvokeArg<C>): Promise<InvokeResult<C>> {
    const handler = this.handlers[channel] as (arg: InvokeArg<C>) => Promise<InvokeResult<C>>;
    return handler(arg);
  }

  /** The state, as the tray and the window show it. */
  status(): StatusSnapshot {
    return this.feed.status();
  }

  recentActivity(): ActivityItem[] {
    return [...this.feed.activity];
  }
}
