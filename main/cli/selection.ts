/**
 * What the selective-sync commands share with `sync DIR --exclude`: the drive's folder tree as the command line lists
 * it, a folder found in it by path with the one-line failures, and `selectBeforeSync`.
 */
import { isPlacedFolder } from '../state/access.js';
import { canonicalPath, findRoot } from '../state/roots.js';
import { sharedFolderOf } from '../state/shared-folder.js';
import { loadDriveTree, saveSelection, selectionOf, withExcluded, type DriveFolder, type DriveTree } from '../state/selection.js';
import { CliError, failure } from './errors.js';
import { humanBytes, note, safe } from './output.js';
import type { Session as FullSession } from './session.js';

type Session = Pick<FullSession, 'paths' | 'config' | 'server' | 'client' | 'email'>;

/** A folder's size in words: bytes and files. */
export const size = (f: Pick<DriveFolder, 'bytes' | 'files'>) => `${humanBytes(f.bytes)}, ${f.files} file${f.files === 1 ? '' : 's'}`;

/** Where a synced folder keeps what others share with the account: its folders are in the drive tree too. */
export function sharedPlaceOf(session: Session, root: string | undefined) {
  const folder = root === undefined ? null : sharedFolderOf(session.config, root);
  return folder === null ? null : { folder, me: session.email };
}

export async function driveTree(session: Session, excluded: ReadonlySet<number>, root?: string): Promise<DriveTree> {
  try {
    return await loadDriveTree(session.client, excluded, undefined, sharedPlaceOf(session, root));
  } catch (error) {
    throw failure(error, session.server, 'cannot list the drive');
  }
}

/** The drive's folder at `rel`, or a one-line failure that says why there is none. */
export function folderAt(tree: DriveTree, rel: string, given: string): DriveFolder {
  const folder = tree.at(rel);
  if (folder && isPlacedFolder(folder.id)) {
    throw new CliError(`${given} is drivesync's own folder for what others share with you: exclude the shared folders in it, or turn it off (sharedWithMe in config.json, or the window's Settings)`);
  }
  if (folder) return folder;
  const parent = rel.includes('/') ? tree.at(rel.slice(0, rel.lastIndexOf('/'))) : undefined;
  const file = [...tree.remote.values()].some((r) => r.type === 'file' && (parent ? r.parentId === parent.id : r.parentId === null) && r.name === rel.slice(rel.lastIndexOf('/') + 1));
  if (file) throw new CliError(`${given} is a file; only folders are excluded (leave files out with a .syncignore line)`);
  throw new CliError(`${given}: no such folder on the drive`);
}

/**
 * `sync DIR --exclude PATH… --new-folders exclude|sync`: the selection set before the sync starts. PATH is inside DIR
 * (absolute, or relative to DIR) and names a folder of the drive, which is listed once to find it.
 */
export async function selectBeforeSync(
  session: Session,
  root: string,
  options: { exclude?: string[]; newFolders?: string },
): Promise<void> {
  if (options.newFolders !== undefined && options.newFolders !== 'exclude' && options.newFolders !== 'sync') {
    throw new CliError(`--new-folders takes exclude or sync (got ${options.newFolders})`, 2);
  }
  const given = options.exclude ?? [];
  let excluded = selectionOf(session.config, root).excluded;
  const added: DriveFolder[] = [];
  if (given.length > 0) {
    const tree = await driveTree(session, excluded, root);
    for (const path of given) {
      const abs = path.startsWith('/') ? canonicalPath(path) : canonicalPath(`${root}/${path}`);
      const found = findRoot([root], abs);
      if (!found || found.rel === '') throw new CliError(`--exclude ${path}: not a folder inside ${root}`, 2);
      const folder = folderAt(tree, found.rel, path);
      if (folder.excluded) continue;
      excluded = withExcluded(tree, excluded, folder.id);
      added.push(folder);
    }
  }
  if (added.length === 0 && options.newFolders === undefined) return;
  saveSelection(session.paths, root, (own) => {
    const next = { ...own, excluded: [...excluded] };
    if (options.newFolders === 'exclude') return { ...next, newFolders: 'exclude' as const };
    if (options.newFolders === 'sync') return { excluded: next.excluded };
    return next;
  });
  for (const f of added) note(`excluded ${safe(f.path)} (${size(f)} on the drive)`);
  if (options.newFolders === 'exclude') note('new folders made elsewhere are left out until included (drivesync include)');
  if (options.newFolders === 'sync') note('new folders made elsewhere are synced');
}

