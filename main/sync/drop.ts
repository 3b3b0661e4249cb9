/**
 * E1 carried out: the local copy of an excluded folder leaves this computer. Only synced items still as synced go,
 * each moved aside first (one rename: nothing saved from then on can go with it) and looked at there; what changed
 * meanwhile goes back and stays synced (the next pass uploads it, then drops it). Folders go once empty; a folder
 * that still holds something that is not synced (an ignored file, a file saved a moment ago) stays where it is, no
 * longer synced. Nothing goes to the OS trash: the drive holds every byte deleted.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Outcome } from './apply.js';
import { birthField, birthTimeOf, sameItem } from './birth.js';
import { FROM_FILE, STATE_DIR, TRASHING } from './state-dir.js';
import { baseName, isWithin } from './names.js';
import type { FileSystem, RandomId } from './ports.js';
import type { BaseItem, LocalItem, Operation, RelPath } from './types.js';


export interface DropContext {
  root: string;
  fs: FileSystem;
  randomId: RandomId;
  base: Iterable<BaseItem>;
  /** What the plan saw at each path. */
  local: ReadonlyMap<RelPath, LocalItem>;
  abs(path: RelPath): string;
  /** What the folder holds on disk now, as the scan sees it (ignored names left out), named as at `path`. */
  scanFolder?: (absolutePath: string, path: RelPath) => Promise<ReadonlyMap<RelPath, LocalItem>>;
}

/** The disk moved on since the plan (an item renamed, saved or added a moment ago): the next plan looks again. */
export class DropStaleError extends Error {}

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | null)?.code;

/** Still the item the plan saw (same item, type, size and time). */
function unchanged(seen: LocalItem | undefined, s: { isDirectory(): boolean; ino: number; size: number; mtimeMs: number; birthtimeMs?: number }): boolean {
  if (!seen || s.isDirectory() !== (seen.type === 'folder')) return false;
  if (!sameItem(seen, { inode: s.ino, ...birthField(birthTimeOf(s)) })) return false;
  return seen.type === 'folder' || (seen.size === s.size && seen.mtimeMs === s.mtimeMs);
}

/** Still the item the plan saw: its type, identity and (files) size and time. */
const sameAsSeen = (seen: LocalItem | undefined, now: LocalItem): boolean =>
  seen !== undefined && seen.type === now.type && sameItem(seen, now) && (now.type === 'folder' || (seen.size === now.size && seen.mtimeMs === now.mtimeMs));

export async function dropLocalCopy(ctx: DropContext, op: Extract<Operation, { kind: 'drop-local' }>): Promise<Outcome> {
  const members = [...ctx.base].filter((b) => isWithin(b.path, op.path));
  if (ctx.scanFolder) {
    // The copy as the plan saw it, or nothing goes: what moved, changed or appeared in it since is planned first (V3).
    const root = await ctx.fs.stat(ctx.abs(op.path)).catch(() => null);
    if (!root || !unchanged(ctx.local.get(op.path), root)) throw new DropStaleError(`${op.path} changed as it was about to leave this computer`);
    const now = root.isDirectory() ? await ctx.scanFolder(ctx.abs(op.path), op.path) : new Map<RelPath, LocalItem>();
    for (const [path, item] of now) {
      if (!sameAsSeen(ctx.local.get(path), item)) throw new DropStaleError(`${path} changed in a folder about to leave this computer`);
    }
    for (const m of members) {
      if (m.path !== op.path && ctx.local.has(m.path) && !now.has(m.path)) throw new DropStaleError(`${m.path} moved in a folder about to leave this computer`);
    }
  }
  const kept: RelPath[] = [];
  const gone: BaseItem[] = [];
  let freed = 0;
  for (const file of members.filter((m) => m.type === 'file')) {
    const seen = ctx.local.get(file.path);
    const staging = join(ctx.root, STATE_DIR, TRASHING, ctx.randomId());
    const aside = join(staging, baseName(file.path));
    try {
      const before = await ctx.fs.stat(ctx.abs(file.path));
      if (!unchanged(seen, before)) {
        kept.push(file.path);
        continue;
      }
      await ctx.fs.mkdir(staging, { recursive: true });
      await writeFile(join(staging, FROM_FILE), file.path);
      await ctx.fs.rename(ctx.abs(file.path), aside);
    } catch (error) {
      await ctx.fs.rm(staging, { recursive: true, force: true });
      // Gone already: nothing of it is here to keep.
      if (errorCode(error) === 'ENOENT') gone.push(file);
      else kept.push(file.path);
      continue;
    }
    const now = await ctx.fs.stat(aside).catch(() => null);
    if (now && unchanged(seen, now)) {
      await ctx.fs.rm(aside, { force: true });
      freed += now.size;
      gone.push(file);
    } else {
      // Changed in the moment it was moved: back where it was, unless something took its place (then the staging
      // folder keeps it, and the next start puts it back beside it).
      const taken = await ctx.fs.stat(ctx.abs(file.path)).then(() => true, () => false);
      if (taken) continue;
      await ctx.fs.rename(aside, ctx.abs(file.path));
      kept.push(file.path);
    }
    await ctx.fs.rm(staging, { recursive: true, force: true });
  }
  const folders = members.filter((m) => m.type === 'folder').sort((a, b) => b.path.length - a.path.length);
  const left: BaseItem[] = [];
  for (const folder of folders) {
    if (kept.some((path) => isWithin(path, folder.path))) continue;
    try {
      await (ctx.fs.rmdir ?? ((path: string) => ctx.fs.rm(path)))(ctx.abs(folder.path));
      gone.push(folder);
    } catch (error) {
      // Something that is not synced is in it: it stays, no longer synced.
      if (errorCode(error) === 'ENOENT') gone.push(folder);
      else left.push(folder);
    }
  }
  return { kind: 'dropped', path: op.path, remoteIds: [...gone, ...left].map((b) => b.remoteId), kept: [...kept, ...left.map((b) => b.path)], freed };
}
