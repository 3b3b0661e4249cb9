/**
 * The host's settings job: the folders and the poll interval (the shared config.json), the window's own settings
 * (desktop.json: concurrency, bandwidth, start at login, paused), and the ignore rules (`.syncignore` in each folder).
 * A change that the engines take at start restarts them; the bandwidth limit applies at once.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { Settings, SettingsChanges } from '../../contract/index.js';
import { isFolderName, saveConfig, withBandwidth } from '../../state/config.js';
import { saveSharedFolder, sharedFolderOf } from '../../state/shared-folder.js';
import { canonicalPath, nestingOf } from '../../state/roots.js';
import { resumeFolders } from '../../state/control.js';
import { bandwidthOf, type HandlersOf, type HostContext } from './context.js';
import { saveDesktopSettings } from './desktop-settings.js';
import type { Feed } from './feed.js';
import type { Folders } from './folders.js';
import { HostError } from './failures.js';
import { isGroupingFolder } from './shared-with-me.js';
import { syncedItemAt } from '../../state/mirror-view.js';

/** Limits in bytes per second as the window's fields show them: kilobytes per second, 0 for none. */
const kilobytesOf = (limits: { upBytesPerSecond: number; downBytesPerSecond: number }) => ({
  bandwidthUpKBps: Math.round(limits.upBytesPerSecond / 1024),
  bandwidthDownKBps: Math.round(limits.downBytesPerSecond / 1024),
});

const IGNORE_FILE = '.syncignore';

const folderNameOf = (root: string) => root.replace(/[/\\]+$/, '').split(/[/\\]/).pop() || root;

export class SettingsJob {
  constructor(
    private readonly host: HostContext,
    private readonly folders: Folders,
    private readonly feed: Feed,
  ) {}

  readonly handlers: HandlersOf<'settings:get' | 'settings:set' | 'settings:shared-folder' | 'sync:pause' | 'sync:resume'> = {
    'settings:get': async () => this.current(),
    'settings:set': (changes) => this.host.exclusive(() => this.change(changes)),
    'settings:shared-folder': ({ root, name }) => this.host.exclusive(async () => this.nameSharedFolder(root, name)),
    'sync:pause': () => this.host.exclusive(() => this.setPaused(true)),
    'sync:resume': () => this.host.exclusive(() => this.setPaused(false)),
  };

  /** The settings as the window shows them. */
  current(): Settings {
    const first = this.host.config.roots[0];
    let ignoreRules = '';
    if (first) {
      try {
        ignoreRules = readFileSync(join(first, IGNORE_FILE), 'utf8');
      } catch {
        // no rules
      }
    }
    return {
      folders: [...this.host.config.roots],
      pollIntervalSeconds: this.host.config.pollIntervalSeconds,
      keepVersionsDays: this.host.config.keepVersionsDays ?? null,
      concurrency: this.host.desktop.concurrency,
      ...kilobytesOf(bandwidthOf(this.host.config, this.host.desktop)),
      ignoreRules,
      startAtLogin: this.host.desktop.startAtLogin,
      paused: this.host.desktop.paused,
      sharedFolders: this.host.config.roots.map((root) => ({ root, name: sharedFolderOf(this.host.config, root) })),
    };
  }

  /**
   * Names the folder a synced folder keeps what is shared with the account in, or turns it off (null). The folder's
   * engine follows the config; a name already taken at the top of the synced folder is refused rather than merged.
   */
  /** An entry of the account's own drive is synced at the top of the folder under that name (not one shared with it). */
  private ownAt(root: string, name: string): boolean {
    const run = this.folders.runs.get(root);
    const item = run ? syncedItemAt(run.mirror, name) : null;
    return item !== null && !isGroupingFolder(item.remoteId);
  }

  private nameSharedFolder(root: string, given: string | null): Settings {
    const config = this.host.readConfig();
    if (!config.roots.includes(root)) throw new HostError('not-synced', `${root} is not a synced folder.`);
    const name = given === null ? null : given.trim();
    const current = sharedFolderOf(config, root);
    if (name !== null && name !== current) {
      if (!isFolderName(name)) {
        const why = 'A folder name cannot be empty, “.” or “..”, nor hold / \\ : * ? " < > |.';
        throw new HostError('invalid', `“${name.slice(0, 80)}” cannot be a folder’s name. ${why}`, { name: why });
      }
      if (this.ownAt(root, name)) {
        const why = `${folderNameOf(root)} already holds “${name}” of your drive: choose another name.`;
        throw new HostError('invalid', why, { name: why });
      }
    }
    if (name !== current) saveSharedFolder(this.host.paths, root, name);
    this.host.config = this.host.readConfig();
    const settings = this.current();
    this.host.emit('settings', settings);
    return settings;
  }

