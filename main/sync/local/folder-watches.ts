/**
 * The watcher's Linux backend: one inotify watch per folder through `fs.watch`, and nothing per file.
 *
 * @parcel/watcher's inotify backend keeps a native copy of the whole tree (~334 MB at 1,000,000 files, measured
 * with `npm run bench`, id `watch`), more than the engine's whole idle budget at that size; the engine already
 * keeps the tree, so the watcher only has to name paths. macOS (FSEvents) and Windows (ReadDirectoryChangesW, where
 * a watched folder locks its parent against rename) keep @parcel/watcher.
 *
 * It has the shape of @parcel/watcher's `subscribe` (the `NativeWatcher` port), and follows folders on its own:
 * a folder made, moved in or renamed is watched under its new path with everything below it, and the watches of one
 * deleted or moved away go.
 */
import { watch, type FSWatcher } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, sep } from 'node:path';

type WatchEvent = { path: string; type: 'create' | 'update' | 'delete' };
type Callback = (error: Error | null, events: WatchEvent[]) => unknown;

/** Watches of a tree's folders, by absolute path, with the inode each watch is on. */
class FolderWatches {
  private readonly folders = new Map<string, { handle: FSWatcher; inode: number }>();
  private batch: WatchEvent[] = [];
  private flushing = false;
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly ignore: ReadonlySet<string>,
    private readonly callback: Callback,
  ) {}

  /**
   * Watches `dir` and the folders below it, afresh where they were watched (a folder deleted and made again can get
   * the old one's inode number, and its old watch says nothing). The root's own watch failing is the subscription
   * failing.
   */
  async watchTree(dir: string, inode: number): Promise<void> {
    if (this.closed) return;
    this.forget(dir);
    let handle: FSWatcher;
    try {
      handle = watch(dir, { persistent: true }, (_event, name) => this.changed(dir, name === null ? null : name.toString()));
    } catch (error) {
      if (dir === this.root) throw error;
      // Gone meanwhile: its parent names it; anything else (the watch limit) is the backend failing here.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.callback(error as Error, []);
      return;
    }
    handle.on('error', () => {
      handle.close();
      if (this.folders.get(dir)?.handle === handle) this.folders.delete(dir);
    });
    this.folders.set(dir, { handle, inode });
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory() || (dir === this.root && this.ignore.has(entry.name))) continue;
      const path = join(dir, entry.name);
      const stats = await lstat(path).catch(() => null);
      if (stats?.isDirectory()) await this.watchTree(path, stats.ino);
    }
  }

  close(): void {
    this.closed = true;
    for (const { handle } of this.folders.values()) handle.close();
    this.folders.clear();
  }

  /** Stops the watches of a folder and of the folders below it. */
  private forget(dir: string): void {
    const below = dir + sep;
    for (const [path, { handle }] of this.folders) {
      if (path === dir || path.startsWith(below)) {
        handle.close();
        this.folders.delete(path);
      }
    }
  }

  /** An entry of a watched folder was made, written, deleted or renamed (null: the system did not say which). */
  private changed(dir: string, name: string | null): void {
    if (this.closed || (dir === this.root && name !== null && this.ignore.has(name))) return;
    const path = name === null ? dir : join(dir, name);
    void lstat(path)
      .catch(() => null)
      .then(async (stats) => {
        if (this.closed) return;
        const watched = this.folders.get(path);
        if (watched && (!stats?.isDirectory() || stats.ino !== watched.inode)) this.forget(path);
        if (stats?.isDirectory() && path !== dir) await this.watchTree(path, stats.ino);
        this.tell({ path, type: stats === null ? 'delete' : 'update' });
      });
  }

  /** Events of one turn of the event loop go out together, as @parcel/watcher batches them. */
  private tell(event: WatchEvent): void {
    this.batch.push(event);
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => {
      this.flushing = false;
      const events = this.batch;
      this.batch = [];
      if (!this.closed && events.length > 0) this.callback(null, events);
    });
  }
}

/** `subscribe` as @parcel/watcher has it; `ignore` holds names of folders at the top of `dir`. */
export const folderWatches = {
  followsFolders: true as const,
  async subscribe(dir: string, callback: Callback, options: { ignore?: string[] } = {}): Promise<{ unsubscribe(): Promise<void> }> {
    const watches = new FolderWatches(dir, new Set(options.ignore ?? []), callback);
    const stats = await lstat(dir);
    try {
      await watches.watchTree(dir, stats.ino);
    } catch (error) {
      watches.close();
      throw error;
    }
    return {
      unsubscribe: async () => watches.close(),
    };
  },
};
