/**
 * The file-system and randomness ports of the executor and the engine: what they do to the disk (the scan lists
 * folders through it, and stats on its own; watching has its own port) and the names they make up. Tests drive the real engine through
 * these with faults injected; the defaults are node:fs and node:crypto.
 */
import { randomUUID } from 'node:crypto';
import { lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { chmod, mkdir, rename, rm, rmdir, statfs, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashFile } from './local.js';

export interface FileStats {
  isDirectory(): boolean;
  /** The device the item is on (a folder replaced by another on another disk has another). */
  dev?: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** 0 or missing: the file system does not say (birth.ts). */
  birthtimeMs?: number;
  /** The permission bits and type; missing where the file system does not say. */
  mode?: number;
}

export interface FileSystem {
  stat(path: string): Promise<FileStats>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<unknown>;
  rename(from: string, to: string): Promise<void>;
  utimes(path: string, atime: Date, mtime: Date): Promise<void>;
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  /** sha256 of the file's content, hex. */
  hash(path: string): Promise<string>;
  /** A folder's entry names, synchronously (the scan's hot path). */
  readDir(path: string): string[];
  /**
   * A path looked at without following a symbolic link, synchronously; undefined when nothing is there. Paths the
   * watcher names are looked at through it (on a volume that folds names it finds `A.TXT` for `a.txt`); the full
   * scan stats the names its folders list directly, for speed.
   */
  lstat?(path: string): Stats | undefined;
  /**
   * The path as the volume holds it, for what opens files outside the port (uploads go through the API client). A
   * real volume finds any spelling itself, so node's port has none; a simulated one maps the spelling.
   */
  storedPath?(path: string): string;
  /** How the volume holding `dir` (an existing folder the engine may write in) compares names. */
  volume?(dir: string): Promise<VolumeTraits>;
  /** Removes an empty folder; fails (ENOTEMPTY) when anything is in it. */
  rmdir?(path: string): Promise<void>;
  /** Bytes free for this user on the volume holding `dir`; undefined when the volume cannot tell. */
  freeBytes?(dir: string): Promise<number | undefined>;
  /** Sets a file's permission bits (a copy of what is shared with the account to view only loses its write bits). */
  chmod?(path: string, mode: number): Promise<void>;
}

/** Free bytes for an unprivileged user (what a download can use), from statfs. */
export async function volumeFreeBytes(dir: string): Promise<number | undefined> {
  try {
    const s = await statfs(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

/** How a volume compares names: what makes two names one on it (macOS and Windows fold case by default). */
export interface VolumeTraits {
  /** `a.txt` and `A.TXT` are one name. */
  caseInsensitive: boolean;
  /** `café` in NFC and in NFD are one name (macOS). */
  normalisesUnicode: boolean;
}

/**
 * Asks the volume itself: a file made under one name is looked for under its upper-case and its NFD spelling. A
 * volume that cannot be asked is taken as Linux's are (both false).
 */
export async function probeVolume(dir: string): Promise<VolumeTraits> {
  const stem = `.volume-probe-${randomUUID()}-`;
  const made = join(dir, `${stem}a\u00e9`);
  const found = (name: string) => {
    try {
      return statSync(join(dir, name)).isFile();
    } catch {
      return false;
    }
  };
  try {
    await writeFile(made, '');
    return { caseInsensitive: found(`${stem}A\u00e9`), normalisesUnicode: found(`${stem}ae\u0301`) };
  } catch {
    return { caseInsensitive: false, normalisesUnicode: false };
  } finally {
    await rm(made, { force: true }).catch(() => undefined);
  }
}

export const nodeFileSystem: FileSystem = {
  // A stat is synchronous (and answered through a promise): one thread-pool round trip costs several times the
  // stat itself, and the executor stats every file it uploads, downloads or moves.
  stat: async (path) => statSync(path),
  mkdir,
  rename,
  utimes,
  rm,
  hash: hashFile,
  readDir: (path) => readdirSync(path),
  lstat: (path) => lstatSync(path, { throwIfNoEntry: false }),
  volume: probeVolume,
  rmdir: (path) => rmdir(path),
  freeBytes: volumeFreeBytes,
  chmod,
};

/**
 * Time: what it is now, and timers. Every wait of the engine and the watcher (debounce, stability, holds, polls,
 * rescans, the wake check) goes through this port, so tests can run them on a virtual clock.
 */
export interface Clock {
  now(): Date;
  /** Calls `callback` once after `ms`; the function returned cancels it. */
  after(ms: number, callback: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  after: (ms, callback) => {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

/** A name no other call returns (temp files). */
export type RandomId = () => string;

export const randomId: RandomId = () => randomUUID();
