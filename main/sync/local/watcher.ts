/**
 * The Watcher port: tells the engine which local paths changed, each once it has stopped changing.
 *
 * The implementation is @parcel/watcher (native: inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on
 * Windows; VS Code's watcher). On 100,000 files in 100 folders it is ready in about the time the hand-written
 * per-folder `fs.watch` watcher took, at the same memory (`npm run bench`, id `watch`); chokidar takes ten times as
 * long at two and a half times the memory, and per-folder `fs.watch` cannot work on Windows, where a watched
 * folder locks its parent against rename. What is left here is what the engine needs on top: relative paths, the
 * stability wait on the Clock port, and two gaps of the Linux backend closed (below).
 */
import { readdir, lstat } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { parentOf } from '../model/names.js';
import { systemClock, type Clock } from './ports.js';
import type { RelPath } from '../model/types.js';

export interface Watcher {
  /** Paths seen changing and not reported yet (still in their stability wait). */
  pending(): number;
  close(): Promise<void>;
}

/**
 * What a watcher's failure means for the engine. `fallback: 'rescan'`: from now on the watcher reports some changes
 * or none, so the engine must find local changes by scanning the folder periodically. Said once per watcher.
 */
export interface WatchFailure {
  fallback: 'rescan';
}

export interface WatchOptions {
  /** Directory names below the root never reported (the engine's own state folder). */
  ignoreDirs: readonly string[];
  /** A changed file is reported once its size and mtime held still this long. */
  stabilityMs?: number;
  /** The timers of the stability wait; the system clock by default. */
  clock?: Clock;
  onChange(paths: RelPath[]): void;
  /** A path seen changing, at once, before its stability wait (what the file manager shows as syncing). */
  onSeen?(path: RelPath): void;
  /** Every path seen changing has been reported (none waits to hold still or to be looked at): the folder is quiet. */
  onQuiet?(): void;
  /** A failure, as one sentence for the user; with `failure` when the engine must rescan instead. */
  onError(error: Error, failure?: WatchFailure): void;
}

export type WatchTree = (root: string, options: WatchOptions) => Promise<Watcher>;

/** The part of @parcel/watcher used here: a port, so a test can make a real watcher fail on demand. */
export interface NativeWatcher {
  subscribe(
    dir: string,
    callback: (error: Error | null, events: Array<{ path: string; type: 'create' | 'update' | 'delete' }>) => unknown,
    options?: { ignore?: string[] },
  ): Promise<{ unsubscribe(): Promise<void> }>;
  /** It watches folders made, moved in or renamed under their paths on its own (folder-watches.ts). */
  readonly followsFolders?: boolean;
}

type Subscription = Awaited<ReturnType<NativeWatcher['subscribe']>>;

/** @parcel/watcher, loaded when first needed: a platform without its native part gets a clear error, not a crash. */
export const parcelWatcher = async (): Promise<NativeWatcher> => (await import('@parcel/watcher')).default;

/** On Linux one inotify watch per folder and nothing per file (folder-watches.ts); elsewhere @parcel/watcher. */
const platformWatcher = async (): Promise<NativeWatcher> =>
  process.platform === 'linux' ? (await import('./folder-watches.js')).folderWatches : parcelWatcher();

/**
 * @parcel/watcher's Linux backend watches each folder with inotify and misses two things: the subfolders of a folder moved in
 * (only the folder itself gets a watch), and the subfolders of a renamed folder (their watches keep the old paths).
 * A folder reported with subfolders in it gets a subscription of its own, which watches what is below it under its
 * current path. macOS and Windows watch the whole tree natively, and there a second subscription on a subfolder
 * would only cost (on Windows it would also lock the folder against renames).
 */
const watchesPerFolder = process.platform !== 'darwin' && process.platform !== 'win32';

/** One sentence for the user: what failed, and what drivesync does instead. */
export function explainWatchError(error: unknown): string {
  const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  const instead = 'changes in the folder are found by rescanning it regularly instead';
  if (/no space left on device|ENOSPC/i.test(reason)) {
    return `the system allows no more folder watches; ${instead} (on Linux, raise fs.inotify.max_user_watches)`;
  }
  if (/too many open files|EMFILE/i.test(reason)) {
    return `the system allows no more file watchers; ${instead} (on Linux, raise fs.inotify.max_user_instances)`;
  }
  if (/no prebuild|cannot find module|could not be loaded/i.test(reason)) {
    return `the folder watcher could not be loaded on this system; ${instead}`;
  }
  return `watching the folder failed (${reason}); ${instead}`;
}

/** Reports paths in batches, each once it has stopped changing. */
export function createWatchTree(load: () => Promise<NativeWatcher> = platformWatcher): WatchTree {
  return async (root, options) => {
    const watch = new TreeWatch(root, options);
    await watch.start(load);
    return { pending: () => watch.pending(), close: () => watch.close() };
  };
}

