/**
 * The local tree: a streamed full scan and a per-path refresh, both producing LocalItems keyed by relative path.
 * Symlinks are never followed; they are reported. The engine's own folder `.drivesync` is never part of the tree.
 */
import { createHash } from 'node:crypto';
import { createReadStream, lstatSync, readdirSync, type Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, parse, sep } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import ignore from 'ignore';
import { birthField, birthTimeOf } from '../model/birth.js';
import { parentOf } from '../model/names.js';
import { LocalTree } from '../trees/trees.js';
import type { LocalItem, RelPath } from '../model/types.js';
import { STATE_DIR } from './state-dir.js';
import { osReason } from '../../api/os-words.js';


/** Never uploaded: editors' lock and swap files, partial downloads, OS clutter. */
export const TEMP_PATTERNS = [
  '~$*',
  '.~lock.*',
  '*.swp',
  '*.tmp',
  '*.part',
  '*.crdownload',
  '.DS_Store',
  'Thumbs.db',
  'desktop.ini',
  `/${STATE_DIR}`,
];

export type IgnoreRule = (path: RelPath, type: LocalItem['type']) => boolean;

/** The temp-file patterns plus the user's `.syncignore` (gitignore syntax) at the root. */
export async function loadIgnoreRules(root: string): Promise<IgnoreRule> {
  let user = '';
  try {
    user = await readFile(join(root, '.syncignore'), 'utf8');
  } catch {
    // no .syncignore: only the built-in patterns apply
  }
  // `ignore` caches every answer (and its parent folders') for as long as the instance lives: on 100,000 files
  // that is ~18 MB kept while idle. A fresh instance every few thousand paths keeps the cache's speed-up for the
  // folders a scan is in, with bounded memory.
  const build = () => ignore().add(TEMP_PATTERNS).add(user);
  let rules = build();
  let answered = 0;
  return (path, type) => {
    if (path === '') return false;
    if (++answered > IGNORE_CACHE_PATHS) {
      rules = build();
      answered = 0;
    }
    return rules.ignores(type === 'folder' ? `${path}/` : path);
  };
}

const IGNORE_CACHE_PATHS = 4096;

export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export interface ScanResult {
  items: Map<RelPath, LocalItem>;
  symlinks: RelPath[];
  /** Names the ignore rules left out (temp files, `.syncignore`), at most IGNORED_LISTED of them, and how many in all. */
  ignored: { paths: RelPath[]; count: number };
  /** Paths that could not be read, with the reason. */
  /** With the item's inode where it could be read (a name that is not valid UTF-8 is still a file with an inode). */
  unreadable: Array<{ path: RelPath; reason: string; inode?: number }>;
}

export interface ScanOptions {
  isIgnored: IgnoreRule;
  /**
   * True for a file synced at this path whose size, mtime or inode changed: only its content is hashed, so the
   * planner can tell an edit from a touch.
   */
  needsHash: (item: LocalItem) => boolean;
  /**
   * True for a path synced now. An ignored name is skipped only when it is not synced: a temp-named file another
   * client uploaded was downloaded like any other, and must stay in the tree or it would look deleted here.
   */
  isSynced: (path: RelPath) => boolean;
  /** A folder's entry names (synchronously: see scanInto); readdirSync by default, a fault-injecting one in tests. */
  readDir?: (path: string) => string[];
  /** Looks at a path the watcher named (see FileSystem.lstat); lstatSync by default. */
  lstat?: (path: string) => Stats | undefined;
  /** A file's content hash (see FileSystem.hash); hashFile by default. */
  hash?: (path: string) => Promise<string>;
  /**
   * The volume finds a name by another spelling (case, Unicode normalisation): a path the watcher named is an item
   * only under the name its folder lists, or an item renamed in case only would be in the tree under both names.
   */
  foldsNames?: boolean;
  /**
   * NFC and NFD spellings are one name on the volume (macOS), which may list a name in either (HFS+ lists every name
   * decomposed, whatever made it): the tree has every name in NFC, the spelling the engine gives what it downloads,
   * so a file listed decomposed is not taken for a rename of the one downloaded.
   */
  normalises?: boolean;
}

const toNfc = (name: string): string => name.normalize('NFC');

