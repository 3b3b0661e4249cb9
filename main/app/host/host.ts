/**
 * The desktop host: the contract (main/app/contract.ts) implemented on SyncEngine and DriveClient, in plain Node.
 * It never imports electron: what only the desktop shell can do (clipboard, opening a folder, start at login) comes
 * in through `HostPlatform`. The Electron app runs it in a utility process (see docs/desktop.md); the tests run it
 * in-process against the real reference server.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { DriveClient } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import type { FileEntry, LinkSettings, ShareableLink, User } from '../../api/index.js';
import { loadConfig, saveConfig, DEFAULT_POLL_SECONDS, type Config } from '../../state/config.js';
import { ServerAddressError, StateError } from '../../state/errors.js';
import {
  openFolder,
  type Activity,
  type DeletionQuestion as EngineQuestion,
  type EngineState,
  type ItemError,
  type PassSummary,
  type SyncedFolder,
} from '../../state/folder.js';
import type { StatePaths } from '../../state/paths.js';
import { canonicalPath, nestingOf, rootOfAccount } from '../../state/roots.js';
import { emailFor, normaliseServer as normalise, serverOf } from '../../state/server.js';
import { describeState } from '../contract.js';
import type {
  Account,
  ActivityItem,
  ActivityKind,
  ConflictItem,
  DeletionQuestion,
  EntryRef,
  ErrorItem,
  FolderState,
  FolderStatus,
  InvokeArg,
  InvokeChannel,
  InvokeResult,
  LinkInput,
  LinkView,
  ListShareOutcome,
  OverallState,
  Permission,
  Person,
  Settings,
  SignInInput,
  StatusSnapshot,
  SyncedEntry,
} from '../contract.js';
import { DEFAULT_DESKTOP_SETTINGS, loadDesktopSettings, saveDesktopSettings, type DesktopSettings } from './desktop-settings.js';
import type { HostEvents } from './events.js';
import { HostError } from './failures.js';
import { entryMarkers } from './markers.js';
import { mirrorChildren, mirrorItem, type MirrorRow } from './mirror-read.js';
import { plainProblem } from './plain-words.js';
import { recentFiles } from './recent-files.js';
import { countSubscribed, forgetList, listsInOrder, loadSavedLists, rememberList } from './saved-lists.js';
import { ProgressTracker } from './progress.js';
import { keychainTokens, type TokenStore } from './tokens.js';

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
  trash?: (absolutePath: string) => Promise<void>;
  retry?: { limit: number; baseDelayMs: number };
  env?: NodeJS.ProcessEnv;
  /** Least time between two progress events while transfers run. */
  progressIntervalMs?: number;
  now?: () => number;
}

type Handlers = { [C in InvokeChannel]: (arg: InvokeArg<C>) => Promise<InvokeResult<C>> };

interface FolderRun {
  root: string;
  mirror: string;
  folder: SyncedFolder | null;
  status: FolderStatus;
  /** Remote ids the engine is moving to the drive's trash, with their paths (activity names them by id). */
  /** A full pass is waiting for the running one to end. */
}

const TOKEN_NAME = 'drivesync desktop';
const MAX_KEPT = 200;
const IGNORE_FILE = '.syncignore';

const DESCRIPTIONS: Record<ActivityKind, string> = {
  upload: 'Uploaded',
  download: 'Downloaded',
  'replace-remote': 'Uploaded a new version',
  'create-remote-folder': 'Created the folder on the drive',
  'create-local-folder': 'Created the folder here',
  'rename-remote': 'Renamed on the drive',
  'move-remote': 'Moved on the drive',
  'move-local': 'Moved here',
  'trash-remote': "Moved to the drive's trash",
  'trash-local': 'Moved to the trash',
  conflict: 'Changed on both sides: both versions kept',
  merge: 'Already identical on both sides',
  record: 'Recorded as synced',
  forget: 'Forgotten',
  notice: 'Notice',
};

/** Which state speaks for the app when folders differ: the first in this list that any folder is in. */
const STATE_PRIORITY: readonly FolderState[] = ['error', 'offline', 'syncing', 'scanning', 'starting', 'paused', 'idle'];

