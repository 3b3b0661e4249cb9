/**
 * The host's folders job: one open folder (main/state's openFolder) per synced folder of the account, started,
 * stopped and restarted together; sync now, the mass-delete answer, browsing a folder and opening it; and turning an
 * entry of the window (a folder and a path) into the remote entry it is synced with.
 */
import { join, normalize, sep } from 'node:path';
import type { DriveClient } from '../../api/client.js';
import { NotFoundError } from '../../api/errors.js';
import { listTrash, restoreEntries } from '../../api/versions.js';
import { ENTRY_PAGE_DEFAULT, ENTRY_PAGE_MAX, type EntryMarkers, type EntryRef, type SyncedEntry } from '../../contract/index.js';
import { FolderLocked, StateError } from '../../state/errors.js';
import { ElsewhereFolders } from './elsewhere.js';
import { previewFirstSync } from './preview.js';
import { openFolder, type OpenFolderOptions, type PassSummary, type SyncedFolder } from '../../state/folder.js';
import { rootOfAccount } from '../../state/roots.js';
import type { Config } from '../../state/config.js';
import { answerDeletions, controlOf, followConfig, forgetFolder, pauseFolders, resumeFolders } from '../../state/control.js';
import { bandwidthOf, type HandlersOf, type HostContext } from './context.js';
import type { Feed, FolderRun } from './feed.js';
import { HostError } from './failures.js';
import { entryMarkers, sharedMarkers } from './markers.js';
import { inSharedFolder, SharedWithMeList, sharedByOf } from './shared-with-me.js';
import { syncedChildrenOf, syncedItemAt, type MirrorEntry } from '../../state/mirror-view.js';

/** How a folder is opened: as usual, afresh (a merge), or settling what a check found. */
export type OpenHow = Pick<OpenFolderOptions, 'afresh' | 'settleChecked'>;
/** A folder opened and started: its first pass (null when it failed), wrapped so that it is not awaited with it. */
export interface Opened {
  first: Promise<PassSummary | null>;
}

export class Folders {
  readonly runs = new Map<string, FolderRun>();
  private feed!: Feed;
  private unfollow: (() => void) | null = null;
  /** Folders another process on this computer syncs: shown from its status file, taken over when it ends. */
  private readonly elsewhere: ElsewhereFolders;

  /** What others share with the account, as listed when the window last asked. */
  readonly shared: SharedWithMeList;

  constructor(private readonly host: HostContext) {
    this.shared = new SharedWithMeList(host);
    this.elsewhere = new ElsewhereFolders(host, () => this.feed, (run) => this.takeOver(run));
  }

  /** The feed the folders report to (made after the folders: it lists them). */
  reportTo(feed: Feed): void {
    this.feed = feed;
  }