/**
 * One path's item. The stat is synchronous: a scan is a long series of tiny stats, and the thread-pool round trip
 * of an async one costs several times the stat itself (a 100,000-file rescan went from ~3.5 s to under 1 s).
 * A path that vanished since its folder was read is null, without the cost of an exception.
 */
function describeSync(abs: string, path: RelPath, lstat?: ScanOptions['lstat']): LocalItem | 'symlink' | null {
  const stats = lstat ? lstat(abs) : lstatSync(abs, { throwIfNoEntry: false });
  if (stats === undefined) return null;
  if (stats.isSymbolicLink()) return 'symlink';
  if (!stats.isFile() && !stats.isDirectory()) return null;
  const type = stats.isDirectory() ? 'folder' : 'file';
  return { path, type, inode: stats.ino, size: type === 'file' ? stats.size : 0, mtimeMs: stats.mtimeMs, ...birthField(birthTimeOf(stats)) };
}

/** Hashes a file whose size, mtime or inode differ from its base, so the planner can tell an edit from a touch. */
async function withHash(item: LocalItem, abs: string, options: ScanOptions): Promise<LocalItem> {
  if (item.type === 'file' && options.needsHash(item)) item.hash = await (options.hash ?? hashFile)(abs);
  return item;
}

async function describe(abs: string, path: RelPath, options: ScanOptions, listings: Listings): Promise<LocalItem | 'symlink' | null> {
  const item = describeSync(abs, path, options.lstat);
  if (item === null || (options.foldsNames && !listedAsNamed(abs, options, listings))) return null;
  return item === 'symlink' ? item : withHash(item, abs, options);
}

/** Folders' names as listed, read once per refresh (a burst names many paths in one folder). */
type Listings = Map<string, ReadonlySet<string> | null>;