/** The path a conflicted copy was made for: DESIGN §3's `name (conflicted copy YYYY-MM-DD HHMMSS host).ext`. */
export function conflictOriginal(copyPath: string): string {
  return copyPath.replace(/ \(conflicted copy \d{4}-\d{2}-\d{2} \d{6} [^)/]*\)(?=(\.[^./]*)?$)/, '');
}

/** The server address, or the form's refusal in the window's words. */
function normaliseServer(text: string): string {
  try {
    return normalise(text);
  } catch (error) {
    if (!(error instanceof ServerAddressError)) throw error;
    if (error.reason === 'not-a-url') {
      throw new HostError('invalid', 'The server must be a URL such as https://drive.example.com.', { server: 'Enter a URL such as https://drive.example.com.' });
    }
    throw new HostError('invalid', 'The server must start with http:// or https://.', { server: 'The address must start with http:// or https://.' });
  }
}

function peopleOf(users: ReadonlyArray<User & { entry_permissions?: Record<Permission, boolean>; owns_entry?: boolean }> | undefined): Person[] {
  return (users ?? [])
    .filter((u) => !u.owns_entry)
    .map((u) => ({
      userId: u.id,
      email: u.email,
      name: u.display_name ?? null,
      permissions: (['view', 'edit', 'download'] as const).filter((p) => u.entry_permissions?.[p]),
    }));
}

