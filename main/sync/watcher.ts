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
import { parentOf } from './names.js';
import { systemClock, type Clock } from './ports.js';
import type { RelPath } from './types.js';

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
}

type Subscription = Awaited<ReturnType<NativeWatcher['subscribe']>>;

/** @parcel/watcher, loaded when first needed: a platform without its native part gets a clear error, not a crash. */
const parcelWatcher = async (): Promise<NativeWatcher> => (await import('@parcel/watcher')).default;

/**
 * The Linux backend watches each folder with inotify and misses two things: the subfolders of a folder moved in
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
export function createWatchTree(load: () => Promise<NativeWatcher> = parcelWatcher): WatchTree {
  return async (root, options) => {
    const stability = options.stabilityMs ?? 300;
    const clock = options.clock ?? systemClock;
    const pending = new Map<RelPath, { cancel: () => void; signature: string | null }>();
    const ready = new Set<RelPath>();
    /** Subscriptions of folders below the root (see `watchesPerFolder`), by path. */
    const folders = new Map<RelPath, { subscription: Promise<Subscription | null>; since: number }>();
    const subscriptions = new Set<Promise<Subscription | null>>();
    /** Changes seen and not yet looked at (stat, and a folder's subscription). */
    let looking = 0;
    /** Numbers each batch of events, so a folder's subscription knows which batches came before it. */
    let batch = 0;
    let cancelFlush: (() => void) | null = null;
    let closed = false;
    let failed = false;

    // FSEvents names paths under the real path of the root (/private/var for /var on macOS).
    const prefixes = [...new Set([resolve(root), realPath(root)])].map((p) => (p.endsWith(sep) ? p : p + sep));
    const relativeOf = (abs: string): RelPath | null => {
      for (const prefix of prefixes) {
        if (abs.startsWith(prefix)) {
          const path = abs.slice(prefix.length).split(sep).join('/');
          const top = path.split('/', 1)[0]!;
          return path === '' || options.ignoreDirs.includes(top) ? null : path;
        }
      }
      return null;
    };
    const absolute = (path: RelPath) => join(root, ...path.split('/'));

    /** Tells the user once; whatever still works goes on reporting. */
    const fail = (error: unknown) => {
      if (failed || closed) return;
      failed = true;
      options.onError(new Error(explainWatchError(error)), { fallback: 'rescan' });
    };

    const flush = () => {
      cancelFlush = null;
      if (closed || ready.size === 0) return;
      const paths = [...ready];
      ready.clear();
      options.onChange(paths);
    };
    const markReady = (path: RelPath) => {
      ready.add(path);
      cancelFlush ??= clock.after(20, flush);
    };
    const statOf = (path: RelPath) => lstat(absolute(path)).catch(() => null);
    const signatureOf = async (path: RelPath) => {
      const s = await statOf(path);
      return s && `${s.size}:${s.mtimeMs}`;
    };
    /** (Re)starts a path's quiet period; it is ready when size and mtime are the same at both ends of one. */
    const settle = (path: RelPath, signature: string | null) => {
      pending.get(path)?.cancel();
      const entry = {
        signature,
        cancel: clock.after(stability, async () => {
          const now = await signatureOf(path);
          if (pending.get(path) !== entry || closed) return;
          if (now === entry.signature) {
            pending.delete(path);
            markReady(path);
          } else settle(path, now); // still changing: another quiet period
        }),
      };
      pending.set(path, entry);
    };

    const native = await load().catch((error: unknown) => {
      fail(error);
      return null;
    });
    const subscribe = (dir: string): Promise<Subscription | null> => {
      const made = native!
        .subscribe(dir, onEvents, { ignore: dir === root ? [...options.ignoreDirs] : [] })
        .catch(async (error: unknown) => {
          subscriptions.delete(made);
          // A folder gone before it could be watched is reported as deleted; anything else is a failure.
          const gone = dir !== root && (await lstat(dir).catch(() => null)) === null;
          if (!gone) fail(error);
          return null;
        });
      subscriptions.add(made);
      return made;
    };
    const unsubscribe = async (made: Promise<Subscription | null>) => {
      subscriptions.delete(made);
      // The Linux backend refuses to remove a watch the kernel already dropped (its folder was deleted).
      await (await made)?.unsubscribe().catch(() => undefined);
    };

    /** Stops the subscriptions of a folder and of the folders below it (it was deleted or moved away). */
    const forget = (dir: RelPath) => {
      for (const [path, folder] of folders) {
        if (path === dir || isBelow(path, dir)) {
          folders.delete(path);
          void unsubscribe(folder.subscription);
        }
      }
    };
    /** Whether a subscription made after this batch arrived watches the folder and what is below it. */
    const covered = (dir: RelPath, seen: number) => {
      for (const [path, folder] of folders) if ((path === dir || isBelow(dir, path)) && folder.since > seen) return true;
      return false;
    };
    const watchFolder = async (dir: RelPath, seen: number) => {
      if (covered(dir, seen) || !(await hasSubfolder(absolute(dir))) || closed) return;
      forget(dir);
      const folder = { subscription: subscribe(absolute(dir)), since: ++batch };
      folders.set(dir, folder);
      await folder.subscription;
    };

    /** Folders are looked at one after another, parents first, so a parent's subscription covers its children. */
    let folderQueue: Promise<void> = Promise.resolve();
    const look = async (path: RelPath, seen: number) => {
      const stats = await statOf(path);
      if (closed) return;
      if (stats === null) {
        forget(path);
        // Below a folder that is gone too, the folder's own deletion (reported by its parent) says it all; and on
        // Linux such a path may be one a renamed folder had (its subfolders' watches keep the old paths).
        const parent = parentOf(path);
        if (parent !== '' && (await statOf(parent)) === null) return;
        // Deletions are reported at once.
        pending.get(path)?.cancel();
        pending.delete(path);
        markReady(path);
        return;
      }
      // A folder (new, moved in, or replaced) is reported, so the engine scans what it holds.
      if (stats.isDirectory() && watchesPerFolder) {
        const turn = folderQueue.then(() => watchFolder(path, seen));
        folderQueue = turn.catch(() => undefined);
        await turn;
      }
      settle(path, `${stats.size}:${stats.mtimeMs}`);
    };
    const changed = (path: RelPath, seen: number) => {
      looking++;
      void look(path, seen).finally(() => looking--);
    };

    function onEvents(error: Error | null, events: Array<{ path: string }>): void {
      if (closed) return;
      if (error) {
        // The backend stopped this subscription.
        fail(error);
        return;
      }
      const seen = ++batch;
      const paths = new Set<RelPath>();
      for (const event of events) {
        const path = relativeOf(event.path);
        if (path !== null) paths.add(path);
      }
      for (const path of [...paths].sort((a, b) => a.length - b.length)) changed(path, seen);
    }

    if (native !== null) {
      const main = subscribe(root);
      await main;
    }
    return {
      pending: () => pending.size + ready.size + looking,
      close: async () => {
        closed = true;
        for (const entry of pending.values()) entry.cancel();
        pending.clear();
        cancelFlush?.();
        folders.clear();
        await Promise.all([...subscriptions].map(unsubscribe));
      },
    };
  };
}

export const watchTree: WatchTree = createWatchTree();

const isBelow = (path: RelPath, dir: RelPath) => path.length > dir.length && path.startsWith(dir) && path[dir.length] === '/';

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
