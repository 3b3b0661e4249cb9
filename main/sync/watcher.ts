/**
 * The Watcher port: tells the engine which local paths changed. The implementation uses @parcel/watcher
 * (inotify per directory on Linux, FSEvents, ReadDirectoryChangesW): chokidar holds one fs.watch handle per file,
 * which on 100,000 files cost about 600 MB of memory while idle.
 */
import { lstat } from 'node:fs/promises';
import { sep } from 'node:path';
import type { RelPath } from './types.js';

export interface Watcher {
  close(): Promise<void>;
}

export interface WatchOptions {
  /** Directory names below the root never reported (the engine's own state folder). */
  ignoreDirs: readonly string[];
  /** A changed file is reported once its size and mtime held still this long. */
  stabilityMs?: number;
  onChange(paths: RelPath[]): void;
  onError(error: Error): void;
}

export type WatchTree = (root: string, options: WatchOptions) => Promise<Watcher>;

/** Reports paths in batches, each once it has stopped changing. */
export const watchTree: WatchTree = async (root, options) => {
  const { subscribe } = await import('@parcel/watcher');
  const stability = options.stabilityMs ?? 300;
  const pending = new Map<RelPath, { timer: NodeJS.Timeout; signature: string | null }>();
  const ready = new Set<RelPath>();
  let flushTimer: NodeJS.Timeout | null = null;
  let closed = false;

  const flush = () => {
    flushTimer = null;
    if (closed || ready.size === 0) return;
    const paths = [...ready];
    ready.clear();
    options.onChange(paths);
  };
  const markReady = (path: RelPath) => {
    ready.add(path);
    flushTimer ??= setTimeout(flush, 20);
  };
  const signatureOf = async (abs: string) =>
    lstat(abs).then(
      (s) => `${s.size}:${s.mtimeMs}`,
      () => null,
    );
  /** (Re)starts a path's quiet period; it is ready when size and mtime are the same at both ends of one. */
  const settle = (path: RelPath, abs: string, signature: string | null) => {
    const entry = pending.get(path);
    if (entry) clearTimeout(entry.timer);
    const timer = setTimeout(async () => {
      const now = await signatureOf(abs);
      const current = pending.get(path);
      if (!current || current.timer !== timer || closed) return;
      if (now === current.signature) {
        pending.delete(path);
        markReady(path);
      } else settle(path, abs, now); // still changing: another quiet period
    }, stability);
    pending.set(path, { timer, signature });
  };
  const changed = (path: RelPath, abs: string) => {
    // The signature at event time starts the quiet period, so a finished write is reported after one period.
    void signatureOf(abs).then((signature) => {
      if (!closed) settle(path, abs, signature);
    });
  };

  const subscription = await subscribe(
    root,
    (error, events) => {
      if (error) {
        options.onError(error);
        return;
      }
      for (const event of events) {
        const rel = event.path.slice(root.length + 1).split(sep).join('/');
        if (rel === '' || options.ignoreDirs.includes(rel.split('/')[0]!)) continue;
        if (event.type === 'delete') {
          const entry = pending.get(rel);
          if (entry) clearTimeout(entry.timer);
          pending.delete(rel);
          markReady(rel);
        } else changed(rel, event.path);
      }
    },
    { ignore: options.ignoreDirs.map((d) => d) },
  );
  return {
    close: async () => {
      closed = true;
      for (const entry of pending.values()) clearTimeout(entry.timer);
      pending.clear();
      if (flushTimer) clearTimeout(flushTimer);
      await subscription.unsubscribe();
    },
  };
};