export class DesktopHost extends EventEmitter<HostEvents> {
  private readonly options: HostOptions;
  private readonly paths: StatePaths;
  private readonly tokens: TokenStore;
  private readonly now: () => number;
  private config: Config = { roots: [], pollIntervalSeconds: DEFAULT_POLL_SECONDS };
  private desktop: DesktopSettings = { ...DEFAULT_DESKTOP_SETTINGS };
  private account: Account | null = null;
  private client: DriveClient | null = null;
  private readonly runs = new Map<string, FolderRun>();
  private readonly activity: ActivityItem[] = [];
  private readonly conflicts: ConflictItem[] = [];
  private errors: ErrorItem[] = [];
  private readonly pending = new Map<string, DeletionQuestion>();
  private readonly progress: ProgressTracker;
  private progressTimer: NodeJS.Timeout | null = null;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(options: HostOptions) {
    super();
    this.options = options;
    this.paths = options.paths;
    this.tokens = options.tokens ?? keychainTokens(options.paths, options.env);
    this.now = options.now ?? (() => Date.now());
    this.progress = new ProgressTracker(this.now);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Life cycle

  /** Reads the settings and, when an account is signed in already, starts syncing its folders. */
  init(): Promise<void> {
    return this.exclusive(async () => {
      this.desktop = loadDesktopSettings(this.paths);
      this.config = this.readConfig();
      const server = serverOf(this.config, this.options.env ?? process.env);
      const email = emailFor(this.config, server);
      if (server && email) {
        const token = await this.tokens.load(server, email).catch(() => null);
        if (token) {
          this.signedIn({ server, email }, token);
          await this.startFolders();
        }
      }
      this.emitState();
    });
  }

  /** Stops every engine and releases the folders. */
  dispose(): Promise<void> {
    return this.exclusive(async () => {
      this.disposed = true;
      await this.stopFolders();
      if (this.progressTimer) clearTimeout(this.progressTimer);
    });
  }

  /** Runs one call of the contract. Arguments are assumed checked (see dispatch.ts). */
  handle<C extends InvokeChannel>(channel: C, arg: InvokeArg<C>): Promise<InvokeResult<C>> {
    const handler = this.handlers[channel] as (arg: InvokeArg<C>) => Promise<InvokeResult<C>>;
    return handler(arg);
  }

  /** The state, as the tray and the window show it. */
  status(): StatusSnapshot {
    const folders = [...this.runs.values()].map((r) => ({ ...r.status, stateText: describeState(r.status.state) }));
    let state: OverallState = 'signed-out';
    let detail: string | null = null;
    if (this.account) {
      state = 'idle';
      if (folders.length === 0) detail = 'No folder is synced: choose one in Settings.';
      for (const candidate of STATE_PRIORITY) {
        const folder = folders.find((f) => f.state === candidate);
        if (folder) {
          state = candidate;
          detail = folder.detail;
          break;
        }
      }
      if (this.desktop.paused && state !== 'error') {
        state = 'paused';
        detail = 'Syncing is paused.';
      }
    }
    return {
      account: this.account ? { ...this.account } : null,
      state,
      stateText: describeState(state),
      detail,
      paused: this.desktop.paused,
      folders,
      pendingDeletions: [...this.pending.values()],
    };
  }

  recentActivity(): ActivityItem[] {
    return [...this.activity];
  }

  // -------------------------------------------------------------------------------------------------------------
  // Calls

  private readonly handlers: Handlers = {
    'auth:sign-in': (input) => this.exclusive(() => this.signIn(input)),
    'auth:sign-out': () => this.exclusive(() => this.signOut()),
    'status:get': async () => this.status(),
    'progress:get': async () => this.progress.snapshot(),
    'sync:now': async () => {
      this.requireClient();
      // The user asked: a full local scan as well as a poll, so nothing a watcher may have missed is left out.
      for (const run of this.runs.values()) this.fullSync(run);
    },
    'sync:pause': () => this.exclusive(() => this.setPaused(true)),
    'sync:resume': () => this.exclusive(() => this.setPaused(false)),
    'activity:list': async () => [...this.activity],
    'conflicts:list': async () => [...this.conflicts],
    'errors:list': async () => [...this.errors],
    'errors:clear': async () => {
      this.errors = [];
    },
    'entries:browse': async (ref) => {
      const run = this.requireFolder(ref.root);
      return mirrorChildren(run.mirror, ref.path).map((row) => this.toEntry(run.root, row));
    },
    'folder:open': async (arg) => {
      const root = arg.root ?? this.config.roots[0];
      if (!root) throw new HostError('not-synced', 'No folder is synced yet.');
      const run = this.requireFolder(root);
      await this.options.platform.openPath(this.insideRoot(run.root, arg.path ?? ''));
    },
    'share:list': async (ref) => {
      const { client, item } = this.resolve(ref);
      return this.peopleOfEntry(client, item);
    },
    'share:add': async (arg) => {
      const { client, item } = this.resolve(arg);
      const emails = [...new Set(arg.emails.map((e) => e.trim()).filter((e) => e !== ''))];
      if (emails.length === 0) throw new HostError('invalid', 'Enter at least one e-mail address.', { emails: 'Enter at least one e-mail address.' });
      const result = await client.sharing.share(item.remoteId, emails, arg.permissions);
      return { people: peopleOf(result.users), unknown: result.unknown };
    },
    'share:change': async (arg) => {
      const { client, item } = this.resolve(arg);
      return peopleOf(await client.sharing.changePermissions(item.remoteId, arg.userId, arg.permissions));
    },
    'share:remove': async (arg) => {
      const { client, item } = this.resolve(arg);
      return peopleOf(await client.sharing.unshare(item.remoteId, arg.userId));
    },
    'share:list-members': async (arg) => this.shareWithList(arg),
    'link:get': async (ref) => {
      const { client, item } = this.resolve(ref);
      const info = await client.links.get(item.remoteId);
      return info ? this.linkView(client, info.link) : null;
    },
    'link:create': async (arg) => {
      const { client, item } = this.resolve(arg);
      return this.linkView(client, await client.links.create(item.remoteId, this.linkSettings(arg)));
    },
    'link:update': async (arg) => {
      const { client, item } = this.resolve(arg);
      return this.linkView(client, await client.links.update(item.remoteId, this.linkSettings(arg)));
    },
    'link:delete': async (ref) => {
      const { client, item } = this.resolve(ref);
      await client.links.delete(item.remoteId);
    },
    'link:copy': async (ref) => {
      const { client, item } = this.resolve(ref);
      const link = (await client.links.get(item.remoteId))?.link ?? (await client.links.create(item.remoteId, { allowDownload: true }));
      const url = client.links.publicUrl(link);
      await this.options.platform.copyText(url);
      return url;
    },
    'settings:get': async () => this.settings(),
    'settings:set': (changes) => this.exclusive(() => this.changeSettings(changes)),
    'deletions:answer': async ({ root, confirm }) => {
      const run = this.requireFolder(root);
      if (!this.pending.delete(run.root)) throw new HostError('not-found', 'No deletion is waiting for an answer in that folder.');
      if (confirm) {
        run.folder?.confirmDeletions();
        this.fullSync(run);
      } else {
        run.folder?.pause();
        run.status.detail = 'Deletions were not confirmed: the folder is paused. Resume to be asked again.';
        this.notice(run.root, `The deletions in ${run.root} were not made; syncing of that folder is paused.`);
      }
      this.emitState();
    },
    'recent:list': async () => recentFiles(this.activity, this.conflicts, this.errors),
    'entries:markers': async (ref) => {
      const client = this.requireClient();
      const run = this.requireFolder(ref.root);
      const parent = ref.path === '' ? null : mirrorItem(run.mirror, ref.path);
      if (ref.path !== '' && !parent) throw new HostError('not-synced', `${ref.path} is not synced yet.`);
      return entryMarkers(client, parent?.remoteId ?? null, mirrorChildren(run.mirror, ref.path));
    },
    'entries:star': async (arg) => {
      const { client, item } = this.resolve(arg);
      if (arg.starred) await client.entries.star([item.remoteId]);
      else await client.entries.unstar([item.remoteId]);
    },
    'file:open': async (ref) => {
      const run = this.requireFolder(ref.root);
      await this.options.platform.openPath(this.insideRoot(run.root, ref.path));
    },
    'file:show': async (ref) => {
      const run = this.requireFolder(ref.root);
      const target = this.insideRoot(run.root, ref.path);
      const { platform } = this.options;
      if (platform.showItemInFolder) await platform.showItemInFolder(target);
      else await platform.openPath(this.insideRoot(run.root, ref.path.includes('/') ? ref.path.slice(0, ref.path.lastIndexOf('/')) : ''));
    },
    'folder:pick': async () => {
      if (!this.options.platform.pickFolder) throw new HostError('failed', 'This desktop has no folder picker: type the folder’s full path instead.');
      return (await this.options.platform.pickFolder()) ?? null;
    },
    'lists:list': async () => {
      this.requireClient();
      return listsInOrder(loadSavedLists(this.paths, this.account!));
    },
    'lists:save': async ({ id, name }) => {
      const client = this.requireClient();
      const listId = id.trim().toLowerCase();
      const label = name.trim();
      if (!/^[0-9a-f]{13}$/i.test(listId)) {
        throw new HostError('invalid', 'A list ID is 13 letters and digits (0–9, a–f), as shown where your lists are managed.', { id: 'Enter the 13-character ID of the list.' });
      }
      if (label === '') throw new HostError('invalid', 'Give the list a name you will recognise.', { name: 'Enter a name for the list.' });
      const subscribers = await countSubscribed(client, listId);
      return rememberList(this.paths, this.account!, { id: listId, name: label, subscribers });
    },
    'lists:forget': async ({ id }) => {
      this.requireClient();
      return forgetList(this.paths, this.account!, id);
    },
  };

  // -------------------------------------------------------------------------------------------------------------
  // Account

  private async signIn(input: SignInInput): Promise<Account> {
    const server = normaliseServer(input.server);
    const email = input.email.trim();
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
      throw new HostError('invalid', 'Enter the e-mail address of your account.', { email: 'Enter an e-mail address such as you@example.com.' });
    }
    const anonymous = new DriveClient({ origin: server, retry: this.options.retry ?? { limit: 2, baseDelayMs: 300 } });
    const credentials = { email, password: input.password, tokenName: TOKEN_NAME };
    const session = input.register ? await anonymous.auth.register(credentials) : await anonymous.auth.login(credentials).catch(wrongCredentials);
    if (this.account) await this.signOutNow(false);
    await this.tokens.save(server, email, session.token, (line) => this.notice(null, line));
    const config = this.readConfig();
    config.server = server;
    config.email = email;
    if (config.roots.length === 0) {
      mkdirSync(this.options.defaultFolder, { recursive: true });
      config.roots = [canonicalPath(this.options.defaultFolder)];
    }
    saveConfig(this.paths, config);
    this.config = config;
    this.signedIn({ server, email }, session.token);
    await this.startFolders();
    this.emitState();
    this.emit('settings', this.settings());
    return { server, email };
  }

