/**
 * Looking before destroying: an item on its way out of the folder (to the OS trash, or deleted because the drive holds
 * it) is first moved aside into `.drivesync/trashing/ID/` — one rename, so nothing saved from then on can go with it —
 * and looked at there against what the plan saw; what changed goes back. `putBackStaged` (execute.ts) brings back
 * what an engine that stopped left there.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { birthField, birthTimeOf, sameItem } from '../model/birth.js';
import { baseName, joinPath, numberedName, parentOf } from '../model/names.js';
import type { FileStats, FileSystem, RandomId } from '../local/ports.js';
import { FROM_FILE, STATE_DIR, TRASHING } from '../local/state-dir.js';
import type { LocalItem, RelPath } from '../model/types.js';

/** What a stat says of the item at `path`, as the local tree holds it (no hash). */
export function itemOfStats(path: RelPath, s: FileStats): LocalItem {
  const type = s.isDirectory() ? 'folder' : 'file';
  return { path, type, inode: s.ino, size: type === 'file' ? s.size : 0, mtimeMs: s.mtimeMs, ...birthField(birthTimeOf(s)) };
}

/** Whether a local item is not the one the plan saw there (none, another item, or a file written since). */
export function changedSince(seen: LocalItem | undefined, now: LocalItem): boolean {
  if (!seen || seen.type !== now.type || !sameItem(seen, now)) return true;
  return now.type === 'file' && (seen.size !== now.size || seen.mtimeMs !== now.mtimeMs);
}

export interface AsideContext {
  root: string;
  fs: FileSystem;
  randomId: RandomId;
}

/** An item moved aside: where it is now, and the staging folder that holds it. */
export interface Aside {
  path: RelPath;
  staging: string;
  at: string;
}

const absolute = (root: string, path: RelPath) => join(root, ...path.split('/'));

/** Moves the item at `path` aside, writing where it came from first (should the engine stop before it is done). */
export async function moveAside(ctx: AsideContext, path: RelPath): Promise<Aside> {
  const staging = join(ctx.root, STATE_DIR, TRASHING, ctx.randomId());
  const at = join(staging, baseName(path));
  await ctx.fs.mkdir(staging, { recursive: true });
  await writeFile(join(staging, FROM_FILE), path);
  try {
    await ctx.fs.rename(absolute(ctx.root, path), at);
  } catch (error) {
    await ctx.fs.rm(staging, { recursive: true, force: true });
    throw error;
  }
  return { path, staging, at };
}

/** Back where it was; if its place was taken meanwhile, beside it under a free name (nothing is lost). */
export async function putBack(ctx: AsideContext, aside: Aside): Promise<RelPath> {
  const taken = (p: RelPath) => ctx.fs.stat(absolute(ctx.root, p)).then(() => true, () => false);
  let back = aside.path;
  for (let n = 2; await taken(back); n++) back = joinPath(parentOf(aside.path), numberedName(baseName(aside.path), n));
  await ctx.fs.rename(aside.at, absolute(ctx.root, back));
  await ctx.fs.rm(aside.staging, { recursive: true, force: true });
  return back;
}

/** Done with an item moved aside (it went to the OS trash, or was deleted). */
export async function clearAside(ctx: AsideContext, aside: Aside): Promise<void> {
  await ctx.fs.rm(aside.staging, { recursive: true, force: true });
}