  readonly handlers: HandlersOf<
    | 'sync:now'
    | 'sync:look'
    | 'deletions:answer'
    | 'trash:restore'
    | 'folders:afresh'
    | 'folders:preview'
    | 'entries:browse'
    | 'entries:markers'
    | 'shared:refresh'
    | 'entries:star'
    | 'folder:open'
    | 'file:open'
    | 'file:show'
    | 'folder:pick'
  > = {
    'sync:now': async () => {
      this.host.requireClient();
      // The user asked: a full local scan as well as a poll, so nothing a watcher may have missed is left out.
      this.syncAll();
    },
    'sync:look': async () => {
      for (const run of this.runs.values()) run.folder?.lookNow();
    },
    'deletions:answer': async ({ root, answer }) => {
      const run = this.require(root);
      const question = this.feed.pending.get(run.root);
      if (!question) throw new HostError('not-found', 'No deletion is waiting for an answer in that folder.');
      if (run.elsewhere !== undefined && answer !== 'later') {
        // The process that syncs the folder takes the answer up from the config (drivesync deletions does the same).
        this.feed.pending.delete(run.root);
        answerDeletions(this.host.paths, run.root, { answer, count: question.count });
      } else if (answer === 'later') {
        // A question never stops a sync: the deletions wait, the folder syncs on, and the window asks no more by
        // itself (its Status view offers the question again).
        question.later = true;
        this.host.notice(run.root, `The deletions in ${run.root} wait for your answer; everything else goes on syncing.`);
      } else {
        this.feed.pending.delete(run.root);
        if (answer === 'delete') run.folder?.confirmDeletions();
        else run.folder?.keepDeletions();
        this.fullSync(run);
      }
      this.feed.emitState();
    },
    'trash:restore': async ({ root, remoteIds }) => {
      const run = this.require(root);
      const client = this.host.requireClient();
      const ids = [...new Set(remoteIds)];
      try {
        // A folder comes back as it was deleted, without the earlier versions of the files in it.
        const types = new Map((await listTrash(client)).map((e) => [e.id, e.type]));
        await restoreEntries(client, ids.map((id) => ({ id, type: types.get(id) ?? 'file' })));
      } catch (error) {
        if (error instanceof NotFoundError) {
          throw new HostError('not-found', ids.length === 1 ? 'It is no longer in the drive’s trash (restored already, or deleted for good).' : 'Some of them are no longer in the drive’s trash (restored already, or deleted for good).');
        }
        throw error;
      }
      this.fullSync(run);
      return { restored: ids.length };
    },
    'folders:afresh': async ({ root }) => {
      // Opened again forgetting what was synced: the first pass merges, deleting nothing.
      await this.reopen(root, { afresh: true });
    },
    'folders:preview': async ({ root }) => previewFirstSync(this.host, root),
    'entries:browse': async ({ root, path, from = 0, count = ENTRY_PAGE_DEFAULT }) => {
      const run = this.require(root);
      // The page only, read in SQL with the folder's count: never the whole folder for a window of it.
      const page = syncedChildrenOf(run.mirror, path, { from, count: Math.min(count, ENTRY_PAGE_MAX) });
      const stateOf = run.folder ? (path: string) => run.folder!.pathState(path) : null;
      return { total: page.total, from, entries: page.entries.map((row) => ({ ...toEntry(run.root, row), ...(stateOf ? { state: stateOf(row.path) } : {}) })) };
    },
    'folder:open': async (arg) => {
      const root = arg.root ?? this.host.config.roots[0];
      if (!root) throw new HostError('not-synced', 'No folder is synced yet.');
      const run = this.require(root);
      await this.host.options.platform.openPath(this.insideRoot(run.root, arg.path ?? ''));
    },
    'entries:markers': async (ref) => {
      const client = this.host.requireClient();
      const run = this.require(ref.root);
      const config = this.host.readConfig();
      // Every child: the drive is asked about the folder as a whole (its listing, the starred listing).
      const rows = syncedChildrenOf(run.mirror, ref.path).entries;
      // What others share lies in the shared folder: its owners' folders are not the account's to list.
      const theirs = rows.filter((r) => inSharedFolder(config, run.root, r.path));
      const own = rows.filter((r) => !inSharedFolder(config, run.root, r.path));
      const markers = new Map<string, EntryMarkers>();
      if (theirs.length > 0) {
        let shared = sharedByOf(run.mirror, theirs.map((r) => r.path), await this.shared.tops());
        // Synced since the window last asked what is shared with the account: asked again, once.
        if (shared.unknown.length > 0) shared = sharedByOf(run.mirror, theirs.map((r) => r.path), await this.shared.tops(true));
        for (const m of await sharedMarkers(client, theirs, shared)) markers.set(m.path, m);
      }
      if (own.length > 0) {
        const parent = ref.path === '' ? null : syncedItemAt(run.mirror, ref.path);
        if (ref.path !== '' && !parent) throw new HostError('not-synced', `${ref.path} is not synced yet.`);
        for (const m of await entryMarkers(client, parent?.remoteId ?? null, own)) markers.set(m.path, m);
      }
      // Sparse: only what has a marker crosses to the window; a child left out has none.
      return rows.map((r) => markers.get(r.path)!).filter(hasMarker);
    },
    'shared:refresh': async () => this.shared.items(true),
    'entries:star': async (arg) => {
      const { client, item } = this.resolve(arg);
      if (arg.starred) await client.entries.star([item.remoteId]);
      else await client.entries.unstar([item.remoteId]);
    },
    'file:open': async (ref) => {
      const run = this.require(ref.root);
      await this.host.options.platform.openPath(this.insideRoot(run.root, ref.path));
    },
    'file:show': async (ref) => {
      const run = this.require(ref.root);
      const target = this.insideRoot(run.root, ref.path);
      const { platform } = this.host.options;
      if (platform.showItemInFolder) await platform.showItemInFolder(target);
      else await platform.openPath(this.insideRoot(run.root, ref.path.includes('/') ? ref.path.slice(0, ref.path.lastIndexOf('/')) : ''));
    },
    'folder:pick': async () => {
      const { platform } = this.host.options;
      if (!platform.pickFolder) throw new HostError('failed', 'This desktop has no folder picker: type the folder’s full path instead.');
      return (await platform.pickFolder()) ?? null;
    },
  };

