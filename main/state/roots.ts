/**
 * Synced folders ("roots"): their canonical form, the root a local path is in, a root's files under the state dir,
 * and the one check that a folder can be synced (it exists, is a folder, and is not nested in or around another).
 */
import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FolderRefused } from './errors.js';
import { mirrorFile, rootKey, type StatePaths } from './paths.js';

/** The absolute, symlink-free form of a path, also for one that does not exist (yet, or any more). */
export function canonicalPath(path: string): string {
  const abs = resolve(path);
  const rest: string[] = [];
  let dir = abs;
  for (;;) {
    try {
      const real = realpathSync(dir);
      return rest.length === 0 ? real : join(real, ...rest.reverse());
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return abs;
      rest.push(basename(dir));
      dir = parent;
    }
  }
}

/** The root `path` is in (the deepest one), with the path relative to it, '/'-separated ('' for the root). */
export function findRoot(roots: readonly string[], path: string): { root: string; rel: string } | null {
  let best: { root: string; rel: string } | null = null;
  for (const root of roots) {
    const rel = relative(root, path);
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) {
      if (!best || root.length > best.root.length) best = { root, rel: rel.split(sep).join('/') };
    }
  }
  return best;
}

export interface RootOfAccount {
  root: string;
  key: string;
  mirror: string;
}

export function rootOfAccount(paths: StatePaths, root: string, server: string, email: string | undefined): RootOfAccount {
  const key = rootKey(root, server, email);
  return { root, key, mirror: mirrorFile(paths, key) };
}

/** The other root `root` is nested in or around, if any (each root mirrors the whole drive: one must go). */
export function nestingOf(root: string, others: readonly string[]): { other: string; relation: 'inside' | 'contains' } | null {
  for (const other of others) {
    if (other === root) continue;
    if (findRoot([other], root)) return { other, relation: 'inside' };
    if (findRoot([root], other)) return { other, relation: 'contains' };
  }
  return null;
}

/**
 * Refuses (FolderRefused) a folder that cannot be synced: missing, not a folder, or nested with one of `others`.
 * `shown` names the folder as the person gave it.
 */
export function checkFolder(root: string, others: readonly string[], shown = root): void {
  let info;
  try {
    info = statSync(root);
  } catch {
    throw new FolderRefused(`${shown} does not exist; create the folder first`);
  }
  if (!info.isDirectory()) throw new FolderRefused(`${shown} is not a folder`);
  const nested = nestingOf(root, others);
  if (nested?.relation === 'inside') throw new FolderRefused(`${shown} is inside the synced folder ${nested.other}; sync one or the other`);
  if (nested) throw new FolderRefused(`${shown} contains the synced folder ${nested.other}; sync one or the other`);
}
