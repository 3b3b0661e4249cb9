/**
 * Other volumes' semantics over a real ext4 folder, through the engine's FileSystem port: what macOS (APFS, case- and
 * normalisation-insensitive, preserving) and Windows (NTFS through Win32: case-insensitive, its name rules, MAX_PATH,
 * files locked while open) do where Linux does otherwise. Names are stored on disk as they were first given, so the
 * watcher and the scan see them as those systems list them; every lookup finds a name the way the volume would.
 *
 * The "user" of a simulated volume writes, renames and deletes through `write`, `rename`, `remove` here, so a user
 * saving `CAFÉ.TXT` over `café.txt` edits that file, as on the real system.
 *
 * Inode numbers and birth times are the real folder's (every stat goes to it): a new file gets a new birth time, a
 * rename keeps it, and ext4 gives a freed inode number to the next file made, as the simulated systems' volumes do.
 */
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { hashFile } from '../../main/sync/local/scan.js';
import { moveToOsTrash } from '../../main/sync/execute/trash.js';
import type { FileSystem, TrashOptions, VolumeTraits } from '../../main/sync/local/ports.js';

export interface VolumeRules {
  /** Names that differ only by case are one name (macOS and Windows by default). */
  caseInsensitive?: boolean;
  /** Names that differ only by Unicode normalisation (NFC/NFD) are one name (macOS). */
  normalisationInsensitive?: boolean;
  /** Every name is stored, and listed, decomposed (NFD), whatever spelling made it (HFS+, macOS's older format). */
  storesNfd?: boolean;
  /**
   * Win32's name rules: `<>:"|?*` and control characters refused (ERROR_INVALID_NAME, which Node reports as ENOENT),
   * device names (`CON`, `NUL`, `COM1`, … with any extension) refused (EINVAL), trailing dots and spaces dropped from
   * every name given, as Win32 drops them.
   */
  windowsNames?: boolean;
  /** Longest absolute path, counted from a root of `C:\Users\someone\Drive` (MAX_PATH: 260); longer: ENOENT. */
  maxPath?: number;
}

export const MACOS: VolumeRules = { caseInsensitive: true, normalisationInsensitive: true };
export const HFS_PLUS: VolumeRules = { ...MACOS, storesNfd: true };
export const WINDOWS: VolumeRules = { caseInsensitive: true, windowsNames: true, maxPath: 260 };

/** The root a Windows user's sync folder would have: paths are measured from it. */
const WINDOWS_ROOT = 'C:\\Users\\someone\\Drive';

