/**
 * E1 carried out: the local copy of an excluded folder leaves this computer. Only synced items still as synced go,
 * each moved aside first (one rename: nothing saved from then on can go with it) and looked at there; what changed
 * meanwhile goes back and stays synced (the next pass uploads it, then drops it). Folders go once empty; a folder
 * that still holds something that is not synced (an ignored file, a file saved a moment ago) stays where it is, no
 * longer synced. A file is deleted, not moved to the OS trash, only when its hash is base's: the drive holds every byte
 * deleted.
 */
import { humanBytes } from '../../api/units.js';
import type { LeftHere, Outcome } from '../trees/apply.js';
import { changedSince, clearAside, itemOfStats, moveAside, putBack, type AsideContext } from './aside.js';
import { isWithin, joinPath } from '../model/names.js';
import type { OsTrash } from '../local/ports.js';
import type { BaseItem, LocalItem, Operation, RelPath } from '../model/types.js';

export interface DropContext extends AsideContext {
  base: Iterable<BaseItem>;
  /** What the plan saw at each path. */
  local: ReadonlyMap<RelPath, LocalItem>;
  abs(path: RelPath): string;
  /** What the folder holds on disk now, as the scan sees it (ignored names left out), named as at `path`. */
  scanFolder?: (absolutePath: string, path: RelPath) => Promise<ReadonlyMap<RelPath, LocalItem>>;
  /** The OS trash: where a file goes whose bytes are not the ones synced, although its size and time are. */
  trash?: OsTrash;
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
      // Deleted for good only on proof that the drive holds these bytes: their hash is base's, the hash of the bytes
      // synced. Bytes that differ although the size and time do not are not deleted: they go to the OS trash.
      const proven = file.hash !== null && (await ctx.fs.hash(aside.at)) === file.hash;
      if (proven || !ctx.trash) await ctx.fs.rm(aside.at, { force: true });
      else await ctx.trash(aside.at, { originalPath: ctx.abs(file.path) });
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
  const leftPaths = left.map((b) => b.path);
  const dropped = { kind: 'dropped' as const, path: op.path, remoteIds: [...gone, ...left].map((b) => b.remoteId), kept: [...kept, ...leftPaths], freed };
  return left.length === 0 ? dropped : { ...dropped, left: await leftHere(ctx, op.path, leftPaths) };
}

/**
 * What keeps the folders left: each holds, besides the folders left inside it, names the scan does not see (ignored
 * names, which E1 lets stay) or, saved as the copy left, something it would upload.
 */
async function leftHere(ctx: DropContext, root: RelPath, folders: RelPath[]): Promise<LeftHere> {
  const seen = ctx.scanFolder ? await ctx.scanFolder(ctx.abs(root), root) : new Map<RelPath, LocalItem>();
  const leftFolders = new Set(folders);
  const ignored: LeftHere['ignored'] = [];
  let other = 0;
  for (const folder of folders) {
    for (const name of namesIn(ctx, folder)) {
      const path = joinPath(folder, name);
      if (leftFolders.has(path)) continue;
      if (seen.has(path)) other++;
      else ignored.push({ path, folder: (await ctx.fs.stat(ctx.abs(path)).catch(() => null))?.isDirectory() ?? false });
    }
  }
  return { folders, ignored, other };
}

function namesIn(ctx: DropContext, folder: RelPath): string[] {
  try {
    return ctx.fs.readDir(ctx.abs(folder)).sort();
  } catch {
    return []; // gone meanwhile: nothing of it stays
  }
}

/** E1's notice: what left this computer, what it freed, and what stayed here and why (said once, as it happens). */
export function droppedNotice(outcome: Extract<Outcome, { kind: 'dropped' }>): string {
  const { left } = outcome;
  const parts = [`${outcome.path} is excluded: its copy here is removed (it stays on the drive), ${humanBytes(outcome.freed)} freed`];
  if (left && left.ignored.length > 0) parts.push(ignoredStayed(outcome.path, left));
  // Files changed as the copy left stay synced (the next pass uploads them, then they go); one saved meanwhile is new
  // here, in a folder no longer synced (E3 tells it).
  const notOnDrive = outcome.kept.length - (left?.folders.length ?? 0) + (left?.other ?? 0);
  if (notOnDrive > 0) parts.push(`${counted(notOnDrive, 'item')} not on the drive ${notOnDrive === 1 ? 'stays' : 'stay'} here`);
  return parts.join('; ');
}

function ignoredStayed(root: RelPath, left: LeftHere): string {
  const names = left.ignored.map((i) => i.path.slice(root.length + 1));
  const shown = names.slice(0, 3).join(', ') + (names.length > 3 ? ` and ${names.length - 3} more` : '');
  const kind = left.ignored.every((i) => !i.folder) ? 'file' : left.ignored.every((i) => i.folder) ? 'folder' : 'item';
  const folders = left.folders.length === 1 ? 'the folder stays' : `${left.folders.length} folders stay`;
  return `${counted(names.length, `ignored ${kind}`)} stayed on this computer (${shown}), so ${folders} too`;
}

const counted = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