/** One watched tree: the native events turned into looks at the paths they name. */
class TreeWatch {
  private readonly stable: StabilityWait;
  private readonly relativeOf: (abs: string) => RelPath | null;
  /** Null until the native watcher is loaded, and for good if it cannot be. */
  private subscriptions: Subscriptions | null = null;
  /** Changes seen and not yet looked at (stat, and a folder's subscription). */
  private looking = 0;
  private closed = false;
  private failed = false;
  /** The backend follows folders itself: no subscription of their own (see `watchesPerFolder`). */
  private followsFolders = false;

  constructor(
    private readonly root: string,
    private readonly options: WatchOptions,
  ) {
    this.stable = new StabilityWait(root, options.stabilityMs ?? 300, options.clock ?? systemClock, (paths) => {
      options.onChange(paths);
      this.quietNow();
    });
    this.relativeOf = relativeWithin(root, options.ignoreDirs);
  }

  async start(load: () => Promise<NativeWatcher>): Promise<void> {
    const native = await load().catch((error: unknown) => {
      this.fail(error);
      return null;
    });
    if (native === null) return;
    this.followsFolders = native.followsFolders === true;
    this.subscriptions = new Subscriptions(
      native,
      this.root,
      this.options.ignoreDirs,
      (error, events) => this.onEvents(error, events),
      (error) => this.fail(error),
    );
    await this.subscriptions.subscribe(this.root);
  }

  pending(): number {
    return this.stable.size() + this.looking;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stable.close();
    await this.subscriptions?.close();
  }

  /** Tells the user once; whatever still works goes on reporting. */
  private fail(error: unknown): void {
    if (this.failed || this.closed) return;
    this.failed = true;
    this.options.onError(new Error(explainWatchError(error)), { fallback: 'rescan' });
  }

  private onEvents(error: Error | null, events: Array<{ path: string }>): void {
    if (this.closed) return;
    if (error) {
      // The backend stopped this subscription.
      this.fail(error);
      return;
    }
    const seen = this.subscriptions!.nextBatch();
    const paths = new Set<RelPath>();
    for (const event of events) {
      const path = this.relativeOf(event.path);
      if (path !== null) paths.add(path);
    }
    for (const path of [...paths].sort((a, b) => a.length - b.length)) {
      this.looking++;
      void this.look(path, seen).finally(() => {
        this.looking--;
        this.quietNow();
      });
    }
  }

  /** Tells the engine when nothing is left to report: a pass waiting for the folder to be quiet goes on. */
  private quietNow(): void {
    if (!this.closed && this.pending() === 0) this.options.onQuiet?.();
  }

  private async look(path: RelPath, seen: number): Promise<void> {
    this.options.onSeen?.(path);
    const stats = await statAt(this.root, path);
    if (this.closed) return;
    if (stats === null) {
      this.subscriptions!.forget(path);
      // Below a folder that is gone too, the folder's own deletion (reported by its parent) says it all; and on
      // Linux such a path may be one a renamed folder had (its subfolders' watches keep the old paths).
      const parent = parentOf(path);
      if (parent !== '' && (await statAt(this.root, parent)) === null) return;
      this.stable.deleted(path);
      return;
    }
    // A folder (new, moved in, or replaced) is reported, so the engine scans what it holds.
    if (stats.isDirectory() && watchesPerFolder && !this.followsFolders) await this.subscriptions!.watchFolderInTurn(path, seen);
    this.stable.settle(path, `${stats.size}:${stats.mtimeMs}`);
  }
}

/**
 * The stability wait and the batching: a path is ready once its size and mtime held still for one quiet period, and
 * the paths ready are reported together shortly after the first of them.
 */
class StabilityWait {
  /** Paths in their quiet period, with the signature (size and mtime) seen when it started. */
  private readonly waiting = new Map<RelPath, { cancel: () => void; signature: string | null }>();
  private readonly ready = new Set<RelPath>();
  private cancelFlush: (() => void) | null = null;
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly stabilityMs: number,
    private readonly clock: Clock,
    private readonly onChange: (paths: RelPath[]) => void,
  ) {}

  size(): number {
    return this.waiting.size + this.ready.size;
  }

  /** (Re)starts a path's quiet period; it is ready when size and mtime are the same at both ends of one. */
  settle(path: RelPath, signature: string | null): void {
    this.waiting.get(path)?.cancel();
    const entry = {
      signature,
      cancel: this.clock.after(this.stabilityMs, async () => {
        const s = await statAt(this.root, path);
        const now = s && `${s.size}:${s.mtimeMs}`;
        if (this.waiting.get(path) !== entry || this.closed) return;
        if (now === entry.signature) {
          this.waiting.delete(path);
          this.markReady(path);
        } else this.settle(path, now); // still changing: another quiet period
      }),
    };
    this.waiting.set(path, entry);
  }

  /** Deletions are reported at once. */
  deleted(path: RelPath): void {
    this.waiting.get(path)?.cancel();
    this.waiting.delete(path);
    this.markReady(path);
  }

  close(): void {
    this.closed = true;
    for (const entry of this.waiting.values()) entry.cancel();
    this.waiting.clear();
    this.cancelFlush?.();
  }

  private markReady(path: RelPath): void {
    this.ready.add(path);
    this.cancelFlush ??= this.clock.after(20, () => this.flush());
  }

  private flush(): void {
    this.cancelFlush = null;
    if (this.closed || this.ready.size === 0) return;
    const paths = [...this.ready];
    this.ready.clear();
    this.onChange(paths);
  }
}

