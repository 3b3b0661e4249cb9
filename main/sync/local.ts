/**
 * The local tree: a streamed full scan and a per-path refresh, both producing LocalItems keyed by relative path.
 * Symlinks are never followed; they are reported. The engine's own folder `.drivesync` is never part of the tree.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, opendir, readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import ignore from 'ignore';
import { isWithin } from './names.js';
import type { BaseItem, LocalItem, RelPath } from './types.js';

export const STATE_DIR = '.drivesync';

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
  const rules = ignore().add(TEMP_PATTERNS);
  try {
    rules.add(await readFile(join(root, '.syncignore'), 'utf8'));
  } catch {
    // no .syncignore: only the built-in patterns apply
  }
  return (path, type) => path !== '' && rules.ignores(type === 'folder' ? `${path}/` : path);
}

export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export interface ScanResult {
  items: Map<RelPath, LocalItem>;
  symlinks: RelPath[];
  /** Paths that could not be read, with the reason. */
  unreadable: Array<{ path: RelPath; reason: string }>;
}

export interface ScanOptions {
  isIgnored: IgnoreRule;
  /** The base item last synced at a path, so content is hashed only where size, mtime or inode changed. */
  baseAt: (path: RelPath) => BaseItem | undefined;
}

const toRel = (parts: string[]) => parts.join('/');

async function describe(abs: string, path: RelPath, options: ScanOptions): Promise<LocalItem | 'symlink' | null> {
  const stats = await lstat(abs, { bigint: false });
  if (stats.isSymbolicLink()) return 'symlink';
  if (!stats.isFile() && !stats.isDirectory()) return null;
  const type = stats.isDirectory() ? 'folder' : 'file';
  const item: LocalItem = { path, type, inode: stats.ino, size: type === 'file' ? stats.size : 0, mtimeMs: stats.mtimeMs };
  if (type === 'file') {
    const base = options.baseAt(path);
    if (base && base.type === 'file' && (base.size !== item.size || base.mtimeMs !== item.mtimeMs || base.inode !== item.inode)) {
      item.hash = await hashFile(abs);
    }
  }
  return item;
}

/** Walks the whole tree below `root`, one directory handle at a time. */
export async function scanLocal(root: string, options: ScanOptions): Promise<ScanResult> {
  const result: ScanResult = { items: new Map(), symlinks: [], unreadable: [] };
  await scanInto(root, [], options, result);
  return result;
}

async function scanInto(root: string, prefix: string[], options: ScanOptions, result: ScanResult): Promise<void> {
  const dirAbs = prefix.length === 0 ? root : join(root, ...prefix);
  let dir;
  try {
    dir = await opendir(dirAbs);
  } catch (error) {
    if (prefix.length === 0) throw error; // the root itself must be readable
    result.unreadable.push({ path: toRel(prefix), reason: (error as Error).message });
    return;
  }
  const folders: string[][] = [];
  for await (const entry of dir) {
    if (entry.name.includes(sep) && sep !== '/') continue;
    const parts = [...prefix, entry.name];
    const path = toRel(parts);
    if (prefix.length === 0 && entry.name === STATE_DIR) continue;
    const type = entry.isDirectory() ? 'folder' : 'file';
    if (options.isIgnored(path, type)) continue;
    try {
      const item = await describe(join(dirAbs, entry.name), path, options);
      if (item === 'symlink') result.symlinks.push(path);
      else if (item) {
        result.items.set(path, item);
        if (item.type === 'folder') folders.push(parts);
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') result.unreadable.push({ path, reason: (error as Error).message });
    }
  }
  for (const parts of folders) await scanInto(root, parts, options, result);
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
): Promise<{ symlinks: RelPath[] }> {
  const symlinks: RelPath[] = [];
  const sorted = [...new Set(paths)].sort();
  for (const path of sorted) {
    if (path === '' || path.split('/')[0] === STATE_DIR) continue;
    let item: LocalItem | 'symlink' | null = null;
    try {
      item = await describe(join(root, ...path.split('/')), path, options);
    } catch {
      item = null;
    }
    const gone = item === null || item === 'symlink' || options.isIgnored(path, item.type);
    if (gone || (item !== 'symlink' && item !== null && item.type === 'file')) {
      for (const key of [...items.keys()]) if (isWithin(key, path) && key !== path) items.delete(key);
    }
    if (item === 'symlink') symlinks.push(path);
    if (gone || item === 'symlink' || item === null) {
      items.delete(path);
      continue;
    }
    items.set(path, item);
    if (item.type === 'folder') {
      for (const key of [...items.keys()]) if (key !== path && isWithin(key, path)) items.delete(key);
      const sub: ScanResult = { items: new Map(), symlinks: [], unreadable: [] };
      await scanInto(root, path.split('/'), options, sub);
      for (const [key, value] of sub.items) items.set(key, value);
      symlinks.push(...sub.symlinks);
    }
  }
  return { symlinks };
}