  /** Opens every synced folder of the account. */

  /** The process that synced a folder ended: this window's engine opens it, if the window still lists it. */
  private async takeOver(run: FolderRun): Promise<void> {
    if (this.runs.get(run.root) !== run || this.host.disposed) return;
    this.runs.delete(run.root);
    await this.host.exclusive(async () => {
      if (!this.runs.has(run.root) && this.host.config.roots.includes(run.root)) await this.open(run.root);
    });
    this.feed.emitState();
  }

  async start(): Promise<void> {
    for (const root of this.host.config.roots) await this.open(root);
    // pause, resume and remove from the command line reach these engines through the config.
    this.unfollow ??= followConfig(this.host.paths, (config) => void this.host.exclusive(() => this.follow(config)));
    this.feed.emitState();
  }

  /** Closes every folder (its engine stops, its lock is released). */
  async stop(): Promise<void> {
    this.unfollow?.();
    this.unfollow = null;
    this.elsewhere.stop();
    const runs = [...this.runs.values()];
    this.runs.clear();
    await Promise.all(runs.map((run) => run.folder?.close().catch(() => undefined)));
    this.feed.idle();
  }

  async restart(): Promise<void> {
    await this.stop();
    this.feed.pending.clear();
    await this.start();
  }

  /** Pauses or resumes every folder; a resumed folder is asked its mass-delete question again if it still has one. */
  pause(paused: boolean): void {
    // Folders another process syncs are paused and resumed through the config, which that process follows.
    const others = [...this.runs.values()].filter((run) => run.elsewhere !== undefined).map((run) => run.root);
    if (others.length > 0 && paused) pauseFolders(this.host.paths, others, null);
    else if (others.length > 0) resumeFolders(this.host.paths, others);
    for (const run of this.runs.values()) {
      if (paused) run.folder?.pause();
      else {
        this.feed.pending.delete(run.root);
        void run.folder?.resume().catch(() => undefined);
      }
    }
  }

  /** Whether a folder is to be paused now: all of them by the window, or this one by `drivesync pause`. */
  pausedNow(root: string): boolean {
    return this.host.desktop.paused || controlOf(this.host.config, root).paused !== null;
  }

  /** Follows the config as another process changed it: folders paused, resumed or removed. */
  private async follow(config: Config): Promise<void> {
    if (this.host.disposed || !this.unfollow) return;
    const { paused: _, bandwidth: __, ...rest } = this.host.config;
    this.host.config = { ...rest, roots: config.roots, ...(config.paused ? { paused: config.paused } : {}), ...(config.bandwidth ? { bandwidth: config.bandwidth } : {}) };
    // A limit set from the command line (sync --limit-up) applies at once here too.
    this.host.client?.http.bandwidth.set(bandwidthOf(this.host.config, this.host.desktop));
    for (const run of [...this.runs.values()]) {
      const control = controlOf(this.host.config, run.root);
      if (control.removed) {
        this.runs.delete(run.root);
        await run.folder?.close().catch(() => undefined);
        const account = this.host.account;
        if (account) forgetFolder(this.host.paths, run.root, account.server, account.email);
        this.host.notice(run.root, `${run.root} is no longer synced; its files stay, here and on the drive.`);
        continue;
      }
      const paused = this.pausedNow(run.root);
      if (paused && run.folder?.state !== 'paused') run.folder?.pause();
      else if (!paused && run.folder?.state === 'paused') {
        this.feed.pending.delete(run.root);
        void run.folder.resume().catch(() => undefined);
      }
    }
    this.feed.emitState();
  }

  /** A full scan and listing of every folder. */
  syncAll(): void {
    for (const run of this.runs.values()) this.fullSync(run);
  }

  /** A synced folder of the account, or the failure saying it is not one. */
  require(root: string): FolderRun {
    this.host.requireClient();
    const run = this.runs.get(root);
    if (!run) throw new HostError('not-synced', `${root} is not a synced folder.`);
    return run;
  }

