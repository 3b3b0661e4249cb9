/**
 * E1 carried out: the local copy of an excluded folder leaves this computer. Only synced items still as synced go,
 * each moved aside first (one rename: nothing saved from then on can go with it) and looked at there; what changed
 * meanwhile goes back and stays synced (the next pass uploads it, then drops it). Folders go once empty; a folder
 * that still holds something that is not synced (an ignored file, a file saved a moment ago) stays where it is, no
 * longer synced. Nothing goes to the OS trash: the drive holds every byte deleted.
 */
import type { Outcome } from './apply.js';
import { changedSince, clearAside, itemOfStats, moveAside, putBack, type AsideContext } from './aside.js';
import { isWithin } from './names.js';
import type { BaseItem, LocalItem, Operation, RelPath } from './types.js';

export interface DropContext extends AsideContext {
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

export async function dropLocalCopy(ctx: DropContext, op: Extract<Operation, { kind: 'drop-local' }>): Promise<Outcome> {
  const members = [...ctx.base].filter((b) => isWithin(b.path, op.path));
  if (ctx.scanFolder) {
    // The copy as the plan saw it, or nothing goes: what moved, changed or appeared in it since is planned first (V3).
    const root = await ctx.fs.stat(ctx.abs(op.path)).catch(() => null);
    if (!root || changedSince(ctx.local.get(op.path), itemOfStats(op.path, root))) throw new DropStaleError(`${op.path} changed as it was about to leave this computer`);
    const now = root.isDirectory() ? await ctx.scanFolder(ctx.abs(op.path), op.path) : new Map<RelPath, LocalItem>();
    for (const [path, item] of now) {
      if (changedSince(ctx.local.get(path), item)) throw new DropStaleError(`${path} changed in a folder about to leave this computer`);
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
    let aside;
    try {
      if (changedSince(seen, itemOfStats(file.path, await ctx.fs.stat(ctx.abs(file.path))))) {
        kept.push(file.path);
        continue;
      }
      aside = await moveAside(ctx, file.path);
    } catch (error) {
      // Gone already: nothing of it is here to keep.
      if (errorCode(error) === 'ENOENT') gone.push(file);
      else kept.push(file.path);
      continue;
    }
    const now = await ctx.fs.stat(aside.at).catch(() => null);
    if (now && !changedSince(seen, itemOfStats(file.path, now))) {
      await ctx.fs.rm(aside.at, { force: true });
      await clearAside(ctx, aside);
      freed += now.size;
      gone.push(file);
    } else {
      // Changed in the moment it was moved: back where it was (beside it, should something have taken its place).
      kept.push(await putBack(ctx, aside));
    }
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