/** True when the folder holding `abs` lists its name spelled exactly so. */
function listedAsNamed(abs: string, options: ScanOptions, listings: Listings): boolean {
  const dir = dirname(abs);
  const spelling = options.normalises ? toNfc : (name: string) => name;
  let names = listings.get(dir);
  if (names === undefined) {
    const readDir = options.readDir ?? ((path: string) => readdirSync(path));
    try {
      names = new Set(readDir(dir).map(spelling));
    } catch {
      names = null;
    }
    listings.set(dir, names);
  }
  return names?.has(spelling(basename(abs))) ?? false;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Walks the whole tree below `root`, one directory at a time, giving the event loop a turn between them. */
export async function scanLocal(root: string, options: ScanOptions, previous?: ReadonlyMap<RelPath, LocalItem>): Promise<ScanResult> {
  const result: ScanResult = { items: new LocalTree(), symlinks: [], ignored: { paths: [], count: 0 }, unreadable: [] };
  await scanInto(root, '', options, result);
  if (previous) keepUnreadable(result, previous);
  return result;
}

/**
 * What could not be read this time (a folder that cannot be listed, a file that cannot be stat'ed or hashed)
 * stays as the tree last had it: missing from the tree, it would read as deleted, and be trashed remotely.
 */
function keepUnreadable(result: ScanResult, previous: ReadonlyMap<RelPath, LocalItem>): void {
  if (result.unreadable.length === 0) return;
  const unreadable = new Set(result.unreadable.map((u) => u.path));
  // An item renamed to a name that cannot be read is not deleted either: it stays where the tree had it.
  const inodes = new Set(result.unreadable.flatMap((u) => (u.inode === undefined ? [] : [u.inode])));
  if (inodes.size > 0) {
    for (const [path, item] of previous) if (inodes.has(item.inode) && !result.items.has(path)) unreadable.add(path);
  }
  for (const [path, item] of previous) {
    if ((unreadable.has(path) || below(path, unreadable)) && !result.items.has(path)) result.items.set(path, item);
  }
}

/**
 * The walk stats each entry by its name relative to its folder, made the working directory for the moment: the
 * kernel then resolves one path component instead of the whole path, which is most of a stat's cost on a deep tree
 * (`find` does the same with `fstatat`; Node has no `*at` calls). The working directory is restored before anything
 * else can run (no await in between); where it cannot be changed (a worker thread) or restored, absolute paths are
 * used. Paths are built by concatenation, not `path.join`, which on 100,000 entries costs more than the stats.
 */
async function scanInto(root: string, start: RelPath, options: ScanOptions, result: ScanResult): Promise<void> {
  let home = workingDirectory();
  const readDir = options.readDir ?? ((path: string) => readdirSync(path));
  const stack: RelPath[] = [start];
  const toHash: Array<{ item: LocalItem; name: string }> = [];
  const hash = options.hash ?? hashFile;
  while (stack.length > 0) {
    const dir = stack.pop()!;
    const dirAbs = dir === '' ? root : root + sep + (sep === '/' ? dir : dir.split('/').join(sep));
    let names: string[];
    try {
      names = readDir(dirAbs);
    } catch (error) {
      if (dir === '' && start === '') throw error; // the root itself must be readable
      result.unreadable.push({ path: dir, reason: osReason(error) });
      continue;
    }
    if (names.some((name) => name.includes('\uFFFD'))) names = withoutUndecodable(dirAbs, dir, names, result);
    const relative = home !== null && enter(dirAbs);
    try {
      for (const name of names) {
        if (dir === '' && name === STATE_DIR) continue;
        const key = options.normalises ? toNfc(name) : name;
        const path = dir === '' ? key : `${dir}/${key}`;
        try {
          // Where the folder could not be entered, its path (in the tree's spelling) is looked up through the port.
          const item = describeSync(relative ? name : dirAbs + sep + name, path, relative ? undefined : options.lstat);
          // Synced paths stay whatever their name (and a rescan of a synced tree asks the ignore rules nothing).
          if (item !== null && !options.isSynced(path) && options.isIgnored(path, item === 'symlink' ? 'file' : item.type)) {
            if (result.ignored.count++ < IGNORED_LISTED) result.ignored.paths.push(path);
            continue;
          }
          if (item === 'symlink') result.symlinks.push(path);
          else if (item) {
            if (item.type === 'file' && options.needsHash(item)) toHash.push({ item, name });
            else result.items.set(path, item);
            if (item.type === 'folder') stack.push(path);
          }
        } catch (error) {
          result.unreadable.push({ path, reason: osReason(error) });
        }
      }
    } finally {
      if (relative && !restore(home!)) home = null;
    }
    for (const { item, name } of toHash.splice(0)) {
      try {
        item.hash = await hash(dirAbs + sep + name);
        result.items.set(item.path, item);
      } catch (error) {
        // Gone since its folder was read: the next change event or scan says what happened.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') result.unreadable.push({ path: item.path, reason: osReason(error) });
      }
    }
    await yieldToLoop();
  }
}

/** Ignored paths a scan lists by name (it counts the rest): a user's ignore rules may leave out whole trees. */
export const IGNORED_LISTED = 200;

/**
 * A folder's names as bytes, to find those that are not valid UTF-8 (legacy-encoded names on Linux): a name read as
 * text has U+FFFD where the bytes did not decode and stats as missing, so such an item would be left out without a
 * word. Each is reported, with its bytes shown as \xNN, as something that cannot be synced; the rest go on.
 */
function withoutUndecodable(dirAbs: string, dir: RelPath, names: string[], result: ScanResult): string[] {
  let raw: Buffer[];
  try {
    raw = readdirSync(dirAbs, { encoding: 'buffer' });
  } catch {
    return names;
  }
  const bad = new Set<string>();
  for (const bytes of raw) {
    const text = bytes.toString('utf8');
    if (Buffer.from(text, 'utf8').equals(bytes)) continue;
    bad.add(text);
    const shown = readableName(bytes);
    result.unreadable.push({
      path: dir === '' ? shown : `${dir}/${shown}`,
      reason: 'its name is not valid UTF-8 (a name from an older system), so it is not synced; rename it to sync it',
      ...inodeOf(Buffer.concat([Buffer.from(dirAbs + sep), bytes])),
    });
  }
  return names.filter((name) => !bad.has(name));
}

/** The inode of a path given as bytes, if it can be read. */
function inodeOf(path: Buffer): { inode?: number } {
  try {
    return { inode: lstatSync(path).ino };
  } catch {
    return {};
  }
}

/** A name's bytes as text, with each byte that is not part of valid UTF-8 shown as \xNN. */
export function readableName(bytes: Buffer): string {
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const length = utf8Length(bytes, i);
    if (length > 0) {
      out += bytes.subarray(i, i + length).toString('utf8');
      i += length;
    } else {
      out += `\\x${bytes[i]!.toString(16).padStart(2, '0')}`;
      i++;
    }
  }
  return out;
}