  /** The remote entry an entry of the window is synced with. */
  resolve(ref: EntryRef): { client: DriveClient; item: MirrorEntry } {
    const client = this.host.requireClient();
    const run = this.require(ref.root);
    if (ref.path === '') throw new HostError('invalid-argument', 'Name a file or folder inside the synced folder.');
    const item = syncedItemAt(run.mirror, ref.path);
    if (!item) throw new HostError('not-synced', `${ref.path} is not synced yet.`);
    return { client, item };
  }

  /** An absolute path inside a synced folder; never outside it. */
  insideRoot(root: string, path: string): string {
    const target = normalize(join(root, ...path.split('/')));
    if (target !== root && !target.startsWith(root.endsWith(sep) ? root : root + sep)) {
      throw new HostError('invalid-argument', 'The path leaves the synced folder.');
    }
    return target;
  }

  /**
   * Stops a folder's engine and opens it again as `how` says (its first pass does what it asks); answers that first
   * pass to be awaited or not, or null when the folder could not be opened (its status says why).
   */
  async reopen(root: string, how: OpenHow): Promise<Opened | null> {
    const run = this.require(root);
    await run.folder?.close().catch(() => undefined);
    this.runs.delete(root);
    const opened = await this.open(root, how);
    this.feed.emitState();
    return opened;
  }

  /** Opens a synced folder and starts it; answers its first pass, to be awaited or not (null when it did not open). */
  private async open(root: string, how: OpenHow = {}): Promise<Opened | null> {
    const { host } = this;
    if (host.disposed || !host.account || !host.client) return null;
    const { server, email } = host.account;
    const run: FolderRun = {
      root,
      // Known before the folder opens: a folder another process syncs can still be browsed and shared from here.
      mirror: rootOfAccount(host.paths, root, server, email).mirror,
      folder: null,
      status: { root, state: 'starting', detail: null, lastSync: null, synced: 0, inSync: null, skipped: 0, leftOut: [] },
    };
    this.runs.set(root, run);
    let folder: SyncedFolder;
    try {
      folder = await openFolder(root, {
        paths: host.paths,
        server,
        email,
        client: host.client,
        otherRoots: host.config.roots,
        pollIntervalMs: host.config.pollIntervalSeconds * 1000,
        concurrency: host.desktop.concurrency,
        ...(host.options.trash ? { trash: host.options.trash } : {}),
        ...(host.options.hostname ? { hostname: host.options.hostname } : {}),
        ...(how.afresh ? { afresh: true } : {}),
        ...(how.settleChecked ? { settleChecked: how.settleChecked } : {}),
      });
    } catch (error) {
      run.status.state = 'error';
      run.status.detail = error instanceof StateError ? error.message : `cannot open ${root}: ${(error as Error).message.split('\n')[0]}`;
      if (error instanceof FolderLocked) this.elsewhere.watch(run, server, email);
      return null;
    }
    if (this.runs.get(root) !== run) {
      // Stopped while it opened (sign-out, settings): it is not wanted any more.
      await folder.close().catch(() => undefined);
      return null;
    }
    run.folder = folder;
    run.status.synced = folder.syncedCount;
    this.feed.follow(run, folder, () => this.runs.get(run.root) === run && run.folder === folder);
    if (this.pausedNow(root)) folder.pause();
    const first = folder.start().catch((error: unknown) => {
      run.status.state = 'error';
      run.status.detail = (error as Error).message.split('\n')[0] ?? 'the engine stopped';
      this.feed.emitState();
      return null;
    });
    return { first };
  }

  /** Syncs a folder in full now: what was just changed on the drive for it comes here at once. */
  syncFolder(root: string): void {
    const run = this.runs.get(root);
    if (run) this.fullSync(run);
  }

  /** A full scan and listing; asked while a pass runs, the engine does it in one follow-up pass. */
  private fullSync(run: FolderRun): void {
    void run.folder?.syncOnce({ fullScan: true }).catch(() => undefined);
  }
}

/** Whether an entry shows any marker: what `entries:markers` answers. */
const hasMarker = (m: EntryMarkers): boolean => m.shared || m.starred || m.hasLink || m.sharedWithMe !== undefined || m.sharedFolder === true;

/** A synced item as the window shows it. */
export function toEntry(root: string, row: MirrorEntry): SyncedEntry {
  const name = row.path.slice(row.path.lastIndexOf('/') + 1);
  const modifiedAt = Number.isFinite(row.mtimeMs) && row.mtimeMs > 0 ? new Date(row.mtimeMs).toISOString() : null;
  return { root, path: row.path, name, type: row.type, remoteId: row.remoteId, size: row.size, modifiedAt };
}