const DEVICE = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;
const INVALID = /[<>:"|?*\\\x00-\x1f]/;

const fail = (code: string, message: string): never => {
  throw Object.assign(new Error(`${code}: ${message}`), { code });
};

export class SimulatedVolume {
  /** Absolute paths (as stored on disk) open in another program: rename and unlink fail with EBUSY. */
  private readonly locked = new Set<string>();
  readonly fs: FileSystem;
  /** The folder the volume's rules apply to (set once its computer has made it). */
  root = '/nonexistent';

  constructor(readonly rules: VolumeRules) {
    const volume = this;
    const traits: VolumeTraits = { caseInsensitive: !!rules.caseInsensitive, normalisesUnicode: !!rules.normalisationInsensitive, windowsNames: !!rules.windowsNames };
    this.fs = {
      stat: async (path) => statSync(volume.existing(path, 'stat')),
      mkdir: async (path, options) => volume.mkdir(path, options?.recursive ?? false),
      rename: async (from, to) => volume.renameAbs(from, to),
      utimes: async (path, atime, mtime) => utimesSync(volume.existing(path, 'utime'), atime, mtime),
      rm: async (path, options) => volume.rm(path, options?.force ?? false),
      hash: async (path) => hashFile(volume.existing(path, 'open')),
      readDir: (path) => readdirSync(volume.existing(path, 'scandir')),
      lstat: (path) => {
        const { stored, exists } = volume.resolve(path);
        return exists ? lstatSync(stored) : undefined;
      },
      storedPath: (path) => volume.resolve(path).stored,
      volume: async () => traits,
    };
  }

  mount(root: string): this {
    this.root = root;
    return this;
  }

  /** The key two names are one name by on this volume. */
  private key(name: string): string {
    let key = this.rules.windowsNames ? name.replace(/[. ]+$/, '') : name;
    if (this.rules.normalisationInsensitive) key = key.normalize('NFC');
    if (this.rules.caseInsensitive) key = key.toLowerCase();
    return key;
  }

  /** The name stored in `dir` that `name` finds on this volume, if any. */
  private find(dir: string, name: string): string | undefined {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return undefined;
    }
    if (names.includes(name)) return name;
    const key = this.key(name);
    return names.find((n) => this.key(n) === key);
  }

  private inside(path: string): boolean {
    return path === this.root || path.startsWith(this.root + sep);
  }

  /**
   * The stored path `path` finds, component by component; the last component as given (made valid) when nothing
   * holds it yet. Paths outside the volume are their own.
   */
  private resolve(path: string): { stored: string; exists: boolean } {
    if (!this.inside(path) || path === this.root) return { stored: path, exists: true };
    const parts = relative(this.root, path).split(sep);
    let dir = this.root;
    for (const [i, part] of parts.entries()) {
      const found = this.find(dir, part);
      if (found === undefined) {
        const rest = parts.slice(i).map((p) => this.storedName(p));
        return { stored: join(dir, ...rest), exists: false };
      }
      dir = join(dir, found);
    }
    return { stored: dir, exists: true };
  }

  /** The name a new item given `name` is stored under. */
  private storedName(name: string): string {
    const kept = this.rules.windowsNames ? name.replace(/[. ]+$/, '') : name;
    return this.rules.storesNfd ? kept.normalize('NFD') : kept;
  }

  private existing(path: string, syscall: string): string {
    const { stored, exists } = this.resolve(path);
    if (!exists) fail('ENOENT', `no such file or directory, ${syscall} '${path}'`);
    return stored;
  }

  /** What Win32 says of a name or path it will not create. */
  private checkNew(path: string, syscall: string): void {
    if (!this.inside(path)) return;
    const name = basename(path);
    if (this.rules.windowsNames) {
      if (INVALID.test(name)) fail('ENOENT', `no such file or directory (the name is invalid), ${syscall} '${path}'`);
      if (DEVICE.test(name.replace(/[. ]+$/, ''))) fail('EINVAL', `invalid argument (a device name), ${syscall} '${path}'`);
    }
    if (this.rules.maxPath !== undefined && this.windowsLength(path) > this.rules.maxPath) {
      fail('ENOENT', `no such file or directory (the path is longer than ${this.rules.maxPath} characters), ${syscall} '${path}'`);
    }
  }

  /** The length the path would have under a Windows user's sync folder. */
  windowsLength(path: string): number {
    return WINDOWS_ROOT.length + (path === this.root ? 0 : 1 + relative(this.root, path).length);
  }

  private isLocked(stored: string): boolean {
    for (const path of this.locked) if (path === stored || path.startsWith(stored + sep)) return true;
    return false;
  }

  private mkdir(path: string, recursive: boolean): void {
    const { stored, exists } = this.resolve(path);
    if (exists) {
      if (recursive) return;
      fail('EEXIST', `file already exists, mkdir '${path}'`);
    }
    this.checkNew(path, 'mkdir');
    mkdirSync(stored, { recursive });
  }

  private renameAbs(from: string, to: string): void {
    const source = this.existing(from, 'rename');
    if (this.isLocked(source)) fail('EBUSY', `resource busy or locked, rename '${from}' -> '${to}'`);
    this.checkNew(to, 'rename');
    const target = this.resolve(to);
    const wanted = join(dirname(target.stored), this.storedName(basename(to)));
    if (target.exists && target.stored !== source) {
      // Onto another name the volume holds as the same: it is replaced, as rename(2) and MoveFileEx replace.
      if (this.isLocked(target.stored)) fail('EBUSY', `resource busy or locked, rename '${from}' -> '${to}'`);
      if (statSync(target.stored).isDirectory()) {
        if (readdirSync(target.stored).length > 0) fail('ENOTEMPTY', `directory not empty, rename '${from}' -> '${to}'`);
        rmSync(target.stored, { recursive: true });
      } else rmSync(target.stored);
    }
    // A case-only rename lands on the name given (the volume preserves case).
    renameSync(source, wanted);
  }

  private rm(path: string, force: boolean): void {
    const { stored, exists } = this.resolve(path);
    if (!exists) {
      if (force) return;
      fail('ENOENT', `no such file or directory, rm '${path}'`);
    }
    if (this.isLocked(stored)) fail('EBUSY', `resource busy or locked, rm '${path}'`);
    rmSync(stored, { recursive: true, force });
  }

  // --- the user of the volume, by paths relative to the root ------------------------------------------------------

  private abs(rel: string): string {
    return rel === '' ? this.root : join(this.root, ...rel.split('/'));
  }

  /** Writes a file as a program on that system would (an existing name found as the volume finds it). */
  write(rel: string, content: string): void {
    const { stored, exists } = this.resolve(this.abs(rel));
    if (!exists) this.checkNew(this.abs(rel), 'open');
    writeFileSync(stored, content);
  }

  mkdirUser(rel: string): void {
    this.mkdir(this.abs(rel), false);
  }

  rename(from: string, to: string): void {
    this.renameAbs(this.abs(from), this.abs(to));
  }

  /** A file opened by another program that shares neither delete nor rename (Windows' default). */
  lock(rel: string): void {
    this.locked.add(this.existing(this.abs(rel), 'open'));
  }

  unlock(rel: string): void {
    this.locked.delete(this.existing(this.abs(rel), 'open'));
  }

  /** The trash port on this volume: a locked item cannot be moved to the trash either. */
  async trash(path: string, options: TrashOptions): Promise<void> {
    const stored = this.existing(path, 'rename');
    if (this.isLocked(stored)) fail('EBUSY', `resource busy or locked, rename '${path}'`);
    await moveToOsTrash(stored, options);
  }
}
