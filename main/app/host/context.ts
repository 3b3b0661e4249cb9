/**
 * What every job of the desktop host shares: its options, the signed-in account and its client, the shared config
 * and the window's own settings, the events it sends, and one queue for the work that changes the set of engines.
 */
import type { EventEmitter } from 'node:events';
import type { DriveClient } from '../../api/client.js';
import type { Account, EventMap, EventName, InvokeArg, InvokeChannel, InvokeResult } from '../../contract/index.js';
import { DEFAULT_POLL_SECONDS, loadConfig, type Config } from '../../state/config.js';
import type { OsTrash } from '../../state/folder.js';
import type { StatePaths } from '../../state/paths.js';
import { DEFAULT_DESKTOP_SETTINGS, type DesktopSettings } from './desktop-settings.js';
import type { HostEvents } from './events.js';
import { HostError } from './failures.js';
import type { TokenStore } from './tokens.js';

/** What only the desktop shell can do. */
export interface HostPlatform {
  copyText(text: string): void | Promise<void>;
  openPath(path: string): void | Promise<void>;
  setStartAtLogin(enabled: boolean): void | Promise<void>;
  /** Shows a file selected in the file manager; without it the file's folder is opened. */
  showItemInFolder?(path: string): void | Promise<void>;
  /** The desktop's folder picker: the chosen absolute path, or null when cancelled. */
  pickFolder?(): string | null | Promise<string | null>;
}

export interface HostOptions {
  paths: StatePaths;
  platform: HostPlatform;
  /** The folder a first sign-in syncs when none is configured. */
  defaultFolder: string;
  tokens?: TokenStore;
  hostname?: string;
  trash?: OsTrash;
  retry?: { limit: number; baseDelayMs: number };
  env?: NodeJS.ProcessEnv;
  /** Least time between two progress events while transfers run. */
  progressIntervalMs?: number;
  /** Where the file manager's socket is served (docs/file-manager.md); `$XDG_RUNTIME_DIR/drivesync` by default. */
  socketDir?: string;
  now?: () => number;
}

/** One handler per call of the contract. */
export type Handlers = { [C in InvokeChannel]: (arg: InvokeArg<C>) => Promise<InvokeResult<C>> };
/** The handlers of one job: exactly the calls it answers. */
export type HandlersOf<C extends InvokeChannel> = Pick<Handlers, C>;

export class HostContext {
  readonly paths: StatePaths;
  readonly now: () => number;
  account: Account | null = null;
  client: DriveClient | null = null;
  config: Config = { roots: [], pollIntervalSeconds: DEFAULT_POLL_SECONDS };
  desktop: DesktopSettings = { ...DEFAULT_DESKTOP_SETTINGS };
  disposed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly options: HostOptions,
    private readonly events: EventEmitter<HostEvents>,
  ) {
    this.paths = options.paths;
    this.now = options.now ?? (() => Date.now());
  }

  emit<E extends EventName>(event: E, payload: EventMap[E]): void {
    (this.events as EventEmitter).emit(event, payload);
  }

  notice(root: string | null, message: string): void {
    this.emit('notice', { at: new Date(this.now()).toISOString(), root, message });
  }

  requireClient(): DriveClient {
    if (!this.client || !this.account) throw new HostError('not-signed-in', 'Not signed in.');
    return this.client;
  }

  /** The shared config; a damaged one is told as a notice and read as empty. */
  readConfig(): Config {
    try {
      return loadConfig(this.paths);
    } catch (error) {
      this.notice(null, (error as Error).message);
      return { roots: [], pollIntervalSeconds: DEFAULT_POLL_SECONDS };
    }
  }

  /** Sign-in, sign-out, settings and start-up change the set of engines: one at a time. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/**
 * The transfer limits in force: the config's (shared with the command line), or, for a config that has none yet, the
 * single limit earlier versions of the window kept in desktop.json, for both directions.
 */
export function bandwidthOf(config: Pick<Config, 'bandwidth'>, desktop: { bandwidthLimitKBps: number }): { upBytesPerSecond: number; downBytesPerSecond: number } {
  if (config.bandwidth) return { upBytesPerSecond: config.bandwidth.upBytesPerSecond ?? 0, downBytesPerSecond: config.bandwidth.downBytesPerSecond ?? 0 };
  const bytes = desktop.bandwidthLimitKBps > 0 ? desktop.bandwidthLimitKBps * 1024 : 0;
  return { upBytesPerSecond: bytes, downBytesPerSecond: bytes };
}
