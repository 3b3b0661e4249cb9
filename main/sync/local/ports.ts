/**
 * The file-system and randomness ports of the executor and the engine: what they do to the disk (the scan lists
 * folders through it, and stats on its own; watching has its own port) and the names they make up. Tests drive the real engine through
 * these with faults injected; the defaults are node:fs and node:crypto.
 */
import { randomUUID } from 'node:crypto';
import { lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { chmod, mkdir, rename, rm, rmdir, statfs, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashFile } from './scan.js';
import { LINUX_NAMES, type NameRules } from '../model/names.js';

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
  /** How the volume holding `dir` (an existing folder the engine may write in) compares names, and which it refuses. */
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

/** How a volume names items: what makes two names one on it (macOS and Windows fold case by default), what it refuses. */
export type VolumeTraits = NameRules;

/**
 * Asks the volume itself: a file made under one name is looked for under its upper-case and its NFD spelling, and
 * whether it takes Win32's refused characters. A volume that cannot be asked is taken as Linux's are, except that
 * Windows refuses its names on every volume.
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
    return {
      caseInsensitive: found(`${stem}A\u00e9`),
      normalisesUnicode: found(`${stem}ae\u0301`),
      windowsNames: await refusesWindowsNames(dir, stem),
    };
  } catch {
    return { ...LINUX_NAMES, windowsNames: process.platform === 'win32' };
  } finally {
    await rm(made, { force: true }).catch(() => undefined);
  }
}

/** Linux's `f_type` of the file systems that keep Win32's name rules: FAT (vfat, msdos), exFAT, NTFS (ntfs, ntfs3). */
const WINDOWS_FILE_SYSTEMS = new Set([0x4d44, 0x2011bab0, 0x5346544e]);

/**
 * Whether the volume holding `dir` (one the engine could just write in) has Win32's name rules: on Windows always; on
 * Linux a FAT, exFAT or NTFS file system says so; elsewhere (macOS's msdos and exfat, a FUSE mount such as ntfs-3g)
 * a name with `:` and `\` is made, and a volume that refuses or changes it has them.
 */
async function refusesWindowsNames(dir: string, stem: string): Promise<boolean> {
  // On Windows a `:` would name a stream of the file, not fail: the platform answers.
  if (process.platform === 'win32') return true;
  if (process.platform === 'linux' && WINDOWS_FILE_SYSTEMS.has(await fileSystemType(dir))) return true;
  const name = `${stem}a:b\\c`;
  try {
    await writeFile(join(dir, name), '', { flag: 'wx' });
  } catch {
    return true;
  }
  try {
    return !readdirSync(dir).includes(name);
  } finally {
    await rm(join(dir, name), { force: true }).catch(() => undefined);
  }
}

/** The file system's type number (statfs `f_type`); 0 when it cannot be read. */
async function fileSystemType(dir: string): Promise<number> {
  try {
    return (await statfs(dir)).type;
  } catch {
    return 0;
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

/** What the OS trash is told of an item besides where it is now. */
export interface TrashOptions {
  /** The absolute path the item had in the synced folder: where the trash's "Restore" puts it back. */
  originalPath: string;
}

/**
 * Moves an item to the OS trash. An item leaves the folder by way of `.drivesync/trashing/` (aside.ts), so `path` is
 * where it waits there and `options.originalPath` where it was.
 */
export type OsTrash = (path: string, options: TrashOptions) => Promise<void>;

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
