/**
 * A local path inside a synced folder turned into the remote entry it is synced with, through that folder's mirror
 * (read-only), with the command line's one-line failures when it cannot be.
 */
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { sep } from 'node:path';
import type { MirrorEntry, MirrorReader } from '../state/mirror-view.js';
import { canonicalPath, findRoot, rootOfAccount } from '../state/roots.js';
import type { StatePaths } from '../state/paths.js';
import { CliError } from './errors.js';

/**
 * Runs `read` on a read-only connection to a root's mirror; null when the root was never synced. The mirror's
 * module (and with it better-sqlite3) is loaded only by the commands that read one.
 */
export async function withMirror<T>(file: string, read: (mirror: MirrorReader) => T): Promise<T | null> {
  const { readMirror } = await import('../state/mirror-view.js');
  return readMirror(file, read);
}

export interface Located extends MirrorEntry {
  root: string;
  /** The path as the user gave it, for messages. */
  shown: string;
  /** Inside what others share with the account (the folder it arrives in is drivesync's own, not on the drive). */
  sharedWithMe: boolean;
  /** The entry shared with the account that this item is or is inside. */
  sharedTopId?: number;
}

/**
 * The synced folder a path given on the command line lies in, its path inside it and its absolute form; a one-line
 * failure when it lies in none, is the synced folder itself (`itself` says so), or has a name the engine does not sync.
 * Every command that takes a path inside a synced folder turns it into one here.
 */
export async function inSyncedFolder(roots: readonly string[], given: string, itself: string): Promise<{ root: string; rel: string; abs: string }> {
  const abs = canonicalPath(given);
  const found = findRoot(roots, abs);
  if (!found) {
    const list = roots.length === 0 ? 'no folder is synced yet: run drivesync sync DIR' : `synced folders: ${roots.join(', ')}`;
    throw new CliError(`${given} is not inside a synced folder (${list})`);
  }
  if (found.rel === '') throw new CliError(itself);
  await refuseUndecodable(given, abs);
  return { ...found, abs };
}

/**
 * A name that is not valid UTF-8 reaches the command with U+FFFD in it and names nothing as given: when it is such a
 * name on disk, the engine left it out (the drive cannot hold it), and that is what is said, not "no such file".
 */
async function refuseUndecodable(given: string, abs: string): Promise<void> {
  if (!abs.includes('\uFFFD') || existsSync(abs)) return;
  const { undecodableOnPath } = await import('../state/local-names.js');
  const found = undecodableOnPath(abs);
  if (!found) return;
  const shown = given.split(sep).map((name) => found.shown.get(name) ?? name).join(sep);
  const whose = found.last ? 'its name' : `the name ${found.name} on its path`;
  throw new CliError(`${shown} is not synced: ${whose} is not valid UTF-8, which the drive cannot hold; rename it`);
}

/** The remote entry a local path inside a synced root is synced with, or a one-line failure saying why not. */
export async function locate(
  paths: StatePaths,
  roots: readonly string[],
  server: string,
  email: string | undefined,
  given: string,
): Promise<Located> {
  const link = lstatSync(given, { throwIfNoEntry: false });
  if (link?.isSymbolicLink()) {
    throw new CliError(`${given} is a symbolic link, which drivesync does not sync (it has no entry on the drive): name what it points to, ${readlinkSync(given)}`);
  }
  const found = await inSyncedFolder(roots, given, `${given} is the synced folder itself; name a file or folder inside it`);
  const { mirror } = rootOfAccount(paths, found.root, server, email);
  const item = await withMirror(mirror, (reader) => {
    const at = reader.itemAt(found.rel);
    if (!at) return at;
    let shared = at.remoteId < 0;
    let top = at.remoteId;
    for (let parent = at.parentId, hops = 0; !shared && parent !== null && hops < 10_000; hops++) {
      if (parent < 0) shared = true;
      else {
        top = parent;
        parent = reader.itemById(parent)?.parentId ?? null;
      }
    }
    return { ...at, sharedWithMe: shared, ...(shared && at.remoteId >= 0 ? { sharedTopId: top } : {}) };
  });
  if (item === null) throw new CliError(`${found.root} has not been synced with this account yet: run drivesync sync ${found.root}`);
  if (!item) {
    const hint = existsSync(found.abs) ? `run drivesync sync ${found.root} first` : 'no such file or folder';
    throw new CliError(`${given} is not synced (${hint})`);
  }
  return { ...item, root: found.root, shown: given };
}