/** The length of the valid UTF-8 sequence starting at `i`, or 0 if there is none. */
function utf8Length(bytes: Buffer, i: number): number {
  const first = bytes[i]!;
  const length = first < 0x80 ? 1 : first >= 0xc2 && first <= 0xdf ? 2 : first >= 0xe0 && first <= 0xef ? 3 : first >= 0xf0 && first <= 0xf4 ? 4 : 0;
  if (length <= 1 || i + length > bytes.length) return length === 1 ? 1 : 0;
  const chunk = bytes.subarray(i, i + length);
  return Buffer.from(chunk.toString('utf8'), 'utf8').equals(chunk) ? length : 0;
}

/** The process's working directory, or null where it cannot be changed and restored (a worker thread). */
function workingDirectory(): string | null {
  if (!isMainThread) return null;
  try {
    return process.cwd();
  } catch {
    return null; // the working directory was deleted
  }
}

/**
 * Back to the working directory the process had. If it was deleted meanwhile, the process leaves the sync folder
 * for the file system's root, and the walk goes on with absolute paths.
 */
function restore(home: string): boolean {
  try {
    process.chdir(home);
    return true;
  } catch {
    try {
      process.chdir(parse(home).root);
    } catch {
      // nowhere better to go; the walk still uses absolute paths from here on
    }
    return false;
  }
}

function enter(dir: string): boolean {
  try {
    process.chdir(dir);
    return true;
  } catch {
    return false;
  }
}

/** True when `path` lies strictly below one of `folders`. */
function below(path: RelPath, folders: ReadonlySet<RelPath>): boolean {
  for (let p = parentOf(path); p !== ''; p = parentOf(p)) if (folders.has(p)) return true;
  return false;
}

/**
 * Brings the tree up to date for paths the watcher named: each is stat'ed again; a folder is rescanned below;
 * a missing path drops out with everything below it.
 */
export async function refreshPaths(
  root: string,
  items: Map<RelPath, LocalItem>,
  paths: Iterable<RelPath>,
  options: ScanOptions,
): Promise<{ symlinks: RelPath[]; unreadable: ScanResult['unreadable'] }> {
  const symlinks: RelPath[] = [];
  const unreadable: ScanResult['unreadable'] = [];
  const fresh = new Map<RelPath, LocalItem | null>();
  const cleared = new Set<RelPath>(); // paths whose whole subtree is dropped (and rescanned if a folder)
  const listings: Listings = new Map();
  for (const named of new Set(paths)) {
    if (named === '' || named.split('/')[0] === STATE_DIR) continue;
    const path = options.normalises ? toNfc(named) : named;
    let item: LocalItem | 'symlink' | null = null;
    try {
      item = await describe(join(root, ...named.split('/')), path, options, listings);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        // Unreadable now, not gone: what the tree had stays.
        unreadable.push({ path, reason: osReason(error) });
        continue;
      }
      item = null;
    }
    if (item === 'symlink') symlinks.push(path);
    const kept = item !== null && item !== 'symlink' && (options.isSynced(path) || !options.isIgnored(path, item.type)) ? item : null;
    fresh.set(path, kept);
    if (kept === null || kept.type === 'folder' || items.get(path)?.type === 'folder') cleared.add(path);
  }
  const removed = new Map<RelPath, LocalItem>(); // what the folders' rescans replace, kept for what they cannot read
  if (cleared.size > 0) {
    for (const [key, value] of [...items]) {
      if (below(key, cleared)) {
        removed.set(key, value);
        items.delete(key);
      }
    }
  }
  for (const [path, item] of fresh) {
    if (below(path, cleared) && !cleared.has(path)) continue; // covered by its folder's rescan
    if (item === null) items.delete(path);
    else items.set(path, item);
  }
  for (const [path, item] of fresh) {
    if (item?.type !== 'folder' || below(path, cleared)) continue;
    const sub: ScanResult = { items: new Map(), symlinks: [], ignored: { paths: [], count: 0 }, unreadable: [] };
    await scanInto(root, path, options, sub);
    keepUnreadable(sub, removed);
    for (const [key, value] of sub.items) items.set(key, value);
    symlinks.push(...sub.symlinks);
    unreadable.push(...sub.unreadable);
  }
  return { symlinks, unreadable };
}