  private checkFolders(folders: readonly string[]): string[] {
    const out: string[] = [];
    for (const given of folders) {
      if (!isAbsolute(given)) throw new HostError('invalid', `${given} is not an absolute path.`, { folders: 'Give the full path of the folder.' });
      mkdirSync(resolve(given), { recursive: true });
      const root = canonicalPath(given);
      if (out.includes(root)) continue;
      const nested = nestingOf(root, out);
      if (nested) {
        throw new HostError('invalid', `${root} and ${nested.other} are nested; sync one or the other.`, { folders: 'Synced folders cannot be inside one another.' });
      }
      out.push(root);
    }
    return out;
  }

  private async change(changes: SettingsChanges): Promise<Settings> {
    const config = this.host.readConfig();
    let restart = false;
    if (changes.folders !== undefined) {
      const folders = this.checkFolders(changes.folders);
      restart ||= folders.join('\n') !== config.roots.join('\n');
      config.roots = folders;
      // A folder no longer synced forgets what it left out, as `drivesync remove` does: added again, it syncs whole.
      if (config.selective) {
        const kept = Object.fromEntries(Object.entries(config.selective).filter(([root]) => folders.includes(root)));
        if (Object.keys(kept).length > 0) config.selective = kept;
        else delete config.selective;
      }
    }
    if (changes.pollIntervalSeconds !== undefined && changes.pollIntervalSeconds !== config.pollIntervalSeconds) {
      config.pollIntervalSeconds = changes.pollIntervalSeconds;
      restart = true;
    }
    // Read by the engines when they next look for versions past it: no restart.
    if (changes.keepVersionsDays !== undefined) {
      if (changes.keepVersionsDays === null) delete config.keepVersionsDays;
      else config.keepVersionsDays = changes.keepVersionsDays;
    }
    const desktop = { ...this.host.desktop };
    if (changes.concurrency !== undefined && changes.concurrency !== desktop.concurrency) {
      desktop.concurrency = changes.concurrency;
      restart = true;
    }
    if (changes.bandwidthUpKBps !== undefined || changes.bandwidthDownKBps !== undefined) {
      // Kept in the config, for the command line too; the single limit of earlier versions is gone with it.
      const now = bandwidthOf(config, desktop);
      const limited = withBandwidth(config, {
        up: changes.bandwidthUpKBps !== undefined ? changes.bandwidthUpKBps * 1024 : now.upBytesPerSecond,
        down: changes.bandwidthDownKBps !== undefined ? changes.bandwidthDownKBps * 1024 : now.downBytesPerSecond,
      });
      delete config.bandwidth;
      if (limited.bandwidth) config.bandwidth = limited.bandwidth;
      desktop.bandwidthLimitKBps = 0;
      // Applied at once, to the transfers under way too.
      this.host.client?.http.bandwidth.set(bandwidthOf(config, desktop));
    }
    if (changes.startAtLogin !== undefined && changes.startAtLogin !== desktop.startAtLogin) {
      await this.host.options.platform.setStartAtLogin(changes.startAtLogin);
      desktop.startAtLogin = changes.startAtLogin;
    }
    saveConfig(this.host.paths, config);
    this.host.config = config;
    this.host.desktop = desktop;
    saveDesktopSettings(this.host.paths, desktop);
    if (changes.ignoreRules !== undefined) {
      const text = changes.ignoreRules.endsWith('\n') || changes.ignoreRules === '' ? changes.ignoreRules : `${changes.ignoreRules}\n`;
      for (const root of config.roots) {
        const file = join(root, IGNORE_FILE);
        if (text === '' && !existsSync(file)) continue;
        writeFileSync(file, text);
      }
    }
    if (restart && this.host.account) await this.folders.restart();
    if (changes.paused !== undefined && changes.paused !== this.host.desktop.paused && this.host.account) await this.setPaused(changes.paused);
    else if (changes.ignoreRules !== undefined) this.folders.syncAll();
    const settings = this.current();
    this.host.emit('settings', settings);
    this.feed.emitState();
    return settings;
  }

  private async setPaused(paused: boolean): Promise<void> {
    const { host } = this;
    host.requireClient();
    host.desktop = { ...host.desktop, paused };
    saveDesktopSettings(host.paths, host.desktop);
    // Resume means every folder: those paused one by one (drivesync pause) go on as well.
    if (!paused && host.config.paused) {
      resumeFolders(host.paths, Object.keys(host.config.paused));
      delete host.config.paused;
    }
    this.folders.pause(paused);
    this.feed.emitState();
    host.emit('settings', this.current());
  }
}
