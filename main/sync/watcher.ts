/**
 * The Watcher port: tells the engine which local paths changed, each once it has stopped changing.
 *
 * The implementation holds one `fs.watch` per folder (an inotify watch of the folder's entries on Linux,
 * ReadDirectoryChangesW on Windows, FSEvents on macOS) and nothing per file. The engine already keeps the tree, so
 * the watcher only has to name paths. chokidar holds an `fs.watch` handle per file (~600 MB on 100,000 files) and
 * @parcel/watcher a native copy of the whole tree (~30 MB); Node 20's own recursive mode on Linux polls every file.
 */
import { watch, type FSWatcher } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock, type Clock } from './ports.js';
import type { RelPath } from './types.js';

export interface Watcher {
  /** Paths seen changing and not reported yet (still in their stability wait). */
  pending(): number;
  close(): Promise<void>;
}

export interface WatchOptions {
  /** Directory names below the root never reported (the engine's own state folder). */
  ignoreDirs: readonly string[];
  /** A changed file is reported once its size and mtime held still this long. */
  stabilityMs?: number;
  /** The timers of the stability wait; the system clock by default. */
  clock?: Clock;
  onChange(paths: RelPath[]): void;
  onError(error: Error): void;
}

export type WatchTree = (root: string, options: WatchOptions) => Promise<Watcher>;

const childPath = (dir: RelPath, name: string): RelPath => (dir === '' ? name : `${dir}/${name}`);
const absolute = (root: string, path: RelPath) => (path === '' ? root : join(root, ...path.split('/')));
const isBelow = (path: RelPath, dir: RelPath) => path.length > dir.length && path.startsWith(dir) && path[dir.length] === '/';

/** Reports paths in batches, each once it has stopped changing. */
export const watchTree: WatchTree = async (root, options) => {
  const stability = options.stabilityMs ?? 300;
  const clock = options.clock ?? systemClock;
  const pending = new Map<RelPath, { cancel: () => void; signature: string | null }>();
  const ready = new Set<RelPath>();
  /** The folders watched, by path ('' is the root). */
  const folders = new Map<RelPath, FSWatcher>();
  /** Changes seen whose stat has not answered yet. */
  let looking = 0;
  let cancelFlush: (() => void) | null = null;
  let closed = false;
  let limitReported = false;

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
  const statOf = (abs: string) => lstat(abs).catch(() => null);
  const signatureOf = async (abs: string) => {
    const s = await statOf(abs);
    return s && `${s.size}:${s.mtimeMs}`;
  };
  /** (Re)starts a path's quiet period; it is ready when size and mtime are the same at both ends of one. */
  const settle = (path: RelPath, signature: string | null) => {
    pending.get(path)?.cancel();
    const entry = {
      signature,
      cancel: clock.after(stability, async () => {
        const now = await signatureOf(absolute(root, path));
        if (pending.get(path) !== entry || closed) return;
        if (now === entry.signature) {
          pending.delete(path);
          markReady(path);
        } else settle(path, now); // still changing: another quiet period
      }),
    };
    pending.set(path, entry);
  };

  /** Stops watching a folder and everything below it (it was deleted or moved away). */
  const unwatch = (dir: RelPath) => {
    for (const [path, handle] of folders) {
      if (path === dir || isBelow(path, dir)) {
        handle.close();
        folders.delete(path);
      }
    }
  };

  /** Watches a folder and the folders below it; a failure below the root is left to the engine's scans. */
  const watchFolder = async (dir: RelPath): Promise<void> => {
    if (closed || folders.has(dir)) return;
    const abs = absolute(root, dir);
    let handle: FSWatcher;
    try {
      handle = watch(abs, { persistent: true }, (_event, name) => {
        if (closed) return;
        if (name === null) changed(dir); // the platform did not say which entry: the folder is looked at again
        else if (!(dir === '' && options.ignoreDirs.includes(name.toString()))) changed(childPath(dir, name.toString()));
      });
    } catch (error) {
      if (dir === '') throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'ENOSPC' || code === 'EMFILE') && !limitReported) {
        limitReported = true;
        options.onError(
          new Error(
            `the system allows no more folder watches (${code}); changes in some folders are found by the hourly rescan ` +
              '(on Linux, raise fs.inotify.max_user_watches)',
          ),
        );
      }
      return;
    }
    handle.on('error', (error) => {
      handle.close();
      if (folders.get(dir) === handle) folders.delete(dir);
      // A folder that went away reports an error on some platforms; its parent reports the deletion itself.
      if (dir === '' && !closed) options.onError(error);
    });
    folders.set(dir, handle);
    let entries;
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || (dir === '' && options.ignoreDirs.includes(entry.name))) continue;
      await watchFolder(childPath(dir, entry.name));
    }
  };

  /** An entry of a watched folder changed: created, written, deleted or renamed. */
  const changed = (path: RelPath) => {
    looking++;
    void statOf(absolute(root, path)).then(async (stats) => {
      try {
        await look(path, stats);
      } finally {
        looking--;
      }
    });
  };
  const look = async (path: RelPath, stats: Awaited<ReturnType<typeof statOf>>) => {
    if (closed) return;
    // A watched folder named by its parent may be gone, or another folder by now, even one with the same inode
    // number (a file system reuses a freed one at once), and a dead watch says nothing: its watches go, and a
    // folder there now is watched afresh.
    if (folders.has(path)) unwatch(path);
    if (stats === null) {
      // Deletions are reported at once.
      pending.get(path)?.cancel();
      pending.delete(path);
      markReady(path);
      return;
    }
    // A folder (new, moved in, or replaced) is watched and reported, so the engine scans what it holds.
    if (stats.isDirectory()) await watchFolder(path);
    settle(path, `${stats.size}:${stats.mtimeMs}`);
  };

  await watchFolder('');
  return {
    pending: () => pending.size + ready.size + looking,
    close: async () => {
      closed = true;
      for (const entry of pending.values()) entry.cancel();
      pending.clear();
      cancelFlush?.();
      for (const handle of folders.values()) handle.close();
      folders.clear();
    },
  };
};