  private async signOut(): Promise<void> {
    await this.signOutNow(true);
    this.emitState();
  }

  private async signOutNow(forgetToken: boolean): Promise<void> {
    await this.stopFolders();
    if (forgetToken && this.account) await this.tokens.remove(this.account.server, this.account.email).catch(() => undefined);
    this.account = null;
    this.client = null;
    this.pending.clear();
  }

  private signedIn(account: Account, token: string): void {
    this.account = account;
    const client = new DriveClient({
      origin: account.server,
      token,
      retry: this.options.retry ?? { limit: 4, baseDelayMs: 500 },
      bandwidth: bandwidthOf(this.desktop.bandwidthLimitKBps),
    });
    this.client = client;
  }

  private requireClient(): DriveClient {
    if (!this.client || !this.account) throw new HostError('not-signed-in', 'Not signed in.');
    return this.client;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Folders and engines

  private readConfig(): Config {
    try {
      return loadConfig(this.paths);
    } catch (error) {
      this.notice(null, (error as Error).message);
      return { roots: [], pollIntervalSeconds: DEFAULT_POLL_SECONDS };
    }
  }

  private async startFolders(): Promise<void> {
    for (const root of this.config.roots) await this.startFolder(root);
    this.emitState();
  }

  private async startFolder(root: string): Promise<void> {
    if (this.disposed || !this.account || !this.client) return;
    const { server, email } = this.account;
    const run: FolderRun = {
      root,
      // Known before the folder opens: a folder another process syncs can still be browsed and shared from here.
      mirror: rootOfAccount(this.paths, root, server, email).mirror,
      folder: null,
      status: { root, state: 'starting', detail: null, lastSync: null, synced: 0, inSync: null },
    };
    this.runs.set(root, run);
    let folder: SyncedFolder;
    try {
      folder = await openFolder(root, {
        paths: this.paths,
        server,
        email,
        client: this.client,
        otherRoots: this.config.roots,
        pollIntervalMs: this.config.pollIntervalSeconds * 1000,
        concurrency: this.desktop.concurrency,
        ...(this.options.trash ? { trash: this.options.trash } : {}),
        ...(this.options.hostname ? { hostname: this.options.hostname } : {}),
      });
    } catch (error) {
      run.status.state = 'error';
      run.status.detail = error instanceof StateError ? error.message : `cannot open ${root}: ${(error as Error).message.split('\n')[0]}`;
      return;
    }
    if (this.runs.get(root) !== run) {
      // Stopped while it opened (sign-out, settings): it is not wanted any more.
      await folder.close().catch(() => undefined);
      return;
    }
    run.folder = folder;
    run.status.synced = folder.syncedCount;
    this.wire(run, folder);
    if (this.desktop.paused) folder.pause();
    void folder.start().catch((error: unknown) => {
      run.status.state = 'error';
      run.status.detail = (error as Error).message.split('\n')[0] ?? 'the engine stopped';
      this.emitState();
    });
  }

  private wire(run: FolderRun, engine: SyncedFolder): void {
    const current = () => this.runs.get(run.root) === run && run.folder === engine;
    engine.on('state', (state: EngineState, detail?: string) => {
      if (!current()) return;
      run.status.state = state;
      run.status.detail = detail ? plainProblem(detail, { root: run.root, server: this.account?.server }) : null;
      this.progress.setBusy([...this.runs.values()].some((r) => r.status.state === 'syncing' || r.status.state === 'scanning'));
      this.emitState();
      this.emitProgress(true);
    });
    engine.on('activity', (activity: Activity) => {
      if (!current()) return;
      const path = activity.path;
      const item: ActivityItem = {
        id: this.nextId++,
        at: activity.at,
        root: run.root,
        path,
        kind: activity.kind,
        description: DESCRIPTIONS[activity.kind] ?? activity.kind,
      };
      this.keep(this.activity, item);
      this.emit('activity', item);
    });
    engine.on('transfer', (event) => {
      if (!current()) return;
      const changed = this.progress.record({ root: run.root, path: event.path, direction: event.direction, transferred: event.transferred, total: event.total });
      this.emitProgress(changed);
    });
    engine.on('conflict', (copyPath: string, originalPath?: string) => {
      if (!current()) return;
      const item: ConflictItem = { id: this.nextId++, at: new Date(this.now()).toISOString(), root: run.root, path: originalPath ?? conflictOriginal(copyPath), copyPath };
      this.keep(this.conflicts, item);
      this.emit('conflict', item);
    });
    engine.on('item-error', (error: ItemError) => {
      if (!current()) return;
      const item: ErrorItem = {
        id: this.nextId++,
        at: new Date(this.now()).toISOString(),
        root: run.root,
        path: error.path,
        message: plainProblem(error.message, { root: run.root, server: this.account?.server }),
        technical: error.message,
      };
      this.errors = [item, ...this.errors.filter((e) => !(e.root === item.root && e.path === item.path && e.message === item.message))].slice(0, MAX_KEPT);
      this.emit('item-error', item);
    });
    engine.on('confirm-deletions', (question: EngineQuestion) => {
      if (!current()) return;
      const asked: DeletionQuestion = { root: run.root, count: question.count, synced: question.synced };
      this.pending.set(run.root, asked);
      this.emit('confirm-deletions', asked);
      this.emitState();
    });
    engine.on('notice', (message: string) => {
      if (current()) this.notice(run.root, message);
    });
    engine.on('pass', (summary: PassSummary) => {
      if (!current()) return;
      run.status.lastSync = new Date(this.now()).toISOString();
      run.status.inSync = summary.inSync;
      run.status.synced = engine.syncedCount;
      if (summary.inSync && summary.failed.length === 0) {
        // Problems a clean pass no longer has are gone.
        this.errors = this.errors.filter((e) => e.root !== run.root);
      }
      this.emitState();
    });
  }

  /**
   * A pass with a full local scan. SyncEngine folds a request made while a pass runs into a quick follow-up pass
   * that looks only at the watcher's paths, and it has no public "busy" flag: so the request waits until the
   * engine's pass in flight (its `running` promise) has ended, then starts the full pass in the same turn.
   */
  /** A full scan and listing; asked while a pass runs, the engine does it in one follow-up pass. */
  private fullSync(run: FolderRun): void {
    void run.folder?.syncOnce({ fullScan: true }).catch(() => undefined);
  }

  private async stopFolders(): Promise<void> {
    const runs = [...this.runs.values()];
    this.runs.clear();
    await Promise.all(
      runs.map(async (run) => {
        await run.folder?.close().catch(() => undefined);
      }),
    );
    this.progress.setBusy(false);
  }

  private async restartFolders(): Promise<void> {
    await this.stopFolders();
    this.pending.clear();
    await this.startFolders();
  }

  private requireFolder(root: string): FolderRun {
    this.requireClient();
    const run = this.runs.get(root);
    if (!run) throw new HostError('not-synced', `${root} is not a synced folder.`);
    return run;
  }

  /** An absolute path inside a synced folder; never outside it. */
  private insideRoot(root: string, path: string): string {
    const target = normalize(join(root, ...path.split('/')));
    if (target !== root && !target.startsWith(root.endsWith(sep) ? root : root + sep)) {
      throw new HostError('invalid-argument', 'The path leaves the synced folder.');
    }
    return target;
  }

  private resolve(ref: EntryRef): { client: DriveClient; item: MirrorRow } {
    const client = this.requireClient();
    const run = this.requireFolder(ref.root);
    if (ref.path === '') throw new HostError('invalid-argument', 'Name a file or folder inside the synced folder.');
    const item = mirrorItem(run.mirror, ref.path);
    if (!item) throw new HostError('not-synced', `${ref.path} is not synced yet.`);
    return { client, item };
  }

  private toEntry(root: string, row: MirrorRow): SyncedEntry {
    const name = row.path.slice(row.path.lastIndexOf('/') + 1);
    const modifiedAt = Number.isFinite(row.mtimeMs) && row.mtimeMs > 0 ? new Date(row.mtimeMs).toISOString() : null;
    return { root, path: row.path, name, type: row.type, remoteId: row.remoteId, size: row.size, modifiedAt };
  }

  private async setPaused(paused: boolean): Promise<void> {
    this.requireClient();
    this.desktop = { ...this.desktop, paused };
    saveDesktopSettings(this.paths, this.desktop);
    for (const run of this.runs.values()) {
      if (paused) run.folder?.pause();
      else {
        this.pending.delete(run.root);
        void run.folder?.resume().catch(() => undefined);
      }
    }
    this.emitState();
    this.emit('settings', this.settings());
  }

  // -------------------------------------------------------------------------------------------------------------
  // Sharing and links

  private async peopleOfEntry(client: DriveClient, item: MirrorRow): Promise<Person[]> {
    // There is no "show entry" endpoint: the entry is found in its folder's listing (or by name at the root).
    const filter = item.parentId !== null ? { parentIds: [item.parentId], perPage: 200 } : { query: item.remoteName, perPage: 200 };
    for await (const entry of client.entries.list(filter)) {
      if (entry.id === item.remoteId) return peopleOf((entry as FileEntry).users as Parameters<typeof peopleOf>[0]);
    }
    return [];
  }

  private async shareWithList(arg: InvokeArg<'share:list-members'>): Promise<ListShareOutcome> {
    const { client, item } = this.resolve(arg);
    const listId = arg.listId.trim();
    const emails: string[] = [];
    let skipped = 0;
    for await (const subscriber of client.lists.subscribers(listId, 100)) {
      if (subscriber.status === 'subscribed' && subscriber.email) emails.push(subscriber.email);
      else skipped += 1;
    }
    const unique = [...new Set(emails)];
    if (unique.length === 0) {
      throw new HostError('invalid', `The list ${listId} has no subscribed members.`, { listId: 'This list has no subscribed members.' });
    }
    let people: Person[] = [];
    const unknown: string[] = [];
    for (let i = 0; i < unique.length; i += 50) {
      const result = await client.sharing.share(item.remoteId, unique.slice(i, i + 50), arg.permissions);
      people = peopleOf(result.users);
      unknown.push(...result.unknown);
    }
    rememberList(this.paths, this.account!, { id: listId, subscribers: unique.length, lastUsed: new Date(this.now()).toISOString() });
    return { listId, subscribed: unique.length, skipped, people, unknown };
  }

  private linkSettings(input: LinkInput): LinkSettings {
    const settings: LinkSettings = {
      allowDownload: input.allowDownload ?? true,
      allowEdit: input.allowEdit ?? false,
      expiresAt: null,
    };
    if (input.password !== undefined) settings.password = input.password === '' ? null : input.password;
    if (input.expiresAt) {
      const time = Date.parse(input.expiresAt);
      if (Number.isNaN(time)) throw new HostError('invalid', 'The expiry is not a date.', { expiresAt: 'Enter a date.' });
      if (time <= this.now()) throw new HostError('invalid', 'The expiry must be in the future.', { expiresAt: 'Choose a date in the future.' });
      settings.expiresAt = new Date(time).toISOString();
    }
    return settings;
  }

  private linkView(client: DriveClient, link: ShareableLink): LinkView {
    return {
      url: client.links.publicUrl(link),
      hasPassword: typeof link.password === 'string' && link.password !== '',
      expiresAt: link.expires_at ?? null,
      allowDownload: link.allow_download ?? true,
      allowEdit: link.allow_edit ?? false,
    };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Settings

  private settings(): Settings {
    const first = this.config.roots[0];
    let ignoreRules = '';
    if (first) {
      try {
        ignoreRules = readFileSync(join(first, IGNORE_FILE), 'utf8');
      } catch {
        // no rules
      }
    }
    return {
      folders: [...this.config.roots],
      pollIntervalSeconds: this.config.pollIntervalSeconds,
      concurrency: this.desktop.concurrency,
      bandwidthLimitKBps: this.desktop.bandwidthLimitKBps,
      ignoreRules,
      startAtLogin: this.desktop.startAtLogin,
      paused: this.desktop.paused,
    };
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

  private async changeSettings(changes: Partial<Settings>): Promise<Settings> {
    const config = this.readConfig();
    let restart = false;
    if (changes.folders !== undefined) {
      const folders = this.checkFolders(changes.folders);
      restart ||= folders.join('\n') !== config.roots.join('\n');
      config.roots = folders;
    }
    if (changes.pollIntervalSeconds !== undefined && changes.pollIntervalSeconds !== config.pollIntervalSeconds) {
      config.pollIntervalSeconds = changes.pollIntervalSeconds;
      restart = true;
    }
    const desktop = { ...this.desktop };
    if (changes.concurrency !== undefined && changes.concurrency !== desktop.concurrency) {
      desktop.concurrency = changes.concurrency;
      restart = true;
    }
    if (changes.bandwidthLimitKBps !== undefined) {
      desktop.bandwidthLimitKBps = changes.bandwidthLimitKBps;
      // Applied at once, to the transfers under way too.
      this.client?.http.bandwidth.set(bandwidthOf(desktop.bandwidthLimitKBps));
    }
    if (changes.startAtLogin !== undefined && changes.startAtLogin !== desktop.startAtLogin) {
      await this.options.platform.setStartAtLogin(changes.startAtLogin);
      desktop.startAtLogin = changes.startAtLogin;
    }
    saveConfig(this.paths, config);
    this.config = config;
    this.desktop = desktop;
    saveDesktopSettings(this.paths, desktop);
    if (changes.ignoreRules !== undefined) {
      const text = changes.ignoreRules.endsWith('\n') || changes.ignoreRules === '' ? changes.ignoreRules : `${changes.ignoreRules}\n`;
      for (const root of config.roots) {
        const file = join(root, IGNORE_FILE);
        if (text === '' && !existsSync(file)) continue;
        writeFileSync(file, text);
      }
    }
    if (restart && this.account) await this.restartFolders();
    if (changes.paused !== undefined && changes.paused !== this.desktop.paused && this.account) await this.setPaused(changes.paused);
    else if (changes.ignoreRules !== undefined) for (const run of this.runs.values()) this.fullSync(run);
    const settings = this.settings();
    this.emit('settings', settings);
    this.emitState();
    return settings;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Events

  private keep<T>(list: T[], item: T): void {
    list.unshift(item);
    if (list.length > MAX_KEPT) list.length = MAX_KEPT;
  }

  private notice(root: string | null, message: string): void {
    this.emit('notice', { at: new Date(this.now()).toISOString(), root, message });
  }

  private emitState(): void {
    this.emit('state', this.status());
  }

  /** Progress goes out at once when a transfer starts or ends, otherwise at most every `progressIntervalMs`. */
  private emitProgress(now: boolean): void {
    if (now) {
      if (this.progressTimer) clearTimeout(this.progressTimer);
      this.progressTimer = null;
      this.emit('progress', this.progress.snapshot());
      return;
    }
    this.progressTimer ??= setTimeout(() => {
      this.progressTimer = null;
      this.emit('progress', this.progress.snapshot());
    }, this.options.progressIntervalMs ?? 250);
  }

  /** Sign-in, sign-out, settings and start-up change the set of engines: one at a time. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** A refused sign-in says so once, in words, instead of the server's message both above the form and under a field. */
function wrongCredentials(error: unknown): never {
  if (error instanceof ApiError && (error.kind === 'invalid' || error.kind === 'unauthorized')) {
    throw new HostError(error.kind, 'The e-mail address or the password is not right. Check both and try again.');
  }
  throw error;
}

/** The window's one limit (KB/s, 0 for none) applies to uploads and downloads alike. */
function bandwidthOf(kilobytesPerSecond: number): { upBytesPerSecond: number; downBytesPerSecond: number } {
  const bytes = kilobytesPerSecond > 0 ? kilobytesPerSecond * 1024 : 0;
  return { upBytesPerSecond: bytes, downBytesPerSecond: bytes };
}