/** The native subscriptions: the root's, and on Linux those of folders below it (see `watchesPerFolder`). */
class Subscriptions {
  private readonly all = new Set<Promise<Subscription | null>>();
  /** Subscriptions of folders below the root, by path. */
  private readonly folders = new Map<RelPath, { subscription: Promise<Subscription | null>; since: number }>();
  /** Numbers each batch of events, so a folder's subscription knows which batches came before it. */
  private batch = 0;
  /** Folders are looked at one after another, parents first, so a parent's subscription covers its children. */
  private folderQueue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly native: NativeWatcher,
    private readonly root: string,
    private readonly ignoreDirs: readonly string[],
    private readonly onEvents: Parameters<NativeWatcher['subscribe']>[1],
    private readonly fail: (error: unknown) => void,
  ) {}

  nextBatch(): number {
    return ++this.batch;
  }

  subscribe(dir: string): Promise<Subscription | null> {
    const made = this.native
      .subscribe(dir, this.onEvents, { ignore: dir === this.root ? [...this.ignoreDirs] : [] })
      .catch(async (error: unknown) => {
        this.all.delete(made);
        // A folder gone before it could be watched is reported as deleted; anything else is a failure.
        const gone = dir !== this.root && (await lstat(dir).catch(() => null)) === null;
        if (!gone) this.fail(error);
        return null;
      });
    this.all.add(made);
    return made;
  }

  /** Stops the subscriptions of a folder and of the folders below it (it was deleted or moved away). */
  forget(dir: RelPath): void {
    for (const [path, folder] of this.folders) {
      if (path === dir || isBelow(path, dir)) {
        this.folders.delete(path);
        void this.unsubscribe(folder.subscription);
      }
    }
  }

  /** Gives a folder reported in batch `seen` a subscription of its own, after the folders reported before it. */
  async watchFolderInTurn(dir: RelPath, seen: number): Promise<void> {
    const turn = this.folderQueue.then(() => this.watchFolder(dir, seen));
    this.folderQueue = turn.catch(() => undefined);
    await turn;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.folders.clear();
    await Promise.all([...this.all].map((made) => this.unsubscribe(made)));
  }

  private async unsubscribe(made: Promise<Subscription | null>): Promise<void> {
    this.all.delete(made);
    // The Linux backend refuses to remove a watch the kernel already dropped (its folder was deleted).
    await (await made)?.unsubscribe().catch(() => undefined);
  }

  /** Whether a subscription made after this batch arrived watches the folder and what is below it. */
  private covered(dir: RelPath, seen: number): boolean {
    for (const [path, folder] of this.folders) if ((path === dir || isBelow(dir, path)) && folder.since > seen) return true;
    return false;
  }

  private async watchFolder(dir: RelPath, seen: number): Promise<void> {
    if (this.covered(dir, seen) || !(await hasSubfolder(absoluteIn(this.root, dir))) || this.closed) return;
    this.forget(dir);
    const folder = { subscription: this.subscribe(absoluteIn(this.root, dir)), since: ++this.batch };
    this.folders.set(dir, folder);
    await folder.subscription;
  }
}

export const watchTree: WatchTree = createWatchTree();

const isBelow = (path: RelPath, dir: RelPath) => path.length > dir.length && path.startsWith(dir) && path[dir.length] === '/';

/** The path of an absolute one relative to the root, or null for the root itself and what the engine ignores. */
function relativeWithin(root: string, ignoreDirs: readonly string[]): (abs: string) => RelPath | null {
  // FSEvents names paths under the real path of the root (/private/var for /var on macOS).
  const prefixes = [...new Set([resolve(root), realPath(root)])].map((p) => (p.endsWith(sep) ? p : p + sep));
  return (abs) => {
    for (const prefix of prefixes) {
      if (abs.startsWith(prefix)) {
        const path = abs.slice(prefix.length).split(sep).join('/');
        const top = path.split('/', 1)[0]!;
        return path === '' || ignoreDirs.includes(top) ? null : path;
      }
    }
    return null;
  };
}

const absoluteIn = (root: string, path: RelPath) => join(root, ...path.split('/'));

/** A path's stats, or null when it is gone or cannot be read. */
const statAt = (root: string, path: RelPath) => lstat(absoluteIn(root, path)).catch(() => null);

function realPath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

async function hasSubfolder(dir: string): Promise<boolean> {
  try {
    for (const entry of await readdir(dir, { withFileTypes: true })) if (entry.isDirectory()) return true;
  } catch {
    // Unreadable or gone: nothing below it can be watched.
  }
  return false;
}
